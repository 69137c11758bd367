package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/profile"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpcb"
)

func newTPCB(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tpcb",
		Short: "pgbench's TPC-B family (tpcb-like, simple-update, select-only) on every target",
		Long: `pgbench's workloads on SQLite, PostgreSQL, MySQL and MariaDB: prepare pgbench's four tables at a
scale (pgbench -i -s), run one of its built-in scripts from virtual users (pgbench -b/-N/-S), check the
balances, clean up. See docs/tpcb.md for the statements and how the figures relate to pgbench's.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newTPCBPrepare(stdout, stderr), newTPCBRun(stdout, stderr), newTPCBProfile(stdout, stderr),
		newTPCBCheck(stdout), newCleanup(stdout, tpcb.Footprint))
	return cmd
}

type tpcbPrepareFlags struct {
	db         string
	scale      int
	fillfactor int
	loaders    int
	seed       uint64
	scaleSet   bool // --scale was given: a complete schema of another scale is an error
}

func newTPCBPrepare(stdout, stderr io.Writer) *cobra.Command {
	var p tpcbPrepareFlags
	cmd := &cobra.Command{
		Use:   "prepare",
		Short: "Create pgbench's tables, load them in parallel, vacuum, add the primary keys (pgbench -i)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.scaleSet = cmd.Flags().Changed("scale")
			return doTPCBPrepare(cmd.Context(), &p, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.db, "db", "", "database URL: sqlite://FILE, postgres://user:pass@host:port/db, mysql://user:pass@host:port/db (default $CAIRN_DB, else sqlite://cairn.db)")
	f.IntVarP(&p.scale, "scale", "s", 1, "scale factor: 100,000 accounts, 10 tellers and 1 branch each (about 15 MB)")
	f.IntVarP(&p.fillfactor, "fillfactor", "F", 100, "fill factor of pgbench_accounts, _tellers and _branches (PostgreSQL only)")
	f.IntVar(&p.loaders, "loaders", runtime.NumCPU(), "parallel loaders (SQLite always uses 1)")
	f.Uint64Var(&p.seed, "seed", 0, "accepted for symmetry with the other workloads; pgbench's initial data has nothing random, so it changes nothing")
	return cmd
}

func doTPCBPrepare(ctx context.Context, p *tpcbPrepareFlags, stdout, stderr io.Writer) error {
	switch {
	case p.scale < 1:
		return target.Usagef("--scale %d: need at least 1", p.scale)
	case p.fillfactor < 10 || p.fillfactor > 100:
		return target.Usagef("--fillfactor %d: must be between 10 and 100", p.fillfactor)
	case p.loaders < 1:
		return target.Usagef("--loaders %d: need at least 1", p.loaders)
	}
	if p.db == "" {
		p.db = target.DefaultDB()
	}
	t, err := target.Open(ctx, p.db)
	if err != nil {
		return err
	}
	defer t.Close()
	if p.fillfactor != 100 && t.Dialect() != "postgres" {
		return target.Usagef("--fillfactor %d: only PostgreSQL has a per-table fill factor", p.fillfactor)
	}
	loaders := p.loaders
	if t.Dialect() == "sqlite" {
		loaders = 1
	}
	var rows atomic.Int64
	bar := newProgress(stderr, tpcb.ExpectedRows(p.scale), "generating")
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
	asked := 0
	if p.scaleSet {
		asked = p.scale
	}
	meta, err := tpcb.Prepare(ctx, t, tpcb.PrepareOptions{Scale: asked, Fillfactor: p.fillfactor, Loaders: p.loaders,
		Rows: &rows, CairnVersion: Version,
		Phase: func(ph string) {
			if stepName == names["generate"] {
				bar.finish()
			}
			endStep()
			stepName = ph
			if n, ok := names[ph]; ok {
				stepName = n
			}
			switch ph {
			case "tables":
				fmt.Fprintf(stdout, "preparing tpcb: scale %d (%d accounts) on %s (%s), %s\n", p.scale,
					int64(p.scale)*tpcb.AccountsPerScale, t.Name(), target.Where(t), plural(loaders, "loader"))
				fmt.Fprintln(stdout, "creating tables...")
			case "generate":
				fmt.Fprintln(stdout, "generating data (client-side)...")
				bar.start(&rows)
			case "vacuum":
				fmt.Fprintln(stdout, "vacuuming...")
			case "primary keys":
				fmt.Fprintln(stdout, "creating primary keys...")
			case "analyze":
				fmt.Fprintln(stdout, "analyzing...")
			}
		}})
	bar.finish()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		fmt.Fprintf(stdout, "%s already holds a complete tpcb schema of scale %d (prepared %s); nothing to do\n",
			target.Where(t), meta.Scale, meta.PreparedAt.Format(time.RFC3339))
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "cairn: prepare interrupted; the partial schema remains: run 'cairn tpcb cleanup' before preparing again")
			return errInterrupted
		}
		return err
	}
	endStep()
	fmt.Fprintf(stdout, "done in %.2f s (%s); %d rows, %.0f rows/s overall\n", meta.LoadSeconds, strings.Join(steps, ", "),
		rows.Load(), float64(rows.Load())/meta.LoadSeconds)
	return nil
}

type tpcbRunFlags struct {
	db           string
	script       string
	protocol     string
	vu           int
	rampup       time.Duration
	duration     time.Duration
	rate         float64
	latencyLimit time.Duration
	maxRetries   int
	progress     time.Duration
	seed         uint64
	scale        int
	jsonPath     string
	noStore      bool
	profile      profileFlags
}

// add adds the flags that run and profile share. The one-letter forms are pgbench's.
func (r *tpcbRunFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&r.db, "db", "", "database URL (default $CAIRN_DB, else sqlite://cairn.db)")
	f.StringVarP(&r.script, "script", "b", "tpcb-like", "pgbench's built-in script: "+strings.Join(tpcb.ScriptNames(), ", ")+" (pgbench -b; -N is simple-update, -S select-only)")
	f.StringVarP(&r.protocol, "protocol", "M", tpcb.ProtoPrepared, "prepared (statements prepared once per connection) or simple (SQL text), as pgbench -M")
	f.Var(durationFlag{&r.rampup}, "rampup", "time before the measured window (excluded from every figure; pgbench has none)")
	f.VarP(durationFlag{&r.duration}, "duration", "T", "length of the measured window")
	f.Float64VarP(&r.rate, "rate", "R", 0, "open loop: R transactions per second in total, latency from the intended start (pgbench -R)")
	f.Var(durationFlag{&r.latencyLimit}, "latency-limit", "count transactions slower than this (like 10ms) as late; with --rate, skip those already later (pgbench -L)")
	f.IntVar(&r.maxRetries, "max-retries", 0, "retries of a transaction after a deadlock or serialization failure (pgbench --max-tries minus 1)")
	f.VarP(durationFlag{&r.progress}, "progress", "P", "interval of the live progress lines (0 = none)")
	f.IntVarP(&r.scale, "scale", "s", 0, "the scale the data must have been prepared with (default: as prepared)")
	f.BoolVar(&r.noStore, "no-store", false, "do not record the result in the results store")
}

func newTPCBRun(stdout, stderr io.Writer) *cobra.Command {
	r := tpcbRunFlags{duration: time.Minute, progress: 5 * time.Second}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one of pgbench's scripts for an exactly measured window; print TPS, latencies and pgbench's figures",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return doTPCBRun(cmd, &r, stdout, stderr)
		},
	}
	r.add(cmd)
	f := cmd.Flags()
	f.IntVarP(&r.vu, "vu", "c", 4, "virtual users (pgbench's clients), each a goroutine with its own connection")
	f.Uint64Var(&r.seed, "seed", 0, "seed of the run's random inputs (default: random, printed)")
	f.StringVar(&r.jsonPath, "json", "", "write the result document to this file")
	return cmd
}

func (r *tpcbRunFlags) validate(cmd *cobra.Command) error {
	if _, err := tpcb.Validate(r.script, r.protocol, 0); err != nil {
		return err
	}
	switch {
	case cmd.Flags().Changed("scale") && r.scale < 1:
		return target.Usagef("--scale %d: need at least 1", r.scale)
	case r.vu < 1:
		return target.Usagef("--vu %d: need at least 1 virtual user", r.vu)
	case r.duration <= 0:
		return target.Usagef("--duration must be positive, like 2m")
	case r.rate < 0:
		return target.Usagef("--rate %g: must be positive (or 0 for closed loop)", r.rate)
	case r.maxRetries < 0:
		return target.Usagef("--max-retries %d: must be 0 or more", r.maxRetries)
	}
	if r.db == "" {
		r.db = target.DefaultDB()
	}
	return nil
}

func (r *tpcbRunFlags) config(vu int) tpcb.RunConfig {
	return tpcb.RunConfig{DB: target.Redact(r.db), Script: r.script, Protocol: r.protocol, VUs: vu,
		RampupSec: r.rampup.Seconds(), DurationSec: r.duration.Seconds(), Rate: r.rate,
		LatencyLimitMs: float64(r.latencyLimit) / float64(time.Millisecond), MaxRetries: r.maxRetries,
		ProgressSec: r.progress.Seconds(), Seed: r.seed, Scale: r.scale}
}

// runOnce runs the script once at vu virtual users with the given seed.
func (r *tpcbRunFlags) runOnce(ctx context.Context, t target.Target, vu int, seed uint64, stderr io.Writer) (*results.Document, error) {
	ecfg := run.Config{VUs: vu, Rampup: r.rampup, Duration: r.duration, Rate: r.rate, MaxRetries: r.maxRetries,
		Progress: r.progress, Seed: seed, LatencyLimit: r.latencyLimit}
	var onProgress func(run.Progress)
	if r.progress > 0 {
		onProgress = tpcbProgress(stderr, r.rate > 0, r.latencyLimit > 0)
	}
	return tpcb.Run(ctx, t, ecfg, r.config(vu), onProgress, Version)
}

func doTPCBRun(cmd *cobra.Command, r *tpcbRunFlags, stdout, stderr io.Writer) error {
	ctx := cmd.Context()
	if err := r.validate(cmd); err != nil {
		return err
	}
	// The store is opened first: a bad --results should fail before minutes of measuring.
	s, err := openSession(ctx, resultsPath(cmd), r.noStore, r.db, "tpcb")
	if err != nil {
		return err
	}
	defer s.Close()
	store, t := s.store, s.t
	// Check the schema and --scale before printing that a run starts.
	meta, err := tpcb.ReadMeta(ctx, t)
	if err != nil {
		return err
	}
	if r.seed == 0 {
		r.seed = randomSeed()
	}
	sc, _ := tpcb.FindScript(r.script)
	fmt.Fprintf(stdout, "running tpcb %s on %s (%s): scale %d, %s, %s protocol, rampup %s, window %s, seed %d\n",
		sc.Name, t.Name(), target.Where(t), meta.Scale, plural(r.vu, "VU"), r.protocol, r.rampup, r.duration, r.seed)
	doc, err := r.runOnce(ctx, t, r.vu, r.seed, stderr)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "cairn: interrupted before the run started")
			return errInterrupted
		}
		return err
	}
	err = finishRun(ctx, store, doc, r.jsonPath, stdout)
	printPgbench(stdout, doc, r)
	return err
}

// printPgbench prints the run's figures in the words and order of pgbench's report (printResults
// in pgbench.c), for reading beside pgbench's own output. docs/tpcb.md says how they differ.
func printPgbench(w io.Writer, d *results.Document, r *tpcbRunFlags) {
	tx := d.Main()
	secs := d.Window.ClientSeconds
	if tx == nil || secs <= 0 {
		return
	}
	fmt.Fprintln(w, "\nas pgbench reports it:")
	if s, ok := d.Extra[tpcb.ExtraTxnType].(string); ok {
		fmt.Fprintf(w, "transaction type: %s\n", s)
	}
	fmt.Fprintf(w, "scaling factor: %v\n", d.Extra[tpcb.ExtraScale])
	fmt.Fprintf(w, "query mode: %s\n", d.Mode)
	fmt.Fprintf(w, "number of clients: %d\n", d.VU)
	fmt.Fprintf(w, "maximum number of tries: %d\n", r.maxRetries+1)
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
	if r.maxRetries > 0 {
		fmt.Fprintf(w, "total number of retries: %d\n", tx.Retries)
	}
	if r.rate > 0 && r.latencyLimit > 0 {
		fmt.Fprintf(w, "number of transactions skipped: %d (%.3f%%)\n", tx.Skipped, pctOf(tx.Skipped, total))
	}
	if r.latencyLimit > 0 {
		fmt.Fprintf(w, "number of transactions above the %.1f ms latency limit: %d/%d (%.3f%%)\n",
			float64(r.latencyLimit)/float64(time.Millisecond), tx.Late, tx.Count, pctOf(tx.Late, tx.Count))
	}
	fmt.Fprintf(w, "latency average = %.3f ms\n", tx.LatencyMs.Mean)
	if sd, ok := d.Extra[tpcb.ExtraStddev].(float64); ok {
		fmt.Fprintf(w, "latency stddev = %.3f ms\n", sd)
	}
	if lag, ok := d.Extra[tpcb.ExtraLagMean].(float64); ok {
		fmt.Fprintf(w, "rate limit schedule lag: avg %.3f ms\n", lag)
	}
	if d.Result.TPS != nil {
		fmt.Fprintf(w, "tps = %f (without initial connection time)\n", *d.Result.TPS)
	}
}

// tpcbProgress prints a live line per interval in pgbench's -P form: transactions per second over
// the interval, mean latency and its standard deviation, failures; with --rate the mean schedule
// lag, with --rate and --latency-limit the skipped transactions.
func tpcbProgress(w io.Writer, rate, limit bool) func(run.Progress) {
	var last time.Duration
	return func(p run.Progress) {
		iv := (p.Elapsed - last).Seconds()
		last = p.Elapsed
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
		tot := p.Set.Total()
		tps := 0.0
		if iv > 0 {
			tps = float64(tot.Count) / iv
		}
		var lat, sd, lag float64
		if len(p.Set.Lat) > 0 && p.Set.Lat[0].TotalCount() > 0 {
			lat, sd = p.Set.Lat[0].Mean()/1000, p.Set.Lat[0].StdDev()/1000
			if rate && len(p.Set.Svc) > 0 {
				lag = lat - p.Set.Svc[0].Mean()/1000
			}
		}
		fmt.Fprintf(&b, ", %.1f tps, lat %.3f ms stddev %.3f, %d failed", tps, lat, sd, p.Errors)
		if rate {
			fmt.Fprintf(&b, ", lag %.3f ms", lag)
			if limit {
				fmt.Fprintf(&b, ", %d skipped", tot.Skipped)
			}
		}
		if limit {
			fmt.Fprintf(&b, ", %d late", tot.Late)
		}
		b.WriteByte('\n')
		io.WriteString(w, b.String())
	}
}

func newTPCBProfile(stdout, stderr io.Writer) *cobra.Command {
	r := tpcbRunFlags{rampup: 10 * time.Second, duration: time.Minute}
	r.profile.pause = 10 * time.Second
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Run one pgbench script at each of a list of VU counts; mark the peak, saturation and bottleneck steps",
		Long: `Run one of pgbench's scripts once per VU count (--repeat N: N times each) on the same prepared
tables, pausing between runs, and print one line per step with the peak, saturation and bottleneck
marks that docs/profiles.md defines, ranked by TPS. Every step is stored as a run of its own; the
profile as a whole gets an id of its own, which 'cairn results' and 'cairn report' take.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return doTPCBProfile(cmd, &r, stdout, stderr)
		},
	}
	r.add(cmd)
	r.profile.add(cmd)
	f := cmd.Flags()
	f.Uint64Var(&r.seed, "seed", 0, "seed of the profile; each run's seed is derived from it (default: random, printed)")
	f.StringVar(&r.jsonPath, "json", "", "write the profile document, with every step's result document, to this file")
	return cmd
}

