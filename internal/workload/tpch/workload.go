package tpch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpch/queries"
)

func init() { workload.Register(tpch{}) }

type tpch struct{}

func (tpch) Info() workload.Info {
	return workload.Info{Name: "tpch", Title: "TPC-H", Footprint: Footprint,
		// The observers' settings only: the tests have their own shape, no VUs, window or rate.
		Engine: []string{"observe", "wait-sample", "running-sample", "stacks-hz", "waits", "calibrate", "client-cpus", "server-cpus"},
		Short:  "TPC-H-derived analytic workload: dbgen-identical data, the 22 queries, power, throughput and QphH (not audited)",
		Long: `The TPC-H-derived analytic workload. 'gen' writes .tbl files identical byte for byte to the
official dbgen 2.17.3; 'prepare' generates and loads them straight into a database; 'run' runs the power
test, the throughput test or the validation queries and compares answers. See docs/tpch.md.`,
		Help: map[string]string{
			"prepare": "Generate dbgen's data and stream it into the database, then build keys, indexes and statistics",
			"run":     "Run the power test, the throughput test (both by default: QphH), or --validate the answers",
		}}
}

// PrepareSpec is prepare's options.
type PrepareSpec struct {
	SF      string `opt:"sf" default:"1" help:"scale factor (1 is about 1 GB of data; 0.01 and 0.1 are allowed); a complete schema of another one is refused"`
	Loaders int    `opt:"loaders" min:"1" help:"connections loading at once (SQLite always uses 1)"`
}

// Validate checks the scale factor.
func (o *PrepareSpec) Validate() error {
	if o.SF == "" {
		return nil
	}
	_, err := ParseSF(o.SF)
	return err
}

// RunSpec is run's options.
type RunSpec struct {
	Power       bool   `opt:"power" help:"run the power test"`
	Throughput  bool   `opt:"throughput" help:"run the throughput test"`
	Refresh     bool   `opt:"refresh" help:"throughput test: run the refresh stream (on by default when neither test is named)"`
	Streams     int    `opt:"streams" min:"1" unset:"0" help:"throughput test: query streams (default: the spec's minimum for the scale factor, 2 at SF 1)"`
	Answers     bool   `opt:"validate" help:"run the queries with the validation parameters and compare the answers"`
	Q11Fraction string `opt:"q11-fraction" enum:"spec,fixed" help:"Q11's FRACTION: spec (0.0001/SF, clause 2.4.11.3) or fixed (0.0001 at every SF)"`
	SF          string `opt:"sf" unset:"" help:"expected scale factor: refuse to run if the database holds another"`
}

// Resolve makes the default explicit: with neither test nor --validate asked, both tests run, the
// throughput test with its refresh stream.
func (o *RunSpec) Resolve() {
	if !o.Power && !o.Throughput && !o.Answers {
		o.Power, o.Throughput, o.Refresh = true, true, true
	}
}

// Check checks the options together.
func (o *RunSpec) Check() error {
	if o.Answers && (o.Power || o.Throughput) {
		return options.Errorf("validate", "", "--validate runs alone: run the power or throughput test separately")
	}
	if o.Streams > 0 && !o.Throughput && (o.Power || o.Answers) {
		return options.Errorf("streams", fmt.Sprint(o.Streams), "give a positive count, with --throughput")
	}
	if o.SF != "" {
		if _, err := ParseSF(o.SF); err != nil {
			return err
		}
	}
	return nil
}

// Validate is the spec's check.
func (o *RunSpec) Validate(*workload.Engine) error { return o.Check() }

func (tpch) PrepareOptions() any { return &PrepareSpec{Loaders: 2 * runtime.NumCPU()} }
func (tpch) RunOptions() any     { return &RunSpec{Q11Fraction: "spec"} }

