package postgres

import (
	"context"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// flushSQL makes the session publish its pending statistics when the statement ends, before the
// server answers (PostgreSQL 15's pg_stat_force_next_flush()). It reads a catalog row too: a
// backend with no table statistics pending skips publishing altogether, and would keep the
// transaction counts it holds, this statement's own among them.
const flushSQL = "SELECT pg_stat_force_next_flush() FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog'"

// CounterFlush implements target.LaggingCounter. From PostgreSQL 15 a backend keeps its
// transaction counts in local memory and adds them to pg_stat_database at the end of a
// transaction or when idle, at most once per second (PGSTAT_MIN_INTERVAL), so a session blocked
// in a lock wait holds up to a second of its commits. Before 15, backends sent their counts to the
// statistics collector at most every 500 ms and readers saw a file up to 500 ms old: nothing
// forces a flush there, so the hold is a second either way.
func (t *pg) CounterFlush(ctx context.Context, c target.Conn) (string, time.Duration, error) {
	var ok bool
	err := c.QueryRow(ctx, `SELECT CASE WHEN to_regprocedure('pg_catalog.pg_stat_force_next_flush()') IS NULL THEN false
		ELSE has_function_privilege(to_regprocedure('pg_catalog.pg_stat_force_next_flush()'), 'EXECUTE') END`).Scan(&ok)
	if err != nil {
		return "", 0, err
	}
	if !ok {
		return "", time.Second, nil
	}
	return flushSQL, time.Second, nil
}

// OwnCounter implements target.ReplicaCounter: the transaction counter of t's database read on a
// session outside it (AsideConn), which the counter does not count. On a hot standby,
// pg_stat_database counts the standby's own sessions' transactions, not the ones it replays.
func (t *pg) OwnCounter(ctx context.Context, c target.Conn) (int64, error) {
	var n int64
	err := c.QueryRow(ctx, "SELECT COALESCE((SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1), 0)", t.db).Scan(&n)
	return n, err
}

// lagSQL is a standby's lag behind its primary: none when it has replayed all the WAL it has
// received, else the time since the last transaction it replayed was committed on the primary;
// NULL on a server that is not a standby.
const lagSQL = `SELECT CASE WHEN NOT pg_is_in_recovery() THEN NULL
	WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
	ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END::float8`

// Lag implements target.Lagger.
func (t *pg) Lag(ctx context.Context, c target.Conn) (float64, bool, error) {
	var s *float64
	if err := c.QueryRow(ctx, lagSQL).Scan(&s); err != nil || s == nil {
		return 0, false, err
	}
	return *s, true, nil
}

// LagSource implements target.Lagger.
func (t *pg) LagSource() string {
	return "the standby's now() - pg_last_xact_replay_timestamp(), 0 when it has replayed all the WAL it received"
}
