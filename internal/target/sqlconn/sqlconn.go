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

	fast  map[string]*fastStmt
	op    op
	nv    []driver.NamedValue
	dv    []driver.Value
	rawFn func(any) error
}

// New pins one connection of db.
func New(ctx context.Context, db *sql.DB) (*Conn, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	cn := &Conn{C: c, stmts: map[string]*sql.Stmt{}, fast: map[string]*fastStmt{}, BeginSQL: "BEGIN", BeginRO: "BEGIN"}
	cn.rawFn = cn.raw
	cn.op.rows = &bufRows{}
	return cn, nil
}

func (c *Conn) Prepare(ctx context.Context, name, query string) error {
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
	if c.Fast {
		if fs := c.fast[q]; fs != nil {
			return c.fastExec(ctx, fs, "", args)
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
			return scanRow{nil, err}
		}
	}
	if fs := c.fast[q]; fs != nil {
		r, err := c.fastQuery(ctx, fs, args)
		return scanRow{r, err}
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
