package tpch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpch/dbgen"
	"github.com/cairn-bench/cairn/internal/workload/tpch/queries"
)

// Footprint is what tpch creates: dbgen's eight tables. TPC-C has a customer and an orders table
// too; each workload's record says whose they are.
var Footprint = workload.Footprint{Name: "tpch", Title: "TPC-H", Tables: func(n string) bool {
	for _, t := range dbgen.Tables {
		if n == t {
			return true
		}
	}
	return false
}}

// Meta is what prepare records in cairn_tpch_meta; run reads it back.
type Meta struct {
	SF             float64          `json:"sf"`
	Rows           map[string]int64 `json:"rows"`
	workload.Stamp                  // its LoadSeconds: create tables to the last row loaded
	IndexSeconds   float64          `json:"index_seconds"` // keys, indexes and statistics
	// RefreshSets is how many dbgen update sets (RF1 then RF2) have been applied since prepare;
	// the next refresh uses set RefreshSets+1, so every run's refresh data is reproducible.
	RefreshSets int `json:"refresh_sets"`
}

// LoadMeta returns the description of a complete TPC-H schema; the error says why there is none.
func LoadMeta(ctx context.Context, t target.Target, c target.Conn) (*workload.Schema, *Meta, error) {
	var m Meta
	s, err := workload.Load(ctx, c, t, Footprint, &m)
	if err != nil {
		return s, nil, err
	}
	if m.SF <= 0 {
		return s, nil, &workload.PartialError{S: s}
	}
	return s, &m, nil
}

// PrepareOptions configure prepare.
type PrepareOptions struct {
	SF      float64 // 0: use a complete schema of any scale factor, else prepare SF 1
	Loaders int
	Rows    *atomic.Int64 // rows loaded so far, for a progress display
	Phase   func(string)  // "tables", "load", "indexes"
}

// Prepare creates the tables, generates dbgen's data and streams it into the database through
// Loaders connections (generation and loading overlap: each connection's COPY or LOAD DATA reads
// chunks that a generator goroutine formats ahead of it), then builds the keys and indexes and
// gathers statistics.
func Prepare(ctx context.Context, t target.Target, o PrepareOptions) (*Meta, error) {
	asked := o.SF
	if o.SF == 0 {
		o.SF = 1
	}
	schema, err := queries.Schema(t.Dialect())
	if err != nil {
		return nil, err
	}
	var tables []workload.Create
	for _, st := range schema {
		tables = append(tables, workload.Create{Object: workload.Table(st.Name), SQL: st.SQL})
	}
	m := &Meta{SF: o.SF, Rows: map[string]int64{}}
	return workload.Prepare(ctx, t, workload.Prep[Meta]{Footprint: Footprint, Meta: m,
		Sizes: func(have *Meta) []workload.Size {
			return []workload.Size{workload.SizeOf(asked, have.SF, "sf", func(sf float64) string { return fmt.Sprintf("SF %g", sf) })}
		},
		Tables: tables, TablesPhase: "tables",
		Load: func(ctx context.Context, l *workload.Loading) error {
			dbgen.Warm()
			rows, err := load(ctx, l, o.SF)
			m.Rows = rows
			return err
		},
		LoadPhase:    "load",
		After:        []workload.Step{{Phase: "indexes", Run: buildIndexes}},
		AfterSeconds: &m.IndexSeconds,
		Loaders:      o.Loaders, Rows: o.Rows, Phase: o.Phase})
}

// loadJob is one stream into one table: a range of generation units.
type loadJob struct {
	table        string
	start, count int64
}

// jobs splits the big tables into about k ranges each, so that k connections load at once; the
// largest go first so that no connection is left with a long tail.
func jobs(sf float64, k int) []loadJob {
	var out []loadJob
	for _, table := range dbgen.Tables {
		units := dbgen.Units(table, sf)
		n := 1
		if units >= 20000 {
			n = k
		}
		for p := 1; p <= n; p++ {
			s, cnt := dbgen.PartRange(table, sf, p, n)
			out = append(out, loadJob{table, s, cnt})
		}
	}
	weight := map[string]int64{"lineitem": 760, "orders": 115, "partsupp": 149, "part": 121, "customer": 162, "supplier": 141, "nation": 89, "region": 78}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].count*weight[out[i].table] > out[j].count*weight[out[j].table]
	})
	return out
}

