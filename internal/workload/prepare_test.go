package workload_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

// kv is the smallest declared prepare, as docs/adding-a-workload.md shows it: one table loaded
// in chunks, an index after the load.
type kv struct{}

var kvFootprint = workload.Footprint{Name: "kvdecl", Title: "KV", Tables: func(n string) bool { return n == "kvdecl" }}

func init() { workload.Register(kv{}) }

func (kv) Info() workload.Info {
	return workload.Info{Name: "kvdecl", Title: "KV", Footprint: kvFootprint}
}
func (kv) PrepareOptions() any                                                   { return nil }
func (kv) RunOptions() any                                                       { return nil }
func (kv) Prepare(context.Context, target.Target, any, workload.Preparing) error { return nil }
func (kv) Start(context.Context, target.Target, any, uint64) (*workload.Run, error) {
	return nil, errors.New("not run")
}

type kvMeta struct {
	Rows int `json:"rows"`
	workload.Stamp
}

type kvOptions struct {
	Rows    int // 0: any size, else 100
	Loaders int
	Rows2   *atomic.Int64
	Phase   func(string)
	failAt  string // a step that fails, to leave a partial schema
}

func prepareKV(ctx context.Context, t target.Target, o kvOptions) (*kvMeta, error) {
	asked := o.Rows
	if o.Rows == 0 {
		o.Rows = 100
	}
	rowsWord := func(n int) string { return workload.Plural(n, "row") }
	const createSQL = "CREATE TABLE kvdecl (k INTEGER PRIMARY KEY, v INTEGER)"
	columns := []string{"k", "v"}
	var chunks []func(w target.RowWriter) error
	for from := 0; from < o.Rows; from += 30 {
		chunks = append(chunks, func(w target.RowWriter) error {
			for k := from; k < min(from+30, o.Rows); k++ {
				w.Int(int64(k))
				w.Int(int64(k * k))
				if err := w.EndRow(); err != nil {
					return err
				}
			}
			return nil
		})
	}
	buildIndexes := func(ctx context.Context, l *workload.Loading) error {
		if o.failAt == "indexes" {
			return errors.New("the index failed")
		}
		_, err := l.C.Exec(ctx, "CREATE INDEX kvdecl_v ON kvdecl (v)")
		return err
	}

	m := &kvMeta{Rows: o.Rows}
	meta, err := workload.Prepare(ctx, t, workload.Prep[kvMeta]{Footprint: kvFootprint, Meta: m,
		Sizes: func(have *kvMeta) []workload.Size {
			return []workload.Size{workload.SizeOf(asked, have.Rows, "rows", rowsWord)}
		},
		Tables: []workload.Create{{Object: workload.Table("kvdecl"), SQL: createSQL}}, TablesPhase: "tables",
		Load: func(ctx context.Context, l *workload.Loading) error {
			return l.Load(ctx, len(chunks), func(ctx context.Context, c target.Conn, i int) error {
				_, err := workload.BulkLoad(ctx, l.T, c, "kvdecl", columns, l.Rows, chunks[i])
				return err
			})
		}, LoadPhase: "load",
		After:   []workload.Step{{Phase: "indexes", Run: buildIndexes}},
		Loaders: o.Loaders, Rows: o.Rows2, Phase: o.Phase})
	return meta, err
}

// A declared prepare creates, loads, indexes and records in order; a second one finds the
// complete schema and refuses another size; a failed one leaves a partial schema that a prepare
// refuses and cleanup drops; a table of the declared names that is not the workload's is refused
// and left alone.
func TestPrepareDeclared(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			ctx := context.Background()
			tgt, c := testutil.Open(t, tg.URL(t))
			cleanup := func() {
				t.Helper()
				if _, err := workload.CleanupSchema(ctx, tgt, kvFootprint); err != nil {
					t.Fatal(err)
				}
			}
			cleanup()
			t.Cleanup(func() { workload.CleanupSchema(ctx, tgt, kvFootprint); c.Exec(ctx, "DROP TABLE IF EXISTS kvdecl") })

			var phases []string
			var rows atomic.Int64
			m, err := prepareKV(ctx, tgt, kvOptions{Loaders: 2, Rows2: &rows, Phase: func(p string) { phases = append(phases, p) }})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(phases, ","); got != "tables,load,indexes" {
				t.Errorf("phases %s", got)
			}
			if m.Rows != 100 || rows.Load() != 100 || m.PreparedAt.IsZero() || m.LoadSeconds <= 0 {
				t.Errorf("meta %+v, %d rows counted", m, rows.Load())
			}
			var n, sum int64
			if err := c.QueryRow(ctx, "SELECT COUNT(*), SUM(v) FROM kvdecl").Scan(&n, &sum); err != nil || n != 100 || sum != 328350 {
				t.Errorf("kvdecl holds %d rows summing to %d (%v), want 100 and 328350", n, sum, err)
			}
			s, err := workload.Load(ctx, c, tgt, kvFootprint, &kvMeta{})
			if err != nil || len(s.Objects) != 1 || s.Objects[0] != workload.Table("kvdecl") {
				t.Fatalf("the record: %v, %v", s, err)
			}

			again, err := prepareKV(ctx, tgt, kvOptions{Loaders: 1})
			if !errors.Is(err, workload.ErrAlreadyPrepared) || again.Rows != 100 || !again.PreparedAt.Equal(m.PreparedAt) {
				t.Errorf("prepare again: %+v, %v", again, err)
			}
			_, err = prepareKV(ctx, tgt, kvOptions{Rows: 200, Loaders: 1})
			var mm *workload.MismatchError
			if !errors.As(err, &mm) || !strings.Contains(err.Error(), "a KV schema of 100 rows, not 200 rows as --rows 200 asks") {
				t.Errorf("another size: %v", err)
			}
			cleanup()

			if _, err := prepareKV(ctx, tgt, kvOptions{Loaders: 1, failAt: "indexes"}); err == nil || !strings.Contains(err.Error(), "the index failed") {
				t.Fatalf("failed step: %v", err)
			}
			var pe *workload.PartialError
			if _, err := prepareKV(ctx, tgt, kvOptions{Loaders: 1}); !errors.As(err, &pe) {
				t.Errorf("over a partial schema: %v", err)
			}
			cleanup()
			if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM kvdecl").Scan(&n); err == nil {
				t.Error("cleanup of the partial schema left kvdecl")
			}

			if _, err := c.Exec(ctx, "CREATE TABLE kvdecl (x INTEGER)"); err != nil {
				t.Fatal(err)
			}
			var iw *workload.InTheWayError
			if _, err := prepareKV(ctx, tgt, kvOptions{Loaders: 1}); !errors.As(err, &iw) {
				t.Errorf("over a table cairn did not create: %v", err)
			}
			cleanup()
			if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM kvdecl").Scan(&n); err != nil {
				t.Errorf("cleanup dropped a kvdecl it did not create: %v", err)
			}
		})
	}
}
