// Package postgres is the PostgreSQL target, on pgx's native interface (not database/sql): it is the
// fastest Go path to the server and gives COPY and typed error codes.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/target/blockconn"
)

// dialect is PostgreSQL's: $n parameters, functions, partitions as tables, fill factors.
var dialect = target.Dialect{Name: "postgres", Dollar: true, Procedures: true, Partitions: "tables", FillFactor: true}

func init() {
	target.RegisterDialect(dialect)
	target.Register(target.Scheme{Names: []string{"postgres", "postgresql"}, Params: params, Open: Open,
		TestEnv: "CAIRN_TEST_PG", TestURL: "postgres://cairn:cairn@127.0.0.1:5432/cairn_test"})
}

// params are the URL parameters a PostgreSQL URL may carry (docs/cli.md, "Safety"); pgx would send
// any other as a startup parameter, that is, a server setting for the session.
var params = []target.Param{
	{Name: "sslmode", Doc: "disable, allow, prefer, require, verify-ca or verify-full (default on loopback: disable)",
		Check: target.OneOf("disable", "allow", "prefer", "require", "verify-ca", "verify-full")},
	{Name: "sslrootcert", Doc: "file of the trusted CA certificates", Check: target.IsText},
	{Name: "sslcert", Doc: "file of the client certificate", Check: target.IsText},
	{Name: "sslkey", Doc: "file of the client key", Check: target.IsText},
	{Name: "sslpassword", Doc: "password of the client key", Secret: true},
	{Name: "sslsni", Doc: "1 or 0: send the host name in the TLS handshake", Check: target.OneOf("0", "1")},
	{Name: "connect_timeout", Doc: "connect timeout in whole seconds", Check: target.IsSeconds},
	{Name: "application_name", Doc: "the name the server shows for cairn's sessions (default cairn)", Check: target.IsText},
	{Name: "target_session_attrs", Doc: "any, read-write, read-only, primary, standby or prefer-standby",
		Check: target.OneOf("any", "read-write", "read-only", "primary", "standby", "prefer-standby")},
	{Name: "password", Doc: "the password, when not in the userinfo", Secret: true},
}

type pg struct {
	cfg     *pgx.ConnConfig
	addr    string
	db      string
	sslmode string
}

// Open checks the URL, connects once to verify the server is reachable and the login works.
func Open(ctx context.Context, u target.URL) (target.Target, error) {
	raw := u.Raw()
	// On loopback TLS only burns CPU on both sides of the measurement, so unless the URL says
	// otherwise cairn does not negotiate it there (libpq's default, "prefer", would).
	if u.Parsed.Query().Get("sslmode") == "" && isLoopback(u.Parsed.Hostname()) {
		q := u.Parsed.Query()
		q.Set("sslmode", "disable")
		v := *u.Parsed
		v.RawQuery = q.Encode()
		raw = v.String()
	}
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		return nil, target.URLErrorf("--db %q is not a valid PostgreSQL URL: %v", u, target.Scrub(err.Error(), u.Raw()))
	}
	if u.Params["connect_timeout"] == "" {
		cfg.ConnectTimeout = target.ConnectTimeout(ctx)
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if u.Params["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "cairn"
	}
	// Timestamps written during a run match the UTC ones written by the loader.
	cfg.RuntimeParams["timezone"] = "UTC"
	// Benchmark statements are prepared explicitly by name; pgx's automatic statement cache would
	// otherwise prepare every ad-hoc statement (DDL, checks) too.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	// Blocking sockets up to 2 busy connections per CPU: see blockconn.New.
	cfg.DialFunc = blockconn.New(2, target.Concurrency(ctx)).Dial
	t := &pg{cfg: cfg, addr: fmt.Sprintf("%s:%d", cfg.Host, cfg.Port), db: cfg.Database, sslmode: "prefer"}
	if raw != u.Raw() {
		t.sslmode = "disable"
	} else if m := u.Parsed.Query().Get("sslmode"); m != "" {
		t.sslmode = m
	}
	c, err := t.connect(ctx)
	if err != nil {
		return nil, err
	}
	c.Close(ctx)
	return t, nil
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasPrefix(host, "/") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (t *pg) connect(ctx context.Context) (*pgx.Conn, error) {
	c, err := pgx.ConnectConfig(ctx, t.cfg)
	if err != nil {
		return nil, t.connErr(ctx, err)
	}
	return c, nil
}

func (t *pg) connErr(ctx context.Context, err error) error {
	msg := err.Error()
	var missing string
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000":
			msg = fmt.Sprintf("login failed for user %q (wrong password or not allowed by pg_hba.conf)", t.cfg.User)
		case "3D000":
			msg = fmt.Sprintf("database %q does not exist (create it with: createdb %s)", t.db, t.db)
			missing = t.db
		default:
			msg = pe.Message
		}
	} else if m := target.Unreachable(ctx, "PostgreSQL", "postgres", t.addr, err, t.cfg.ConnectTimeout); m != "" {
		msg = m
	} else {
		var ne net.Error
		var oe *net.OpError
		switch {
		case errors.As(err, &oe):
			msg = oe.Err.Error()
		case errors.As(err, &ne) && ne.Timeout():
			msg = "timed out"
		}
		if i := strings.LastIndex(msg, ": "); i >= 0 && !strings.Contains(msg, "login") {
			msg = msg[i+2:]
		}
	}
	ce := &target.ConnectError{Kind: "PostgreSQL", Addr: t.addr, Msg: msg, Err: err}
	if missing != "" {
		ce.NoDatabase, ce.Create = missing, "createdb "+missing
	}
	return ce
}

