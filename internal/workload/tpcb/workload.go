package tpcb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

func init() { workload.Register(tpcb{}) }

type tpcb struct{}

func (tpcb) Info() workload.Info {
	return workload.Info{Name: "tpcb", Title: "pgbench-style TPC-B", Footprint: Footprint, Profile: true,
		Defaults:   map[string]string{"run.rampup": "0s", "max-retries": "0"},
		Shorthands: map[string]string{"vu": "c", "duration": "T", "progress": "P", "rate": "R"},
		Short:      "pgbench's TPC-B family (tpcb-like, simple-update, select-only) on every target",
		Long: `pgbench's workloads on SQLite, PostgreSQL, MySQL and MariaDB: prepare pgbench's four tables at a
scale (pgbench -i -s), run one of its built-in scripts from virtual users (pgbench -b/-N/-S), check the
balances, clean up. See docs/tpcb.md for the statements and how the figures relate to pgbench's.`,
		Help: map[string]string{
			"prepare": "Create pgbench's tables, load them in parallel, vacuum, add the primary keys (pgbench -i)",
			"run":     "Run one of pgbench's scripts for an exactly measured window; print TPS, latencies and pgbench's figures",
			"profile": "Run one pgbench script at each of a list of VU counts; mark the peak, saturation and bottleneck steps",
			"check":   "Check the balances: accounts total the history's deltas, tellers total the branches",
		}}
}

// PrepareSpec is prepare's options (pgbench -i's).
type PrepareSpec struct {
	Scale      int    `opt:"scale" short:"s" min:"1" default:"1" help:"scale factor: 100,000 accounts, 10 tellers and 1 branch each (about 15 MB); a complete schema of another scale is refused"`
	Fillfactor int    `opt:"fillfactor" short:"F" min:"10" max:"100" help:"fill factor of pgbench_accounts, _tellers and _branches (PostgreSQL only)"`
	Loaders    int    `opt:"loaders" min:"1" help:"parallel loaders (SQLite always uses 1)"`
	Seed       uint64 `opt:"seed" help:"accepted for symmetry with the other workloads; pgbench's initial data has nothing random, so it changes nothing"`
}

// RunSpec is run's and profile's options (pgbench's).
type RunSpec struct {
	Script   string `opt:"script" short:"b" help:"pgbench's built-in script: tpcb-like, simple-update, select-only (pgbench -b; -N is simple-update, -S select-only)"`
	Protocol string `opt:"protocol" short:"M" enum:"prepared,simple" help:"prepared (statements prepared once per connection) or simple (SQL text), as pgbench -M"`
	Scale    int    `opt:"scale" short:"s" min:"1" unset:"0" help:"the scale the data must have been prepared with (default: as prepared)"`
}

// Validate checks the script's name.
func (o *RunSpec) Validate(*workload.Engine) error {
	sc, err := FindScript(o.Script)
	if err != nil {
		return options.Errorf("script", o.Script, "unknown script (use %s)", options.JoinOr(ScriptNames()))
	}
	o.Script = sc.Name
	return nil
}

// CheckSpec is check's options: none.
type CheckSpec struct{}

func (tpcb) PrepareOptions() any { return &PrepareSpec{Fillfactor: 100, Loaders: runtime.NumCPU()} }
func (tpcb) RunOptions() any     { return &RunSpec{Script: "tpcb-like", Protocol: ProtoPrepared} }
func (tpcb) CheckOptions() any   { return &CheckSpec{} }

