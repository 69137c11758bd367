// Package target is the database layer: URL parsing, the Target and Conn interfaces every database
// implements, and the classification of errors into what the engine should do with them.
package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// DefaultURL is the embedded SQLite file used when neither --db nor CAIRN_DB is given.
const DefaultURL = "sqlite://cairn.db"

// ErrClass says what the engine should do after a failed statement.
type ErrClass int

const (
	ErrFatal      ErrClass = iota // count it and go on with the next transaction
	ErrRetryable                  // deadlock, serialization failure, lock timeout: retry the same inputs
	ErrConnection                 // the connection is gone: reconnect with backoff
	ErrRollback                   // a rollback the workload asked for (TPC-C's 1% invalid item)
)

func (c ErrClass) String() string {
	switch c {
	case ErrRetryable:
		return "retryable"
	case ErrConnection:
		return "connection"
	case ErrRollback:
		return "rollback"
	}
	return "other"
}

// RollbackMarker is the message server-side code raises to ask for a rollback that is part of the
// workload (not an error). Every target recognizes it in Classify.
const RollbackMarker = "cairn: expected rollback"

// Target is one database to benchmark.
type Target interface {
	Kind() string     // "sqlite", "postgres", "mysql", "mariadb"
	Name() string     // for people: "PostgreSQL", "MariaDB", …
	Dialect() Dialect // its SQL and what it can do
	Address() string  // host:port or file path, for messages
	Database() string
	Version(ctx context.Context) (string, error)
	Conn(ctx context.Context) (Conn, error)
	// TxnCounterSQL is a scalar SQL expression for the server's own count of commits and rollbacks in
	// this database, or "" when the target has none (SQLite: the client counts). A Snapshotter
	// that reads its counter otherwise (MySQL 8: SHOW GLOBAL STATUS) returns the statement it runs.
	TxnCounterSQL() string
	// TxnCounterName says in words what TxnCounterSQL counts, for the result's tpm_source.
	TxnCounterName() string
	// UptimeSQL is a scalar SQL expression for the server's start time in Unix seconds (it changes
	// when the server restarts), or "" when not applicable.
	UptimeSQL() string
	Classify(err error) ErrClass
	// Settings returns the server settings that matter for interpreting results.
	Settings(ctx context.Context, c Conn) (map[string]string, error)
	Close() error
}

// Conn is one connection, owned by one goroutine. Statements prepared on it are referred to by name.
type Conn interface {
	Prepare(ctx context.Context, name, query string) error
	// Exec runs a prepared statement (by name) or, if no statement has that name, the SQL text.
	Exec(ctx context.Context, nameOrSQL string, args ...any) (int64, error)
	QueryRow(ctx context.Context, nameOrSQL string, args ...any) Row
	Query(ctx context.Context, nameOrSQL string, args ...any) (Rows, error)
	// Begin starts a transaction; readOnly lets a target pick a cheaper lock (SQLite: deferred).
	Begin(ctx context.Context, readOnly bool) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	// BulkLoad streams rows in the target's bulk format into table (COPY, LOAD DATA, batched
	// inserts). The writer passed to fill must be used only inside fill. It is atomic: one
	// statement or one transaction, so a failed BulkLoad leaves none of its rows behind.
	BulkLoad(ctx context.Context, table string, columns []string, fill func(w RowWriter) error) (int64, error)
	Close() error
}

// ImplicitTx is implemented by connections that can start a transaction without a round trip of
// its own, as JDBC drivers do with autocommit off: after SetImplicitTx(true), Begin sends nothing.
// MySQL/MariaDB turn autocommit off, so the transaction starts with its first statement;
// PostgreSQL sends BEGIN pipelined with the first statement. Statements outside Begin…Commit still
// commit by themselves. Workloads whose statement counts must match a peer's (oltp against
// sysbench, which sends BEGIN) leave it off.
type ImplicitTx interface{ SetImplicitTx(on bool) }

// DelimitedLoader is implemented by connections that can take delimiter-separated text as it is
// (PostgreSQL's COPY FROM STDIN, MySQL's LOAD DATA LOCAL INFILE) instead of re-encoding every value:
// TPC-H's loader hands dbgen's formatted rows straight to the server. Values must need no escaping
// (no backslash, delimiter or newline inside them); each line ends with '\n'.
type DelimitedLoader interface {
	LoadDelimited(ctx context.Context, table string, columns []string, delim byte, r io.Reader) (int64, error)
}

// TextCaller is implemented by connections with a call path that allocates nothing per statement
// (PostgreSQL: protocol messages written on pgx's own codec), for the workloads whose client cost
// is mostly the driver's: tpcb's one-row statements and TPC-C's one-call transactions. Parameters
// are given in the server's text format, and the first column of the result's last row comes back
// as text, appended to dst (a NULL, or no row, leaves dst as it was). Server errors are the same
// errors Exec returns, so Classify treats them alike. Calls must not follow an implicit Begin.
type TextCaller interface {
	// CallPrepared executes the statement prepared under name.
	CallPrepared(name string, params [][]byte, dst []byte) ([]byte, error)
	// CallSimple sends sql as one simple query.
	CallSimple(sql []byte, dst []byte) ([]byte, error)
	// InTransaction reports whether the last call left a transaction open (or failed in one).
	InTransaction() bool
}