func (t *pg) Kind() string            { return "postgres" }
func (t *pg) Name() string            { return "PostgreSQL" }
func (t *pg) Dialect() target.Dialect { return dialect }
func (t *pg) Address() string         { return t.addr }
func (t *pg) Database() string        { return t.db }
func (t *pg) Close() error            { return nil }

func (t *pg) Version(ctx context.Context) (string, error) {
	c, err := t.connect(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	var v string
	err = c.QueryRow(ctx, "SHOW server_version").Scan(&v)
	return v, err
}

func (t *pg) TxnCounterSQL() string {
	return "(SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database())"
}

func (t *pg) TxnCounterName() string {
	return "pg_stat_database xact_commit + xact_rollback of database " + t.db
}

func (t *pg) UptimeSQL() string {
	return "(SELECT CAST(EXTRACT(EPOCH FROM pg_postmaster_start_time()) AS bigint))"
}

func (t *pg) Settings(ctx context.Context, c target.Conn) (map[string]string, error) {
	rows, err := c.Query(ctx, `SELECT name, current_setting(name) FROM pg_settings WHERE name IN
		('shared_buffers','max_connections','synchronous_commit','fsync','wal_level','checkpoint_timeout',
		 'max_wal_size','default_transaction_isolation','effective_io_concurrency','work_mem','full_page_writes')`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]string{"client_sslmode": t.sslmode}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, rows.Err()
}

// FreeConnections implements target.Capacity: max_connections, less the connections reserved for
// superusers when cairn's role is not one, less the client backends already connected.
func (t *pg) FreeConnections(ctx context.Context, c target.Conn) (int, string, error) {
	var max, reserved, inUse int
	var super bool
	err := c.QueryRow(ctx, `SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int,
		(SELECT rolsuper FROM pg_roles WHERE rolname = current_user),
		(SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend')`).Scan(&max, &reserved, &super, &inUse)
	if err != nil {
		return 0, "", err
	}
	inUse-- // the connection asking, closed before the run opens its own
	desc := fmt.Sprintf("max_connections %d, %d in use; raise max_connections for more", max, inUse)
	if !super {
		max -= reserved
		desc = fmt.Sprintf("max_connections %d less %d reserved for superusers, %d in use; raise max_connections for more", max+reserved, reserved, inUse)
	}
	return max - inUse, desc, nil
}

func (t *pg) Classify(err error) target.ErrClass {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "40001" || pe.Code == "40P01" || pe.Code == "55P03":
			return target.ErrRetryable
		case strings.HasPrefix(pe.Code, "08"), pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03":
			return target.ErrConnection
		case strings.Contains(pe.Message, target.RollbackMarker):
			return target.ErrRollback
		}
		return target.ErrFatal
	}
	var ce *target.ConnectError
	if errors.As(err, &ce) || pgconn.SafeToRetry(err) || target.IsConnLoss(err) || pgconn.Timeout(err) {
		return target.ErrConnection
	}
	return target.ErrFatal
}

func (t *pg) Conn(ctx context.Context) (target.Conn, error) {
	c, err := t.connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, stmts: map[string]bool{}}, nil
}

// asideDatabases are where cairn's own sessions go, the first that takes them: databases every
// cluster is made with.
var asideDatabases = []string{"postgres", "template1"}

