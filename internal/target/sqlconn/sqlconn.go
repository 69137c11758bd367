// Package sqlconn implements target.Conn over one database/sql connection, for the drivers that only
// speak database/sql (MySQL/MariaDB, SQLite). Transactions are plain BEGIN/COMMIT statements on the
// pinned connection so that statements prepared on it are reused inside them: database/sql's Tx would
// re-prepare a connection-bound statement on every use.
package sqlconn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"github.com/cairn-bench/cairn/internal/target"
)

// Conn is a pinned database/sql connection with named prepared statements.
type Conn struct {
	C          *sql.Conn
	stmts      map[string]*sql.Stmt
	BeginSQL   string // "BEGIN", "START TRANSACTION", "BEGIN IMMEDIATE"
	BeginRO    string // for read-only transactions
	BulkLoader func(ctx context.Context, c *Conn, table string, columns []string, fill func(target.RowWriter) error) (int64, error)
	// Fast makes Prepare use the driver's own statements and the calls bypass database/sql's
	// per-call bookkeeping (fast.go). Set it before preparing.
	Fast bool

	// ImplicitTx makes Begin free of a round trip, as JDBC's setAutoCommit(false) does: the first
	// Begin turns autocommit off for the session (acOff), and from then on each transaction starts
	// with its first statement and ends with COMMIT or ROLLBACK. inTx is between Begin and
	// Commit/Rollback; a statement outside one turns autocommit back on first, so it still commits
	// by itself. Only for MySQL/MariaDB, where a statement starts a transaction when autocommit is off.
	ImplicitTx  bool
	acOff, inTx bool

	// Wire, when set with Fast, runs the statements it prepared and the text statements without
	// arguments on the target's own protocol path before the driver's.
	Wire  Wire
	wired map[string]wireStmt
	row   scanRow // QueryRow's result, reused: a Row is scanned before the next call

	fast  map[string]*fastStmt
	op    op
	nv    []driver.NamedValue
	dv    []driver.Value
	rawFn func(any) error
}

// Wire is a target's own protocol path on the connection (MySQL: target/mysql/wire.go), for the
// calls that go-sql-driver/mysql makes cost the most, with the driver still at hand for the rest.
type Wire interface {
	// Prepare prepares query; ok false (with nothing prepared) leaves it to the driver.
	Prepare(ctx context.Context, query string) (id int, ok bool, err error)
	// Exec and Query run a statement the wire prepared. served false means nothing was sent (an
	// argument of a type the wire does not encode): the driver then runs the statement instead.
	Exec(ctx context.Context, id int, args []any) (n int64, served bool, err error)
	Query(ctx context.Context, id int, args []any, dst *Rows) (served bool, err error)
	// Text runs a statement without arguments as text, as the driver's Exec would.
	Text(ctx context.Context, query string) (int64, error)
	// Close closes a statement the wire prepared.
	Close(id int)
}

type wireStmt struct {
	id    int
	query string
}

// wireStmt returns the wire's statement named q, if the wire serves this connection.
func (c *Conn) wireStmt(q string) (wireStmt, bool) {
	if !c.Fast || c.Wire == nil {
		return wireStmt{}, false
	}
	ws, ok := c.wired[q]
	return ws, ok
}

// Wired returns the wire's id of the statement prepared under name, when a call may go to the wire
// directly: it is prepared there and the session's autocommit needs no statement first.
func (c *Conn) Wired(name string) (int, bool) {
	if c.acOff && !c.inTx {
		return 0, false
	}
	ws, ok := c.wireStmt(name)
	return ws.id, ok
}

// driverStmt is the driver's statement for a wired one, prepared when an argument first needs it.
func (c *Conn) driverStmt(ctx context.Context, name string, ws wireStmt) (*fastStmt, error) {
	if fs := c.fast[name]; fs != nil {
		return fs, nil
	}
	fs, err := c.prepareFastStmt(ctx, ws.query)
	if err != nil {
		return nil, err
	}
	c.fast[name] = fs
	return fs, nil
}

// New pins one connection of db.
func New(ctx context.Context, db *sql.DB) (*Conn, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	cn := &Conn{C: c, stmts: map[string]*sql.Stmt{}, fast: map[string]*fastStmt{}, wired: map[string]wireStmt{}, BeginSQL: "BEGIN", BeginRO: "BEGIN"}
	cn.rawFn = cn.raw
	cn.op.rows = &Rows{}
	return cn, nil
}

func (c *Conn) Prepare(ctx context.Context, name, query string) error {
	if old, ok := c.wireStmt(name); ok {
		c.Wire.Close(old.id)
		delete(c.wired, name)
	}
	if c.Fast && c.Wire != nil {
		id, ok, err := c.Wire.Prepare(ctx, query)
		if err != nil {
			return err
		}
		if ok {
			if old := c.fast[name]; old != nil {
				_ = c.C.Raw(func(any) error { return old.st.Close() })
				delete(c.fast, name)
			}
			c.wired[name] = wireStmt{id: id, query: query}
			return nil
		}
	}
	if c.Fast {
		fs, err := c.prepareFastStmt(ctx, query)
		if err == nil {
			if old := c.fast[name]; old != nil {
				_ = c.C.Raw(func(any) error { return old.st.Close() })
			}
			c.fast[name] = fs
			return nil
		}
		if !errors.Is(err, errNoFast) {
			return err
		}
	}
	s, err := c.C.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	if old := c.stmts[name]; old != nil {
		old.Close()
	}
	c.stmts[name] = s
	return nil
}