// Splitter is implemented by connections that can send a statement and read its answer apart,
// on a blocking socket the caller may poll(2) (blockconn.Poller): one goroutine with statements
// in flight on several connections sends each and reads whichever answer arrives first, without
// waking a goroutine per statement. One statement at a time per connection; nothing else may run
// on it between a send and its Receive.
type Splitter interface {
	// Split reports whether the statement prepared under name ("" for text statements) can be
	// sent apart on this connection now. False (TLS, a socket on Go's poller, the driver's path,
	// autocommit to restore first) leaves the caller to the connection's ordinary calls.
	Split(name string) bool
	// Fd is the socket that becomes readable when the answer arrives.
	Fd() int
	// Blocking reports whether Receive on a socket with nothing to read waits in read(2) itself
	// (a blocking socket) rather than parking on Go's poller: with one statement in flight, it
	// then needs no poll first.
	Blocking() bool
	// Buffered reports whether part of an answer has been read into the connection's buffer
	// already, where poll(2) does not see it.
	Buffered() bool
	// SendPrepared writes an execution of the statement prepared under name; SendText writes sql
	// as one text statement.
	SendPrepared(name string, args []any) error
	SendText(sql []byte) error
	// Receive reads the answer of the statement sent, to its end, appending the first column of
	// its last row as text to dst (a NULL, or no row, leaves dst as it was).
	Receive(dst []byte) ([]byte, error)
}

// Capacity is implemented by targets that can say how many more connections they accept, so that
// a run asking for more VUs than that is refused before it opens any.
type Capacity interface {
	// FreeConnections returns how many more connections the database accepts now, and its limit
	// in words for the refusal ("max_connections 300, 12 in use").
	FreeConnections(ctx context.Context, c Conn) (int, string, error)
}

// Cells is implemented by connections whose driver reads statement arguments through values it
// keeps a pointer to (pgx, MySQL's wire), so that a VU setting an argument allocates nothing: argument lists
// built once from cells stay valid while the values they point to change. Without it, a VU passes
// plain values, which database/sql drivers convert on every call anyway.
type Cells interface {
	// IntCell is an argument whose value is *p when the statement runs.
	IntCell(p *int64) any
	// BytesDest is a scan destination that copies a column into *b, reusing its capacity.
	BytesDest(b *[]byte) any
	// NullIntDest is a scan destination for a nullable integer: *v, and *valid false for NULL.
	NullIntDest(v *int64, valid *bool) any
	Simple
}

// Simple is implemented by connections that can send a query text as one simple-protocol
// message: SimpleArgs, passed where the text's arguments go, do that instead of a
// prepare-and-describe round trip first.
type Simple interface {
	SimpleArgs() []any
}

// SimpleArgs are c's Simple arguments, nil when it has none.
func SimpleArgs(c Conn) []any {
	if s, ok := c.(Simple); ok {
		return s.SimpleArgs()
	}
	return nil
}

// Waiter is a target whose server says what its sessions wait on (docs/waits.md).
type Waiter interface {
	// OpenWaits starts reading waits on c, a connection of its own. With o.Instrument it first
	// turns on the instruments that time the server's internal waits, after recording their
	// state with save (undo's journal, so that a crash leaves them restorable); Close restores
	// them.
	OpenWaits(ctx context.Context, c Conn, o WaitOptions, save Saver) (WaitSource, error)
}

// WaitOptions say what OpenWaits reads besides the waits.
type WaitOptions struct {
	// Instrument turns on the server's wait instruments for the run (--waits instrument).
	Instrument bool
	// History samples each session's wait for the session history (--session-history on): a
	// cumulative source then answers SessionSampler with a query of its own.
	History bool
}

// DatabaseWaits is implemented by a Waiter whose waits are of its connection's database only
// (PostgreSQL's sessions of one database), not of its whole server: a shard set reads each of
// its databases then, not each server once.
type DatabaseWaits interface{ WaitsOfDatabase() }

// Saver records a change about to be made outside cairn (its kind and what undoes it) and
// returns the function that forgets it once it is undone.
type Saver func(kind string, data any) (done func() error, err error)

// WaitSource reads one server's waits.
type WaitSource interface {
	// Sampled: Read returns the wait of each active session now, one sample each ("CPU" for an
	// active session not waiting). Otherwise Read returns cumulative counts and times, and the
	// reader takes differences.
	Sampled() bool
	// Describe says where the waits come from, for the result: "pg_stat_activity of cairn_test".
	Describe() string
	Read(ctx context.Context) ([]Wait, error)
	// Notes say what to know to read them: which instruments were on, what the server lacks.
	Notes() []string
	// Close restores what OpenWaits changed.
	Close(ctx context.Context) error
}

