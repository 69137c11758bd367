package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

func init() {
	workload.Register(tpcc{})
	results.OnMerge("tpcc", merged)
}

type tpcc struct{}

func (tpcc) Info() workload.Info {
	return workload.Info{Name: "tpcc", Title: "TPC-C", Footprint: Footprint, Profile: true,
		Short: "TPC-C-derived OLTP workload (NOPM/TPM, like HammerDB's TPROC-C)",
		Long: `The TPC-C-derived OLTP workload: prepare a schema of W warehouses, run virtual users against it,
check the TPC-C consistency conditions, clean up. See docs/tpcc.md for what every figure means.`,
		Help: map[string]string{
			"prepare": "Create the schema, load it in parallel, build indexes and procedures, analyze",
			"run":     "Run virtual users for a rampup and an exactly measured window; print NOPM, TPM and latencies",
			"profile": "Run the workload at each of a list of VU counts; mark the peak, saturation and bottleneck steps",
			"check":   "Verify TPC-C consistency conditions 3.3.2.1-4 (--all: 1-10 and 12)",
		}}
}

// PrepareSpec is prepare's options.
type PrepareSpec struct {
	Warehouses int    `opt:"warehouses" short:"w" default:"1" min:"1" help:"number of warehouses (about 100 MB of data each); a complete schema of another size is refused"`
	Loaders    int    `opt:"loaders" min:"1" help:"parallel loaders (SQLite always uses 1)"`
	Seed       uint64 `opt:"seed" help:"seed of the generated data (0: random, printed)"`
	Partition  bool   `opt:"partition" help:"hash-partition orders and order_line by warehouse (PostgreSQL, MySQL/MariaDB)"`
	NoProcs    bool   `opt:"no-procs" help:"do not create the server-side transactions (then only --mode sql runs)"`
	From       string `opt:"from" help:"load the files cairn tpcc gen wrote into this directory (all parts) instead of generating; the warehouses and seed are theirs"`
}

// GenSpec is gen's options.
type GenSpec struct {
	Warehouses int    `opt:"warehouses" short:"w" min:"1" help:"warehouses of the whole data set (all parts)"`
	Out        string `opt:"out" short:"o" help:"directory for the files (made if missing); copy every part's into one directory for prepare --from"`
	Parts      int    `opt:"parts" min:"1" help:"split the warehouses into this many parts, generated apart (on several machines)"`
	Part       int    `opt:"part" min:"1" help:"which part to generate, 1..--parts; part 1 also writes the item table"`
	Seed       uint64 `opt:"seed" help:"seed of the generated data (0: random, printed; with --parts above 1 give the same one to every part)"`
	Workers    int    `opt:"workers" min:"1" help:"files written at once"`
}

// RunSpec is run's and profile's options.
type RunSpec struct {
	Mode           string `opt:"mode" enum:"procs,sql" unset:"" help:"procs (one call per transaction; the default where the schema has them) or sql (client-side prepared statements)"`
	AllWarehouses  bool   `opt:"all-warehouses" help:"each transaction picks its home warehouse at random from all warehouses"`
	KeyingThinking bool   `opt:"keying-thinking" help:"wait the spec's keying and think times (then at most about 1.26 NOPM per VU)"`
}

// Validate checks what depends on the engine's settings.
func (o *RunSpec) Validate(e *workload.Engine) error {
	if o.KeyingThinking && e.Rate > 0 {
		return options.Errorf("rate", options.Format(e.Rate), "--rate and --keying-thinking exclude each other: an open-loop schedule replaces the think times")
	}
	return nil
}

// CheckSpec is check's options.
type CheckSpec struct {
	All     bool `opt:"all" help:"check conditions 1-10 and 12, not only 1-4"`
	Initial bool `opt:"initial" help:"also check condition 11, which holds only before the first Delivery (right after prepare)"`
}

func (tpcc) PrepareOptions() any { return &PrepareSpec{Loaders: runtime.NumCPU()} }
func (tpcc) RunOptions() any     { return &RunSpec{} }
func (tpcc) CheckOptions() any   { return &CheckSpec{} }

