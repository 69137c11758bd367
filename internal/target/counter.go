package target

import (
	"context"
	"time"
)

// LaggingCounter is a target whose transaction counter (TxnCounterSQL) lags the commits: each
// session publishes its counts from time to time rather than as it commits, so a reading misses
// what sessions still hold. The engine has every VU publish at the window's edges.
type LaggingCounter interface {
	// CounterFlush, asked on c, returns a statement that makes the session running it publish its
	// counts before the statement returns ("" when the server has none), and the longest a busy
	// session holds counts back between two transactions.
	CounterFlush(ctx context.Context, c Conn) (stmt string, hold time.Duration, err error)
}