func (tpch) Prepare(ctx context.Context, t target.Target, opts any, p workload.Preparing) error {
	o := opts.(*PrepareSpec)
	var asked float64
	if o.SF != "" {
		v, err := ParseSF(o.SF)
		if err != nil {
			return err
		}
		asked = v
	}
	sf := asked
	if sf == 0 {
		sf = 1
	}
	loaders := o.Loaders
	if t.Dialect().SingleWriter {
		loaders = 1
	}
	var rows atomic.Int64
	t0 := time.Now()
	meta, err := Prepare(ctx, t, PrepareOptions{SF: asked, Loaders: loaders, Rows: &rows,
		Phase: func(ph string) {
			switch ph {
			case "tables":
				p.Say("preparing tpch: SF %g on %s (%s), %s", sf, t.Name(), target.Where(t), workload.Plural(loaders, "loader"))
			case "load":
				p.Say("generating and loading (dbgen 2.17.3's data)...")
				p.Load(ExpectedRows(AllTables(), sf), &rows)
			case "indexes":
				p.Loaded()
				p.Say("loaded %s rows in %.2f s; building keys, indexes and statistics...", humanize.Comma(rows.Load()), time.Since(t0).Seconds())
			}
		}})
	p.Loaded()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		p.Say("%s already holds a complete tpch schema of SF %g (prepared %s); nothing to do",
			target.Where(t), meta.SF, meta.PreparedAt.Format(time.RFC3339))
		return err
	}
	if err != nil {
		return err
	}
	var total int64
	for _, n := range meta.Rows {
		total += n
	}
	p.Say("done in %.2f s (load %.2f s, keys, indexes and statistics %.2f s): %s rows",
		meta.LoadSeconds+meta.IndexSeconds, meta.LoadSeconds, meta.IndexSeconds, humanize.Comma(total))
	return nil
}

// Start is not used: TPC-H runs tests of its own (Tests).
func (tpch) Start(context.Context, target.Target, any, uint64) (*workload.Run, error) {
	return nil, errors.New("tpch runs tests of its own: use Tests")
}

// Tests plans the power and/or throughput test, or validates the answers (then it returns no
// tests: nothing is measured to store).
func (tpch) Tests(ctx context.Context, t target.Target, opts any, seed uint64, w io.Writer) (*workload.Tests, error) {
	p := opts.(*RunSpec)
	if err := p.Check(); err != nil {
		return nil, err
	}
	q11Scaled := p.Q11Fraction != "fixed"
	var wantSF float64
	if p.SF != "" {
		wantSF, _ = ParseSF(p.SF)
	}
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	_, meta, err := LoadMeta(ctx, t, c)
	c.Close()
	if err != nil {
		return nil, err
	}
	if wantSF > 0 && wantSF != meta.SF {
		return nil, options.Errorf("sf", p.SF, "does not match the prepared data: %s was prepared at SF %g (drop --sf, or cleanup and prepare --sf %g)", target.Where(t), meta.SF, wantSF)
	}
	p.SF = strconv.FormatFloat(meta.SF, 'g', -1, 64) // the stored spec says what ran
	rule := "FRACTION = 0.0001/SF (the spec's rule)"
	if !q11Scaled {
		rule = "FRACTION = 0.0001 (unscaled)"
	}
	if p.Answers {
		rep, err := Repair(ctx, t, meta)
		if err != nil {
			return nil, err
		}
		if rep != nil {
			fmt.Fprintln(w, "repaired: "+rep.String())
		}
		return nil, validate(ctx, t, meta, q11Scaled, rule, w)
	}
	p.Resolve()
	o := RunOptions{Power: p.Power, Throughput: p.Throughput, Refresh: p.Refresh,
		Streams: p.Streams, Seed: seed, Q11Scaled: q11Scaled}
	if o.Streams == 0 {
		o.Streams = MinStreams(meta.SF)
	}
	if o.Throughput {
		p.Streams = o.Streams
	}
	var tests []string
	if o.Power {
		tests = append(tests, "power")
	}
	if o.Throughput {
		tp := fmt.Sprintf("throughput (%s", workload.Plural(o.Streams, "stream"))
		if o.Refresh {
			tp += " and the refresh stream"
		}
		tests = append(tests, tp+")")
	}
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
	var order []string
	for q := 1; q <= queries.Count; q++ {
		order = append(order, "Q"+strconv.Itoa(q))
	}
	order = append(order, "RF1", "RF2")
	return &workload.Tests{
		Line: fmt.Sprintf("tpch on %s (%s) · SF %g · %s · seed %d · Q11 %s", t.Name(), target.Where(t), meta.SF, strings.Join(tests, " + "), o.Seed, rule),
		Mode: mode, VUs: vu, Order: order, Main: "Q1",
		Run: func(ctx context.Context, done func(string, results.Timing)) (*workload.Tested, error) {
			o.Event = func(tm Timing, end bool) {
				if end {
					done(streamName(tm.Stream, o.Streams), tm)
				}
			}
			out, err := Run(ctx, t, meta, o)
			if out == nil {
				return nil, err
			}
			if err == nil && out.Failed > 0 {
				err = &workload.CheckFailed{Msg: fmt.Sprintf("%d queries or refresh functions failed; no metric computed from the tests they belong to", out.Failed)}
			}
			return &workload.Tested{Timings: append(append([]Timing(nil), out.Power...), out.Throughput...),
				Seconds: out.PowerSeconds + out.ThroughputSeconds, Interrupted: out.Interrupted,
				Finish: func(d *results.Document) { finish(d, out) }}, err
		}}, nil
}

