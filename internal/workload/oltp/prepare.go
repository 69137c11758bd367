package oltp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Meta is what prepare records in cairn_oltp_meta; run reads it back to know the tables and their
// size (sysbench's --tables and --table-size, which sysbench makes the user repeat on every run).
type Meta struct {
	Tables       int       `json:"tables"`
	TableSize    int       `json:"table_size"`
	Seed         uint64    `json:"seed"`
	KDist        string    `json:"k_distribution"`
	PreparedAt   time.Time `json:"prepared_at"`
	CairnVersion string    `json:"cairn_version"`
	LoadSeconds  float64   `json:"load_seconds"`
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

// LoadMeta returns the description of complete sbtest tables; the error says why there are none.
func LoadMeta(ctx context.Context, t target.Target, c target.Conn) (*Meta, error) {
	var m Meta
	if _, err := workload.Load(ctx, c, t, Footprint, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// PrepareOptions configure prepare.
type PrepareOptions struct {
	Tables       int // 0: use complete tables of any count, else prepare 1
	TableSize    int // 0: use complete tables of any size, else 10,000 rows
	Loaders      int
	Seed         uint64
	Rows         *atomic.Int64 // rows loaded so far, for a progress display
	Phase        func(string)  // called at each step ("schema", "load", "indexes", "analyze")
	CairnVersion string
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
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	asked := o
	if o.Tables == 0 {
		o.Tables = 1
	}
	if o.TableSize == 0 {
		o.TableSize = 10000
	}
	var existing Meta
	s, err := workload.BeginPrepare(ctx, c, t, Footprint, tableObjects(o.Tables), &existing)
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		if asked.Tables != 0 && asked.Tables != existing.Tables {
			return &existing, &workload.MismatchError{S: s, Have: workload.Plural(existing.Tables, "table"), Asked: workload.Plural(asked.Tables, "table"),
				Flag: fmt.Sprintf("--tables %d", asked.Tables)}
		}
		if asked.TableSize != 0 && asked.TableSize != existing.TableSize {
			return &existing, &workload.MismatchError{S: s, Have: workload.Plural(existing.TableSize, "row") + " per table",
				Asked: workload.Plural(asked.TableSize, "row") + " per table", Flag: fmt.Sprintf("--table-size %d", asked.TableSize)}
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
	d := t.Dialect()
	session, err := workload.LoadSession(d)
	if err != nil {
		return nil, err
	}
	schema, err := stmtMap(d, "schema.sql")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	m := &Meta{Tables: o.Tables, TableSize: o.TableSize, Seed: o.Seed, KDist: DistSpecial,
		PreparedAt: start.UTC().Truncate(time.Second), CairnVersion: o.CairnVersion}

	phase("schema")
	for n := 1; n <= o.Tables; n++ {
		if err := s.Create(ctx, c, workload.Table("sbtest"+strconv.Itoa(n)), forTable(schema["create_table"], n, o.TableSize)); err != nil {
			return nil, err
		}
	}

	phase("load")
	if err := load(ctx, t, o, session); err != nil {
		return nil, err
	}

	phase("indexes")
	// Per table: the sequence, the secondary index (after the load, so it is built once from sorted
	// data rather than maintained row by row), and the statistics. Tables go in parallel.
	if err := workload.Parallel(ctx, t, loaders(t, o), o.Tables, nil, func(ctx context.Context, c target.Conn, i int) error {
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
	}); err != nil {
		return nil, err
	}
	m.LoadSeconds = time.Since(start).Seconds()
	if err := s.Complete(ctx, c, m); err != nil {
		return nil, err
	}
	return m, nil
}

// load fills every table, chunk by chunk, on o.Loaders connections. Chunks are ordered so that
// concurrent loaders work on different tables first (MySQL serializes bulk inserts into one table
// on its AUTO_INCREMENT lock).
func load(ctx context.Context, t target.Target, o PrepareOptions, sessionSQL string) error {
	type job struct{ table, chunk int }
	chunks := (o.TableSize + chunkRows - 1) / chunkRows
	var jobs []job
	for ch := 0; ch < chunks; ch++ {
		for n := 1; n <= o.Tables; n++ {
			jobs = append(jobs, job{n, ch})
		}
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
	return workload.Parallel(ctx, t, loaders(t, o), len(jobs), setup, func(ctx context.Context, c target.Conn, i int) error {
		j := jobs[i]
		from := j.chunk*chunkRows + 1
		to := min(from+chunkRows-1, o.TableSize)
		_, err := workload.BulkLoad(ctx, t, c, "sbtest"+strconv.Itoa(j.table), []string{"id", "k", "c", "pad"}, o.Rows, func(w target.RowWriter) error {
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

// loaders is the number of load connections: one writer at a time is all SQLite allows.
func loaders(t target.Target, o PrepareOptions) int {
	if t.Dialect().SingleWriter {
		return 1
	}
	return o.Loaders
}

// Cleanup drops the sbtest tables cairn's prepare created and its meta table, and nothing else: not
// sbtest tables of sysbench's own prepare. It returns the schema as it was.
func Cleanup(ctx context.Context, t target.Target) (*workload.Schema, error) {
	return workload.CleanupSchema(ctx, t, Footprint)
}