// SessionSampler is a WaitSource whose Read is cumulative but which can also say what each
// session of the target is waiting on now, for the session history (docs/waits.md#session-history):
// Sessions returns one Wait per event, Count the sessions in it now, Class its wait class. A
// sampled source (Sampled) needs none: its Read is that already.
type SessionSampler interface {
	// Sessions leaves out the sessions whose ids are in own (cairn's own, SessionIDer).
	Sessions(ctx context.Context, own []int64) ([]Wait, error)
	// DescribeSessions says where Sessions reads each session's wait, for the result.
	DescribeSessions() string
}

// OwnLeaver is a sampled WaitSource (Sampled) that leaves cairn's own sessions out of its samples:
// own names them, as SessionIDer gives their ids, whenever a sample is taken.
type OwnLeaver interface {
	LeaveOut(own func() []int64)
}

// SessionIDer is a target whose server shows each session's id where its sessions are sampled
// (MySQL's CONNECTION_ID(), information_schema.PROCESSLIST's ID, PostgreSQL's backend pid): the
// session history leaves cairn's own sessions (the observers', the run's monitor's) out by it.
type SessionIDer interface {
	SessionID(ctx context.Context, c Conn) (int64, error)
}

// Wait is one wait event: a sample of it, or its cumulative count and time.
type Wait struct {
	Name   string  // "Lock:transactionid", "wait/synch/mutex/innodb/buf_pool_mutex", "CPU"
	Class  string  // "Lock", "LWLock", "IO", "CPU"; "mutex", "rwlock", "io", "innodb_metrics"
	Count  int64   // samples, or the cumulative count
	TimeMs float64 // cumulative time, where the server times it
}

// Row is the result of QueryRow.
type Row interface{ Scan(dest ...any) error }

// Rows is the result of Query.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
	// NumColumns is the number of result columns, known before the first Next.
	NumColumns() int
}

// RowWriter receives generated rows column by column. Money is in cents, Fixed4 in ten-thousandths;
// each target writes them in its own representation (decimal text, or integers for SQLite).
type RowWriter interface {
	Int(v int64)
	Money(cents int64)
	Fixed4(v int64)
	Str(b []byte)
	Text(s string)
	Time(unixSec int64)
	Null()
	EndRow() error
}

// ErrNoRows is returned by Row.Scan when the query returned nothing.
var ErrNoRows = errors.New("no rows in result set")

// Where names a target's database for messages: host:port/dbname, or the file of an embedded one.
func Where(t Target) string {
	if t.Dialect().Embedded || t.Address() == t.Database() {
		return t.Address()
	}
	return t.Address() + "/" + t.Database()
}

// ConnectError is a failure to reach or log in to the database; the CLI exits 1 on it.
type ConnectError struct {
	Kind, Addr, Msg string
	Err             error
	// NoDatabase is the database that does not exist on the server, when that is the failure,
	// and Create what creates it ("CREATE DATABASE x"), for a shard set to say of all its members
	// at once.
	NoDatabase, Create string
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("cannot connect to %s at %s: %s", e.Kind, e.Addr, e.Msg)
}
func (e *ConnectError) Unwrap() error { return e.Err }

// DefaultDB returns the database URL to use: CAIRN_DB, else the SQLite default.
func DefaultDB() string {
	if v := os.Getenv("CAIRN_DB"); v != "" {
		return v
	}
	return DefaultURL
}

// IsConnLoss reports errors that mean the socket is gone, whatever the driver.
func IsConnLoss(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	s := err.Error()
	for _, m := range []string{"connection refused", "connection reset", "broken pipe", "conn closed", "bad connection", "invalid connection", "closed network connection", "i/o timeout", "no such host", "unexpected EOF"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

type concurrencyKey struct{}

type polledKey struct{}

// WithPolled tells the targets that connections opened with ctx are read only after poll(2)
// says an answer is there (Splitter, blockconn.Poller), so that a target may give them a
// blocking socket off Go's network poller without reserving a P for each.
func WithPolled(ctx context.Context) context.Context {
	return context.WithValue(ctx, polledKey{}, true)
}

// Polled is the hint set by WithPolled.
func Polled(ctx context.Context) bool {
	b, _ := ctx.Value(polledKey{}).(bool)
	return b
}

// WithConcurrency tells the targets that connections opened with ctx will be busy n at a time
// (the run's virtual users). Given to Open, it is the most a session will run at once, for what
// a target decides once for the whole process (target/blockconn reserves its Ps); given to a
// dial, it lets the target choose that connection's transport.
func WithConcurrency(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, concurrencyKey{}, n)
}

// Concurrency is the hint set by WithConcurrency, or 0 when none was given.
func Concurrency(ctx context.Context) int {
	n, _ := ctx.Value(concurrencyKey{}).(int)
	return n
}
