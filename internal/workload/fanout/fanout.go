// Package fanout is one logical request over many databases: each request sends the original's
// indexed SUM to each of --fanout shards of a shard set, at most --parallelism at a time, and
// checks the combined sum. It reports logical against physical response time, per shard and per
// server, which shard answers last (the short board), the slowest requests and its own
// scheduling delay (docs/fanout.md).
package fanout

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

//go:embed sql
var sqlFS embed.FS

var sqlFiles = sqlfile.Files{FS: sqlFS, Owner: "fanout"}

// Table is the one table of every shard.
const Table = "fanout_t"

// Footprint is what fanout creates in each shard.
var Footprint = workload.Footprint{Name: "fanout", Title: "fan-out", Tables: regexp.MustCompile(`^fanout_t$`).MatchString}

func init() { workload.Register(fanout{}) }

type fanout struct{}

func (fanout) Info() workload.Info {
	return workload.Info{Name: "fanout", Title: "fan-out", Footprint: Footprint, Profile: true,
		Defaults: map[string]string{"run.rampup": "2s"},
		Short:    "one logical request over many shards: logical against physical response time, the short board",
		Long: `One logical request over a shard set: each request sends SELECT SUM(emp_arr_amt) FROM fanout_t WHERE
insutype=? AND revs_flag=? AND accrym=? AND emp_no=? to each of --fanout shards, at most --parallelism
at once, and checks the combined sum. See docs/fanout.md for every figure.

  cairn fanout prepare --db 'mysql://u:${CAIRN_PASSWORD}@h1:3306,h2:3306/shard_{0..7}' --rows 100000
  cairn fanout run     --db 'mysql://u:${CAIRN_PASSWORD}@h1:3306,h2:3306/shard_{0..7}' --vu 16 --parallelism 8
  cairn fanout check   --db …
  cairn fanout cleanup --db …`,
		Help: map[string]string{
			"prepare": "Create fanout_t in every shard and load it, shards in parallel",
			"run":     "Run logical requests over the shards; print logical and physical figures, per shard and server, the short board and the slowest requests",
			"profile": "Run the fan-out at each of a list of VU counts",
			"check":   "Check every shard's rows against the seed they were prepared with",
			"cleanup": "Drop fanout_t and its meta table in every shard",
		}}
}

// PrepareSpec is prepare's options.
type PrepareSpec struct {
	Rows    int    `opt:"rows" min:"4" max:"100000000" default:"10000" help:"rows per shard (4 per employee); a complete schema of another size is refused"`
	Loaders int    `opt:"loaders" min:"1" help:"shards loaded at once"`
	Seed    uint64 `opt:"seed" help:"seed of the generated data (0: random, printed)"`
}

// Protocols of the statement.
const (
	ProtoCommented = "commented"
	ProtoPrepared  = "prepared"
)

// RunSpec is run's options.
type RunSpec struct {
	Fanout      int    `opt:"fanout" min:"0" max:"4096" help:"shards each request reaches (0: every shard of the set)"`
	Parallelism int    `opt:"parallelism" min:"0" max:"4096" help:"statements of one request in flight at once (1: serial; 0: all of them)"`
	SlowLog     int    `opt:"slow-log" min:"0" max:"1000" help:"the slowest requests to list with their statements"`
	Protocol    string `opt:"protocol" enum:"commented,prepared" help:"commented (SQL text carrying /* cairn-req=ID */, for the server's logs) or prepared (prepared once per connection, no id)"`
	Rows        int    `opt:"rows" min:"4" unset:"0" help:"rows per shard the data must have (default: as prepared)"`
}

func (fanout) PrepareOptions() any { return &PrepareSpec{Rows: 10000, Loaders: runtime.NumCPU()} }
func (fanout) RunOptions() any     { return &RunSpec{SlowLog: 20, Protocol: ProtoCommented} }

// Meta is what prepare records in each shard's cairn_fanout_meta.
type Meta struct {
	Rows        int       `json:"rows"`
	Seed        uint64    `json:"seed"`
	Shard       int       `json:"shard"`  // the shard's place in the set it was prepared in
	Shards      int       `json:"shards"` // the size of that set
	PreparedAt  time.Time `json:"prepared_at"`
	LoadSeconds float64   `json:"load_seconds"`
}

func stmts(d target.Dialect, file string) (map[string]string, error) {
	return sqlFiles.Map(d.Chain(), file)
}