// Prepare runs pgbench -i's steps and prints, as pgbench does, each step's time at the end.
func (tpcb) Prepare(ctx context.Context, t target.Target, opts any, p workload.Preparing) error {
	o := opts.(*PrepareSpec)
	if o.Fillfactor != 100 && !t.Dialect().FillFactor {
		return options.Errorf("fillfactor", fmt.Sprint(o.Fillfactor), "%s has no per-table fill factor", t.Name())
	}
	loaders := o.Loaders
	if t.Dialect().SingleWriter {
		loaders = 1
	}
	scale := max(o.Scale, 1)
	var rows atomic.Int64
	// Step times as pgbench -i prints them: "done in 1.23 s (create tables 0.01 s, …)".
	var steps []string
	var stepName string
	stepStart := time.Now()
	endStep := func() {
		if stepName != "" {
			steps = append(steps, fmt.Sprintf("%s %.2f s", stepName, time.Since(stepStart).Seconds()))
		}
		stepStart = time.Now()
	}
	names := map[string]string{"tables": "create tables", "generate": "client-side generate"}
	meta, err := Prepare(ctx, t, PrepareOptions{Scale: o.Scale, Fillfactor: o.Fillfactor, Loaders: o.Loaders, Rows: &rows,
		Phase: func(ph string) {
			if stepName == names["generate"] {
				p.Loaded()
			}
			endStep()
			stepName = ph
			if n, ok := names[ph]; ok {
				stepName = n
			}
			switch ph {
			case "tables":
				p.Say("preparing tpcb: scale %d (%d accounts) on %s (%s), %s", scale, int64(scale)*AccountsPerScale,
					t.Name(), target.Where(t), workload.Plural(loaders, "loader"))
				p.Say("creating tables...")
			case "generate":
				p.Say("generating data (client-side)...")
				p.Load(ExpectedRows(scale), &rows)
			case "vacuum":
				p.Say("vacuuming...")
			case "primary keys":
				p.Say("creating primary keys...")
			case "analyze":
				p.Say("analyzing...")
			}
		}})
	p.Loaded()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		p.Say("%s already holds a complete tpcb schema of scale %d (prepared %s); nothing to do",
			target.Where(t), meta.Scale, meta.PreparedAt.Format(time.RFC3339))
		return err
	}
	if err != nil {
		return err
	}
	endStep()
	p.Say("done in %.2f s (%s); %d rows, %.0f rows/s overall", meta.LoadSeconds, strings.Join(steps, ", "),
		rows.Load(), float64(rows.Load())/meta.LoadSeconds)
	return nil
}

func (tpcb) Start(ctx context.Context, t target.Target, opts any, seed uint64) (*workload.Run, error) {
	o := opts.(*RunSpec)
	sc, err := FindScript(o.Script)
	if err != nil {
		return nil, options.Errorf("script", o.Script, "unknown script (use %s)", options.JoinOr(ScriptNames()))
	}
	meta, err := workload.ReadMeta[Meta](ctx, t, Footprint)
	if err != nil {
		return nil, err
	}
	if o.Scale != 0 && o.Scale != meta.Scale {
		return nil, options.Errorf("scale", fmt.Sprint(o.Scale), "does not match the prepared data at %s (scale %d): leave --scale out, or run 'cairn tpcb cleanup' and 'cairn tpcb prepare --scale %d'",
			target.Where(t), meta.Scale, o.Scale)
	}
	o.Scale = meta.Scale // the stored spec says what ran
	comp, err := Compile(t.Dialect(), sc)
	if err != nil {
		return nil, err
	}
	// pgbench's data has nothing random: its scale and fill factor make it again.
	data := meta.Stamp.Data(map[string]string{"scale": fmt.Sprint(meta.Scale), "fillfactor": fmt.Sprint(meta.Fillfactor)})
	return &workload.Run{Types: []string{sc.Name}, Data: data, Headline: workload.HeadlineClient, HeadlineName: "TPS", HeadlineUnit: "transactions per second", Statements: comp.Statements(),
		Mode: o.Protocol, Describe: fmt.Sprintf("%s, scale %d, %s protocol", sc.Name, meta.Scale, o.Protocol),
		NewVU: func(id int) (workload.VU, error) { return NewVU(id, comp, o.Protocol, meta.Scale, seed), nil },
		Finish: func(d *results.Document) {
			d.Extra = map[string]any{ExtraScale: meta.Scale, ExtraTxnType: sc.Desc, "fillfactor": meta.Fillfactor}
			if tx := d.Txns[sc.Name]; tx != nil && tx.Count > 0 {
				if h, err := hdrhistogram.Decode([]byte(d.Histograms[sc.Name])); err == nil {
					d.Extra[ExtraStddev] = round3(h.StdDev() / 1000)
				}
				if tx.ServiceMs != nil {
					// Latency runs from the intended start, service time from the actual one; the
					// difference of their means is the mean of pgbench's lag (actual minus scheduled start).
					d.Extra[ExtraLagMean] = round3(tx.LatencyMs.Mean - tx.ServiceMs.Mean)
				}
			}
			if sc.Name == "tpcb-like" && meta.Scale < d.VU {
				d.Notes = append(d.Notes, fmt.Sprintf("scale %d is below the %d VUs: tpcb-like transactions queue on the %d pgbench_branches rows (pgbench's documentation asks for a scale at least the number of clients)",
					meta.Scale, d.VU, meta.Scale*BranchesPerScale))
			}
		}}, nil
}

