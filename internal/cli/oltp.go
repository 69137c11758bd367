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
	"github.com/cairn-bench/cairn/internal/workload/oltp"
)

func newOLTP(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "oltp",
		Short: "sysbench 1.0.20's oltp_* workloads (TPS/QPS, latency per statement)",
		Long: `sysbench 1.0.20's OLTP workloads: the same sbtest tables, data and statements as its oltp_common.lua,
driven by cairn's engine. Prepare the tables, run a workload, clean up. See docs/oltp.md for every
statement and how the figures relate to sysbench's.

  cairn oltp prepare --db URL --tables 8 --table-size 1000000
  cairn oltp run     --db URL --workload read-only --vu 16 --duration 2m
  cairn oltp cleanup --db URL`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newOLTPPrepare(stdout, stderr), newOLTPRun(stdout, stderr), newOLTPProfile(stdout, stderr), newCleanup(stdout, oltp.Footprint))
	return cmd
}

type oltpPrepareFlags struct {
	db        string
	tables    int
	tableSize int
	loaders   int
	seed      uint64
	// which sizes were given: a complete schema of another size is an error only for those
	tablesSet, sizeSet bool
}

func newOLTPPrepare(stdout, stderr io.Writer) *cobra.Command {
	var p oltpPrepareFlags
	cmd := &cobra.Command{
		Use:   "prepare",
		Short: "Create the sbtest tables, load them in parallel, build the index on k, analyze",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.tablesSet, p.sizeSet = cmd.Flags().Changed("tables"), cmd.Flags().Changed("table-size")
			return doOLTPPrepare(cmd.Context(), &p, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.db, "db", "", "database URL: sqlite://FILE, postgres://user:pass@host:port/db, mysql://user:pass@host:port/db (default $CAIRN_DB, else sqlite://cairn.db)")
	f.IntVar(&p.tables, "tables", 1, "number of tables, sbtest1..N (sysbench's --tables)")
	f.IntVar(&p.tableSize, "table-size", 10000, "rows per table (sysbench's --table-size; about 250 bytes each)")
	f.IntVar(&p.loaders, "loaders", runtime.NumCPU(), "parallel loaders (SQLite always uses 1)")
	f.Uint64Var(&p.seed, "seed", 0, "seed of the generated data (default: random, printed)")
	return cmd
}

func doOLTPPrepare(ctx context.Context, p *oltpPrepareFlags, stdout, stderr io.Writer) error {
	o := oltp.PrepareOptions{Tables: p.tables, TableSize: p.tableSize, Loaders: p.loaders, CairnVersion: Version}
	if err := o.Validate(); err != nil {
		return err
	}
	if p.tables < 1 {
		return target.Usagef("--tables %d: need between 1 and 10000", p.tables)
	}
	if p.tableSize < 1 {
		return target.Usagef("--table-size %d: need at least 1", p.tableSize)
	}
	if !p.tablesSet {
		o.Tables = 0 // any, else the default
	}
	if !p.sizeSet {
		o.TableSize = 0
	}
	if p.db == "" {
		p.db = target.DefaultDB()
	}
	t, err := target.Open(ctx, p.db)
	if err != nil {
		return err
	}
	defer t.Close()
	if p.seed == 0 {
		p.seed = randomSeed()
	}
	o.Seed = p.seed
	var rows atomic.Int64
	o.Rows = &rows
	loaders := p.loaders
	if t.Dialect() == "sqlite" {
		loaders = 1
	}
	bar := newProgress(stderr, int64(p.tables)*int64(p.tableSize), "loading")
	start := time.Now()
	o.Phase = func(ph string) {
		switch ph {
		case "schema":
			fmt.Fprintf(stdout, "preparing sysbench-style OLTP: %s of %s on %s (%s), %s, seed %d\n",
				plural(p.tables, "table"), plural(p.tableSize, "row"), t.Name(), target.Where(t), plural(loaders, "loader"), p.seed)
		case "load":
			bar.start(&rows)
		case "indexes":
			bar.finish()
			fmt.Fprintf(stdout, "loaded %s in %.1f s; building the indexes on k and gathering statistics\n", plural64(rows.Load(), "row"), time.Since(start).Seconds())
		}
	}
	meta, err := oltp.Prepare(ctx, t, o)
	bar.finish()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		fmt.Fprintf(stdout, "%s already holds %s of %s prepared by cairn (prepared %s, seed %d); nothing to do\n",
			target.Where(t), plural(meta.Tables, "sbtest table"), plural(meta.TableSize, "row"), meta.PreparedAt.Format(time.RFC3339), meta.Seed)
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "cairn: prepare interrupted; the partial tables remain: run 'cairn oltp cleanup' before preparing again")
			return errInterrupted
		}
		return err
	}
	fmt.Fprintf(stdout, "prepared %s of %s in %.1f s (%d rows, %.0f rows/s overall)\n",
		plural(meta.Tables, "table"), plural(meta.TableSize, "row"), meta.LoadSeconds, rows.Load(), float64(rows.Load())/meta.LoadSeconds)
	return nil
}

