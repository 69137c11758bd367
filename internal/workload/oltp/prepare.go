package oltp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

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

// State of the schema in a database.
type State int

const (
	StateNone     State = iota // no sbtest table and no meta table
	StatePartial               // some tables, or a prepare that did not finish
	StateComplete              // prepare finished
)

var sbtestName = regexp.MustCompile(`^sbtest([0-9]+)$`)

// Status inspects the database: which sbtest tables exist and whether a prepare finished.
func Status(ctx context.Context, t target.Target, c target.Conn) (State, *Meta, []string, error) {
	admin, err := stmtMap(t.Dialect(), "admin.sql")
	if err != nil {
		return 0, nil, nil, err
	}
	present, err := presentTables(ctx, c, admin["tables_present"])
	if err != nil {
		return 0, nil, nil, err
	}
	if len(present) == 0 {
		return StateNone, nil, nil, nil
	}
	have := map[string]bool{}
	for _, p := range present {
		have[p] = true
	}
	if !have["cairn_oltp_meta"] {
		return StatePartial, nil, present, nil
	}
	var m Meta
	if !workload.ReadMeta(ctx, c, admin["meta_get"], &m) || m.Tables < 1 {
		return StatePartial, nil, present, nil
	}
	for i := 1; i <= m.Tables; i++ {
		if !have["sbtest"+strconv.Itoa(i)] {
			return StatePartial, &m, present, nil
		}
	}
	return StateComplete, &m, present, nil
}

// presentTables lists the sbtest tables and cairn_oltp_meta, sorted by table number.
func presentTables(ctx context.Context, c target.Conn, q string) ([]string, error) {
	all, err := workload.PresentTables(ctx, c, q)
	if err != nil {
		return nil, err
	}
	var present []string
	for _, n := range all {
		if n == "cairn_oltp_meta" || sbtestName.MatchString(n) {
			present = append(present, n)
		}
	}
	num := func(s string) int {
		if m := sbtestName.FindStringSubmatch(s); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
		return 1 << 30
	}
	sort.Slice(present, func(i, j int) bool { return num(present[i]) < num(present[j]) })
	return present, nil
}

// PrepareOptions configure prepare.
type PrepareOptions struct {
	Tables       int
	TableSize    int
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
	if o.Tables < 1 || o.Tables > 10000 {
		return target.Usagef("--tables %d: need between 1 and 10000", o.Tables)
	}
	if o.TableSize < 1 || o.TableSize > MaxTableSize {
		return target.Usagef("--table-size %d: need between 1 and %d", o.TableSize, MaxTableSize)
	}
	if o.Loaders < 1 {
		return target.Usagef("--loaders %d: need at least 1", o.Loaders)
	}
	return nil
}

// ErrAlreadyPrepared is returned when the schema is complete; the CLI reports it and exits 0.
var ErrAlreadyPrepared = errors.New("already prepared")

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
	state, meta, present, err := Status(ctx, t, c)
	if err != nil {
		return nil, err
	}
	switch state {
	case StateComplete:
		return meta, ErrAlreadyPrepared
	case StatePartial:
		return nil, target.Usagef("%s holds sbtest tables from an unfinished prepare or from another tool (%s): run 'cairn oltp cleanup' first",
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
	schema, err := stmtMap(d, "schema.sql")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	m := &Meta{Tables: o.Tables, TableSize: o.TableSize, Seed: o.Seed, KDist: DistSpecial,
		PreparedAt: start.UTC().Truncate(time.Second), CairnVersion: o.CairnVersion}

	phase("schema")
	if _, err := c.Exec(ctx, admin["meta_create"]); err != nil {
		return nil, fmt.Errorf("create cairn_oltp_meta: %w", err)
	}
	if err := workload.SetState(ctx, c, admin["meta_put"], "loading"); err != nil {
		return nil, err
	}
	for n := 1; n <= o.Tables; n++ {
		if _, err := c.Exec(ctx, forTable(schema["create_table"], n, o.TableSize)); err != nil {
			return nil, fmt.Errorf("create table sbtest%d: %w", n, err)
		}
	}

	phase("load")
	if err := load(ctx, t, o, admin["load_session"]); err != nil {
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
	if err := workload.Complete(ctx, c, admin["meta_put"], m); err != nil {
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
	if t.Dialect() == "sqlite" {
		return 1
	}
	return o.Loaders
}

// Cleanup drops every sbtest table and the meta table (as sysbench's cleanup drops sbtest1..N),
// and nothing else.
func Cleanup(ctx context.Context, t target.Target) error {
	c, err := t.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	d := t.Dialect()
	admin, err := stmtMap(d, "admin.sql")
	if err != nil {
		return err
	}
	schema, err := stmtMap(d, "schema.sql")
	if err != nil {
		return err
	}
	present, err := presentTables(ctx, c, admin["tables_present"])
	if err != nil {
		return err
	}
	for _, p := range present {
		m := sbtestName.FindStringSubmatch(p)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if _, err := c.Exec(ctx, forTable(schema["drop"], n, 0)); err != nil {
			return fmt.Errorf("drop %s: %w", p, err)
		}
	}
	if _, err := c.Exec(ctx, admin["meta_drop"]); err != nil {
		return fmt.Errorf("drop cairn_oltp_meta: %w", err)
	}
	return nil
}
