package target

import (
	"context"
	"strings"
)

// Reading is what a target's counters say at one instant: the workload's headline scalar, the
// server's transaction counter (TxnCounterSQL) and its start time (UptimeSQL); 0 where a target
// has none.
type Reading struct {
	Headline, Counter, Start int64
	// NoCounter says the server answered but its transaction counter was not there (NULL, no
	// such status variable): Counter is then not a count, and TPM must not be taken from it.
	NoCounter bool
	// Servers are the counters of each server, where the target reads several that are not
	// shards of one database (a primary and its replicas, Replicated): the primary's first.
	Servers []int64
}

// Snapshotter is a target that takes the window's readings itself rather than by one statement
// on one connection: a composite target (a set of shards) reads each member and sums them.
type Snapshotter interface {
	// Snapshot reads the counters through c, with headlineSQL ("" for none) as the headline's
	// scalar, so that they describe the same instant.
	Snapshot(ctx context.Context, c Conn, headlineSQL string) (Reading, error)
}

// Snapshot reads t's counters through c: by t's own Snapshot where it has one, else by
// SnapshotSQL.
func Snapshot(ctx context.Context, t Target, c Conn, headlineSQL string) (Reading, error) {
	if s, ok := t.(Snapshotter); ok {
		return s.Snapshot(ctx, c, headlineSQL)
	}
	return SnapshotSQL(ctx, t, c, headlineSQL)
}

// SnapshotSQL reads headlineSQL, t's TxnCounterSQL and UptimeSQL in one statement, so that they
// describe the same instant.
func SnapshotSQL(ctx context.Context, t Target, c Conn, headlineSQL string) (Reading, error) {
	cols := []string{"0", "0", "0"}
	for i, e := range []string{headlineSQL, t.TxnCounterSQL(), t.UptimeSQL()} {
		if e == "" {
			continue
		}
		cols[i] = "COALESCE(" + e + ", 0)"
		if i == 1 {
			cols[i] = e // NULL: the counter is not there, which the reading says
		}
	}
	// One simple-protocol message: the reading costs the server one transaction, no describe.
	var r Reading
	var counted bool
	err := c.QueryRow(ctx, "SELECT "+strings.Join(cols, ", "), SimpleArgs(c)...).Scan(&r.Headline, &IntScanner{V: &r.Counter, Valid: &counted}, &r.Start)
	r.NoCounter = err == nil && !counted && t.TxnCounterSQL() != ""
	return r, err
}

// Composite is a target made of member targets (a set of shards). What is read per server, such
// as the server's CPU, is read for each member's server once and summed.
type Composite interface {
	Members() []Target
}

// RunningThreads is a target whose server can say how many of its threads run a statement now:
// RunningSQL, run with args on a connection of OwnConn's, returns one integer, the sampling
// session itself left out; perDatabase says it counts the target's database only (else the
// whole server, read once for members sharing it).
type RunningThreads interface {
	RunningSQL() (sql string, args []any, perDatabase bool)
}
