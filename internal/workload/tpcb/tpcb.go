// Package tpcb is pgbench's TPC-B family on every target: pgbench's four tables with its column
// types and initial data (PostgreSQL 15's pgbench -i, init steps "dtgvp"), and its three built-in
// scripts, tpcb-like, simple-update (pgbench -N) and select-only (pgbench -S), with the same
// statements and random ranges. docs/tpcb.md lists every statement and how the figures relate to
// pgbench's.
package tpcb

import (
	"context"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

//go:embed sql
var sqlFS embed.FS

var sqlFiles = sqlfile.Files{FS: sqlFS, Owner: "tpcb"}

// stmts returns the named statements of one file of a dialect.
func stmts(d target.Dialect, file string) ([]sqlfile.Stmt, error) {
	return sqlFiles.Stmts(d.Chain(), file)
}

func stmtMap(d target.Dialect, file string) (map[string]string, error) {
	return sqlFiles.Map(d.Chain(), file)
}

// tables are pgbench's tables; they are all that prepare creates, with the meta table.
var tables = []string{"pgbench_accounts", "pgbench_branches", "pgbench_history", "pgbench_tellers"}

// Footprint is what tpcb creates. pgbench -i makes tables of the same names; those belong to
// nobody cairn knows, and cairn neither prepares over them nor drops them.
var Footprint = workload.Footprint{Name: "tpcb", Title: "pgbench-style TPC-B", Foreign: "pgbench -i", Tables: func(n string) bool {
	for _, t := range tables {
		if n == t {
			return true
		}
	}
	return false
}}

// Meta is what prepare records in cairn_tpcb_meta; run reads it back (pgbench instead counts
// pgbench_branches to learn the scale).
type Meta struct {
	Scale      int    `json:"scale"`
	Fillfactor int    `json:"fillfactor"`
	AidType    string `json:"aid_type"` // int, or bigint from scale 20000 on
	Accounts   int64  `json:"accounts"`
	workload.Stamp
}

// PrepareOptions configure prepare.
type PrepareOptions struct {
	Scale      int // 0: use a complete schema of any scale, else prepare scale 1
	Fillfactor int // PostgreSQL only; 100 elsewhere
	Loaders    int
	Rows       *atomic.Int64 // rows loaded so far, for a progress display
	Phase      func(string)  // called at each step: "tables", "generate", "vacuum", "primary keys", "analyze"
}

// ExpectedRows is the number of rows prepare loads at a scale.
func ExpectedRows(scale int) int64 {
	return int64(scale) * (AccountsPerScale + TellersPerScale + BranchesPerScale)
}

// Prepare runs pgbench's default initialization steps: create the tables (t), generate the data
// client-side through each target's bulk path (g), vacuum (v, PostgreSQL), and add the primary
// keys (p). It does not drop anything first (pgbench's d): a complete schema is reported with
// ErrAlreadyPrepared, a partial one is an error that asks for cleanup.
func Prepare(ctx context.Context, t target.Target, o PrepareOptions) (*Meta, error) {
	asked := o.Scale
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Fillfactor == 0 {
		o.Fillfactor = 100
	}
	d := t.Dialect()
	m := &Meta{Scale: o.Scale, Fillfactor: o.Fillfactor, AidType: "int", Accounts: int64(o.Scale) * AccountsPerScale}
	if o.Scale >= Scale32BitThreshold {
		m.AidType = "bigint"
	}
	schema, err := stmts(d, "schema.sql")
	if err != nil {
		return nil, err
	}
	var tables []workload.Create
	for _, st := range schema {
		q := strings.ReplaceAll(st.SQL, "{{aid}}", m.AidType)
		q = strings.ReplaceAll(q, "{{fillfactor}}", strconv.Itoa(o.Fillfactor))
		tables = append(tables, workload.Create{Object: workload.Table(st.Name), SQL: q})
	}
	after, err := afterLoad(d)
	if err != nil {
		return nil, err
	}
	return workload.Prepare(ctx, t, workload.Prep[Meta]{Footprint: Footprint, Meta: m,
		Sizes: func(have *Meta) []workload.Size {
			return []workload.Size{workload.SizeOf(asked, have.Scale, "scale", func(n int) string { return fmt.Sprintf("scale %d", n) })}
		},
		Tables: tables, TablesPhase: "tables",
		Load:      func(ctx context.Context, l *workload.Loading) error { return load(ctx, l, o.Scale) },
		LoadPhase: "generate", After: after,
		Loaders: o.Loaders, Rows: o.Rows, Phase: o.Phase})
}

// afterLoad is pgbench's vacuum step, where the dialect has one (admin.sql's vacuum_*
// statements), the primary keys and the statistics.
func afterLoad(d target.Dialect) ([]workload.Step, error) {
	all, err := stmts(d, "admin.sql")
	if err != nil {
		return nil, err
	}
	keys, err := stmts(d, "keys.sql")
	if err != nil {
		return nil, err
	}
	var vacuum []sqlfile.Stmt
	for _, s := range all {
		if strings.HasPrefix(s.Name, "vacuum") {
			vacuum = append(vacuum, s)
		}
	}
	var steps []workload.Step
	if len(vacuum) > 0 {
		steps = append(steps, workload.Step{Phase: "vacuum", Run: func(ctx context.Context, l *workload.Loading) error {
			for _, s := range vacuum {
				if _, err := l.C.Exec(ctx, s.SQL); err != nil {
					return fmt.Errorf("%s: %w", s.SQL, err)
				}
			}
			return nil
		}})
	}
	if len(keys) > 0 {
		// In parallel: pgbench_accounts' key is nearly all the work, but the small ones need not
		// wait for it.
		steps = append(steps, workload.Step{Phase: "primary keys", Run: func(ctx context.Context, l *workload.Loading) error {
			return l.Parallel(ctx, len(keys), func(ctx context.Context, c target.Conn, i int) error {
				if _, err := c.Exec(ctx, keys[i].SQL); err != nil {
					return fmt.Errorf("primary key of %s: %w", keys[i].Name, err)
				}
				return nil
			})
		}})
	}
	if q := sqlfile.Map(all)["analyze"]; q != "" {
		steps = append(steps, workload.ExecStep("analyze", q))
	}
	return steps, nil
}

var (
	accountColumns = []string{"aid", "bid", "abalance", "filler"}
	tellerColumns  = []string{"tid", "bid", "tbalance", "filler"}
	branchColumns  = []string{"bid", "bbalance", "filler"}
)

// Gen writes pgbench's initial rows (initGenerateDataClientSide in pgbench.c of PostgreSQL 15):
// every balance 0, each teller and account in branch (id-1)/n+1, the tellers' and branches' filler
// NULL and the accounts' filler a blank-padded empty string. Nothing is random, so any split of
// the rows over loaders gives the same data.
type Gen struct {
	// Filler is the accounts' filler as sent: "" where the column type pads it (char(84) on
	// PostgreSQL and MySQL), 84 blanks where nothing pads (SQLite), so that rows have the same width.
	Filler string
}

// Accounts writes accounts from..to (inclusive).
func (g Gen) Accounts(w target.RowWriter, from, to int64) error {
	for aid := from; aid <= to; aid++ {
		w.Int(aid)
		w.Int((aid-1)/AccountsPerScale + 1)
		w.Int(0)
		w.Text(g.Filler)
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// Tellers writes the tellers of a scale.
func (g Gen) Tellers(w target.RowWriter, scale int) error {
	for tid := int64(1); tid <= int64(scale)*TellersPerScale; tid++ {
		w.Int(tid)
		w.Int((tid-1)/TellersPerScale + 1)
		w.Int(0)
		w.Null()
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// Branches writes the branches of a scale.
func (g Gen) Branches(w target.RowWriter, scale int) error {
	for bid := int64(1); bid <= int64(scale)*BranchesPerScale; bid++ {
		w.Int(bid)
		w.Int(0)
		w.Null()
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// chunks splits n accounts into ranges for the loaders: several per loader so that they finish
// together, none smaller than 50,000 rows (each is one COPY or LOAD DATA).
func chunks(n int64, loaders int) [][2]int64 {
	k := int64(loaders) * 4
	size := max((n+k-1)/k, 50000)
	var out [][2]int64
	for from := int64(1); from <= n; from += size {
		out = append(out, [2]int64{from, min(from+size-1, n)})
	}
	return out
}

type loadJob struct {
	table   string
	columns []string
	gen     func(w target.RowWriter) error
}

func load(ctx context.Context, l *workload.Loading, scale int) error {
	g := Gen{}
	if l.T.Dialect().SingleWriter {
		g.Filler = strings.Repeat(" ", 84)
	}
	// The accounts are nearly all the data: they go first, in ranges, and the two small tables
	// fill the loaders' tails.
	var jobs []loadJob
	for _, r := range chunks(int64(scale)*AccountsPerScale, l.Loaders) {
		r := r
		jobs = append(jobs, loadJob{"pgbench_accounts", accountColumns, func(w target.RowWriter) error { return g.Accounts(w, r[0], r[1]) }})
	}
	jobs = append(jobs,
		loadJob{"pgbench_tellers", tellerColumns, func(w target.RowWriter) error { return g.Tellers(w, scale) }},
		loadJob{"pgbench_branches", branchColumns, func(w target.RowWriter) error { return g.Branches(w, scale) }})
	return l.Load(ctx, len(jobs), func(ctx context.Context, c target.Conn, i int) error {
		j := jobs[i]
		if _, err := workload.BulkLoad(ctx, l.T, c, j.table, j.columns, l.Rows, j.gen); err != nil {
			return fmt.Errorf("load %s: %w", j.table, err)
		}
		return nil
	})
}

// Cleanup drops what cairn's prepare created, and nothing else: not pgbench's own tables. It
// returns the schema as it was.
func Cleanup(ctx context.Context, t target.Target) (*workload.Schema, error) {
	return workload.CleanupSchema(ctx, t, Footprint)
}

// Sums are the balances' totals and the history's.
type Sums struct {
	Accounts, Tellers, Branches, History, HistoryRows int64
}

// Consistent reports whether the invariants of the scripts hold: the accounts' total is the
// history's, and the tellers' total is the branches'. (pgbench truncates pgbench_history before
// each of its runs, after which the first no longer holds.)
func (s Sums) Consistent() bool { return s.Accounts == s.History && s.Tellers == s.Branches }

// ReadSums reads the totals of a prepared schema.
func ReadSums(ctx context.Context, t target.Target) (Sums, error) {
	var s Sums
	if _, err := workload.ReadMeta[Meta](ctx, t, Footprint); err != nil {
		return s, err
	}
	q, err := stmtMap(t.Dialect(), "check.sql")
	if err != nil {
		return s, err
	}
	c, err := t.Conn(ctx)
	if err != nil {
		return s, err
	}
	defer c.Close()
	if err := c.QueryRow(ctx, q["sums"]).Scan(&s.Accounts, &s.Tellers, &s.Branches, &s.History, &s.HistoryRows); err != nil {
		return s, fmt.Errorf("read the balances: %w", err)
	}
	return s, nil
}