// eachShard runs f for every member of t, at most k at once. The first failure stops the others
// and is the one returned, naming its shard (the others' errors are of the stop).
func eachShard(ctx context.Context, t target.Target, k int, f func(ctx context.Context, i int, m target.Target) error) error {
	members := target.MembersOf(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(k, 1))
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				return
			}
			if err := f(ctx, i, m); err != nil {
				if len(members) > 1 {
					err = &target.ShardError{Index: i, Of: len(members), Where: target.Where(m), Err: err}
				}
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first == nil {
		return ctx.Err()
	}
	return first
}

func (fanout) Prepare(ctx context.Context, t target.Target, opts any, p workload.Preparing) error {
	o := opts.(*PrepareSpec)
	if o.Seed == 0 {
		o.Seed = workload.RandomSeed()
	}
	members := target.MembersOf(t)
	schema, err := stmts(t.Dialect(), "schema.sql")
	if err != nil {
		return err
	}
	session, err := workload.LoadSession(t.Dialect())
	if err != nil {
		return err
	}
	p.Say("preparing fan-out: %s of %s on %s (%s), %s, seed %d", workload.Plural(len(members), "shard"), workload.Plural(o.Rows, "row"),
		t.Name(), target.Where(t), workload.Plural(len(target.ServersOf(t)), "server"), o.Seed)
	var rows atomic.Int64
	var already atomic.Int64
	start := time.Now()
	p.Load(int64(len(members))*int64(o.Rows), &rows)
	err = eachShard(ctx, t, o.Loaders, func(ctx context.Context, i int, m target.Target) error {
		c, err := m.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		var have Meta
		s, err := workload.BeginPrepare(ctx, c, m, Footprint, []workload.Object{workload.Table(Table)}, &have)
		if errors.Is(err, workload.ErrAlreadyPrepared) {
			if have.Rows != o.Rows || have.Shard != i || have.Shards != len(members) {
				return &workload.MismatchError{S: s, Have: fmt.Sprintf("%s as shard %d of %d", workload.Plural(have.Rows, "row"), have.Shard, have.Shards),
					Asked: fmt.Sprintf("%s as shard %d of %d", workload.Plural(o.Rows, "row"), i, len(members)), Flag: fmt.Sprintf("--rows %d", o.Rows)}
			}
			rows.Add(int64(have.Rows))
			already.Add(1)
			return nil
		}
		if err != nil {
			return err
		}
		if err := s.Create(ctx, c, workload.Table(Table), schema["create_table"]); err != nil {
			return err
		}
		if session != "" {
			if _, err := c.Exec(ctx, session); err != nil {
				return fmt.Errorf("load session settings: %w", err)
			}
		}
		const chunk = 50_000
		for from := 0; from < o.Rows; from += chunk {
			to := min(from+chunk, o.Rows)
			if _, err := workload.BulkLoad(ctx, m, c, Table, []string{"id", "insutype", "revs_flag", "accrym", "emp_no", "emp_arr_amt"}, &rows, func(w target.RowWriter) error {
				for id := int64(from); id < int64(to); id++ {
					e := id / perEmp
					ins, flag, acc := keyOf(e)
					w.Int(id)
					w.Int(ins)
					w.Text(string(flag))
					w.Int(acc)
					w.Int(e)
					w.Int(amount(o.Seed, i, id))
					if err := w.EndRow(); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				return fmt.Errorf("load rows %d-%d: %w", from, to-1, err)
			}
		}
		if err := workload.ExecAll(ctx, c, schema["create_index"]); err != nil {
			return fmt.Errorf("create the index: %w", err)
		}
		return s.Complete(ctx, c, &Meta{Rows: o.Rows, Seed: o.Seed, Shard: i, Shards: len(members),
			PreparedAt: start.UTC().Truncate(time.Second), LoadSeconds: time.Since(start).Seconds()})
	})
	p.Loaded()
	if err != nil {
		return err
	}
	if int(already.Load()) == len(members) {
		p.Say("%s already prepared by cairn; nothing to do", workload.Plural(len(members), "shard"))
		return workload.ErrAlreadyPrepared
	}
	secs := time.Since(start).Seconds()
	p.Say("prepared %s in %.1f s (%d rows, %.0f rows/s overall)", workload.Plural(len(members), "shard"), secs, rows.Load(), float64(rows.Load())/secs)
	return nil
}

// loadMetas reads every shard's record and checks that the set is the one prepared: each shard in
// its place, all of one seed and size.
func loadMetas(ctx context.Context, t target.Target) ([]Meta, error) {
	members := target.MembersOf(t)
	metas := make([]Meta, len(members))
	err := eachShard(ctx, t, 16, func(ctx context.Context, i int, m target.Target) error {
		c, err := m.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := workload.Load(ctx, c, m, Footprint, &metas[i]); err != nil {
			return err
		}
		if metas[i].Shard != i || metas[i].Shards != len(members) {
			return fmt.Errorf("prepared as shard %d of %d, here shard %d of %d: give the shards in the order they were prepared in, or clean up and prepare again", metas[i].Shard, metas[i].Shards, i, len(members))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, m := range metas {
		if m.Seed != metas[0].Seed || m.Rows != metas[0].Rows {
			return nil, &target.ShardError{Index: i, Of: len(members), Where: target.Where(members[i]), Err: fmt.Errorf("prepared with seed %d and %d rows, shard 0 with seed %d and %d rows: clean up and prepare again", m.Seed, m.Rows, metas[0].Seed, metas[0].Rows)}
		}
	}
	return metas, nil
}

// CheckOptions has none: the check reads every shard.
func (fanout) CheckOptions() any { return &struct{}{} }

// Check counts every shard's rows and sums their amounts against the seed they were prepared with.
func (fanout) Check(ctx context.Context, t target.Target, _ any, w io.Writer) error {
	metas, err := loadMetas(ctx, t)
	if err != nil {
		return err
	}
	q, err := stmts(t.Dialect(), "run.sql")
	if err != nil {
		return err
	}
	members := target.MembersOf(t)
	bad := make([]string, len(members))
	err = eachShard(ctx, t, 16, func(ctx context.Context, i int, m target.Target) error {
		c, err := m.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		var n, sum, lo, hi int64
		if err := c.QueryRow(ctx, q["check"]).Scan(&n, &sum, &lo, &hi); err != nil {
			return err
		}
		rows := metas[i].Rows
		if want := total(metas[i].Seed, i, rows); n != int64(rows) || sum != want || lo != 0 || hi != int64(rows-1) {
			bad[i] = fmt.Sprintf("shard %d (%s): %d rows, ids %d-%d, sum %d; prepared %d rows, ids 0-%d, sum %d", i, target.Where(m), n, lo, hi, sum, rows, rows-1, want)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var fails []string
	for _, b := range bad {
		if b != "" {
			fails = append(fails, b)
		}
	}
	if len(fails) > 0 {
		for _, f := range fails {
			fmt.Fprintln(w, "FAIL "+f)
		}
		return &workload.CheckFailed{Msg: fmt.Sprintf("fan-out check: %d of %d shards differ from their prepared data", len(fails), len(members))}
	}
	fmt.Fprintf(w, "fan-out check: %s of %s each (seed %d): every row count and sum as prepared\n", workload.Plural(len(members), "shard"), workload.Plural(metas[0].Rows, "row"), metas[0].Seed)
	return nil
}

// Start checks the set against what was prepared and makes the run.
func (fanout) Start(ctx context.Context, t target.Target, opts any, seed uint64) (*workload.Run, error) {
	o := opts.(*RunSpec)
	metas, err := loadMetas(ctx, t)
	if err != nil {
		return nil, err
	}
	members := target.MembersOf(t)
	n := len(members)
	if o.Rows != 0 && o.Rows != metas[0].Rows {
		return nil, options.Errorf("rows", strconv.Itoa(o.Rows), "does not match the prepared data: %d rows per shard (omit --rows to use it)", metas[0].Rows)
	}
	if o.Fanout > n {
		return nil, options.Errorf("fanout", strconv.Itoa(o.Fanout), "the set has %s", workload.Plural(n, "shard"))
	}
	o.Rows = metas[0].Rows
	fan := o.Fanout
	if fan == 0 {
		fan = n
	}
	par := o.Parallelism
	if par == 0 || par > fan {
		par = fan
	}
	q, err := stmts(t.Dialect(), "run.sql")
	if err != nil {
		return nil, err
	}
	r := newRun(t, members, o, fan, par, metas[0].Seed, seed, q["select"])
	return &workload.Run{Types: []string{"request"}, Headline: workload.HeadlineClient, HeadlineName: "requests/s", HeadlineUnit: "logical requests per second",
		Statements: []workload.Statement{{Name: "select", Class: workload.ClassRead}}, Mode: o.Protocol,
		Describe: fmt.Sprintf("%s over %s on %s, at most %d in flight, %s statements", workload.Plural(fan, "statement"), workload.Plural(n, "shard"),
			workload.Plural(len(target.ServersOf(t)), "server"), par, o.Protocol),
		NewVU:  r.newVU,
		Finish: r.finish}, nil
}
