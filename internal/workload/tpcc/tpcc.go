// Package tpcc is the TPC-C-derived OLTP workload: schema, population (clause 4.3), the five
// transactions as client SQL and as server-side procedures, and the consistency checks (clause 3.3.2).
package tpcc

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

//go:embed sql
var sqlFS embed.FS

// stmts returns the named statements of one file of a dialect.
func stmts(dialect, file string) ([]sqlfile.Stmt, error) {
	b, err := sqlFS.ReadFile("sql/" + dialect + "/" + file)
	if err != nil {
		return nil, fmt.Errorf("tpcc has no %s for %s", file, dialect)
	}
	return sqlfile.Parse(string(b))
}

func stmtMap(dialect, file string) (map[string]string, error) {
	s, err := stmts(dialect, file)
	if err != nil {
		return nil, err
	}
	return sqlfile.Map(s), nil
}

// Meta is what prepare records in cairn_tpcc_meta; run and check read it back.
type Meta struct {
	Warehouses   int       `json:"warehouses"`
	Seed         uint64    `json:"seed"`
	Load         Constants `json:"load_constants"`
	Partitioned  bool      `json:"partitioned"`
	Procedures   bool      `json:"procedures"`
	PreparedAt   time.Time `json:"prepared_at"`
	CairnVersion string    `json:"cairn_version"`
	LoadSeconds  float64   `json:"load_seconds"`
}

// State of the schema in a database.
type State int

const (
	StateNone     State = iota // none of our tables
	StatePartial               // some tables, or a prepare that did not finish
	StateComplete              // prepare finished
)

// Status inspects the database: which of our tables exist and whether prepare finished.
func Status(ctx context.Context, t target.Target, c target.Conn) (State, *Meta, []string, error) {
	admin, err := stmtMap(t.Dialect(), "admin.sql")
	if err != nil {
		return 0, nil, nil, err
	}
	present, err := workload.PresentTables(ctx, c, admin["tables_present"])
	if err != nil {
		return 0, nil, nil, err
	}
	if len(present) == 0 {
		return StateNone, nil, nil, nil
	}
	hasMeta := false
	for _, p := range present {
		hasMeta = hasMeta || p == "cairn_tpcc_meta"
	}
	if !hasMeta || len(present) != len(tables)+1 {
		return StatePartial, nil, present, nil
	}
	var m Meta
	if !workload.ReadMeta(ctx, c, admin["meta_get"], &m) {
		return StatePartial, nil, present, nil
	}
	return StateComplete, &m, present, nil
}

// PrepareOptions configure prepare.
type PrepareOptions struct {
	Warehouses   int
	Loaders      int
	Seed         uint64
	Partition    bool
	Procedures   bool          // create the server-side transactions (where the target has them)
	Rows         *atomic.Int64 // rows loaded so far, for a progress display
	Phase        func(string)  // called at each step ("schema", "load", "indexes", …)
	CairnVersion string
}

// ExpectedRows is the number of rows prepare loads for w warehouses (order lines on average).
func ExpectedRows(w int) int64 { return numItems + int64(w)*rowsPerWarehouse }

// ErrAlreadyPrepared is returned when the schema is complete; the CLI reports it and exits 0.
var ErrAlreadyPrepared = errors.New("already prepared")

