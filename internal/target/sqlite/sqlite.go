// Package sqlite is the embedded default target, on the pure-Go modernc.org/sqlite driver, so the
// binary stays static and a newcomer needs no server.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sqlite "modernc.org/sqlite"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/target/sqlconn"
)

// dialect is SQLite's: one writer at a time, inside cairn, no procedures or partitions.
var dialect = target.Dialect{Name: "sqlite", SingleWriter: true, Embedded: true, BytesAsBlob: true}

func init() {
	target.RegisterDialect(dialect)
	target.Register(target.Scheme{Names: []string{"sqlite", "sqlite3"}, File: true, Open: Open})
}

type lite struct {
	db   *sql.DB
	path string

	mu      sync.Mutex
	pragmas map[string]string // a study's settings, run on every connection handed out
}

// Open opens (and creates, if missing) the database file.
func Open(ctx context.Context, u target.URL) (target.Target, error) {
	if err := target.CheckReserved(ctx, u.Raw()); err != nil {
		return nil, err
	}
	dir := filepath.Dir(u.Path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, &target.ConnectError{Kind: "SQLite", Addr: u.Path, Msg: fmt.Sprintf("directory %s does not exist", dir)}
	}
	// WAL lets readers run beside the one writer; busy_timeout makes writers queue rather than fail.
	dsn := "file:" + u.Path + "?_pragma=busy_timeout(60000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-262144)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, &target.ConnectError{Kind: "SQLite", Addr: u.Path, Msg: err.Error(), Err: err}
	}
	db.SetMaxIdleConns(1024)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, &target.ConnectError{Kind: "SQLite", Addr: u.Path, Msg: err.Error(), Err: err}
	}
	return &lite{db: db, path: u.Path}, nil
}

func (t *lite) Kind() string            { return "sqlite" }
func (t *lite) Name() string            { return "SQLite" }
func (t *lite) Dialect() target.Dialect { return dialect }
func (t *lite) Address() string         { return t.path }
func (t *lite) Database() string        { return t.path }
func (t *lite) Close() error            { return t.db.Close() }
func (t *lite) TxnCounterSQL() string   { return "" }
func (t *lite) UptimeSQL() string       { return "" }
func (t *lite) TxnCounterName() string  { return "" }

func (t *lite) Version(ctx context.Context) (string, error) {
	var v string
	err := t.db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v)
	return v, err
}

func (t *lite) Settings(ctx context.Context, c target.Conn) (map[string]string, error) {
	m := map[string]string{}
	for _, p := range []string{"journal_mode", "synchronous", "cache_size", "page_size"} {
		var v string
		if err := c.QueryRow(ctx, "PRAGMA "+p).Scan(&v); err != nil {
			return nil, err
		}
		m[p] = v
	}
	return m, nil
}

// MaxConnections is cairn's cap on connections to one SQLite file (docs/cli.md): every VU holds a
// connection with its own page cache, and SQLite runs one writer at a time, so more VUs than this
// only queue, at the cost of memory.
const MaxConnections = 256

// FreeConnections implements target.Capacity with cairn's cap.
func (t *lite) FreeConnections(ctx context.Context, c target.Conn) (int, string, error) {
	return MaxConnections, "cairn's cap for an SQLite file, where more VUs would only queue for its one writer", nil
}

func (t *lite) Classify(err error) target.ErrClass {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			return target.ErrRetryable
		}
		if strings.Contains(se.Error(), target.RollbackMarker) {
			return target.ErrRollback
		}
		return target.ErrFatal
	}
	if strings.Contains(err.Error(), "database is locked") {
		return target.ErrRetryable
	}
	return target.ErrFatal
}

func (t *lite) Conn(ctx context.Context) (target.Conn, error) {
	c, err := sqlconn.New(ctx, t.db)
	if err != nil {
		return nil, err
	}
	// Writers take the lock up front: a deferred transaction that upgrades to write can fail with
	// SQLITE_BUSY without waiting, which would turn queueing into retries.
	c.BeginSQL = "BEGIN IMMEDIATE"
	c.BeginRO = "BEGIN"
	c.BulkLoader = bulkInsert
	t.mu.Lock()
	set := make([]string, 0, len(t.pragmas))
	for n, v := range t.pragmas {
		set = append(set, "PRAGMA "+n+" = "+v)
	}
	t.mu.Unlock()
	for _, q := range set {
		if _, err := c.C.ExecContext(ctx, q); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// bulkInsert loads through one prepared multi-row INSERT inside one large transaction.
func bulkInsert(ctx context.Context, c *sqlconn.Conn, table string, columns []string, fill func(target.RowWriter) error) (int64, error) {
	const rowsPer = 64
	ph := "(" + strings.TrimSuffix(strings.Repeat("?,", len(columns)), ",") + ")"
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", table, strings.Join(columns, ","), strings.TrimSuffix(strings.Repeat(ph+",", rowsPer), ","))
	if _, err := c.C.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return 0, err
	}
	stmt, err := c.C.PrepareContext(ctx, q)
	if err != nil {
		c.C.ExecContext(ctx, "ROLLBACK")
		return 0, err
	}
	defer stmt.Close()
	w := &rowWriter{ctx: ctx, c: c, stmt: stmt, table: table, colList: strings.Join(columns, ","), cols: len(columns), per: rowsPer, args: make([]any, 0, rowsPer*len(columns))}
	err = fill(w)
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		c.C.ExecContext(ctx, "ROLLBACK")
		return w.n, err
	}
	_, err = c.C.ExecContext(ctx, "COMMIT")
	return w.n, err
}

type rowWriter struct {
	ctx     context.Context
	c       *sqlconn.Conn
	stmt    *sql.Stmt
	table   string
	colList string
	cols    int
	per     int
	args    []any
	rows    int
	n       int64
}

// Money is stored as integer cents: SQLite has no exact decimal type, and the consistency checks
// compare sums for equality.
func (w *rowWriter) Money(c int64)  { w.args = append(w.args, c) }
func (w *rowWriter) Int(v int64)    { w.args = append(w.args, v) }
func (w *rowWriter) Fixed4(v int64) { w.args = append(w.args, float64(v)/10000) }
func (w *rowWriter) Str(b []byte)   { w.args = append(w.args, string(b)) }
func (w *rowWriter) Text(s string)  { w.args = append(w.args, s) }
func (w *rowWriter) Null()          { w.args = append(w.args, nil) }
func (w *rowWriter) Time(sec int64) {
	w.args = append(w.args, time.Unix(sec, 0).UTC().Format("2006-01-02 15:04:05"))
}

func (w *rowWriter) EndRow() error {
	w.rows++
	if w.rows == w.per {
		if _, err := w.stmt.ExecContext(w.ctx, w.args...); err != nil {
			return fmt.Errorf("insert into %s: %w", w.table, err)
		}
		w.n += int64(w.rows)
		w.rows = 0
		w.args = w.args[:0]
	}
	return nil
}

func (w *rowWriter) flush() error {
	if w.rows == 0 {
		return nil
	}
	ph := "(" + strings.TrimSuffix(strings.Repeat("?,", w.cols), ",") + ")"
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", w.table, w.colList, strings.TrimSuffix(strings.Repeat(ph+",", w.rows), ","))
	if _, err := w.c.C.ExecContext(w.ctx, q, w.args...); err != nil {
		return fmt.Errorf("insert into %s: %w", w.table, err)
	}
	w.n += int64(w.rows)
	w.rows = 0
	w.args = w.args[:0]
	return nil
}
