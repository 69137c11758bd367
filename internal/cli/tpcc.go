package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpcc"
)

func newTPCC(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tpcc",
		Short: "TPC-C-derived OLTP workload (NOPM/TPM, like HammerDB's TPROC-C)",
		Long: `The TPC-C-derived OLTP workload: prepare a schema of W warehouses, run virtual users against it,
check the TPC-C consistency conditions, clean up. See docs/tpcc.md for what every figure means.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newTPCCPrepare(stdout, stderr), newTPCCRun(stdout, stderr), newTPCCProfile(stdout, stderr), newTPCCCheck(stdout, stderr), newCleanup(stdout, tpcc.Footprint))
	return cmd
}

type prepareFlags struct {
	db         string
	warehouses int
	loaders    int
	seed       uint64
	partition  bool
	noProcs    bool
	sizeSet    bool // --warehouses was given: a complete schema of another size is an error
}

func (p *prepareFlags) add(cmd *cobra.Command, withDB bool) {
	f := cmd.Flags()
	if withDB {
		f.StringVar(&p.db, "db", "", "database URL: sqlite://FILE, postgres://user:pass@host:port/db, mysql://user:pass@host:port/db (default $CAIRN_DB, else sqlite://cairn.db)")
	}
	f.IntVarP(&p.warehouses, "warehouses", "w", 1, "number of warehouses (about 100 MB of data each)")
	f.IntVar(&p.loaders, "loaders", runtime.NumCPU(), "parallel loaders (SQLite always uses 1)")
	f.Uint64Var(&p.seed, "seed", 0, "seed of the generated data (default: random, printed)")
	f.BoolVar(&p.partition, "partition", false, "hash-partition orders and order_line by warehouse (PostgreSQL, MySQL/MariaDB)")
	f.BoolVar(&p.noProcs, "no-procs", false, "do not create the server-side transactions (then only --mode sql runs)")
}

func newTPCCPrepare(stdout, stderr io.Writer) *cobra.Command {
	var p prepareFlags
	cmd := &cobra.Command{
		Use:   "prepare",
		Short: "Create the schema, load it in parallel, build indexes and procedures, analyze",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.sizeSet = cmd.Flags().Changed("warehouses")
			return doPrepare(cmd.Context(), &p, stdout, stderr)
		},
	}
	p.add(cmd, true)
	return cmd
}

func (p *prepareFlags) validate() error {
	if p.warehouses < 1 {
		return target.Usagef("--warehouses %d: need at least 1", p.warehouses)
	}
	if p.loaders < 1 {
		return target.Usagef("--loaders %d: need at least 1", p.loaders)
	}
	return nil
}

func doPrepare(ctx context.Context, p *prepareFlags, stdout, stderr io.Writer) error {
	if err := p.validate(); err != nil {
		return err
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
	var rows atomic.Int64
	total := tpcc.ExpectedRows(p.warehouses)
	loaders := p.loaders
	if t.Dialect() == "sqlite" {
		loaders = 1
	}
	bar := newProgress(stderr, total, "loading")
	start := time.Now()
	asked := 0
	if p.sizeSet {
		asked = p.warehouses
	}
	meta, err := tpcc.Prepare(ctx, t, tpcc.PrepareOptions{
		Warehouses: asked, Loaders: p.loaders, Seed: p.seed, Partition: p.partition,
		Procedures: !p.noProcs && t.Dialect() != "sqlite", Rows: &rows, CairnVersion: Version,
		Phase: func(ph string) {
			if ph == "schema" {
				fmt.Fprintf(stdout, "preparing TPC-C: %s on %s (%s), %s, seed %d\n", plural(p.warehouses, "warehouse"), t.Name(), target.Where(t), plural(loaders, "loader"), p.seed)
			}
			if ph == "load" {
				bar.start(&rows)
			} else if ph == "indexes" {
				bar.finish()
				fmt.Fprintf(stdout, "loaded %s in %.1f s; building indexes\n", plural64(rows.Load(), "row"), time.Since(start).Seconds())
			} else if ph != "schema" {
				fmt.Fprintf(stdout, "%s\n", ph)
			}
		}})
	bar.finish()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		fmt.Fprintf(stdout, "%s already holds a complete TPC-C schema of %s (prepared %s, seed %d); nothing to do\n",
			target.Where(t), plural(meta.Warehouses, "warehouse"), meta.PreparedAt.Format(time.RFC3339), meta.Seed)
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "cairn: prepare interrupted; the partial schema remains: run 'cairn tpcc cleanup' before preparing again")
			return errInterrupted
		}
		return err
	}
	fmt.Fprintf(stdout, "prepared %s in %.1f s (%d rows, %.0f rows/s overall)\n",
		plural(meta.Warehouses, "warehouse"), meta.LoadSeconds, rows.Load(), float64(rows.Load())/meta.LoadSeconds)
	return nil
}

type runFlags struct {
	db         string
	vu         int
	rampup     time.Duration
	duration   time.Duration
	mode       string
	allW       bool
	pace       bool
	rate       float64
	maxRetries int
	progress   time.Duration
	seed       uint64
	jsonPath   string
	noStore    bool
	prepare    bool
	prep       prepareFlags
	profile    profileFlags
}

// addCommon adds the flags that run and profile share.
func (r *runFlags) addCommon(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&r.db, "db", "", "database URL (default $CAIRN_DB, else sqlite://cairn.db)")
	f.Var(durationFlag{&r.rampup}, "rampup", "time before the measured window (excluded from every figure)")
	f.Var(durationFlag{&r.duration}, "duration", "length of the measured window")
	f.StringVar(&r.mode, "mode", "", "procs (one call per transaction; default on PostgreSQL and MySQL) or sql (client-side prepared statements)")
	f.BoolVar(&r.allW, "all-warehouses", false, "each transaction picks its home warehouse at random from all warehouses")
	f.BoolVar(&r.pace, "keying-thinking", false, "wait the spec's keying and think times (then at most about 1.26 NOPM per VU)")
	f.Float64Var(&r.rate, "rate", 0, "open loop: R transactions per second in total, latency from the intended start")
	f.IntVar(&r.maxRetries, "max-retries", 10, "retries of a transaction after a deadlock or serialization failure")
	f.Var(durationFlag{&r.progress}, "progress", "interval of the live progress lines (0 = none)")
	f.BoolVar(&r.noStore, "no-store", false, "do not record the result in the results store")
}

func newTPCCRun(stdout, stderr io.Writer) *cobra.Command {
	r := runFlags{rampup: 10 * time.Second, duration: time.Minute, progress: 5 * time.Second}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run virtual users for a rampup and an exactly measured window; print NOPM, TPM and latencies",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r.prep.sizeSet = cmd.Flags().Changed("warehouses")
			return doRun(cmd.Context(), &r, resultsPath(cmd), stdout, stderr)
		},
	}
	r.addCommon(cmd)
	f := cmd.Flags()
	f.IntVar(&r.vu, "vu", 4, "virtual users (each a goroutine with its own connection)")
	f.Uint64Var(&r.seed, "seed", 0, "seed of the run's random inputs (default: random, printed)")
	f.StringVar(&r.jsonPath, "json", "", "write the result document to this file")
	f.BoolVar(&r.prepare, "prepare", false, "prepare the schema first if the database has none (uses --warehouses, --loaders)")
	f.IntVarP(&r.prep.warehouses, "warehouses", "w", 1, "with --prepare: number of warehouses")
	f.IntVar(&r.prep.loaders, "loaders", runtime.NumCPU(), "with --prepare: parallel loaders")
	return cmd
}

func (r *runFlags) validate() error {
	switch {
	case r.vu < 1:
		return target.Usagef("--vu %d: need at least 1 virtual user", r.vu)
	case r.duration <= 0:
		return target.Usagef("--duration must be positive, like 2m")
	case r.rate < 0:
		return target.Usagef("--rate %g: must be positive (or 0 for closed loop)", r.rate)
	case r.rate > 0 && r.pace:
		return target.Usagef("--rate and --keying-thinking exclude each other: an open-loop schedule replaces the think times")
	case r.maxRetries < 0:
		return target.Usagef("--max-retries %d: must be 0 or more", r.maxRetries)
	case r.mode != "" && r.mode != tpcc.ModeSQL && r.mode != tpcc.ModeProcs:
		return target.Usagef("--mode %q: use procs or sql", r.mode)
	}
	return nil
}

// runOnce runs TPC-C once at vu virtual users with the given seed; the target stays open across
// the steps of a profile.
func (r *runFlags) runOnce(ctx context.Context, t target.Target, vu int, seed uint64, stderr io.Writer) (*results.Document, error) {
	ecfg := run.Config{VUs: vu, Rampup: r.rampup, Duration: r.duration, Rate: r.rate, Pace: r.pace,
		MaxRetries: r.maxRetries, Progress: r.progress, Seed: seed}
	cfg := r.tpccConfig(vu)
	var onProgress func(run.Progress)
	if r.progress > 0 {
		onProgress = func(p run.Progress) { printProgress(stderr, p, tpcc.TxnNames) }
	}
	return tpcc.Run(ctx, t, ecfg, cfg, onProgress, Version)
}

func (r *runFlags) tpccConfig(vu int) tpcc.RunConfig {
	return tpcc.RunConfig{DB: target.Redact(r.db), VUs: vu, RampupSec: r.rampup.Seconds(), DurationSec: r.duration.Seconds(),
		Mode: r.mode, AllWarehouses: r.allW, KeyingThinking: r.pace, Rate: r.rate, MaxRetries: r.maxRetries,
		ProgressSec: r.progress.Seconds(), Seed: r.seed}
}

func doRun(ctx context.Context, r *runFlags, storePath string, stdout, stderr io.Writer) error {
	if err := r.validate(); err != nil {
		return err
	}
	if r.db == "" {
		r.db = target.DefaultDB()
	}
	// The store is opened first: a bad --results should fail before minutes of measuring.
	store, err := openStore(ctx, storePath, r.noStore)
	if err != nil {
		return err
	}
	if store != nil {
		defer store.Close()
	}
	if r.prepare {
		r.prep.db = r.db
		r.prep.seed = r.seed
		if err := doPrepare(ctx, &r.prep, stdout, stderr); err != nil {
			return err
		}
	}
	t, err := openExisting(ctx, r.db)
	if err != nil {
		return err
	}
	defer t.Close()
	if r.seed == 0 {
		r.seed = randomSeed()
	}
	fmt.Fprintf(stdout, "running TPC-C on %s (%s): %s, rampup %s, window %s, seed %d\n",
		t.Name(), target.Where(t), plural(r.vu, "VU"), r.rampup, r.duration, r.seed)
	doc, err := r.runOnce(ctx, t, r.vu, r.seed, stderr)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "cairn: interrupted before the run started")
			return errInterrupted
		}
		return err
	}
	return finishRun(ctx, store, doc, r.jsonPath, stdout)
}

// finishRun stores a run's document, prints its summary, writes --json and maps its outcome to an
// error (exit code): interrupted, nothing completed, or not stored. Every workload's run ends here.
func finishRun(ctx context.Context, store *results.Store, doc *results.Document, jsonPath string, stdout io.Writer) error {
	// Store before printing, so that the printed summary and the --json document carry the id.
	var storeErr error
	if store != nil {
		storeErr = store.SaveRun(context.WithoutCancel(ctx), doc, 0)
	}
	printSummary(stdout, doc)
	if store != nil && storeErr == nil {
		fmt.Fprintf(stdout, "stored as result %s in %s\n", doc.ID, store.Path)
	}
	if jsonPath != "" {
		if err := doc.WriteJSON(jsonPath); err != nil {
			return fmt.Errorf("write --json: %w", err)
		}
		fmt.Fprintf(stdout, "result document written to %s\n", jsonPath)
	}
	if storeErr != nil {
		return fmt.Errorf("the result was measured but not stored: %w", storeErr)
	}
	if doc.Interrupted || ctx.Err() != nil {
		return errInterrupted
	}
	var done, errs int64
	for _, tx := range doc.Txns {
		done += tx.Count
		errs += tx.Errors
	}
	if done == 0 {
		return failed{fmt.Sprintf("no transaction completed in the measured window (%d errors)", errs)}
	}
	return nil
}

func newTPCCCheck(stdout, stderr io.Writer) *cobra.Command {
	var db string
	var all, initial bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Verify TPC-C consistency conditions 3.3.2.1-4 (--all: 1-10 and 12)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			t, err := openExisting(ctx, db)
			if err != nil {
				return err
			}
			defer t.Close()
			conds, err := tpcc.Check(ctx, t, all, initial)
			if err != nil {
				return err
			}
			bad := 0
			for _, c := range conds {
				if c.Passed {
					fmt.Fprintf(stdout, "PASS  3.3.2.%-2d %s (%.2f s)\n", c.Number, c.Title, c.Seconds)
					continue
				}
				bad++
				fmt.Fprintf(stdout, "FAIL  3.3.2.%-2d %s: %d violations, e.g. %v\n", c.Number, c.Title, c.Violations, c.Examples)
			}
			if bad > 0 {
				return failed{fmt.Sprintf("%d of %d consistency conditions violated", bad, len(conds))}
			}
			fmt.Fprintf(stdout, "all %d consistency conditions hold\n", len(conds))
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "database URL (default $CAIRN_DB, else sqlite://cairn.db)")
	cmd.Flags().BoolVar(&all, "all", false, "check conditions 1-10 and 12, not only 1-4")
	cmd.Flags().BoolVar(&initial, "initial", false, "also check condition 11, which holds only before the first Delivery (right after prepare)")
	return cmd
}

// openExisting opens a database that a command expects to hold a schema already: for SQLite it
// refuses to create a new, empty file. workload names the prepare command to suggest.
func openExisting(ctx context.Context, db string, workload ...string) (target.Target, error) {
	if db == "" {
		db = target.DefaultDB()
	}
	u, err := target.ParseURL(db)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "sqlite" {
		if _, err := os.Stat(u.Path); err != nil {
			w := "tpcc"
			if len(workload) > 0 {
				w = workload[0]
			}
			return nil, target.Usagef("no database file %s: run 'cairn %s prepare' first", u.Path, w)
		}
	}
	return target.Open(ctx, db)
}

func plural(n int, word string) string { return workload.Plural(n, word) }

func plural64(n int64, word string) string { return workload.Plural(int(n), word) }

// article puts "a" or "an" before a word: "an oltp run", "a tpcc run".
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}