// AsideConn implements target.Aside: a session on the server in another database, whose
// transactions pg_stat_database counts under that database, not t's. Views such as
// pg_stat_activity cover the whole cluster, so the samplers read t's sessions from there.
func (t *pg) AsideConn(ctx context.Context) (target.Conn, error) {
	var why []string
	var last error
	for _, db := range asideDatabases {
		if db == t.db {
			continue
		}
		cfg := t.cfg.Copy()
		cfg.Database = db
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			return &conn{c: c, stmts: map[string]bool{}}, nil
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			return nil, t.connErr(ctx, err) // the server, not the database, is the trouble
		}
		why, last = append(why, db+": "+pe.Message), err
	}
	return nil, &target.ConnectError{Kind: "PostgreSQL", Addr: t.addr, Err: last,
		Msg: fmt.Sprintf("cairn's samplers run outside database %s, so that TPM does not count them, and could not (%s): let %s connect to %s, or turn the samplers off (--observe off --running-sample 0)",
			t.db, strings.Join(why, "; "), t.cfg.User, strings.Join(asideDatabases, " or "))}
}

type conn struct {
	c     *pgx.Conn
	stmts map[string]bool

	// With implicit transactions, Begin sends nothing: BEGIN goes out with the transaction's first
	// statement, pipelined in one batch, as pgjdbc does with autocommit off. pending is a BEGIN
	// that has not been sent yet.
	implicit, pending bool
	batch             pgx.Batch

	w *wire // the allocation-free path of target.TextCaller, made on first use
}

// beginStmt is the prepared BEGIN of implicit transactions: a batch finds it among the
// connection's prepared statements, so it costs no describe round trip.
const beginStmt = "cairn_begin"

// SetImplicitTx implements target.ImplicitTx: BEGIN rides with the next statement.
func (c *conn) SetImplicitTx(on bool) { c.implicit = on }

// sendWithBegin sends the pending BEGIN and statement q in one round trip; the caller reads q's
// result from the batch and closes it.
func (c *conn) sendWithBegin(ctx context.Context, q string, args []any) (pgx.BatchResults, error) {
	c.pending = false
	if !c.stmts[beginStmt] {
		if err := c.Prepare(ctx, beginStmt, "BEGIN"); err != nil {
			return nil, err
		}
	}
	c.batch.QueuedQueries = c.batch.QueuedQueries[:0]
	c.batch.Queue(beginStmt)
	c.batch.Queue(q, args...)
	br := c.c.SendBatch(ctx, &c.batch)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return nil, err
	}
	return br, nil
}

func (c *conn) Prepare(ctx context.Context, name, query string) error {
	if _, err := c.c.Prepare(ctx, name, query); err != nil {
		return fmt.Errorf("prepare %s: %w", name, err)
	}
	c.stmts[name] = true
	return nil
}

func (c *conn) Exec(ctx context.Context, q string, args ...any) (int64, error) {
	if c.pending {
		br, err := c.sendWithBegin(ctx, q, args)
		if err != nil {
			return 0, err
		}
		tag, err := br.Exec()
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		return tag.RowsAffected(), err
	}
	tag, err := c.c.Exec(ctx, q, args...)
	return tag.RowsAffected(), err
}

type row struct{ r pgx.Row }

func (r row) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return target.ErrNoRows
	}
	return err
}

func (c *conn) QueryRow(ctx context.Context, q string, args ...any) target.Row {
	if c.pending {
		br, err := c.sendWithBegin(ctx, q, args)
		if err != nil {
			return errRow{err}
		}
		return batchRow{br, br.QueryRow()}
	}
	return row{c.c.QueryRow(ctx, q, args...)}
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// batchRow is a row read from a batch, which is closed when the row has been scanned.
type batchRow struct {
	br pgx.BatchResults
	r  pgx.Row
}

func (r batchRow) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return target.ErrNoRows
	}
	return err
}

type rows struct{ pgx.Rows }

func (r rows) NumColumns() int { return len(r.FieldDescriptions()) }

func (r rows) Close() { r.Rows.Close() }

// batchRows are rows read from a batch, which is closed with them.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error
}

func (r *batchRows) NumColumns() int { return len(r.FieldDescriptions()) }

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.err = r.br.Close()
		r.br = nil
	}
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

