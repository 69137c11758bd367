// Package workload defines what the engine needs from a benchmark.
package workload

import (
	"context"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// VU is one virtual user's transaction source. The engine owns timing, retries and reconnection;
// the VU owns the choice of transaction, its inputs and its SQL.
type VU interface {
	// Bind prepares the VU's statements on a (new) connection.
	Bind(ctx context.Context, c target.Conn) error
	// Next picks the next transaction and draws its inputs; it returns the type's index.
	Next() int
	// Do executes the picked transaction once, with the inputs Next drew. On error it has already
	// rolled back (best effort); a retryable error makes the engine call Do again with the same inputs.
	// rolledBack reports a rollback the workload itself asked for.
	Do(ctx context.Context) (rolledBack bool, err error)
}

// Pacer is implemented by VUs that can wait the spec's keying and think times.
type Pacer interface {
	Keying(typ int) time.Duration
	Think(typ int) time.Duration
}

// Pooled is implemented by VUs that can serve as terminals over pooled connections (--terminals
// over --connections): UseConn makes the next Do run on the connection, and the statements
// prepared on it, that conn (a VU of the same run, bound by Bind) holds. A terminal never Binds.
type Pooled interface {
	UseConn(conn VU)
}

// Statement classes, as sysbench counts queries: reads are SELECTs, writes are INSERT, UPDATE and
// DELETE, other is everything else (BEGIN, COMMIT).
const (
	ClassRead  = "read"
	ClassWrite = "write"
	ClassOther = "other"
)

// Statement names one statement type a workload times, and its class.
type Statement struct {
	Name  string
	Class string
}

// StatementSink receives the start and end of each statement a VU executed, read from its Now;
// i indexes the statement types the workload gave the engine. The engine keeps only the
// statements that ended in the measured window. Timing by the engine's clock costs one monotonic
// reading per instant, where time.Now reads the wall clock as well.
type StatementSink interface {
	Now() time.Duration
	Statement(i int, start, end time.Duration)
}

// WindowSink is a StatementSink for VUs that keep figures of their own beside the engine's
// (fanout's per shard). Ended tells it when the VU's transaction ended (by its Now) and says
// whether the transaction counts in the measured window: the engine then counts it by that time,
// not by its own clock read after the VU returns, so that a window's edge between the two cannot
// have the VU count a transaction the engine leaves out.
type WindowSink interface {
	Ended(end time.Duration) bool
}

// StatementTimer is implemented by VUs that time their statements one by one (sysbench-style
// workloads report latency per statement type as well as per transaction).
type StatementTimer interface {
	SetStatementSink(StatementSink)
}
