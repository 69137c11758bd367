package target

import (
	"context"
	"errors"
)

// cairn's own statements never count (docs/tpcc.md#cairns-own-statements): a statement cairn
// sends on its own account — an observer's sample, a study's live setting change — must not
// reach the transaction counter a headline reads (TxnCounterSQL). OwnConn is the one way to a
// connection for them; the statements that must run in the target's database (the window's
// snapshots and their flushes) are counted by the engine and left out of TPM.

// Aside is a target whose transaction counter counts every transaction of the sessions of its
// database, autocommitted statements included (PostgreSQL's pg_stat_database): AsideConn opens
// a session on the same server outside that database, which the counter does not see. cairn's
// statements that must run in the database itself are each one transaction the engine counts
// and subtracts.
type Aside interface {
	AsideConn(ctx context.Context) (Conn, error)
}

// OwnConn opens a connection to t for cairn's own statements: where t's counter counts its
// database's sessions (Aside), a session outside the database; elsewhere a session of t's
// whose statements run outside any transaction, which counters of COMMIT and ROLLBACK
// statements (MySQL's and MariaDB's Com_commit and Com_rollback) do not count: it refuses
// Begin, Commit, Rollback and bulk loads.
func OwnConn(ctx context.Context, t Target) (Conn, error) {
	if a, ok := t.(Aside); ok {
		return a.AsideConn(ctx)
	}
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return ownConn{c}, nil
}

// ErrOwnTx is what a connection for cairn's own statements answers to a transaction: a
// COMMIT or ROLLBACK would count in the server's transaction counter.
var ErrOwnTx = errors.New("cairn's own statements run outside transactions, which the server's transaction counter would count")

// ownConn is a connection whose statements autocommit one by one, never a COMMIT.
type ownConn struct{ Conn }

func (ownConn) Begin(context.Context, bool) error { return ErrOwnTx }
func (ownConn) Commit(context.Context) error      { return ErrOwnTx }
func (ownConn) Rollback(context.Context) error    { return ErrOwnTx }
func (ownConn) BulkLoad(context.Context, string, []string, func(RowWriter) error) (int64, error) {
	return 0, ErrOwnTx
}

// SimpleArgs passes the wrapped connection's simple-protocol arguments on.
func (c ownConn) SimpleArgs() []any { return SimpleArgs(c.Conn) }

// CountsOwn reports whether t's transaction counter counts the statements cairn sends in t's
// database (Aside): the engine then counts its own there and leaves them out of TPM.
func CountsOwn(t Target) bool {
	_, ok := t.(Aside)
	return ok
}
