// Package tpcc is the TPC-C-derived OLTP workload: schema, population (clause 4.3), the five
// transactions as client SQL and as server-side procedures, and the consistency checks (clause 3.3.2).
package tpcc

import (
	"context"
	"embed"
	"fmt"
	"regexp"
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

var sqlFiles = sqlfile.Files{FS: sqlFS, Owner: "tpcc"}

// stmts returns the named statements of one file of a dialect.
func stmts(d target.Dialect, file string) ([]sqlfile.Stmt, error) {
	return sqlFiles.Stmts(d.Chain(), file)
}

func stmtMap(d target.Dialect, file string) (map[string]string, error) {
	return sqlFiles.Map(d.Chain(), file)
}

// Meta is what prepare records in cairn_tpcc_meta; run and check read it back.
type Meta struct {
	Warehouses  int       `json:"warehouses"`
	Seed        uint64    `json:"seed"`
	Load        Constants `json:"load_constants"`
	Partitioned bool      `json:"partitioned"`
	Procedures  bool      `json:"procedures"`
	workload.Stamp
}

// Footprint is what TPC-C creates: its nine tables, the hash partitions of orders and order_line,
// and the five server-side transactions.
var Footprint = workload.Footprint{Name: "tpcc", Title: "TPC-C",
	Tables: func(n string) bool {
		for _, t := range tableNames {
			if n == t {
				return true
			}
		}
		return partitionName.MatchString(n)
	},
	Routines: []string{"tpcc_neword", "tpcc_payment", "tpcc_ostat", "tpcc_delivery", "tpcc_slev"},
}

var (
	tableNames    = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}
	partitionName = regexp.MustCompile(`^(orders|order_line)_p[0-9]+$`)
)

// Inspect reads the state of the TPC-C schema in the database c is connected to.
func Inspect(ctx context.Context, t target.Target, c target.Conn) (*workload.Schema, error) {
	return workload.Inspect(ctx, c, t, Footprint)
}