// streamName is a stream as the progress lines name it: the power test's, a query stream, or
// the refresh stream (the one after the query streams).
func streamName(stream, streams int) string {
	switch {
	case stream == 0:
		return "power"
	case stream == streams+1:
		return "refresh"
	}
	return fmt.Sprintf("stream %d", stream)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// finish adds TPC-H's own figures to the document the session built from the timings: the
// headline, the spec's figures in result and in extra.tpch, and the note that they are derived.
func finish(d *results.Document, out *Outcome) {
	d.Result.Headline = headline(out)
	d.Result.Own = ownFigures(out)
	if d.Extra == nil {
		d.Extra = map[string]any{}
	}
	d.Extra["tpch"] = out
	d.Notes = append(d.Notes, "TPC-H-derived: the spec's formulas, not an audited TPC-H result (docs/tpch.md)")
}

// outcomeOf is a TPC-H document's own section, with its timings: the document just made, or one
// read back from the store or a file.
func outcomeOf(d *results.Document) *Outcome {
	var out Outcome
	switch v := d.Extra["tpch"].(type) {
	case *Outcome:
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

// Summary is a TPC-H run's whole summary: per-query times, the spec's figures and notes.
func (tpch) Summary(w io.Writer, d *results.Document, _ *workload.Engine, _ any) {
	out := outcomeOf(d)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "TPC-H run on %s %s · SF %g · %s · seed %d", d.Target.Name, d.Target.Version, out.SF, d.Mode, d.Seed)
	if d.Interrupted {
		fmt.Fprint(w, " · INTERRUPTED: the figures cover what ran")
	}
	fmt.Fprintln(w)
	printTPCH(w, out)
}

func printTPCH(w io.Writer, out *Outcome) {
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
		fmt.Fprintf(w, "throughput test %.2f s (Ts) with %s", out.ThroughputSeconds, workload.Plural(out.Streams, "query stream"))
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
	if out.PowerAtSize != nil {
		// One run has one power test: the spread of its figures is only seen across repeats.
		fmt.Fprintln(w, "95% interval: none (one power run); 'cairn results compare' of repeated runs gives the headline's and each query's")
	}
	if out.Failed > 0 {
		fmt.Fprintf(w, "%d queries or refresh functions failed: no metric for the tests they belong to\n", out.Failed)
	}
	for _, n := range out.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// Replaces says the summary replaces the common one.
func (tpch) Replaces() bool { return true }

func validate(ctx context.Context, t target.Target, meta *Meta, q11Scaled bool, rule string, stdout io.Writer) error {
	if !HasReference(meta.SF) {
		return options.Errorf("validate", "", "no reference answers for SF %g: cairn ships them for SF 0.01 and SF 1", meta.SF)
	}
	if meta.RefreshSets > 0 {
		return options.Errorf("validate", "", "%s has had %d refresh sets applied since prepare, so its answers differ from the reference: cleanup and prepare again to validate", target.Where(t), meta.RefreshSets)
	}
	fmt.Fprintf(stdout, "validating tpch on %s (%s) · SF %g · validation parameters (clause 2.4.N.4) · Q11 %s\n", t.Name(), target.Where(t), meta.SF, rule)
	bad := 0
	checks, err := Validate(ctx, t, meta.SF, q11Scaled, func(c Check) {
		switch {
		case c.Error != "":
			bad++
			fmt.Fprintf(stdout, "  Q%-2d ERROR %s\n", c.Query, firstLine(c.Error))
		case len(c.Mismatches) > 0:
			bad++
			fmt.Fprintf(stdout, "  Q%-2d FAIL  %s, %.3f s, %d differences:\n", c.Query, workload.Plural(c.Rows, "row"), c.Seconds, len(c.Mismatches))
			for i, m := range c.Mismatches {
				if i == 10 {
					fmt.Fprintf(stdout, "        … and %d more\n", len(c.Mismatches)-10)
					break
				}
				fmt.Fprintf(stdout, "        %s\n", m)
			}
		default:
			fmt.Fprintf(stdout, "  Q%-2d ok    %s, %.3f s\n", c.Query, workload.Plural(c.Rows, "row"), c.Seconds)
		}
	})
	if err != nil {
		return err
	}
	if bad > 0 {
		return &workload.CheckFailed{Msg: fmt.Sprintf("validation failed: %d of %d queries differ from the reference answers", bad, len(checks))}
	}
	fmt.Fprintf(stdout, "all %d answers match the reference within clause 2.1.3.5's tolerances\n", len(checks))
	return nil
}

// GenSpec is gen's options (dbgen's).
type GenSpec struct {
	SF      string `opt:"sf" help:"scale factor (1 is about 1 GB; fractions such as 0.01 and 0.1 are allowed)"`
	Out     string `opt:"out" short:"o" help:"directory for the files"`
	Tables  string `opt:"tables" help:"comma-separated tables to generate (default: all eight)"`
	Parts   int    `opt:"parts" min:"1" help:"split the data set into this many parts, like dbgen -C"`
	Part    int    `opt:"part" min:"1" help:"which part to generate, 1..--parts, like dbgen -S; files are named TABLE.tbl.PART"`
	Workers int    `opt:"workers" min:"1" help:"goroutines formatting rows"`
	Updates int    `opt:"updates" min:"0" max:"999" help:"also write dbgen's first N update sets, like dbgen -U N: orders.tbl.uN, lineitem.tbl.uN, delete.N"`
}

// Tools is tpch gen.
func (tpch) Tools() []workload.Tool {
	return []workload.Tool{{Name: "gen", Short: "Write the TPC-H tables as .tbl files, byte for byte as dbgen 2.17.3 writes them",
		Options: func() any { return &GenSpec{SF: "1", Out: ".", Parts: 1, Part: 1, Workers: runtime.NumCPU()} },
		Run:     gen}}
}

func gen(ctx context.Context, opts any, p workload.Preparing) error {
	o := opts.(*GenSpec)
	sf, err := ParseSF(o.SF)
	if err != nil {
		return err
	}
	tables, err := ParseTables(o.Tables)
	if err != nil {
		return err
	}
	if err := CheckParts(o.Part, o.Parts); err != nil {
		return err
	}
	partNote := ""
	if o.Parts > 1 {
		partNote = fmt.Sprintf(", part %d of %d", o.Part, o.Parts)
	}
	p.Say("generating TPC-H SF %g%s into %s (%s, %s)", sf, partNote, o.Out, workload.Plural(len(tables), "table"), workload.Plural(o.Workers, "worker"))
	var rows atomic.Int64
	p.Load(ExpectedRows(tables, sf)/int64(o.Parts), &rows)
	t0 := time.Now()
	stats, err := GenFiles(ctx, o.Out, GenOptions{SF: sf, Tables: tables, Part: o.Part, Parts: o.Parts, Workers: o.Workers, Updates: o.Updates, Rows: &rows})
	p.Loaded()
	var totalRows, totalBytes int64
	for _, s := range stats {
		p.Say("  %-15s %12s rows %10s  %6.2f s  %s", s.Table, humanize.Comma(s.Rows), humanize.IBytes(uint64(s.Bytes)), s.Seconds, s.Path)
		totalRows += s.Rows
		totalBytes += s.Bytes
	}
	if err != nil {
		if ctx.Err() != nil {
			p.Say("interrupted; the files above are complete, the last one may not be")
		}
		return err
	}
	el := time.Since(t0).Seconds()
	p.Say("done: %s rows, %s in %.2f s (%.0f MB/s), identical to dbgen 2.17.3's output",
		humanize.Comma(totalRows), humanize.IBytes(uint64(totalBytes)), el, float64(totalBytes)/el/1e6)
	return nil
}

// headline is the run's headline: QphH@Size when both tests ran, else the test's own figure.
func headline(out *Outcome) *results.Headline {
	for _, f := range []struct {
		name string
		v    *float64
	}{{"QphH", out.QphH}, {"Power", out.PowerAtSize}, {"Throughput", out.ThroughputAtSize}} {
		if f.v != nil {
			return &results.Headline{Name: f.name, Unit: "queries per hour × SF", Value: *f.v, Source: "client"}
		}
	}
	return nil
}
