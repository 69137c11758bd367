package oltp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Meta is what prepare records in cairn_oltp_meta; run reads it back to know the tables and their
// size (sysbench's --tables and --table-size, which sysbench makes the user repeat on every run).
type Meta struct {
	Tables    int    `json:"tables"`
	TableSize int    `json:"table_size"`
	Seed      uint64 `json:"seed"`
	KDist     string `json:"k_distribution"`
	workload.Stamp
}

// Footprint is what oltp creates: the tables sbtest1..N.
var Footprint = workload.Footprint{Name: "oltp", Title: "sysbench-style OLTP", Tables: sbtestName.MatchString, Foreign: "sysbench",
	Legacy: func(meta string) []workload.Object {
		var m Meta
		if json.Unmarshal([]byte(meta), &m) != nil {
			return nil
		}
		return tableObjects(m.Tables)
	}}

var sbtestName = regexp.MustCompile(`^sbtest([0-9]+)$`)

func tableObjects(n int) []workload.Object {
	out := make([]workload.Object, n)
	for i := range out {
		out[i] = workload.Table("sbtest" + strconv.Itoa(i+1))
	}
	return out
}

// PrepareOptions configure prepare.
type PrepareOptions struct {
	Tables    int // 0: use complete tables of any count, else prepare 1
	TableSize int // 0: use complete tables of any size, else 10,000 rows
	Loaders   int
	Seed      uint64
	Rows      *atomic.Int64 // rows loaded so far, for a progress display
	Phase     func(string)  // called at each step ("schema", "load", "indexes", "analyze")
}

// MaxTableSize keeps ids, k and range ends within a signed 32-bit INTEGER, the column type.
const MaxTableSize = 1<<31 - 1 - 1<<20

// Validate checks the options; errors are usage errors.
func (o PrepareOptions) Validate() error {
	if o.Tables < 0 || o.Tables > 10000 {
		return options.Errorf("tables", fmt.Sprint(o.Tables), "need between 1 and 10000")
	}
	if o.TableSize < 0 || o.TableSize > MaxTableSize {
		return options.Errorf("table-size", fmt.Sprint(o.TableSize), "need between 1 and %d", MaxTableSize)
	}
	if o.Loaders < 1 {
		return options.Errorf("loaders", fmt.Sprint(o.Loaders), "need at least 1")
	}
	return nil
}

// chunkRows is the unit of the load: each chunk of a table has its own random stream, so the data
// depends on the seed only, not on how many loaders share the chunks.
const chunkRows = 100_000

// Prepare creates the tables, loads them in parallel through the target's bulk path, then builds
// the index on k and gathers statistics, as oltp_common.lua's create_table does for each table.
func Prepare(ctx context.Context, t target.Target, o PrepareOptions) (*Meta, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	asked := o
	if o.Tables == 0 {
		o.Tables = 1
	}
	if o.TableSize == 0 {
		o.TableSize = 10000
	}
	schema, err := stmtMap(t.Dialect(), "schema.sql")
	if err != nil {
		return nil, err
	}
	var tables []workload.Create
	for i, obj := range tableObjects(o.Tables) {
		tables = append(tables, workload.Create{Object: obj, SQL: forTable(schema["create_table"], i+1, o.TableSize)})
	}
	m := &Meta{Tables: o.Tables, TableSize: o.TableSize, Seed: o.Seed, KDist: DistSpecial}
	return workload.Prepare(ctx, t, workload.Prep[Meta]{Footprint: Footprint, Meta: m,
		Sizes: func(have *Meta) []workload.Size {
			perTable := func(n int) string { return workload.Plural(n, "row") + " per table" }
			return []workload.Size{workload.SizeOf(asked.Tables, have.Tables, "tables", func(n int) string { return workload.Plural(n, "table") }),
				workload.SizeOf(asked.TableSize, have.TableSize, "table-size", perTable)}
		},
		Tables: tables, TablesPhase: "schema",
		Load:      func(ctx context.Context, l *workload.Loading) error { return load(ctx, l, o) },
		LoadPhase: "load",
		After: []workload.Step{{Phase: "indexes", Run: func(ctx context.Context, l *workload.Loading) error {
			return indexes(ctx, l, schema, o)
		}}},
		Loaders: o.Loaders, Rows: o.Rows, Phase: o.Phase})
}

// indexes runs, per table, the sequence, the secondary index (after the load, so it is built once
// from sorted data rather than maintained row by row), and the statistics. Tables go in parallel.
func indexes(ctx context.Context, l *workload.Loading, schema map[string]string, o PrepareOptions) error {
	return l.Parallel(ctx, o.Tables, func(ctx context.Context, c target.Conn, i int) error {
		n := i + 1
		for _, name := range []string{"after_load", "create_index", "analyze"} {
			q, ok := schema[name]
			if !ok {
				continue
			}
			if err := workload.ExecAll(ctx, c, forTable(q, n, o.TableSize)); err != nil {
				return fmt.Errorf("%s sbtest%d: %w", strings.ReplaceAll(name, "_", " "), n, err)
			}
		}
		return nil
	})
}

// load fills every table, chunk by chunk, on the loaders' connections. Chunks are ordered so that
// concurrent loaders work on different tables first (MySQL serializes bulk inserts into one table
// on its AUTO_INCREMENT lock).
func load(ctx context.Context, l *workload.Loading, o PrepareOptions) error {
	type job struct{ table, chunk int }
	chunks := (o.TableSize + chunkRows - 1) / chunkRows
	var jobs []job
	for ch := 0; ch < chunks; ch++ {
		for n := 1; n <= o.Tables; n++ {
			jobs = append(jobs, job{n, ch})
		}
	}
	return l.Load(ctx, len(jobs), func(ctx context.Context, c target.Conn, i int) error {
		j := jobs[i]
		from := j.chunk*chunkRows + 1
		to := min(from+chunkRows-1, o.TableSize)
		_, err := workload.BulkLoad(ctx, l.T, c, "sbtest"+strconv.Itoa(j.table), []string{"id", "k", "c", "pad"}, l.Rows, func(w target.RowWriter) error {
			return GenRows(w, o.Seed, j.table, o.TableSize, from, to)
		})
		if err != nil {
			return fmt.Errorf("load sbtest%d rows %d-%d: %w", j.table, from, to, err)
		}
		return nil
	})
}

// GenRows writes rows from..to of table n as oltp_common.lua's create_table fills them: id in
// order, then for each row c and pad from their templates and k = sb_rand(1, table_size), drawn
// with sysbench's default distribution (special), in that order. from must start a chunk (a
// multiple of chunkRows, plus 1): each chunk has its own stream.
func GenRows(w target.RowWriter, seed uint64, n, size, from, to int) error {
	r := NewRand(seed, uint64(n)<<32|uint64((from-1)/chunkRows))
	dist, err := NewDist(DefaultDist())
	if err != nil {
		return err
	}
	var c [len(CTemplate)]byte
	var pad [len(PadTemplate)]byte
	for id := from; id <= to; id++ {
		r.RandStr(c[:], CTemplate)
		r.RandStr(pad[:], PadTemplate)
		k := dist.Draw(&r, 1, uint32(size))
		w.Int(int64(id))
		w.Int(int64(k))
		w.Str(c[:])
		w.Str(pad[:])
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// Cleanup drops the sbtest tables cairn's prepare created and its meta table, and nothing else: not
// sbtest tables of sysbench's own prepare. It returns the schema as it was.
func Cleanup(ctx context.Context, t target.Target) (*workload.Schema, error) {
	return workload.CleanupSchema(ctx, t, Footprint)
}
