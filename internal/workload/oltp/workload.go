package oltp

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

func init() { workload.Register(oltp{}) }

type oltp struct{}

func (oltp) Info() workload.Info {
	return workload.Info{Name: "oltp", Title: "sysbench-style OLTP", Footprint: Footprint, Profile: true,
		Defaults: map[string]string{"run.rampup": "0s"},
		Short:    "sysbench 1.0.20's oltp_* workloads (TPS/QPS, latency per statement)",
		Long: `sysbench 1.0.20's OLTP workloads: the same sbtest tables, data and statements as its oltp_common.lua,
driven by cairn's engine. Prepare the tables, run a workload, clean up. See docs/oltp.md for every
statement and how the figures relate to sysbench's.

  cairn oltp prepare --db URL --tables 8 --table-size 1000000
  cairn oltp run     --db URL --workload read-only --vu 16 --duration 2m
  cairn oltp cleanup --db URL`,
		Help: map[string]string{
			"prepare": "Create the sbtest tables, load them in parallel, build the index on k, analyze",
			"run":     "Run one oltp workload for a rampup and an exactly measured window; print TPS, QPS and latencies",
			"profile": "Run one oltp workload at each of a list of VU counts; mark the peak, saturation and bottleneck steps",
		}}
}

// PrepareSpec is prepare's options.
type PrepareSpec struct {
	Tables    int    `opt:"tables" min:"1" max:"10000" default:"1" help:"number of tables, sbtest1..N (sysbench's --tables); a complete schema of another count is refused"`
	TableSize int    `opt:"table-size" min:"1" max:"2146435071" default:"10000" help:"rows per table (sysbench's --table-size; about 250 bytes each)"`
	Loaders   int    `opt:"loaders" min:"1" help:"parallel loaders (SQLite always uses 1)"`
	Seed      uint64 `opt:"seed" help:"seed of the generated data (0: random, printed)"`
}

// RunSpec is run's and profile's options: the event to run, the sizes the data must have, and
// oltp_common.lua's options.
type RunSpec struct {
	Workload  string `opt:"workload" help:"the event to run: point-select, read-only, read-write, write-only, update-index, update-non-index, insert, delete, simple-ranges, sum-ranges, order-ranges or distinct-ranges"`
	Tables    int    `opt:"tables" min:"1" unset:"0" help:"tables the data must have (default: as prepared)"`
	TableSize int    `opt:"table-size" min:"1" unset:"0" help:"rows per table the data must have been prepared with (default: as prepared)"`
	Options
}

// Resolve gives the options the event's own defaults.
func (o *RunSpec) Resolve() {
	if w, err := Lookup(o.Workload); err == nil {
		o.Workload = w.Name
		o.Options.Resolve(w)
	}
}

// Validate checks the options together.
func (o *RunSpec) Validate(*workload.Engine) error {
	w, err := Lookup(o.Workload)
	if err != nil {
		return err
	}
	return o.Options.Validate(w)
}

func (oltp) PrepareOptions() any { return &PrepareSpec{Loaders: runtime.NumCPU()} }
func (oltp) RunOptions() any {
	return &RunSpec{Workload: "read-write", Options: DefaultOptions()}
}

func (oltp) Prepare(ctx context.Context, t target.Target, opts any, p workload.Preparing) error {
	o := opts.(*PrepareSpec)
	if o.Seed == 0 {
		o.Seed = workload.RandomSeed()
	}
	loaders := o.Loaders
	if t.Dialect().SingleWriter {
		loaders = 1
	}
	tables, size := max(o.Tables, 1), o.TableSize
	if size == 0 {
		size = 10000
	}
	var rows atomic.Int64
	start := time.Now()
	meta, err := Prepare(ctx, t, PrepareOptions{Tables: o.Tables, TableSize: o.TableSize, Loaders: o.Loaders, Seed: o.Seed, Rows: &rows,
		Phase: func(ph string) {
			switch ph {
			case "schema":
				p.Say("preparing sysbench-style OLTP: %s of %s on %s (%s), %s, seed %d", workload.Plural(tables, "table"),
					workload.Plural(size, "row"), t.Name(), target.Where(t), workload.Plural(loaders, "loader"), o.Seed)
			case "load":
				p.Load(int64(tables)*int64(size), &rows)
			case "indexes":
				p.Loaded()
				p.Say("loaded %s in %.1f s; building the indexes on k and gathering statistics", workload.Plural(int(rows.Load()), "row"), time.Since(start).Seconds())
			}
		}})
	p.Loaded()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		p.Say("%s already holds %s of %s prepared by cairn (prepared %s, seed %d); nothing to do", target.Where(t),
			workload.Plural(meta.Tables, "sbtest table"), workload.Plural(meta.TableSize, "row"), meta.PreparedAt.Format(time.RFC3339), meta.Seed)
		return err
	}
	if err != nil {
		return err
	}
	p.Say("prepared %s of %s in %.1f s (%d rows, %.0f rows/s overall)", workload.Plural(meta.Tables, "table"),
		workload.Plural(meta.TableSize, "row"), meta.LoadSeconds, rows.Load(), float64(rows.Load())/meta.LoadSeconds)
	return nil
}