type oltpRunFlags struct {
	db           string
	workload     string
	vu           int
	rampup       time.Duration
	duration     time.Duration
	rate         float64
	latencyLimit time.Duration
	maxRetries   int
	progress     time.Duration
	seed         uint64
	jsonPath     string
	noStore      bool
	tables       int
	tableSize    int
	opt          oltp.Options
	profile      profileFlags
}

// add adds the flags that run and profile share.
func (r *oltpRunFlags) add(cmd *cobra.Command) {
	r.opt = oltp.DefaultOptions()
	f := cmd.Flags()
	f.StringVar(&r.db, "db", "", "database URL (default $CAIRN_DB, else sqlite://cairn.db)")
	f.StringVar(&r.workload, "workload", "read-write", "the event to run: "+strings.Join(oltp.WorkloadNames(), ", "))
	f.Var(durationFlag{&r.rampup}, "rampup", "time before the measured window (excluded from every figure)")
	f.Var(durationFlag{&r.duration}, "duration", "length of the measured window")
	f.Float64Var(&r.rate, "rate", 0, "open loop: R transactions per second in total, latency from the intended start (sysbench's --rate)")
	f.Var(durationFlag{&r.latencyLimit}, "latency-limit", "count transactions slower than this as late; with --rate, skip those already later")
	f.IntVar(&r.maxRetries, "max-retries", 10, "retries of a transaction after a deadlock or serialization failure")
	f.Var(durationFlag{&r.progress}, "progress", "interval of the live progress lines (0 = none; sysbench's --report-interval)")
	f.BoolVar(&r.noStore, "no-store", false, "do not record the result in the results store")
	f.IntVar(&r.tables, "tables", 0, "tables the data must have (default: as prepared)")
	f.IntVar(&r.tableSize, "table-size", 0, "rows per table the data must have been prepared with (default: as prepared)")
	o := &r.opt
	f.IntVar(&o.PointSelects, "point-selects", 10, "point SELECTs per event (point-select: 1, as oltp_point_select.lua)")
	f.IntVar(&o.RangeSize, "range-size", 100, "rows per range SELECT")
	f.IntVar(&o.SimpleRanges, "simple-ranges", 1, "simple range SELECTs per event")
	f.IntVar(&o.SumRanges, "sum-ranges", 1, "SELECT SUM() ranges per event")
	f.IntVar(&o.OrderRanges, "order-ranges", 1, "SELECT … ORDER BY ranges per event")
	f.IntVar(&o.DistinctRanges, "distinct-ranges", 1, "SELECT DISTINCT ranges per event")
	f.IntVar(&o.IndexUpdates, "index-updates", 1, "UPDATEs of the indexed column k per event")
	f.IntVar(&o.NonIndexUpdates, "non-index-updates", 1, "UPDATEs of the non-indexed column c per event")
	f.IntVar(&o.DeleteInserts, "delete-inserts", 1, "DELETE/INSERT pairs per event")
	f.BoolVar(&o.RangeSelects, "range-selects", true, "run the range SELECTs of read-only and read-write")
	f.BoolVar(&o.SkipTrx, "skip-trx", false, "no BEGIN/COMMIT: every statement in autocommit (read-only, read-write, write-only)")
	f.BoolVar(&o.ReadOnlyTrx, "read-only-trx", false, "read-only: START TRANSACTION READ ONLY instead of BEGIN")
	f.StringVar(&o.Protocol, "protocol", oltp.ProtocolPrepared, "prepared (statements prepared once per connection and table) or simple (plain SQL text)")
	f.StringVar(&o.Dist.Type, "dist", oltp.DistSpecial, "key distribution: "+strings.Join(oltp.Dists, ", ")+" (sysbench's --rand-type)")
	f.StringVar(&o.Dist.Type, "rand-type", oltp.DistSpecial, "same as --dist")
	_ = f.MarkHidden("rand-type")
	f.IntVar(&o.Dist.SpecIter, "rand-spec-iter", o.Dist.SpecIter, "gaussian and special: uniform draws averaged")
	f.IntVar(&o.Dist.SpecPct, "rand-spec-pct", o.Dist.SpecPct, "special: percentage of the keys that are hot")
	f.IntVar(&o.Dist.SpecRes, "rand-spec-res", o.Dist.SpecRes, "special: percentage of the draws that go to the hot keys")
	f.Float64Var(&o.Dist.ParetoH, "rand-pareto-h", o.Dist.ParetoH, "pareto: the parameter h")
	f.Float64Var(&o.Dist.ZipfExp, "rand-zipfian-exp", o.Dist.ZipfExp, "zipfian: the exponent (theta)")
}