func (tpcc) Prepare(ctx context.Context, t target.Target, opts any, p workload.Preparing) error {
	o := opts.(*PrepareSpec)
	var files *Files
	from := ""
	if o.From != "" {
		f, err := filesFor(o)
		if err != nil {
			return err
		}
		files, from = f, " from "+o.From
		o.Warehouses, o.Seed = f.Warehouses, f.Seed
	}
	if o.Seed == 0 {
		o.Seed = workload.RandomSeed()
	}
	loaders := o.Loaders
	if t.Dialect().SingleWriter {
		loaders = 1
	}
	w := max(o.Warehouses, 1)
	total := ExpectedRows(w)
	if files != nil {
		total = files.Rows()
	}
	if o.Partition && t.Dialect().Partitions == "" {
		// Prepare leaves the tables whole there; a study's partition factor still runs both cases.
		p.Say("--partition: %s has no table partitioning, so orders and order_line are prepared unpartitioned", t.Name())
	}
	var rows atomic.Int64
	start := time.Now()
	meta, err := Prepare(ctx, t, PrepareOptions{Warehouses: o.Warehouses, Loaders: o.Loaders, Seed: o.Seed, Partition: o.Partition,
		Procedures: !o.NoProcs && t.Dialect().Procedures, Rows: &rows, From: files,
		Phase: func(ph string) {
			switch ph {
			case "schema":
				p.Say("preparing TPC-C%s: %s on %s (%s), %s, seed %d", from, workload.Plural(w, "warehouse"), t.Name(), target.Where(t),
					workload.Plural(loaders, "loader"), o.Seed)
			case "load":
				p.Load(total, &rows)
			case "loaded":
				p.Loaded()
				p.Say("loaded %s and built the indexes in %.1f s", workload.Plural(int(rows.Load()), "row"), time.Since(start).Seconds())
			default:
				p.Say("%s", ph)
			}
		}})
	p.Loaded()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		p.Say("%s already holds a complete TPC-C schema of %s (prepared %s, seed %d); nothing to do",
			target.Where(t), workload.Plural(meta.Warehouses, "warehouse"), meta.PreparedAt.Format(time.RFC3339), meta.Seed)
		return err
	}
	if err != nil {
		return err
	}
	p.Say("prepared %s in %.1f s (%d rows, %.0f rows/s overall)",
		workload.Plural(meta.Warehouses, "warehouse"), meta.LoadSeconds, rows.Load(), float64(rows.Load())/meta.LoadSeconds)
	return nil
}

// filesFor opens prepare --from's directory; a --warehouses or --seed that is not the files' is
// refused.
func filesFor(o *PrepareSpec) (*Files, error) {
	f, err := OpenFiles(o.From)
	if err != nil {
		return nil, err
	}
	if o.Warehouses != 0 && o.Warehouses != f.Warehouses {
		return nil, options.Errorf("warehouses", strconv.Itoa(o.Warehouses), "the files in %s hold %s: leave --warehouses out with --from", o.From, workload.Plural(f.Warehouses, "warehouse"))
	}
	if o.Seed != 0 && o.Seed != f.Seed {
		return nil, options.Errorf("seed", strconv.FormatUint(o.Seed, 10), "the files in %s were generated with seed %d: leave --seed out with --from", o.From, f.Seed)
	}
	return f, nil
}

// Tools is tpcc gen.
func (tpcc) Tools() []workload.Tool {
	return []workload.Tool{{Name: "gen", Short: "Write the TPC-C load files of a part of the warehouses, for prepare --from",
		Long: `Write the rows prepare would load, as text files (the format COPY and LOAD DATA read), one per table
and warehouse, for the warehouses of part --part of --parts, then the part's manifest. Parts can be
generated on several machines at once; copy them into one directory and load it with
cairn tpcc prepare --from DIR. See docs/tpcc.md and docs/scale.md.`,
		Options: func() any {
			return &GenSpec{Warehouses: 1, Out: ".", Parts: 1, Part: 1, Workers: runtime.NumCPU()}
		},
		Run: gen}}
}