func load(ctx context.Context, l *workload.Loading, sf float64) (map[string]int64, error) {
	js := jobs(sf, l.Loaders)
	var mu sync.Mutex
	generated, loaded := map[string]int64{}, map[string]int64{}
	err := l.Load(ctx, len(js), func(ctx context.Context, c target.Conn, i int) error {
		j := js[i]
		gen, n, err := runJob(ctx, l.T, c, sf, j, l.Rows)
		if err != nil {
			return fmt.Errorf("load %s: %w", j.table, err)
		}
		mu.Lock()
		generated[j.table] += gen
		loaded[j.table] += n
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, table := range dbgen.Tables {
		if generated[table] != loaded[table] {
			return nil, fmt.Errorf("load %s: generated %d rows but the database took %d", table, generated[table], loaded[table])
		}
	}
	return loaded, nil
}

// runJob runs job j under workload.RetryLoad: a range whose load the target calls retryable
// (an InnoDB deadlock or lock wait timeout) is generated and loaded again.
func runJob(ctx context.Context, t target.Target, c target.Conn, sf float64, j loadJob, progress *atomic.Int64) (gen, n int64, err error) {
	err = workload.RetryLoad(ctx, t, func() error {
		var err error
		gen, n, err = loadRange(ctx, c, sf, j, progress)
		return err
	})
	return gen, n, err
}

// loadRange streams one range, in one statement or transaction (so that it can be retried).
// Servers get dbgen's lines as they are, less the trailing '|' (COPY and LOAD DATA would read it
// as an extra empty column); SQLite gets batched inserts. A failure takes its rows back from
// progress.
func loadRange(ctx context.Context, c target.Conn, sf float64, j loadJob, progress *atomic.Int64) (generated, loaded int64, err error) {
	var added int64
	defer func() {
		if err != nil {
			progress.Add(-added)
		}
	}()
	cols := queries.Columns(j.table)
	each := func(emit func(dbgen.Chunk) error) error {
		return dbgen.Generate(ctx, j.table, sf, j.start, j.count, dbgen.Options{Workers: 1}, func(ch dbgen.Chunk) error {
			defer ch.Release()
			generated += ch.Rows
			if err := emit(ch); err != nil {
				return err
			}
			progress.Add(ch.Rows)
			added += ch.Rows
			return nil
		})
	}
	if dl, ok := c.(target.DelimitedLoader); ok {
		pr, pw := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			pw.CloseWithError(each(func(ch dbgen.Chunk) error {
				_, err := pw.Write(stripTrailing(ch.Buf))
				return err
			}))
		}()
		loaded, err = dl.LoadDelimited(ctx, j.table, cols, '|', pr)
		pr.CloseWithError(errors.New("load ended"))
		<-done // the generator's counts are final
		return generated, loaded, err
	}
	loaded, err = c.BulkLoad(ctx, j.table, cols, func(w target.RowWriter) error {
		return each(func(ch dbgen.Chunk) error {
			for line := range bytes.Lines(ch.Buf) {
				line = line[:len(line)-2] // "|\n"
				for f := range bytes.SplitSeq(line, []byte{'|'}) {
					w.Str(f)
				}
				if err := w.EndRow(); err != nil {
					return err
				}
			}
			return nil
		})
	})
	return generated, loaded, err
}

// stripTrailing removes the '|' dbgen writes before every newline, in place.
func stripTrailing(b []byte) []byte {
	out := b[:0]
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		out = append(out, b[:i-1]...)
		out = append(out, '\n')
		b = b[i+1:]
	}
	return out
}

// buildIndexes runs indexes.sql: keys and indexes on k connections at once (lineitem's take
// longest; the others need not wait), then the statistics statements, which come last.
func buildIndexes(ctx context.Context, l *workload.Loading) error {
	all, err := queries.Indexes(l.T.Dialect())
	if err != nil {
		return err
	}
	var build, stats []sqlfile.Stmt
	for _, s := range all {
		if strings.HasPrefix(s.Name, "analyze") {
			stats = append(stats, s)
		} else {
			build = append(build, s)
		}
	}
	// Longest first: lineitem's, then orders', then the rest in file order.
	sort.SliceStable(build, func(i, j int) bool { return rank(build[i].Name) < rank(build[j].Name) })
	err = l.Parallel(ctx, len(build), func(ctx context.Context, c target.Conn, i int) error {
		if _, err := c.Exec(ctx, build[i].SQL); err != nil {
			return fmt.Errorf("index %s: %w", build[i].Name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range stats {
		if err := workload.ExecAll(ctx, l.C, s.SQL); err != nil {
			return fmt.Errorf("statistics: %w", err)
		}
	}
	return nil
}

func rank(name string) int {
	switch {
	case strings.HasPrefix(name, "lineitem"):
		return 0
	case strings.HasPrefix(name, "orders"), strings.HasPrefix(name, "partsupp"):
		return 1
	}
	return 2
}

// Cleanup drops the eight tables, any view a query left behind, and the meta table.
func Cleanup(ctx context.Context, t target.Target) (*workload.Schema, error) {
	return workload.CleanupSchema(ctx, t, Footprint)
}
