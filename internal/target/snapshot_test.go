package target_test

import (
	"context"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// A target without a Snapshot of its own is read in one statement: the headline's scalar, its
// transaction counter and its start time where it has them, 0 where it has none.
func TestSnapshotReading(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			db, c := testutil.Open(t, tg.URL(t))
			r, err := target.Snapshot(context.Background(), db, c, "(SELECT 7)")
			if err != nil {
				t.Fatal(err)
			}
			if r.Headline != 7 || (r.Counter > 0) != (db.TxnCounterSQL() != "") || (r.Start > 0) != (db.UptimeSQL() != "") {
				t.Errorf("reading %+v (counter %q, uptime %q)", r, db.TxnCounterSQL(), db.UptimeSQL())
			}
			if r, err := target.Snapshot(context.Background(), db, c, ""); err != nil || r.Headline != 0 {
				t.Errorf("without a headline: %+v, %v", r, err)
			}
		})
	}
}