// Prepare creates the schema, loads it in parallel, builds indexes and procedures, and analyzes.
func Prepare(ctx context.Context, t target.Target, o PrepareOptions) (*Meta, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	state, meta, present, err := Status(ctx, t, c)
	if err != nil {
		return nil, err
	}
	switch state {
	case StateComplete:
		return meta, ErrAlreadyPrepared
	case StatePartial:
		return nil, target.Usagef("%s holds a partial TPC-C schema (tables: %s), probably from an interrupted prepare: run 'cairn tpcc cleanup' first",
			t.Address(), strings.Join(present, ", "))
	}
	phase := o.Phase
	if phase == nil {
		phase = func(string) {}
	}
	if o.Rows == nil {
		o.Rows = new(atomic.Int64)
	}
	d := t.Dialect()
	admin, err := stmtMap(d, "admin.sql")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	m := &Meta{Warehouses: o.Warehouses, Seed: o.Seed, Load: LoadConstants(newRand(o.Seed, 0)),
		PreparedAt: start.UTC().Truncate(time.Second), CairnVersion: o.CairnVersion}
	if o.Partition && d == "sqlite" {
		o.Partition = false
	}
	m.Partitioned = o.Partition

	phase("schema")
	if _, err := c.Exec(ctx, admin["meta_create"]); err != nil {
		return nil, fmt.Errorf("create cairn_tpcc_meta: %w", err)
	}
	if err := workload.SetState(ctx, c, admin["meta_put"], "loading"); err != nil {
		return nil, err
	}
	schema, err := stmts(d, "schema.sql")
	if err != nil {
		return nil, err
	}
	for _, s := range schema {
		if _, err := c.Exec(ctx, partitionClause(d, s.SQL, o)); err != nil {
			return nil, fmt.Errorf("create table %s: %w", s.Name, err)
		}
	}
	if err := createPartitions(ctx, c, d, o); err != nil {
		return nil, err
	}

	phase("load")
	if err := load(ctx, t, o, m, admin["load_session"]); err != nil {
		return nil, err
	}
	phase("indexes")
	idx, err := stmts(d, "indexes.sql")
	if err != nil {
		return nil, err
	}
	if err := workload.Parallel(ctx, t, o.Loaders, len(idx), nil, func(ctx context.Context, c target.Conn, i int) error {
		if _, err := c.Exec(ctx, idx[i].SQL); err != nil {
			return fmt.Errorf("create index %s: %w", idx[i].Name, err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if o.Procedures {
		phase("procedures")
		ok, err := createProcedures(ctx, c, d)
		if err != nil {
			return nil, err
		}
		m.Procedures = ok
	}
	phase("analyze")
	if err := workload.ExecAll(ctx, c, admin["analyze"]); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	m.LoadSeconds = time.Since(start).Seconds()
	if err := workload.Complete(ctx, c, admin["meta_put"], m); err != nil {
		return nil, err
	}
	return m, nil
}

func partitions(o PrepareOptions) int { return min(o.Warehouses, 32) }

func partitionClause(dialect, q string, o PrepareOptions) string {
	clause := func(col string) string {
		if !o.Partition {
			return ""
		}
		switch dialect {
		case "postgres":
			return "PARTITION BY HASH (" + col + ")"
		case "mysql":
			return fmt.Sprintf("PARTITION BY HASH (%s) PARTITIONS %d", col, partitions(o))
		}
		return ""
	}
	q = strings.ReplaceAll(q, "PARTITION_ORDERS", clause("o_w_id"))
	q = strings.ReplaceAll(q, "PARTITION_ORDER_LINE", clause("ol_w_id"))
	return q
}

func createPartitions(ctx context.Context, c target.Conn, dialect string, o PrepareOptions) error {
	if !o.Partition || dialect != "postgres" {
		return nil
	}
	n := partitions(o)
	for _, tbl := range []string{"orders", "order_line"} {
		for i := 0; i < n; i++ {
			q := fmt.Sprintf("CREATE TABLE %s_p%d PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)", tbl, i, tbl, n, i)
			if _, err := c.Exec(ctx, q); err != nil {
				return fmt.Errorf("create partition: %w", err)
			}
		}
	}
	return nil
}

// loadJob is one table of one warehouse (or the item table).
type loadJob struct {
	table string
	wid   int
	gen   func(w target.RowWriter) error
}

func load(ctx context.Context, t target.Target, o PrepareOptions, m *Meta, sessionSQL string) error {
	g := &Gen{Seed: o.Seed, Load: m.Load, LoadTime: m.PreparedAt.Unix()}
	var jobs []loadJob
	jobs = append(jobs, loadJob{"item", 0, g.Items})
	// Big tables first, so the tail of the load is short jobs spread over all loaders.
	for w := 1; w <= o.Warehouses; w++ {
		wid := w
		jobs = append(jobs,
			loadJob{"order_line", wid, func(rw target.RowWriter) error { return g.OrderLines(rw, wid) }},
			loadJob{"stock", wid, func(rw target.RowWriter) error { return g.Stock(rw, wid) }},
			loadJob{"customer", wid, func(rw target.RowWriter) error { return g.Customers(rw, wid) }})
	}
	for w := 1; w <= o.Warehouses; w++ {
		wid := w
		jobs = append(jobs,
			loadJob{"history", wid, func(rw target.RowWriter) error { return g.History(rw, wid) }},
			loadJob{"orders", wid, func(rw target.RowWriter) error { return g.Orders(rw, wid) }},
			loadJob{"new_order", wid, func(rw target.RowWriter) error { return g.NewOrders(rw, wid) }},
			loadJob{"warehouse", wid, func(rw target.RowWriter) error { return g.Warehouse(rw, wid) }},
			loadJob{"district", wid, func(rw target.RowWriter) error { return g.Districts(rw, wid) }})
	}
	loaders := o.Loaders
	if t.Dialect() == "sqlite" {
		loaders = 1 // one writer at a time is all SQLite allows
	}
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
		_, err := workload.BulkLoad(ctx, t, c, j.table, columns[j.table], o.Rows, j.gen)
		if err != nil {
			if j.wid > 0 {
				return fmt.Errorf("load %s for warehouse %d: %w", j.table, j.wid, err)
			}
			return fmt.Errorf("load %s: %w", j.table, err)
		}
		return nil
	})
}

// createProcedures installs the server-side transactions; false where the dialect has none.
func createProcedures(ctx context.Context, c target.Conn, dialect string) (bool, error) {
	procs, err := stmts(dialect, "procs.sql")
	if err != nil {
		return false, nil
	}
	for _, p := range procs {
		if _, err := c.Exec(ctx, p.SQL); err != nil {
			return false, fmt.Errorf("create procedure %s: %w", p.Name, err)
		}
	}
	return len(procs) > 0, nil
}

// Cleanup drops everything prepare created, and nothing else.
func Cleanup(ctx context.Context, t target.Target) error {
	c, err := t.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	drops, err := stmts(t.Dialect(), "cleanup.sql")
	if err != nil {
		return err
	}
	for _, s := range drops {
		if _, err := c.Exec(ctx, s.SQL); err != nil {
			return fmt.Errorf("cleanup %s: %w", s.Name, err)
		}
	}
	return nil
}