// Check prints the balances' totals and whether they add up.
func (tpcb) Check(ctx context.Context, t target.Target, _ any, w io.Writer) error {
	s, err := ReadSums(ctx, t)
	if err != nil {
		return err
	}
	mark := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	fmt.Fprintf(w, "%s  sum(abalance) %d = sum(delta) of %d history rows %d\n", mark(s.Accounts == s.History), s.Accounts, s.HistoryRows, s.History)
	fmt.Fprintf(w, "%s  sum(tbalance) %d = sum(bbalance) %d\n", mark(s.Tellers == s.Branches), s.Tellers, s.Branches)
	if !s.Consistent() {
		return &workload.CheckFailed{Msg: "the balances do not add up (pgbench truncates pgbench_history before its runs: after one, the first check fails)"}
	}
	fmt.Fprintln(w, "the balances add up")
	return nil
}

// Summary prints the run's figures in the words and order of pgbench's report (printResults in
// pgbench.c), for reading beside pgbench's own output, after the common summary. docs/tpcb.md
// says how they differ.
func (tpcb) Summary(w io.Writer, d *results.Document, e *workload.Engine, _ any) {
	tx := d.Main()
	secs := d.Window.ClientSeconds
	if tx == nil || secs <= 0 || e == nil {
		return
	}
	fmt.Fprintln(w, "\nas pgbench reports it:")
	if s, ok := d.Extra[ExtraTxnType].(string); ok {
		fmt.Fprintf(w, "transaction type: %s\n", s)
	}
	fmt.Fprintf(w, "scaling factor: %v\n", d.Extra[ExtraScale])
	fmt.Fprintf(w, "query mode: %s\n", d.Mode)
	fmt.Fprintf(w, "number of clients: %d\n", d.VU)
	fmt.Fprintf(w, "maximum number of tries: %d\n", e.MaxRetries+1)
	fmt.Fprintf(w, "duration: %.3f s (the measured window)\n", secs)
	fmt.Fprintf(w, "number of transactions actually processed: %d\n", tx.Count)
	total := tx.Count + tx.Errors + tx.Skipped
	pctOf := func(n, of int64) float64 {
		if of == 0 {
			return 0
		}
		return 100 * float64(n) / float64(of)
	}
	fmt.Fprintf(w, "number of failed transactions: %d (%.3f%%)\n", tx.Errors, pctOf(tx.Errors, total))
	if e.MaxRetries > 0 {
		fmt.Fprintf(w, "total number of retries: %d\n", tx.Retries)
	}
	if e.Rate > 0 && e.LatencyLimit > 0 {
		fmt.Fprintf(w, "number of transactions skipped: %d (%.3f%%)\n", tx.Skipped, pctOf(tx.Skipped, total))
	}
	if e.LatencyLimit > 0 {
		fmt.Fprintf(w, "number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)\n",
			float64(e.LatencyLimit)/float64(time.Millisecond), tx.Late, tx.Count, pctOf(tx.Late, tx.Count))
	}
	fmt.Fprintf(w, "latency average = %.3f ms\n", tx.LatencyMs.Mean)
	if sd, ok := d.Extra[ExtraStddev].(float64); ok {
		fmt.Fprintf(w, "latency stddev = %.3f ms\n", sd)
	}
	if lag, ok := d.Extra[ExtraLagMean].(float64); ok {
		fmt.Fprintf(w, "rate limit schedule lag: avg %.3f ms\n", lag)
	}
	if d.Result.TPS != nil {
		fmt.Fprintf(w, "tps = %f (without initial connection time)\n", *d.Result.TPS)
	}
}

func (tpcb) Replaces() bool { return false }

// ProgressLine is pgbench's -P line: transactions per second over the interval, mean latency and
// its standard deviation, failures; with a rate the mean schedule lag, with a rate and a latency
// limit the skipped transactions.
func (tpcb) ProgressLine(p event.Progress, _ any, rate, limit bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "progress: %.1f s", p.Elapsed.Seconds())
	switch p.Phase {
	case "rampup":
		b.WriteString(" (rampup)")
	case "window":
		fmt.Fprintf(&b, " (window %.1f s)", p.InWindow.Seconds())
	default:
		b.WriteString(" (end)")
	}
	tps := 0.0
	if p.Interval > 0 {
		tps = float64(p.Count) / p.Interval.Seconds()
	}
	fmt.Fprintf(&b, ", %.1f tps, lat %.3f ms stddev %.3f, %d failed", tps, p.MeanMs, p.StdDevMs, p.Errors)
	if rate {
		fmt.Fprintf(&b, ", lag %.3f ms", p.LagMs)
		if limit {
			fmt.Fprintf(&b, ", %d skipped", p.Skipped)
		}
	}
	if limit {
		fmt.Fprintf(&b, ", %d late", p.Late)
	}
	if p.Waits != "" { // cairn's, after pgbench's fields
		fmt.Fprintf(&b, ", waits %s", p.Waits)
	}
	return b.String()
}