func doTPCBProfile(cmd *cobra.Command, r *tpcbRunFlags, stdout, stderr io.Writer) error {
	ctx := cmd.Context()
	vus, err := r.profile.parse()
	if err != nil {
		return err
	}
	r.vu = vus[0]
	if err := r.validate(cmd); err != nil {
		return err
	}
	s, err := openSession(ctx, resultsPath(cmd), r.noStore, r.db, "tpcb")
	if err != nil {
		return err
	}
	defer s.Close()
	store, t := s.store, s.t
	meta, err := tpcb.ReadMeta(ctx, t)
	if err != nil {
		return err
	}
	if r.seed == 0 {
		r.seed = randomSeed()
	}
	sc, _ := tpcb.FindScript(r.script)
	r.script = sc.Name
	cfg := r.config(0)
	cfg.Scale, cfg.Fillfactor = meta.Scale, meta.Fillfactor
	p := newProfileDoc(ctx, t, "tpcb", sc.Name, cfg)
	fmt.Fprintf(stdout, "profiling tpcb %s on %s (%s): scale %d, VUs %s, %d run(s) each, rampup %s, window %s, pause %s, seed %d\n",
		sc.Name, t.Name(), target.Where(t), meta.Scale, joinInts(vus), r.profile.repeat, r.rampup, r.duration, r.profile.pause, r.seed)
	step := func(ctx context.Context, vu int, seed uint64) (*results.Document, error) {
		return r.runOnce(ctx, t, vu, seed, stderr)
	}
	return doProfile(ctx, t, p, profile.Options{VUs: vus, Repeat: r.profile.repeat, Pause: r.profile.pause, Seed: r.seed},
		step, store, r.jsonPath, stdout, stderr)
}

func newTPCBCheck(stdout io.Writer) *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check the balances: accounts total the history's deltas, tellers total the branches",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := openExisting(cmd.Context(), db, "tpcb")
			if err != nil {
				return err
			}
			defer t.Close()
			s, err := tpcb.ReadSums(cmd.Context(), t)
			if err != nil {
				return err
			}
			mark := func(ok bool) string {
				if ok {
					return "PASS"
				}
				return "FAIL"
			}
			fmt.Fprintf(stdout, "%s  sum(abalance) %d = sum(delta) of %d history rows %d\n", mark(s.Accounts == s.History), s.Accounts, s.HistoryRows, s.History)
			fmt.Fprintf(stdout, "%s  sum(tbalance) %d = sum(bbalance) %d\n", mark(s.Tellers == s.Branches), s.Tellers, s.Branches)
			if !s.Consistent() {
				return failed{"the balances do not add up (pgbench truncates pgbench_history before its runs: after one, the first check fails)"}
			}
			fmt.Fprintln(stdout, "the balances add up")
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "database URL (default $CAIRN_DB, else sqlite://cairn.db)")
	return cmd
}
