package run

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// Lender gives cairn's own statements (the window's snapshots, the observers' samples) the
// connections of a run of terminals over pooled connections, so that the run holds no more server
// connections than --connections: while the executors serve, each statement runs on an idle
// executor's connection, taken between two of its transactions ahead of the terminals waiting;
// before the executors connect and after they have stopped, on one connection of the lender's
// own. Set Engine.Lender, and give the observers Conn(false).
type Lender struct {
	t target.Target

	mu    sync.Mutex
	pool  *pool             // set while the run's executors are up
	stmts map[string]string // the statements prepared through the lender, by name

	ownMu sync.Mutex // held while a statement runs on own
	own   *lease     // the lender's own connection, nil until a statement needs it
}

// NewLender returns a lender of t's connections.
func NewLender(t target.Target) *Lender {
	return &Lender{t: t, stmts: map[string]string{}}
}

// Conn is a connection whose statements each run on a connection lent for that statement.
func (l *Lender) Conn() target.Conn { return &lentConn{l: l} }

// Close closes the lender's own connection; call it after the run and its observers have closed.
func (l *Lender) Close() {
	l.ownMu.Lock()
	defer l.ownMu.Unlock()
	if l.own != nil {
		l.own.c.Close()
		l.own = nil
	}
}

// attach lends p's executors' connections from now on, and returns the lender's own connection,
// if it has one, for the first executor to take.
func (l *Lender) attach(p *pool) *lease {
	l.mu.Lock()
	l.pool = p
	l.mu.Unlock()
	l.ownMu.Lock()
	defer l.ownMu.Unlock()
	own := l.own
	l.own = nil
	return own
}

// detach goes back to the lender's own connection, keep if given (an executor's), once p's
// executors have stopped serving; again, it does nothing.
func (l *Lender) detach(p *pool, keep *lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pool != p {
		if keep != nil {
			keep.c.Close()
		}
		return
	}
	l.pool = nil
	if keep != nil {
		l.ownMu.Lock()
		if l.own != nil {
			l.own.c.Close()
		}
		l.own = keep
		l.ownMu.Unlock()
	}
	close(p.gone)
}

// lendReq asks an executor for its connection: the executor sends itself on give, and waits for
// back before it goes on.
type lendReq struct {
	give chan *vuState
	back chan struct{}
}

// lease is a connection lent for one statement.
type lease struct {
	c        target.Conn
	prepared map[string]bool // of the lender's statements, those prepared on c
	r        *lendReq        // nil: the lender's own connection
	e        *Engine
	mon      bool
	// sent is how many statements ran on c during the lease, each one transaction of the
	// server's: the statement, and its preparing on c the first time it runs there.
	sent int64
}