func gen(ctx context.Context, opts any, p workload.Preparing) error {
	o := opts.(*GenSpec)
	g := GenOptions{Dir: o.Out, Seed: o.Seed, Warehouses: o.Warehouses, Parts: o.Parts, Part: o.Part, Workers: o.Workers}
	if err := CheckGen(g); err != nil {
		return err
	}
	if g.Seed == 0 {
		g.Seed = workload.RandomSeed()
	}
	first, last := PartWarehouses(g.Warehouses, g.Parts, g.Part)
	p.Say("generating TPC-C part %d of %d: warehouses %d-%d of %d into %s, %s, seed %d",
		g.Part, g.Parts, first, last, g.Warehouses, g.Dir, workload.Plural(g.Workers, "worker"), g.Seed)
	var rows atomic.Int64
	g.Rows = &rows
	total := int64(last-first+1) * rowsPerWarehouse
	if g.Part == 1 {
		total += numItems
	}
	p.Load(total, &rows)
	t0 := time.Now()
	m, err := GenFiles(ctx, g)
	p.Loaded()
	if err != nil {
		if ctx.Err() != nil {
			p.Say("interrupted: part %d has no manifest, so prepare --from refuses it until it is generated again", g.Part)
		}
		return err
	}
	var bytes int64
	for _, e := range m.Files {
		bytes += e.Bytes
	}
	el := time.Since(t0).Seconds()
	p.Say("done: %s, %d rows, %.1f MB in %.1f s (%.0f rows/s); manifest %s",
		workload.Plural(len(m.Files), "file"), rows.Load(), float64(bytes)/1e6, el, float64(rows.Load())/el, ManifestName(g.Part, g.Parts))
	return nil
}

// Summary ends the common summary with TPC-C's own lines: the deliveries that found nothing to
// deliver, and HammerDB's result line.
func (tpcc) Summary(w io.Writer, d *results.Document, _ *workload.Engine, _ any) {
	switch s := d.Extra["delivery_skipped_districts"].(type) {
	case int64:
		if s > 0 {
			fmt.Fprintf(w, "delivery: %d districts had no undelivered order and were skipped (whole run)\n", s)
		}
	case float64: // read back from a stored document
		if s > 0 {
			fmt.Fprintf(w, "delivery: %.0f districts had no undelivered order and were skipped (whole run)\n", s)
		}
	}
	if x, ok := extraOf(d); ok && x.Spec != nil {
		printSpec(w, x.Spec)
	}
	if h := d.HeadlineFigure(); h != nil && d.Result.TPM != nil {
		fmt.Fprintf(w, "TEST RESULT : System achieved %.0f %s from %s %s TPM", h.Value, h.Name, d.Result.TPMText(), d.Target.Name)
		if a := d.Result.TPMApprox; a != nil {
			fmt.Fprintf(w, " (approximate: between %d and %d)", a.Min, a.Max)
		}
		fmt.Fprintln(w)
	}
}

// Replaces is false: TPC-C's lines follow the common summary.
func (tpcc) Replaces() bool { return false }

// headlineSQL is read at both ends of the window: each committed New-Order adds one.
const headlineSQL = "(SELECT SUM(d_next_o_id) FROM district)"

// Extra is TPC-C's own section of the result document (extra.tpcc): what the run found prepared.
type Extra struct {
	Warehouses    int       `json:"warehouses"`
	Partitioned   bool      `json:"partitioned"`
	DataSeed      uint64    `json:"data_seed"`
	LoadConstants Constants `json:"load_constants"`
	RunConstants  Constants `json:"run_constants"`
	// Spec is set when the terminals keyed and thought: the run against the specification's
	// ceiling and response-time constraints.
	Spec *SpecFigures `json:"spec,omitempty"`
}