// LoadMeta returns the description of a complete TPC-C schema; the error says why there is none.
func LoadMeta(ctx context.Context, t target.Target, c target.Conn) (*Meta, error) {
	var m Meta
	if _, err := workload.Load(ctx, c, t, Footprint, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// PrepareOptions configure prepare.
type PrepareOptions struct {
	Warehouses int // 0: use a complete schema of any size, else prepare 1
	Loaders    int
	Seed       uint64
	Partition  bool
	Procedures bool          // create the server-side transactions (where the target has them)
	Rows       *atomic.Int64 // rows loaded so far, for a progress display
	Phase      func(string)  // called at each step ("schema", "load", "loaded", …)
	// From loads the files cairn tpcc gen wrote instead of generating: its warehouses and seed
	// replace Warehouses and Seed.
	From *Files
	// LoadTime is the time in the four timestamp columns; zero: when prepare starts.
	LoadTime time.Time
}

// ExpectedRows is the number of rows prepare loads for w warehouses (order lines on average).
func ExpectedRows(w int) int64 { return numItems + int64(w)*rowsPerWarehouse }

// Prepare creates the schema, loads it in parallel, builds indexes and procedures, and analyzes.
func Prepare(ctx context.Context, t target.Target, o PrepareOptions) (*Meta, error) {
	d := t.Dialect()
	if o.Partition && d.Partitions == "" {
		o.Partition = false
	}
	if o.From != nil {
		o.Warehouses, o.Seed = o.From.Warehouses, o.From.Seed
	}
	asked := o.Warehouses // 0: whatever is there, else 1
	if o.Warehouses == 0 {
		o.Warehouses = 1
	}
	procs, err := procedures(d, o.Procedures)
	if err != nil {
		return nil, err
	}
	schema, err := stmts(d, "schema.sql")
	if err != nil {
		return nil, err
	}
	idx, err := stmts(d, "indexes.sql")
	if err != nil {
		return nil, err
	}
	admin, err := stmtMap(d, "admin.sql")
	if err != nil {
		return nil, err
	}
	var tables, routines []workload.Create
	for _, st := range schema {
		tables = append(tables, workload.Create{Object: workload.Table(st.Name), SQL: partitionClause(d, st.SQL, o)})
	}
	tables = append(tables, partitionTables(o, d)...)
	for _, p := range procs {
		routines = append(routines, workload.Create{Object: workload.Routine("tpcc_" + p.Name), SQL: p.SQL})
	}
	m := &Meta{Warehouses: o.Warehouses, Seed: o.Seed, Load: LoadConstants(newRand(o.Seed, 0)), Partitioned: o.Partition,
		Procedures: len(procs) > 0}
	after := []workload.Step{{Phase: "loaded"}}
	if len(procs) > 0 {
		after = append(after, workload.Step{Phase: "procedures", Create: routines})
	}
	after = append(after, workload.ExecStep("analyze", admin["analyze"]))
	return workload.Prepare(ctx, t, workload.Prep[Meta]{Footprint: Footprint, Meta: m,
		Sizes: func(have *Meta) []workload.Size {
			return []workload.Size{workload.SizeOf(asked, have.Warehouses, "warehouses", warehouses)}
		},
		Tables: tables, TablesPhase: "schema",
		Load:      func(ctx context.Context, l *workload.Loading) error { return load(ctx, l, o, m, idx) },
		LoadPhase: "load", After: after,
		Loaders: o.Loaders, Rows: o.Rows, Phase: o.Phase})
}

func warehouses(n int) string { return workload.Plural(n, "warehouse") }

func partitions(o PrepareOptions) int { return min(o.Warehouses, 32) }

func partitionClause(d target.Dialect, q string, o PrepareOptions) string {
	clause := func(col string) string {
		if !o.Partition {
			return ""
		}
		switch d.Partitions {
		case "tables":
			return "PARTITION BY HASH (" + col + ")"
		case "clause":
			return fmt.Sprintf("PARTITION BY HASH (%s) PARTITIONS %d", col, partitions(o))
		}
		return ""
	}
	q = strings.ReplaceAll(q, "PARTITION_ORDERS", clause("o_w_id"))
	q = strings.ReplaceAll(q, "PARTITION_ORDER_LINE", clause("ol_w_id"))
	return q
}

// partitionNames are the partitions of orders and order_line where they are tables of their own
// (PostgreSQL): TABLE_pI is the partition of remainder I.
func partitionNames(o PrepareOptions, d target.Dialect) []string {
	if !o.Partition || d.Partitions != "tables" {
		return nil
	}
	var out []string
	for _, tbl := range []string{"orders", "order_line"} {
		for i := 0; i < partitions(o); i++ {
			out = append(out, fmt.Sprintf("%s_p%d", tbl, i))
		}
	}
	return out
}

// partitionTables creates the partitions of orders and order_line where they are tables.
func partitionTables(o PrepareOptions, dialect target.Dialect) []workload.Create {
	n := partitions(o)
	var out []workload.Create
	for _, name := range partitionNames(o, dialect) {
		i := strings.LastIndex(name, "_p")
		parent := name[:i]
		rem, _ := strconv.Atoi(name[i+2:])
		q := fmt.Sprintf("CREATE TABLE %s PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)", name, parent, n, rem)
		out = append(out, workload.Create{Object: workload.Table(name), SQL: q})
	}
	return out
}

// load fills the tables and builds their indexes (idx): each table's as soon as its last rows are
// in, on the loader that loaded them, while the others go on loading. Built at the end instead,
// the indexes of the last tables kept one CPU of two idle while the longest of them ran.
func load(ctx context.Context, l *workload.Loading, o PrepareOptions, m *Meta, idx []sqlfile.Stmt) error {
	if o.From != nil {
		return o.From.load(ctx, l, idx)
	}
	loadTime := m.PreparedAt.Unix()
	if !o.LoadTime.IsZero() {
		loadTime = o.LoadTime.Unix()
	}
	g := &Gen{Seed: o.Seed, Load: m.Load, LoadTime: loadTime}
	jobs := genJobs(g, 1, o.Warehouses, true)
	tables := make([]string, len(jobs))
	for i, j := range jobs {
		tables[i] = j.table
	}
	after, err := newAfterLoad(idx, tables)
	if err != nil {
		return err
	}
	return l.Load(ctx, len(jobs), func(ctx context.Context, c target.Conn, i int) error {
		j := jobs[i]
		_, err := workload.BulkLoad(ctx, l.T, c, j.table, columns[j.table], l.Rows, j.gen)
		if err != nil {
			if j.wid > 0 {
				return fmt.Errorf("load %s for warehouse %d: %w", j.table, j.wid, err)
			}
			return fmt.Errorf("load %s: %w", j.table, err)
		}
		return after.loaded(ctx, c, j.table)
	})
}

// afterLoad builds each table's indexes once all of its load jobs are done.
type afterLoad struct {
	left map[string]*atomic.Int64 // load jobs not done yet, per table
	idx  map[string][]sqlfile.Stmt
}

// indexTable finds the table an index statement builds on: CREATE INDEX … ON t, ALTER TABLE t.
var indexTable = regexp.MustCompile(`(?is)^\s*(?:CREATE\s+(?:UNIQUE\s+)?INDEX\s+\w+\s+ON|ALTER\s+TABLE)\s+(\w+)`)

// newAfterLoad counts the load jobs of every table (the table of each job) and assigns each index
// statement to its table, which must be one of them.
func newAfterLoad(idx []sqlfile.Stmt, tables []string) (*afterLoad, error) {
	a := &afterLoad{left: map[string]*atomic.Int64{}, idx: map[string][]sqlfile.Stmt{}}
	for _, tbl := range tables {
		if a.left[tbl] == nil {
			a.left[tbl] = new(atomic.Int64)
		}
		a.left[tbl].Add(1)
	}
	for _, st := range idx {
		m := indexTable.FindStringSubmatch(st.SQL)
		if m == nil || a.left[strings.ToLower(m[1])] == nil {
			return nil, fmt.Errorf("tpcc: index %s names no table that is loaded", st.Name)
		}
		a.idx[strings.ToLower(m[1])] = append(a.idx[strings.ToLower(m[1])], st)
	}
	return a, nil
}

// loaded records that one load job of table is done, and builds the table's indexes on c when it
// was the last.
func (a *afterLoad) loaded(ctx context.Context, c target.Conn, table string) error {
	if a.left[table].Add(-1) != 0 {
		return nil
	}
	for _, st := range a.idx[table] {
		if _, err := c.Exec(ctx, st.SQL); err != nil {
			return fmt.Errorf("create index %s: %w", st.Name, err)
		}
	}
	return nil
}

// procedures returns the server-side transactions to create: none where the dialect has none or
// they were not asked for.
func procedures(d target.Dialect, want bool) ([]sqlfile.Stmt, error) {
	if !want || !d.Procedures || !sqlFiles.Has(d.Chain(), "procs.sql") {
		return nil, nil
	}
	return stmts(d, "procs.sql")
}

// Cleanup drops everything prepare created, and nothing else; it returns the schema as it was.
func Cleanup(ctx context.Context, t target.Target) (*workload.Schema, error) {
	return workload.CleanupSchema(ctx, t, Footprint)
}
