package postgres

import (
	"context"

	"github.com/cairn-bench/cairn/internal/target"
)

// waitsSQL is what the database's client sessions are doing now: each active one is a sample of
// its wait event, or of "CPU" when it waits on nothing. The sampling session runs outside the
// database (target.Aside) or on a run's pooled connection, and leaves itself out, and cairn's
// other sessions ($2: the run's monitor's, target.OwnLeaver).
const waitsSQL = `SELECT COALESCE(wait_event_type, 'CPU'), COALESCE(wait_event, ''), count(*)
FROM pg_stat_activity
WHERE datname = $1 AND state = 'active' AND backend_type = 'client backend'
  AND pid <> pg_backend_pid() AND pid <> ALL($2::int8[])
GROUP BY 1, 2`

type pgWaits struct {
	c     target.Conn
	db    string
	notes []string
	own   func() []int64
}

// LeaveOut implements target.OwnLeaver.
func (w *pgWaits) LeaveOut(own func() []int64) { w.own = own }

// SessionID implements target.SessionIDer: the backend's pid, as pg_stat_activity names it.
func (t *pg) SessionID(ctx context.Context, c target.Conn) (int64, error) {
	var pid int64
	err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid)
	return pid, err
}

// OpenWaits implements target.Waiter: pg_stat_activity shows each session's current wait only,
// so it is sampled. PostgreSQL reports its wait events always; there is nothing to turn on.
func (t *pg) OpenWaits(ctx context.Context, c target.Conn, o target.WaitOptions, _ target.Saver) (target.WaitSource, error) {
	if err := c.Prepare(ctx, "cairn_waits", waitsSQL); err != nil {
		return nil, err
	}
	w := &pgWaits{c: c, db: t.db}
	if o.Instrument {
		w.notes = append(w.notes, "--waits instrument: PostgreSQL reports its wait events without instruments to turn on")
	}
	return w, nil
}

// WaitsOfDatabase implements target.DatabaseWaits: the sessions of t's database are sampled.
func (t *pg) WaitsOfDatabase() {}

func (w *pgWaits) Sampled() bool { return true }

func (w *pgWaits) Describe() string {
	return "pg_stat_activity: the active client sessions of database " + w.db + ", sampled"
}

func (w *pgWaits) Read(ctx context.Context) ([]target.Wait, error) {
	own := []int64{} // not nil: pid <> ALL(NULL) would leave every session out
	if w.own != nil {
		own = append(own, w.own()...)
	}
	rows, err := w.c.Query(ctx, "cairn_waits", w.db, own)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []target.Wait
	for rows.Next() {
		var class, event string
		var n int64
		if err := rows.Scan(&class, &event, &n); err != nil {
			return nil, err
		}
		name := class
		if event != "" {
			name = class + ":" + event
		}
		out = append(out, target.Wait{Name: name, Class: class, Count: n})
	}
	return out, rows.Err()
}

func (w *pgWaits) Notes() []string                 { return w.notes }
func (w *pgWaits) Close(ctx context.Context) error { return nil }
