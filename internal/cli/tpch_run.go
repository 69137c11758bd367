package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload/tpch"
)

type tpchRunFlags struct {
	db, sf, q11, jsonPath      string
	power, throughput, refresh bool
	validate, noStore          bool
	streams                    int
	seed                       uint64
	seedSet                    bool
}

func newTPCHRun(stdout, stderr io.Writer) *cobra.Command {
	var p tpchRunFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the power test, the throughput test (both by default: QphH), or --validate the answers",
		Long: `Runs TPC-H's tests on a prepared database:
  --power         RF1, the 22 queries in stream 0's order, RF2, on one connection: Power@Size
  --throughput    S query streams at once in the spec's stream orders (--streams, default the
                  spec's minimum for the scale factor), with --refresh the refresh stream: Throughput@Size
  (neither)       both, with the refresh stream: the performance test, QphH@Size
  --validate      the 22 queries with the spec's validation parameters, answers compared with the
                  reference answers (SF 0.01 and SF 1) within clause 2.1.3.5's tolerances
Figures follow the spec's formulas and are NOT audited TPC-H results; see docs/tpch.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.seedSet = cmd.Flags().Changed("seed")
			return doTPCHRun(cmd.Context(), &p, resultsPath(cmd), stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.db, "db", "", "database URL (default $CAIRN_DB, else sqlite://cairn.db)")
	f.StringVar(&p.sf, "sf", "", "expected scale factor: refuse to run if the database holds another")
	f.BoolVar(&p.power, "power", false, "run the power test")
	f.BoolVar(&p.throughput, "throughput", false, "run the throughput test")
	f.BoolVar(&p.refresh, "refresh", false, "throughput test: run the refresh stream (on by default when running both tests)")
	f.IntVar(&p.streams, "streams", 0, "throughput test: query streams (default: the spec's minimum for the scale factor, 2 at SF 1)")
	f.BoolVar(&p.validate, "validate", false, "run the queries with the validation parameters and compare the answers")
	f.StringVar(&p.q11, "q11-fraction", "spec", "Q11's FRACTION: spec (0.0001/SF, clause 2.4.11.3) or fixed (0.0001 at every SF)")
	f.Uint64Var(&p.seed, "seed", 0, "seed of the substitution parameters (default: random, printed and stored)")
	f.StringVar(&p.jsonPath, "json", "", "write the result document to this file")
	f.BoolVar(&p.noStore, "no-store", false, "do not store the result")
	return cmd
}

func doTPCHRun(ctx context.Context, p *tpchRunFlags, storePath string, stdout, stderr io.Writer) error {
	var q11Scaled bool
	switch p.q11 {
	case "spec":
		q11Scaled = true
	case "fixed":
	default:
		return target.Usagef("--q11-fraction %q: use spec (0.0001/SF) or fixed (0.0001)", p.q11)
	}
	if p.validate && (p.power || p.throughput) {
		return target.Usagef("--validate runs alone: run the power or throughput test separately")
	}
	if p.streams < 0 || (p.streams > 0 && !p.throughput && (p.power || p.validate)) {
		return target.Usagef("--streams %d: give a positive count, with --throughput", p.streams)
	}
	var wantSF float64
	if p.sf != "" {
		v, err := tpch.ParseSF(p.sf)
		if err != nil {
			return err
		}
		wantSF = v
	}
	noStore := p.noStore || p.validate
	sess, err := openSession(ctx, storePath, noStore, p.db, "tpch")
	if err != nil {
		return err
	}
	defer sess.Close()
	t := sess.t
	c, err := t.Conn(ctx)
	if err != nil {
		return err
	}
	_, meta, err := tpch.LoadMeta(ctx, t, c)
	c.Close()
	if err != nil {
		return err
	}
	if wantSF > 0 && wantSF != meta.SF {
		return target.Usagef("--sf %g, but %s was prepared at SF %g: prepare it again (cleanup, then prepare --sf %g) or drop --sf", wantSF, target.Where(t), meta.SF, wantSF)
	}
	rule := "FRACTION = 0.0001/SF (the spec's rule)"
	if !q11Scaled {
		rule = "FRACTION = 0.0001 (unscaled)"
	}
	if p.validate {
		rep, err := tpch.Repair(ctx, t, meta)
		if err != nil {
			return err
		}
		if rep != nil {
			fmt.Fprintln(stdout, "repaired: "+rep.String())
		}
		return doTPCHValidate(ctx, t, meta, q11Scaled, rule, stdout)
	}

	both := !p.power && !p.throughput
	o := tpch.RunOptions{Power: p.power || both, Throughput: p.throughput || both, Refresh: p.refresh || both,
		Streams: p.streams, Seed: p.seed, Q11Scaled: q11Scaled}
	if o.Streams == 0 {
		o.Streams = tpch.MinStreams(meta.SF)
	}
	if !p.seedSet {
		o.Seed = randomSeed()
	}
	var tests []string
	if o.Power {
		tests = append(tests, "power")
	}
	if o.Throughput {
		tp := fmt.Sprintf("throughput (%s", plural(o.Streams, "stream"))
		if o.Refresh {
			tp += " and the refresh stream"
		}
		tests = append(tests, tp+")")
	}
	fmt.Fprintf(stdout, "tpch on %s (%s) · SF %g · %s · seed %d · Q11 %s\n", t.Name(), target.Where(t), meta.SF, strings.Join(tests, " + "), o.Seed, rule)
	o.Event = func(tm tpch.Timing, end bool) {
		if !end {
			return
		}
		who := "power"
		if tm.Stream > 0 {
			who = fmt.Sprintf("stream %d", tm.Stream)
			if tm.Stream == o.Streams+1 {
				who = "refresh"
			}
		}
		status := plural(tm.Rows, "row")
		if tm.Error != "" {
			status = "ERROR " + oneLine(tm.Error)
		}
		fmt.Fprintf(stdout, "  %-9s %-4s %9.3f s  %s\n", who, tm.Name, tm.Seconds, status)
	}
	started := time.Now()
	version, _ := t.Version(ctx)
	out, runErr := tpch.Run(ctx, t, meta, o)
	if out == nil {
		return runErr
	}
	doc := tpchDocument(t, version, meta, o, out, started)
	printSummary(stdout, doc)
	var storeErr error
	if sess.store != nil {
		storeErr = sess.store.SaveRun(context.WithoutCancel(ctx), doc, 0)
		if storeErr == nil {
			fmt.Fprintf(stdout, "stored as result %s in %s\n", doc.ID, sess.store.Path)
		}
	}
	if p.jsonPath != "" {
		if err := doc.WriteJSON(p.jsonPath); err != nil {
			return fmt.Errorf("write --json: %w", err)
		}
		fmt.Fprintf(stdout, "result document written to %s\n", p.jsonPath)
	}
	switch {
	case out.Interrupted || ctx.Err() != nil:
		return errInterrupted
	case runErr != nil:
		return runErr
	case storeErr != nil:
		return fmt.Errorf("the result was measured but not stored: %w", storeErr)
	case out.Failed > 0:
		return failed{fmt.Sprintf("%d queries or refresh functions failed; no metric computed from the tests they belong to", out.Failed)}
	}
	return nil
}

// tpchDocument records a run in the common result document: each query and refresh function is
// a "transaction type" (its count is how often it ran, its latency the HDR histogram of its
// times), and the spec's figures are in result and in extra.tpch with every individual time.
func tpchDocument(t target.Target, version string, meta *tpch.Meta, o tpch.RunOptions, out *tpch.Outcome, started time.Time) *results.Document {
	mode := "power+throughput"
	switch {
	case o.Power && !o.Throughput:
		mode = "power"
	case o.Throughput && !o.Power:
		mode = "throughput"
	}
	vu := 1
	if o.Throughput {
		vu = o.Streams
	}
	d := &results.Document{Format: results.FormatVersion, Kind: results.KindRun,
		Cairn:    results.Cairn{Version: Version, Go: runtime.Version()},
		Workload: "tpch", StartedAt: started.UTC(), Interrupted: out.Interrupted,
		Target: results.Target{Kind: t.Kind(), Name: t.Name(), Version: version, Address: t.Address(), Database: t.Database()},
		Host:   results.ReadHost(), VU: vu, Mode: mode, Seed: o.Seed,
		Window: results.Window{Seconds: out.PowerSeconds + out.ThroughputSeconds, ClientSeconds: out.PowerSeconds + out.ThroughputSeconds,
			Start: started.UTC(), End: time.Now().UTC()},
		Result: results.Result{Power: out.PowerAtSize, Throughput: out.ThroughputAtSize, QphH: out.QphH, GeomeanS: out.GeomeanSeconds},
		Txns:   map[string]*results.Txn{}, Errors: map[string]int64{}, Histograms: map[string]string{},
		Config:  map[string]any{"sf": meta.SF, "streams": o.Streams, "refresh": o.Refresh, "q11_scaled": o.Q11Scaled},
		Extra:   map[string]any{"tpch": out},
		Timings: append(append([]results.Timing(nil), out.Power...), out.Throughput...),
		Notes:   []string{"TPC-H-derived: the spec's formulas, not an audited TPC-H result (docs/tpch.md)"},
	}
	hists := map[string]*hdrhistogram.Histogram{}
	for _, tm := range append(append([]tpch.Timing(nil), out.Power...), out.Throughput...) {
		tx := d.Txns[tm.Name]
		if tx == nil {
			tx = &results.Txn{}
			d.Txns[tm.Name] = tx
			hists[tm.Name] = hdrhistogram.New(1, 24*3600*1_000_000, 3)
		}
		if tm.Error != "" {
			tx.Errors++
			d.Errors["query"]++
			continue
		}
		tx.Count++
		_ = hists[tm.Name].RecordValue(max(int64(tm.Seconds*1e6), 1))
	}
	for name, tx := range d.Txns {
		tx.LatencyMs = metrics.Summarize(hists[name])
		d.TxnOrder = append(d.TxnOrder, name)
	}
	sort.Slice(d.TxnOrder, func(i, j int) bool { return timingRank(d.TxnOrder[i]) < timingRank(d.TxnOrder[j]) })
	d.MainTxn = "Q1"
	return d
}

func timingRank(n string) int {
	switch n {
	case "RF1":
		return 100
	case "RF2":
		return 101
	}
	var q int
	fmt.Sscanf(n, "Q%d", &q)
	return q
}

// tpchOutcome is a TPC-H document's own section, with its timings: the document just made, or one
// read back from the store or a file.
func tpchOutcome(d *results.Document) *tpch.Outcome {
	var out tpch.Outcome
	switch v := d.Extra["tpch"].(type) {
	case *tpch.Outcome:
		out = *v
	default:
		if b, err := json.Marshal(v); err == nil {
			_ = json.Unmarshal(b, &out)
		}
	}
	out.Power, out.Throughput = nil, nil
	for _, t := range d.Timings {
		if t.Stream == 0 {
			out.Power = append(out.Power, t)
		} else {
			out.Throughput = append(out.Throughput, t)
		}
	}
	return &out
}

// printTPCHSummary is a TPC-H run's summary: per-query times, the spec's figures and notes.
func printTPCHSummary(w io.Writer, d *results.Document) {
	out := tpchOutcome(d)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "TPC-H run on %s %s · SF %g · %s · seed %d", d.Target.Name, d.Target.Version, out.SF, d.Mode, d.Seed)
	if d.Interrupted {
		fmt.Fprint(w, " · INTERRUPTED: the figures cover what ran")
	}
	fmt.Fprintln(w)
	printTPCH(w, out)
}

func printTPCH(w io.Writer, out *tpch.Outcome) {
	fmt.Fprintln(w)
	if out.Repaired != "" {
		fmt.Fprintf(w, "repaired before the run: %s\n\n", out.Repaired)
	}
	byName := map[string][]float64{}
	for _, tm := range out.Throughput {
		if tm.Error == "" {
			byName[tm.Name] = append(byName[tm.Name], tm.Seconds)
		}
	}
	power := map[string]float64{}
	for _, tm := range out.Power {
		if tm.Error == "" {
			power[tm.Name] = tm.Seconds
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tpower s\tthroughput runs\tmean s\tmax s\t")
	names := []string{"RF1"}
	for q := 1; q <= 22; q++ {
		names = append(names, fmt.Sprintf("Q%d", q))
	}
	names = append(names, "RF2")
	for _, n := range names {
		ps := "-"
		if v, ok := power[n]; ok {
			ps = fmt.Sprintf("%.3f", v)
		}
		ts := byName[n]
		mean, mx := "-", "-"
		if len(ts) > 0 {
			var sum, m float64
			for _, v := range ts {
				sum += v
				m = max(m, v)
			}
			mean, mx = fmt.Sprintf("%.3f", sum/float64(len(ts))), fmt.Sprintf("%.3f", m)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t\n", n, ps, len(ts), mean, mx)
	}
	tw.Flush()
	fmt.Fprintln(w)
	if out.PowerSeconds > 0 {
		fmt.Fprintf(w, "power test %.2f s", out.PowerSeconds)
		if out.GeomeanSeconds != nil {
			fmt.Fprintf(w, ", geometric mean of the 22 queries %.3f s", *out.GeomeanSeconds)
		}
		fmt.Fprintln(w)
	}
	if out.ThroughputSeconds > 0 {
		fmt.Fprintf(w, "throughput test %.2f s (Ts) with %s", out.ThroughputSeconds, plural(out.Streams, "query stream"))
		if out.RefreshStream {
			fmt.Fprint(w, " and the refresh stream")
		} else {
			fmt.Fprint(w, " and NO refresh stream (the spec requires one; add --refresh)")
		}
		fmt.Fprintln(w)
	}
	if len(out.RefreshSets) > 0 {
		fmt.Fprintf(w, "refresh: dbgen update sets %v\n", out.RefreshSets)
	}
	if len(out.Adjusted) > 0 {
		fmt.Fprintf(w, "clause 5.4.1.4: %s counted as the longest power interval / 1000\n", strings.Join(out.Adjusted, ", "))
	}
	fig := func(name string, v *float64) {
		if v != nil {
			fmt.Fprintf(w, "%s = %.1f\n", name, *v)
		}
	}
	fig(fmt.Sprintf("Power@%gGB", out.SF), out.PowerAtSize)
	fig(fmt.Sprintf("Throughput@%gGB", out.SF), out.ThroughputAtSize)
	fig(fmt.Sprintf("QphH@%gGB", out.SF), out.QphH)
	if out.PowerAtSize != nil || out.ThroughputAtSize != nil {
		fmt.Fprintln(w, "(computed with TPC-H's formulas; not an audited TPC-H result and not comparable with published ones: docs/tpch.md)")
	}
	if out.Failed > 0 {
		fmt.Fprintf(w, "%d queries or refresh functions failed: no metric for the tests they belong to\n", out.Failed)
	}
	for _, n := range out.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

func doTPCHValidate(ctx context.Context, t target.Target, meta *tpch.Meta, q11Scaled bool, rule string, stdout io.Writer) error {
	if !tpch.HasReference(meta.SF) {
		return target.Usagef("no reference answers for SF %g: cairn ships them for SF 0.01 and SF 1", meta.SF)
	}
	if meta.RefreshSets > 0 {
		return target.Usagef("%s has had %d refresh sets applied since prepare, so its answers differ from the reference: cleanup and prepare again to validate", target.Where(t), meta.RefreshSets)
	}
	fmt.Fprintf(stdout, "validating tpch on %s (%s) · SF %g · validation parameters (clause 2.4.N.4) · Q11 %s\n", t.Name(), target.Where(t), meta.SF, rule)
	bad := 0
	checks, err := tpch.Validate(ctx, t, meta.SF, q11Scaled, func(c tpch.Check) {
		switch {
		case c.Error != "":
			bad++
			fmt.Fprintf(stdout, "  Q%-2d ERROR %s\n", c.Query, oneLine(c.Error))
		case len(c.Mismatches) > 0:
			bad++
			fmt.Fprintf(stdout, "  Q%-2d FAIL  %s, %.3f s, %d differences:\n", c.Query, plural(c.Rows, "row"), c.Seconds, len(c.Mismatches))
			for i, m := range c.Mismatches {
				if i == 10 {
					fmt.Fprintf(stdout, "        … and %d more\n", len(c.Mismatches)-10)
					break
				}
				fmt.Fprintf(stdout, "        %s\n", m)
			}
		default:
			fmt.Fprintf(stdout, "  Q%-2d ok    %s, %.3f s\n", c.Query, plural(c.Rows, "row"), c.Seconds)
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	if bad > 0 {
		return failed{fmt.Sprintf("validation failed: %d of %d queries differ from the reference answers", bad, len(checks))}
	}
	fmt.Fprintf(stdout, "all %d answers match the reference within clause 2.1.3.5's tolerances\n", len(checks))
	return nil
}