func (c *conn) Query(ctx context.Context, q string, args ...any) (target.Rows, error) {
	if c.pending {
		br, err := c.sendWithBegin(ctx, q, args)
		if err != nil {
			return nil, err
		}
		r, err := br.Query()
		if err != nil {
			br.Close()
			return nil, err
		}
		return &batchRows{Rows: r, br: br}, nil
	}
	r, err := c.c.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return rows{r}, nil
}

func (c *conn) Begin(ctx context.Context, _ bool) error {
	if c.implicit {
		c.pending = true
		return nil
	}
	_, err := c.c.Exec(ctx, "BEGIN")
	return err
}

// Commit and Rollback of a transaction whose BEGIN was never sent have nothing to end.
func (c *conn) Commit(ctx context.Context) error {
	if c.pending {
		c.pending = false
		return nil
	}
	_, err := c.c.Exec(ctx, "COMMIT")
	return err
}
func (c *conn) Rollback(ctx context.Context) error {
	if c.pending {
		c.pending = false
		return nil
	}
	_, err := c.c.Exec(ctx, "ROLLBACK")
	return err
}

func (c *conn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return c.c.Close(ctx)
}

// IntCell implements target.Cells: pgx encodes an Int64Valuer through its pointer.
func (c *conn) IntCell(p *int64) any { return intCell{p} }

// BytesDest implements target.Cells: pgx hands a BytesScanner the bytes it received.
func (c *conn) BytesDest(b *[]byte) any { return bytesDest{b} }

// NullIntDest implements target.Cells.
func (c *conn) NullIntDest(v *int64, valid *bool) any { return &nullIntDest{v, valid} }

// SimpleArgs implements target.Cells: pgx describes a query text it has not prepared (an extra
// round trip) before sending it with the extended protocol; this option, passed where the
// arguments go, makes it send the text as one simple-protocol Query message.
func (c *conn) SimpleArgs() []any { return []any{pgx.QueryExecModeSimpleProtocol} }

type intCell struct{ p *int64 }

func (c intCell) Int64Value() (pgtype.Int8, error) { return pgtype.Int8{Int64: *c.p, Valid: true}, nil }

type bytesDest struct{ b *[]byte }

func (d bytesDest) ScanBytes(src []byte) error {
	*d.b = append((*d.b)[:0], src...)
	return nil
}

type nullIntDest struct {
	v     *int64
	valid *bool
}

func (d *nullIntDest) ScanInt64(v pgtype.Int8) error {
	*d.v, *d.valid = v.Int64, v.Valid
	return nil
}

// LoadDelimited is COPY … FROM STDIN in text format with the given delimiter.
func (c *conn) LoadDelimited(ctx context.Context, table string, columns []string, delim byte, r io.Reader) (int64, error) {
	sql := fmt.Sprintf("COPY %s (%s) FROM STDIN WITH (DELIMITER '%c')", table, strings.Join(columns, ", "), delim)
	tag, err := c.c.PgConn().CopyFrom(ctx, r, sql)
	if err != nil {
		return tag.RowsAffected(), fmt.Errorf("COPY %s: %w", table, err)
	}
	return tag.RowsAffected(), nil
}

// BulkLoad streams text-format COPY: generation runs in this goroutine, the copy in another, joined
// by a pipe, so generating and sending overlap.
func (c *conn) BulkLoad(ctx context.Context, table string, columns []string, fill func(w target.RowWriter) error) (int64, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	var n int64
	go func() {
		sql := fmt.Sprintf("COPY %s (%s) FROM STDIN", table, strings.Join(columns, ", "))
		tag, err := c.c.PgConn().CopyFrom(ctx, pr, sql)
		n = tag.RowsAffected()
		pr.CloseWithError(err)
		done <- err
	}()
	w := target.NewTextRowWriter(pw)
	err := fill(w)
	if err == nil {
		err = w.FlushBuf()
	}
	pw.CloseWithError(err)
	cerr := <-done
	if err != nil && !errors.Is(err, io.ErrClosedPipe) {
		return n, err
	}
	if cerr != nil {
		return n, fmt.Errorf("COPY %s: %w", table, cerr)
	}
	return n, err
}

// RunningSQL implements target.RunningThreads: the database's client backends running a
// statement, the sampling session left out (it runs outside the database, target.Aside, or on
// a run's pooled connection).
func (t *pg) RunningSQL() (string, []any, bool) {
	return `SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state = 'active'
  AND backend_type = 'client backend' AND pid <> pg_backend_pid()`, []any{t.db}, true
}