// Extra is oltp's own section of the result document (extra.oltp).
type Extra struct {
	Script    string `json:"sysbench_script,omitempty"`
	Tables    int    `json:"tables"`
	TableSize int    `json:"table_size"`
	DataSeed  uint64 `json:"data_seed"`
}

func (oltp) Start(ctx context.Context, t target.Target, opts any, seed uint64) (*workload.Run, error) {
	ro := opts.(*RunSpec)
	w, err := Lookup(ro.Workload)
	if err != nil {
		return nil, err
	}
	o := ro.Options
	o.Resolve(w)
	if err := o.Validate(w); err != nil {
		return nil, err
	}
	meta, err := workload.ReadMeta[Meta](ctx, t, Footprint)
	if err != nil {
		return nil, err
	}
	if ro.Tables != 0 && ro.Tables != meta.Tables {
		return nil, options.Errorf("tables", fmt.Sprint(ro.Tables), "does not match the prepared data: %s holds %d tables (omit --tables to use them)", target.Where(t), meta.Tables)
	}
	if ro.TableSize != 0 && ro.TableSize != meta.TableSize {
		return nil, options.Errorf("table-size", fmt.Sprint(ro.TableSize), "does not match the prepared data: %s was prepared with %d rows per table (omit --table-size to use it)", target.Where(t), meta.TableSize)
	}
	counters := &Counters{}
	stmts, _ := w.Statements(o)
	ro.Tables, ro.TableSize = meta.Tables, meta.TableSize // the stored spec says what ran
	vo := VUOptions{Workload: w, Options: o, Tables: meta.Tables, TableSize: meta.TableSize, Seed: seed, Counters: counters}
	var routed []int
	if rep := target.ReplicatedOf(ctx); rep != nil && (w.readOnly || w.Name == "point-select") {
		vo.Replicas, routed = rep, []int{0}
	}
	data := meta.Stamp.Data(map[string]string{"tables": fmt.Sprint(meta.Tables), "table-size": fmt.Sprint(meta.TableSize), "seed": fmt.Sprint(meta.Seed)})
	return &workload.Run{Types: []string{w.Txn}, Data: data, Headline: workload.HeadlineClient, HeadlineName: "TPS", HeadlineUnit: "transactions per second", Statements: stmts, Mode: o.Protocol, Routed: routed,
		Describe: fmt.Sprintf("%s, %s statements", w.Name, o.Protocol),
		NewVU:    func(id int) (workload.VU, error) { return NewVU(id, t.Dialect(), vo) },
		Finish: func(d *results.Document) {
			d.Extra = map[string]any{
				"rows_inserted":    counters.Inserted.Load(),
				"rows_deleted":     counters.Deleted.Load(),
				"restarted_events": counters.Restarts.Load(),
				"oltp":             Extra{Script: w.Script, Tables: meta.Tables, TableSize: meta.TableSize, DataSeed: meta.Seed},
			}
			if n := counters.Restarts.Load(); n > 0 {
				d.Notes = append(d.Notes, fmt.Sprintf("%d events were restarted with new inputs after a duplicate key on the delete/insert pair (whole run; sysbench's \"ignored errors\")", n))
			}
		}}, nil
}

// PrepareRows is how many rows a prepare with opts loads (workload.PrepareSizer).
func (oltp) PrepareRows(opts any) int64 {
	o := opts.(*PrepareSpec)
	return int64(max(o.Tables, 1)) * int64(max(o.TableSize, 1))
}