// Stmt returns a prepared statement by name, or nil.
func (c *Conn) Stmt(name string) *sql.Stmt { return c.stmts[name] }

// autocommit turns autocommit back on before a statement outside Begin…Commit, so such a
// statement still commits by itself.
func (c *Conn) autocommit(ctx context.Context) error {
	c.acOff = false
	_, err := c.Exec(ctx, "SET autocommit = 1")
	return err
}

func (c *Conn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	if c.acOff && !c.inTx {
		if err := c.autocommit(ctx); err != nil {
			return 0, err
		}
	}
	if ws, ok := c.wireStmt(q); ok {
		n, served, err := c.Wire.Exec(ctx, ws.id, args)
		if served {
			return n, err
		}
		fs, err := c.driverStmt(ctx, q, ws)
		if err != nil {
			return 0, err
		}
		return c.fastExec(ctx, fs, "", args)
	}
	if c.Fast {
		if fs := c.fast[q]; fs != nil {
			return c.fastExec(ctx, fs, "", args)
		}
		if c.Wire != nil && len(args) == 0 && c.stmts[q] == nil {
			return c.Wire.Text(ctx, q)
		}
		if len(args) == 0 && c.stmts[q] == nil {
			if n, err := c.fastExec(ctx, nil, q, nil); !errors.Is(err, errNoFast) {
				return n, err
			}
		}
	}
	var res sql.Result
	var err error
	if s := c.stmts[q]; s != nil {
		res, err = s.ExecContext(ctx, args...)
	} else {
		res, err = c.C.ExecContext(ctx, q, args...)
	}
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return n, nil
}

type row struct{ r *sql.Row }

func (r row) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return target.ErrNoRows
	}
	return err
}

func (c *Conn) QueryRow(ctx context.Context, q string, args ...any) target.Row {
	if c.acOff && !c.inTx {
		if err := c.autocommit(ctx); err != nil {
			return &scanRow{nil, err}
		}
	}
	if ws, ok := c.wireStmt(q); ok {
		r, err := c.wireQuery(ctx, q, ws, args)
		c.row = scanRow{r, err}
		return &c.row
	}
	if fs := c.fast[q]; fs != nil {
		r, err := c.fastQuery(ctx, fs, args)
		c.row = scanRow{r, err}
		return &c.row
	}
	if s := c.stmts[q]; s != nil {
		return row{s.QueryRowContext(ctx, args...)}
	}
	return row{c.C.QueryRowContext(ctx, q, args...)}
}

type rows struct{ *sql.Rows }

func (r rows) Close() { r.Rows.Close() }

func (r rows) NumColumns() int {
	c, _ := r.Columns() // fails only on closed rows, which have no columns to count
	return len(c)
}

func (c *Conn) Query(ctx context.Context, q string, args ...any) (target.Rows, error) {
	if c.acOff && !c.inTx {
		if err := c.autocommit(ctx); err != nil {
			return nil, err
		}
	}
	if ws, ok := c.wireStmt(q); ok {
		r, err := c.wireQuery(ctx, q, ws, args)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	if fs := c.fast[q]; fs != nil {
		r, err := c.fastQuery(ctx, fs, args)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	var r *sql.Rows
	var err error
	if s := c.stmts[q]; s != nil {
		r, err = s.QueryContext(ctx, args...)
	} else {
		r, err = c.C.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, err
	}
	return rows{r}, nil
}

// wireQuery runs a wired statement into the connection's reused Rows, or the driver's statement
// when the wire does not take the arguments.
func (c *Conn) wireQuery(ctx context.Context, name string, ws wireStmt, args []any) (*Rows, error) {
	r := c.op.rows
	r.reset()
	served, err := c.Wire.Query(ctx, ws.id, args, r)
	if served {
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	fs, err := c.driverStmt(ctx, name, ws)
	if err != nil {
		return nil, err
	}
	return c.fastQuery(ctx, fs, args)
}

func (c *Conn) Begin(ctx context.Context, readOnly bool) error {
	q := c.BeginSQL
	if readOnly {
		q = c.BeginRO
	}
	if c.ImplicitTx && q == c.BeginSQL {
		if !c.acOff {
			if _, err := c.Exec(ctx, "SET autocommit = 0"); err != nil {
				return err
			}
			c.acOff = true
		}
		c.inTx = true
		return nil
	}
	c.inTx = true
	_, err := c.Exec(ctx, q)
	return err
}

func (c *Conn) Commit(ctx context.Context) error {
	_, err := c.Exec(ctx, "COMMIT")
	c.inTx = false
	return err
}

func (c *Conn) Rollback(ctx context.Context) error {
	_, err := c.Exec(ctx, "ROLLBACK")
	c.inTx = false
	return err
}

// InTx reports whether a transaction begun with Begin is open.
func (c *Conn) InTx() bool { return c.inTx }

func (c *Conn) BulkLoad(ctx context.Context, table string, columns []string, fill func(target.RowWriter) error) (int64, error) {
	return c.BulkLoader(ctx, c, table, columns, fill)
}

func (c *Conn) Close() error {
	for _, s := range c.stmts {
		s.Close()
	}
	// The fast path's statements go with the connection, which is discarded below.
	// Raw-close: a connection that died must not go back to the pool.
	_ = c.C.Raw(func(any) error { return driver.ErrBadConn })
	if err := c.C.Close(); err != nil && !errors.Is(err, sql.ErrConnDone) {
		return err
	}
	return nil
}