// borrow waits for a connection: an idle executor's while the run's executors serve (the
// monitor's statements are also served by executors waiting at a window's edge), else the
// lender's own.
func (l *Lender) borrow(ctx context.Context, mon bool) (*lease, error) {
	for {
		l.mu.Lock()
		p := l.pool
		l.mu.Unlock()
		if p == nil {
			l.ownMu.Lock()
			if l.own == nil {
				c, err := l.t.Conn(ctx)
				if err != nil {
					l.ownMu.Unlock()
					return nil, err
				}
				l.own = &lease{c: c, prepared: map[string]bool{}}
			}
			l.own.sent = 0
			return l.own, nil
		}
		r := &lendReq{give: make(chan *vuState, 1), back: make(chan struct{})}
		ch := p.lends
		if mon {
			ch = p.monLends
		}
		select {
		case ch <- r:
		case <-p.gone:
			continue
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		v := <-r.give
		if v.prepared == nil {
			v.prepared = map[string]bool{}
		}
		return &lease{c: v.conn, prepared: v.prepared, r: r, e: p.e, mon: mon}, nil
	}
}

// end gives the connection back after a statement; an observer's statements on an executor's
// connection are counted, to be left out of the server's transaction count (the monitor counts
// its own). Where the executor's session holds its counts back (target.LaggingCounter), it
// first publishes them, so that the counter has the observer's statements when they are
// counted: the progress lines' server rates, which leave them out, would otherwise swing by up
// to a second of samples each.
func (s *lease) end(l *Lender) {
	if s.r == nil {
		l.ownMu.Unlock()
		return
	}
	if !s.mon {
		if f := s.e.flushSQL; f != "" && s.sent > 0 {
			s.sent++
			s.c.Exec(context.Background(), f, target.SimpleArgs(s.c)...) // a failure counts as a rollback all the same
		}
		s.e.lentTxns.Add(s.sent)
	}
	s.r.back <- struct{}{}
}

// lend hands v's connection to r's caller between two transactions, and waits until it is given
// back.
func (p *pool) lend(v *vuState, r *lendReq) {
	r.give <- v
	<-r.back
	// Its session may hold the statement's count back as it does a transaction's (Engine.edgeSnapshot).
	v.held.Store(v.completed(time.Since(p.e.t0)))
}

// lentConn is a target.Conn whose every statement runs on a connection lent for it. Statements
// prepared on it are prepared on each lent connection the first time they run there. A QueryRow
// holds its connection until Scan, a Query until Close: call them at once.
type lentConn struct {
	l   *Lender
	mon bool // the engine's monitor: served at the window's edges too, and counted by the monitor
}

// simpleArg stands for the lent connection's SimpleArgs among a statement's arguments.
type simpleArg struct{}

func (c *lentConn) SimpleArgs() []any { return []any{simpleArg{}} }

func (c *lentConn) args(on target.Conn, args []any) []any {
	if len(args) == 1 && args[0] == (simpleArg{}) {
		return target.SimpleArgs(on)
	}
	return args
}

// take borrows a connection with name prepared on it if it is one of the lender's statements. The
// context it returns is ctx without its cancellation, for the statement on the lent connection: the
// connection is an executor's (or, after the run, the lender's own), and a driver cancels a
// statement by a deadline on its socket, which on a blocking socket (blockconn) shuts the socket
// down for good. An observer stopping mid-statement would so break an executor's connection, and
// when the answer had already arrived the driver did not even notice: the next statement on it
// failed with a broken pipe. cairn's own statements are short; a cancelled caller waits for one.
func (c *lentConn) take(ctx context.Context, name string) (*lease, context.Context, error) {
	s, err := c.l.borrow(ctx, c.mon)
	if err != nil {
		return nil, nil, err
	}
	ctx = context.WithoutCancel(ctx)
	c.l.mu.Lock()
	q, ok := c.l.stmts[name]
	c.l.mu.Unlock()
	if ok && !s.prepared[name] {
		s.sent++
		if err := s.c.Prepare(ctx, name, q); err != nil {
			s.end(c.l)
			return nil, nil, err
		}
		s.prepared[name] = true
	}
	return s, ctx, nil
}

// Prepare records the statement, and prepares it on a lent connection at once so that an error
// shows now.
func (c *lentConn) Prepare(ctx context.Context, name, query string) error {
	c.l.mu.Lock()
	if q, ok := c.l.stmts[name]; ok && q != query {
		c.l.mu.Unlock()
		return fmt.Errorf("statement %s prepared twice, with two texts", name)
	}
	c.l.stmts[name] = query
	c.l.mu.Unlock()
	s, _, err := c.take(ctx, name)
	if err != nil {
		return err
	}
	s.end(c.l)
	return nil
}

func (c *lentConn) Exec(ctx context.Context, nameOrSQL string, args ...any) (int64, error) {
	s, ctx, err := c.take(ctx, nameOrSQL)
	if err != nil {
		return 0, err
	}
	defer s.end(c.l)
	s.sent++
	return s.c.Exec(ctx, nameOrSQL, c.args(s.c, args)...)
}

func (c *lentConn) QueryRow(ctx context.Context, nameOrSQL string, args ...any) target.Row {
	s, ctx, err := c.take(ctx, nameOrSQL)
	if err != nil {
		return errRow{err}
	}
	s.sent++
	return &lentRow{Row: s.c.QueryRow(ctx, nameOrSQL, c.args(s.c, args)...), s: s, l: c.l}
}

func (c *lentConn) Query(ctx context.Context, nameOrSQL string, args ...any) (target.Rows, error) {
	s, ctx, err := c.take(ctx, nameOrSQL)
	if err != nil {
		return nil, err
	}
	s.sent++
	rows, err := s.c.Query(ctx, nameOrSQL, c.args(s.c, args)...)
	if err != nil {
		s.end(c.l)
		return nil, err
	}
	return &lentRows{Rows: rows, s: s, l: c.l}, nil
}

var errLentTx = errors.New("cairn's own statements run one at a time on lent connections: no transaction, no bulk load")

func (c *lentConn) Begin(context.Context, bool) error { return errLentTx }
func (c *lentConn) Commit(context.Context) error      { return errLentTx }
func (c *lentConn) Rollback(context.Context) error    { return errLentTx }
func (c *lentConn) BulkLoad(context.Context, string, []string, func(target.RowWriter) error) (int64, error) {
	return 0, errLentTx
}

// Close does nothing: a lent connection goes back after each statement.
func (c *lentConn) Close() error { return nil }

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// lentRow gives its connection back once scanned.
type lentRow struct {
	target.Row
	s *lease
	l *Lender
}

func (r *lentRow) Scan(dest ...any) error {
	if r.s == nil {
		return errors.New("row scanned twice")
	}
	err := r.Row.Scan(dest...)
	r.s.end(r.l)
	r.s = nil
	return err
}

// lentRows gives its connection back once closed.
type lentRows struct {
	target.Rows
	s *lease
	l *Lender
}

func (r *lentRows) Close() {
	r.Rows.Close()
	if r.s != nil {
		r.s.end(r.l)
		r.s = nil
	}
}
