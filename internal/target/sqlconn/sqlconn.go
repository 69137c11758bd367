// Package sqlconn implements target.Conn over one database/sql connection, for the drivers that only
// speak database/sql (MySQL/MariaDB, SQLite). Transactions are plain BEGIN/COMMIT statements on the
// pinned connection so that statements prepared on it are reused inside them: database/sql's Tx would
// re-prepare a connection-bound statement on every use.
package sqlconn

import (
	"context"
	"database/sql"
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
}

// New pins one connection of db.
func New(ctx context.Context, db *sql.DB) (*Conn, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &Conn{C: c, stmts: map[string]*sql.Stmt{}, BeginSQL: "BEGIN", BeginRO: "BEGIN"}, nil
}

func (c *Conn) Prepare(ctx context.Context, name, query string) error {
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

func (c *Conn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
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
	if s := c.stmts[q]; s != nil {
		return row{s.QueryRowContext(ctx, args...)}
	}
	return row{c.C.QueryRowContext(ctx, q, args...)}
}

type rows struct{ *sql.Rows }

func (r rows) Close() { r.Rows.Close() }

func (c *Conn) Query(ctx context.Context, q string, args ...any) (target.Rows, error) {
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
	_, err := c.C.ExecContext(ctx, q)
	return err
}

func (c *Conn) Commit(ctx context.Context) error {
	_, err := c.C.ExecContext(ctx, "COMMIT")
	return err
}

func (c *Conn) Rollback(ctx context.Context) error {
	_, err := c.C.ExecContext(ctx, "ROLLBACK")
	return err
}

func (c *Conn) BulkLoad(ctx context.Context, table string, columns []string, fill func(target.RowWriter) error) (int64, error) {
	return c.BulkLoader(ctx, c, table, columns, fill)
}

func (c *Conn) Close() error {
	for _, s := range c.stmts {
		s.Close()
	}
	// Raw-close: a connection that died must not go back to the pool.
	_ = c.C.Raw(func(any) error { return driverBad })
	return c.C.Close()
}

var driverBad = errors.New("discard")
