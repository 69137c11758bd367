// Package tpcb is pgbench's TPC-B family on every target: pgbench's four tables with its column
// types and initial data (PostgreSQL 15's pgbench -i, init steps "dtgvp"), and its three built-in
// scripts, tpcb-like, simple-update (pgbench -N) and select-only (pgbench -S), with the same
// statements and random ranges. docs/tpcb.md lists every statement and how the figures relate to
// pgbench's.
package tpcb

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

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
	Scale        int       `json:"scale"`
	Fillfactor   int       `json:"fillfactor"`
	AidType      string    `json:"aid_type"` // int, or bigint from scale 20000 on
	Accounts     int64     `json:"accounts"`
	PreparedAt   time.Time `json:"prepared_at"`
	CairnVersion string    `json:"cairn_version"`
	LoadSeconds  float64   `json:"load_seconds"`
}

// PrepareOptions configure prepare.
type PrepareOptions struct {
	Scale        int // 0: use a complete schema of any scale, else prepare scale 1
	Fillfactor   int // PostgreSQL only; 100 elsewhere
	Loaders      int
	Rows         *atomic.Int64 // rows loaded so far, for a progress display
	Phase        func(string)  // called at each step: "tables", "generate", "vacuum", "primary keys", "analyze"
	CairnVersion string
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
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	asked := o.Scale
	if o.Scale == 0 {
		o.Scale = 1
	}
	var objs []workload.Object
	for _, n := range tables {
		objs = append(objs, workload.Table(n))
	}
	var existing Meta
	s, err := workload.BeginPrepare(ctx, c, t, Footprint, objs, &existing)
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		if asked != 0 && asked != existing.Scale {
			return &existing, &workload.MismatchError{S: s, Have: fmt.Sprintf("scale %d", existing.Scale),
				Asked: fmt.Sprintf("scale %d", asked), Flag: fmt.Sprintf("--scale %d", asked)}
		}
		return &existing, err
	}
	if err != nil {
		return nil, err
	}
	phase := o.Phase
	if phase == nil {
		phase = func(string) {}
	}
	if o.Rows == nil {
		o.Rows = new(atomic.Int64)
	}
	if o.Fillfactor == 0 {
		o.Fillfactor = 100
	}
	d := t.Dialect()
	session, err := workload.LoadSession(d)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	m := &Meta{Scale: o.Scale, Fillfactor: o.Fillfactor, AidType: "int", Accounts: int64(o.Scale) * AccountsPerScale,
		PreparedAt: start.UTC().Truncate(time.Second), CairnVersion: o.CairnVersion}
	if o.Scale >= Scale32BitThreshold {
		m.AidType = "bigint"
	}

	phase("tables")
	schema, err := stmts(d, "schema.sql")
	if err != nil {
		return nil, err
	}
	for _, st := range schema {
		q := strings.ReplaceAll(st.SQL, "{{aid}}", m.AidType)
		q = strings.ReplaceAll(q, "{{fillfactor}}", strconv.Itoa(o.Fillfactor))
		if err := s.Create(ctx, c, workload.Table(st.Name), q); err != nil {
			return nil, err
		}
	}

	phase("generate")
	if err := load(ctx, t, o, session); err != nil {
		return nil, err
	}
	all, err := stmts(d, "admin.sql")
	if err != nil {
		return nil, err
	}
	// pgbench's vacuum step, where the dialect has one (admin.sql's vacuum_* statements).
	for i, s := range all {
		if !strings.HasPrefix(s.Name, "vacuum") {
			continue
		}
		if i == 0 || !strings.HasPrefix(all[i-1].Name, "vacuum") {
			phase("vacuum")
		}
		if _, err := c.Exec(ctx, s.SQL); err != nil {
			return nil, fmt.Errorf("%s: %w", s.SQL, err)
		}
	}
	keys, err := stmts(d, "keys.sql")
	if err != nil {
		return nil, err
	}
	if len(keys) > 0 {
		phase("primary keys")
		// In parallel: pgbench_accounts' key is nearly all the work, but the small ones need not
		// wait for it. SQLite has one writer at a time.
		k := o.Loaders
		if d.SingleWriter {
			k = 1
		}
		if err := workload.Parallel(ctx, t, k, len(keys), nil, func(ctx context.Context, c target.Conn, i int) error {
			if _, err := c.Exec(ctx, keys[i].SQL); err != nil {
				return fmt.Errorf("primary key of %s: %w", keys[i].Name, err)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if q := sqlfile.Map(all)["analyze"]; q != "" {
		phase("analyze")
		if err := workload.ExecAll(ctx, c, q); err != nil {
			return nil, fmt.Errorf("analyze: %w", err)
		}
	}
	m.LoadSeconds = time.Since(start).Seconds()
	if err := s.Complete(ctx, c, m); err != nil {
		return nil, err
	}
	return m, nil
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

func load(ctx context.Context, t target.Target, o PrepareOptions, sessionSQL string) error {
	g := Gen{}
	loaders := o.Loaders
	if t.Dialect().SingleWriter {
		g.Filler = strings.Repeat(" ", 84)
		loaders = 1 // one writer at a time is all SQLite allows
	}
	// The accounts are nearly all the data: they go first, in ranges, and the two small tables
	// fill the loaders' tails.
	var jobs []loadJob
	for _, r := range chunks(int64(o.Scale)*AccountsPerScale, loaders) {
		r := r
		jobs = append(jobs, loadJob{"pgbench_accounts", accountColumns, func(w target.RowWriter) error { return g.Accounts(w, r[0], r[1]) }})
	}
	jobs = append(jobs,
		loadJob{"pgbench_tellers", tellerColumns, func(w target.RowWriter) error { return g.Tellers(w, o.Scale) }},
		loadJob{"pgbench_branches", branchColumns, func(w target.RowWriter) error { return g.Branches(w, o.Scale) }})
	setup := func(ctx context.Context, c target.Conn) error {
		if sessionSQL == "" {
			return nil
		}
		if _, err := c.Exec(ctx, sessionSQL); err != nil {
			return fmt.Errorf("load session settings: %w", err)
		}
		return nil
	}
	return workload.Parallel(ctx, t, loaders, len(jobs), setup, func(ctx context.Context, c target.Conn, i int) error {
		j := jobs[i]
		if _, err := workload.BulkLoad(ctx, t, c, j.table, j.columns, o.Rows, j.gen); err != nil {
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
	if _, err := ReadMeta(ctx, t); err != nil {
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