func newOLTPRun(stdout, stderr io.Writer) *cobra.Command {
	r := oltpRunFlags{duration: time.Minute, progress: 5 * time.Second}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run one oltp workload for a rampup and an exactly measured window; print TPS, QPS and latencies",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return doOLTPRun(cmd, &r, stdout, stderr)
		},
	}
	r.add(cmd)
	f := cmd.Flags()
	f.IntVar(&r.vu, "vu", 4, "virtual users (sysbench's --threads), each a goroutine with its own connection")
	f.Uint64Var(&r.seed, "seed", 0, "seed of the run's random inputs (default: random, printed)")
	f.StringVar(&r.jsonPath, "json", "", "write the result document to this file")
	return cmd
}

// resolve checks the flags and returns the workload; it applies oltp_point_select.lua's one
// point select per event when --point-selects is not given.
func (r *oltpRunFlags) resolve(cmd *cobra.Command) (*oltp.Workload, error) {
	w, err := oltp.Lookup(r.workload)
	if err != nil {
		return nil, err
	}
	f := cmd.Flags()
	if !f.Changed("point-selects") {
		r.opt.PointSelects = w.DefaultPointSelects()
	}
	switch {
	case f.Changed("tables") && r.tables < 1:
		return nil, target.Usagef("--tables %d: need at least 1", r.tables)
	case f.Changed("table-size") && r.tableSize < 1:
		return nil, target.Usagef("--table-size %d: need at least 1", r.tableSize)
	case r.vu < 1:
		return nil, target.Usagef("--vu %d: need at least 1 virtual user", r.vu)
	case r.duration <= 0:
		return nil, target.Usagef("--duration must be positive, like 2m")
	case r.rate < 0:
		return nil, target.Usagef("--rate %g: must be positive (or 0 for closed loop)", r.rate)
	case r.maxRetries < 0:
		return nil, target.Usagef("--max-retries %d: must be 0 or more", r.maxRetries)
	}
	if err := r.opt.Validate(w); err != nil {
		return nil, err
	}
	if r.db == "" {
		r.db = target.DefaultDB()
	}
	return w, nil
}

// runOnce runs the workload once at vu virtual users with the given seed.
func (r *oltpRunFlags) runOnce(ctx context.Context, t target.Target, w *oltp.Workload, vu int, seed uint64, stderr io.Writer) (*results.Document, error) {
	ecfg := run.Config{VUs: vu, Rampup: r.rampup, Duration: r.duration, Rate: r.rate, MaxRetries: r.maxRetries,
		Progress: r.progress, Seed: seed, LatencyLimit: r.latencyLimit}
	var onProgress func(run.Progress)
	if r.progress > 0 {
		onProgress = oltpProgress(stderr)
	}
	return oltp.Run(ctx, t, ecfg, oltp.RunOptions{Workload: w, Options: r.opt, Tables: r.tables, TableSize: r.tableSize,
		DB: target.Redact(r.db), OnProgress: onProgress, CairnVersion: Version})
}

