package workload_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/oltp"
)

// A schema prepared before cairn recorded its objects (state complete, no obj rows) is still
// complete, and its cleanup drops the tables its meta describes, not others of similar names.
func TestLegacySchema(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			ctx := context.Background()
			target, c := testutil.Open(t, tg.URL(t))
			if _, err := oltp.Cleanup(ctx, target); err != nil {
				t.Fatal(err)
			}
			if _, err := oltp.Prepare(ctx, target, oltp.PrepareOptions{Tables: 1, TableSize: 10, Loaders: 1, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"DELETE FROM cairn_oltp_meta WHERE k LIKE 'obj:%'", "DROP TABLE IF EXISTS sbtest2",
				"CREATE TABLE sbtest2 (id INTEGER PRIMARY KEY)"} {
				if _, err := c.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { c.Exec(ctx, "DROP TABLE IF EXISTS sbtest2"); oltp.Cleanup(ctx, target) })
			s, err := workload.Inspect(ctx, c, target, oltp.Footprint)
			if err != nil {
				t.Fatal(err)
			}
			if s.State != workload.StateComplete || len(s.Objects) != 1 || s.Objects[0].Name != "sbtest1" {
				t.Fatalf("legacy schema: state %v, objects %v", s.State, s.Objects)
			}
			if len(s.Others) != 1 || s.Others[0].Owner != nil || s.Others[0].Objects[0].Name != "sbtest2" {
				t.Errorf("others: %+v", s.Others)
			}
			if _, err := oltp.Cleanup(ctx, target); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM sbtest2").Scan(&n); err != nil {
				t.Errorf("cleanup of the legacy schema dropped sbtest2: %v", err)
			}
			if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM sbtest1").Scan(&n); err == nil {
				t.Error("cleanup of the legacy schema left sbtest1")
			}
		})
	}
}

// readCounter counts the queries that read one meta table whole.
type readCounter struct {
	target.Conn
	query string
	reads int
}

func (c *readCounter) Query(ctx context.Context, q string, args ...any) (target.Rows, error) {
	if strings.Contains(q, c.query) {
		c.reads++
	}
	return c.Conn.Query(ctx, q, args...)
}

// Inspect reads each workload's meta table once, a schema prepared before objects were recorded
// included: every footprint is registered once, with its workload.
func TestInspectReadsEachMetaOnce(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			ctx := context.Background()
			tgt, c := testutil.Open(t, tg.URL(t))
			if _, err := oltp.Cleanup(ctx, tgt); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { oltp.Cleanup(ctx, tgt) })
			if _, err := oltp.Prepare(ctx, tgt, oltp.PrepareOptions{Tables: 1, TableSize: 10, Loaders: 1, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			for _, legacy := range []bool{false, true} {
				if legacy {
					if _, err := c.Exec(ctx, "DELETE FROM cairn_oltp_meta WHERE k LIKE 'obj:%'"); err != nil {
						t.Fatal(err)
					}
				}
				rc := &readCounter{Conn: c, query: "FROM " + oltp.Footprint.MetaTable()}
				s, err := workload.Inspect(ctx, rc, tgt, oltp.Footprint)
				if err != nil {
					t.Fatal(err)
				}
				if s.State != workload.StateComplete || len(s.Objects) != 1 {
					t.Fatalf("legacy %v: state %v, objects %v", legacy, s.State, s.Objects)
				}
				if rc.reads != 1 {
					t.Errorf("legacy %v: Inspect read %s %d times, want once", legacy, oltp.Footprint.MetaTable(), rc.reads)
				}
			}
		})
	}
}