func (tpcc) Start(ctx context.Context, t target.Target, opts any, seed uint64) (*workload.Run, error) {
	o := opts.(*RunSpec)
	meta, err := workload.ReadMeta[Meta](ctx, t, Footprint)
	if err != nil {
		return nil, err
	}
	mode := o.Mode
	switch mode {
	case "":
		mode = ModeSQL
		if meta.Procedures {
			mode = ModeProcs
		}
	case ModeProcs:
		if !t.Dialect().Procedures {
			return nil, options.Errorf("mode", mode, "%s has no stored procedures; use --mode sql", t.Name())
		}
		if !meta.Procedures {
			return nil, options.Errorf("mode", mode, "the schema was prepared without procedures; run cleanup and prepare again")
		}
	}
	rc := RunConstants(newRand(seed, 7), meta.Load)
	o.Mode = mode // the stored spec says which mode ran
	cfg := VUConfig{Mode: mode, AllWarehouses: o.AllWarehouses, Seed: seed, Meta: *meta, Run: rc, Replicas: target.ReplicatedOf(ctx)}
	var routed []int
	if cfg.Replicas != nil {
		routed = []int{TxOrderStatus, TxStockLevel}
	}
	var mu sync.Mutex
	var vus []*VU
	data := meta.Stamp.Data(map[string]string{"warehouses": fmt.Sprint(meta.Warehouses), "seed": fmt.Sprint(meta.Seed),
		"partition": fmt.Sprint(meta.Partitioned), "no-procs": fmt.Sprint(!meta.Procedures)})
	return &workload.Run{Types: TxnNames, Main: TxNewOrder, Headline: workload.HeadlineServer, HeadlineTx: TxNewOrder, Data: data,
		HeadlineSQL: headlineSQL, HeadlineName: "NOPM", HeadlineUnit: "New-Orders per minute", Mode: mode, Pace: o.KeyingThinking, Labels: txnLabels, Routed: routed,
		NewVU: func(id int) (workload.VU, error) {
			v, err := NewVU(id, t.Dialect(), cfg)
			if err == nil {
				mu.Lock()
				vus = append(vus, v)
				mu.Unlock()
			}
			return v, err
		},
		PartIDs: func(vus int, p workload.Part) ([]int, error) { return partIDs(vus, meta.Warehouses, p) },
		Finish: func(d *results.Document) {
			var skips int64
			mu.Lock()
			for _, v := range vus {
				skips += v.DeliverySkips.Load()
			}
			mu.Unlock()
			if h := d.Result.Headline; h != nil {
				nopm := int64(h.Value) // result.nopm, as documents before format 3 held it
				d.Result.NOPM = &nopm
			}
			x := Extra{Warehouses: meta.Warehouses, Partitioned: meta.Partitioned, DataSeed: meta.Seed, LoadConstants: meta.Load, RunConstants: rc}
			if o.KeyingThinking {
				x.Spec = specFigures(d, meta.Warehouses)
			}
			d.Extra = map[string]any{"delivery_skipped_districts": skips, "tpcc": x}
		}}, nil
}

// Check runs the consistency conditions and prints a line for each.
func (tpcc) Check(ctx context.Context, t target.Target, opts any, w io.Writer) error {
	o := opts.(*CheckSpec)
	conds, err := Check(ctx, t, o.All, o.Initial)
	if err != nil {
		return err
	}
	bad := 0
	for _, c := range conds {
		if c.Passed {
			fmt.Fprintf(w, "PASS  3.3.2.%-2d %s (%.2f s)\n", c.Number, c.Title, c.Seconds)
			continue
		}
		bad++
		fmt.Fprintf(w, "FAIL  3.3.2.%-2d %s: %d violations, e.g. %v\n", c.Number, c.Title, c.Violations, c.Examples)
	}
	if bad > 0 {
		return &workload.CheckFailed{Msg: fmt.Sprintf("%d of %d consistency conditions violated", bad, len(conds))}
	}
	fmt.Fprintf(w, "all %d consistency conditions hold\n", len(conds))
	return nil
}

// PrepareRows is about how many rows a prepare with opts loads (workload.PrepareSizer).
func (tpcc) PrepareRows(opts any) int64 {
	return ExpectedRows(max(opts.(*PrepareSpec).Warehouses, 1))
}