func doOLTPRun(cmd *cobra.Command, r *oltpRunFlags, stdout, stderr io.Writer) error {
	ctx := cmd.Context()
	w, err := r.resolve(cmd)
	if err != nil {
		return err
	}
	s, err := openSession(ctx, resultsPath(cmd), r.noStore, r.db, "oltp")
	if err != nil {
		return err
	}
	defer s.Close()
	store, t := s.store, s.t
	if r.seed == 0 {
		r.seed = randomSeed()
	}
	fmt.Fprintf(stdout, "running oltp %s on %s (%s): %s, rampup %s, window %s, %s statements, seed %d\n",
		w.Name, t.Name(), target.Where(t), plural(r.vu, "VU"), r.rampup, r.duration, r.opt.Protocol, r.seed)
	doc, err := r.runOnce(ctx, t, w, r.vu, r.seed, stderr)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "cairn: interrupted before the run started")
			return errInterrupted
		}
		return err
	}
	return finishRun(ctx, store, doc, r.jsonPath, stdout)
}

// oltpProgress prints a live line per interval: transactions per second over the interval (as
// sysbench's --report-interval does), p95 latency and errors.
func oltpProgress(w io.Writer) func(run.Progress) {
	var last time.Duration
	return func(p run.Progress) {
		iv := (p.Elapsed - last).Seconds()
		last = p.Elapsed
		var b strings.Builder
		el := p.Elapsed.Round(time.Second)
		switch p.Phase {
		case "rampup":
			fmt.Fprintf(&b, "[%6s] rampup       ", el)
		case "window":
			fmt.Fprintf(&b, "[%6s] window %-5s ", el, p.InWindow.Round(time.Second))
		default:
			fmt.Fprintf(&b, "[%6s] end          ", el)
		}
		tot := p.Set.Total()
		tps := 0.0
		if iv > 0 {
			tps = float64(tot.Count) / iv
		}
		p95 := 0.0
		if len(p.P95) > 0 {
			p95 = p.P95[0]
		}
		fmt.Fprintf(&b, " tps %9.1f  p95 ms %s  errors %d  retries %d\n", tps, ms(p95), p.Errors, p.Retries)
		io.WriteString(w, b.String())
	}
}

func newOLTPProfile(stdout, stderr io.Writer) *cobra.Command {
	r := oltpRunFlags{rampup: 10 * time.Second, duration: time.Minute}
	r.profile.pause = 10 * time.Second
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Run one oltp workload at each of a list of VU counts; mark the peak, saturation and bottleneck steps",
		Long: `Run one oltp workload once per VU count (--repeat N: N times each) on the same prepared tables,
pausing between runs, and print one line per step with the peak, saturation and bottleneck marks that
docs/profiles.md defines, ranked by TPS. Every step is stored as a run of its own.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return doOLTPProfile(cmd, &r, stdout, stderr)
		},
	}
	r.add(cmd)
	r.profile.add(cmd)
	f := cmd.Flags()
	f.Uint64Var(&r.seed, "seed", 0, "seed of the profile; each run's seed is derived from it (default: random, printed)")
	f.StringVar(&r.jsonPath, "json", "", "write the profile document, with every step's result document, to this file")
	return cmd
}

func doOLTPProfile(cmd *cobra.Command, r *oltpRunFlags, stdout, stderr io.Writer) error {
	ctx := cmd.Context()
	vus, err := r.profile.parse()
	if err != nil {
		return err
	}
	r.vu = vus[0]
	w, err := r.resolve(cmd)
	if err != nil {
		return err
	}
	s, err := openSession(ctx, resultsPath(cmd), r.noStore, r.db, "oltp")
	if err != nil {
		return err
	}
	defer s.Close()
	store, t := s.store, s.t
	if r.seed == 0 {
		r.seed = randomSeed()
	}
	p := newProfileDoc(ctx, t, "oltp", w.Txn, oltp.RunConfig{DB: target.Redact(r.db), Workload: w.Name, Script: w.Script, RampupSec: r.rampup.Seconds(),
		DurationSec: r.duration.Seconds(), Rate: r.rate, MaxRetries: r.maxRetries, Seed: r.seed, Options: r.opt})
	fmt.Fprintf(stdout, "profiling oltp %s on %s (%s): VUs %s, %d run(s) each, rampup %s, window %s, pause %s, seed %d\n",
		w.Name, t.Name(), target.Where(t), joinInts(vus), r.profile.repeat, r.rampup, r.duration, r.profile.pause, r.seed)
	step := func(ctx context.Context, vu int, seed uint64) (*results.Document, error) {
		return r.runOnce(ctx, t, w, vu, seed, stderr)
	}
	return doProfile(ctx, t, p, profile.Options{VUs: vus, Repeat: r.profile.repeat, Pause: r.profile.pause, Seed: r.seed},
		step, store, r.jsonPath, stdout, stderr)
}
