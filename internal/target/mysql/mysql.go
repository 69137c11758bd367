// Package mysql is the MySQL and MariaDB target, on go-sql-driver/mysql. Bulk loads use
// LOAD DATA LOCAL INFILE streamed from memory through the driver's reader handler.
package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	my "github.com/go-sql-driver/mysql"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/target/blockconn"
	"github.com/cairn-bench/cairn/internal/target/sqlconn"
)

// MySQL's dialect, and MariaDB's, which reads MySQL's SQL files where it has none of its own.
var (
	mysqlDialect   = target.Dialect{Name: "mysql", Procedures: true, Partitions: "clause"}
	mariadbDialect = target.Dialect{Name: "mariadb", Base: "mysql", Procedures: true, Partitions: "clause"}
)

func init() {
	target.RegisterDialect(mysqlDialect)
	target.RegisterDialect(mariadbDialect)
	target.Register(target.Scheme{Names: []string{"mysql", "mariadb"}, Params: params, Open: Open,
		TestEnv: "CAIRN_TEST_MYSQL", TestURL: "mysql://cairn:cairn@127.0.0.1:3306/cairn_test"})
	// The driver logs every dropped connection to stderr; the engine counts and reports them instead.
	_ = my.SetLogger(log.New(io.Discard, "", 0))
}

type mysqlTarget struct {
	// conns is for Conn: never an idle connection, always a fresh dial, so that the target holds
	// no connection of its own beside those it gave out (a run of --connections M holds M).
	conns   *sql.DB
	cfg     *my.Config
	addr    string
	dbname  string
	user    string
	kind    string
	version string
	timeout time.Duration // the connect timeout, for messages
	// infile is whether the server takes LOAD DATA LOCAL: 0 not known yet, 1 yes, 2 no.
	infileMu sync.Mutex
	infile   int
}

// Open connects once to verify the address, login and database, and learns MySQL from MariaDB.
func Open(ctx context.Context, u target.URL) (target.Target, error) {
	p := u.Parsed
	cfg := my.NewConfig()
	cfg.User = p.User.Username()
	cfg.Passwd, _ = p.User.Password()
	cfg.Net = "tcp"
	host := p.Hostname()
	port := p.Port()
	if port == "" {
		port = "3306"
	}
	cfg.Addr = net.JoinHostPort(host, port)
	cfg.DBName = strings.Trim(p.Path, "/")
	cfg.Timeout = target.ConnectTimeout(ctx)
	cfg.ParseTime = true
	cfg.InterpolateParams = false
	cfg.AllowNativePasswords = true
	cfg.MultiStatements = false
	// Timestamps written during a run match the UTC ones written by the loader.
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	// Only the parameters of the list below reach here (target.ParseURL refuses the rest); none of
	// them becomes a session variable, since the driver would send it as SQL.
	if pw, ok := u.Params["password"]; ok && cfg.Passwd == "" {
		cfg.Passwd = pw
	}
	if v, ok := u.Params["tls"]; ok {
		cfg.TLSConfig = v
	}
	for k, d := range map[string]*time.Duration{"timeout": &cfg.Timeout, "readTimeout": &cfg.ReadTimeout, "writeTimeout": &cfg.WriteTimeout} {
		if v, ok := u.Params[k]; ok {
			*d, _ = time.ParseDuration(v)
		}
	}
	if cs, ok := u.Params["charset"]; ok {
		if err := cfg.Apply(my.Charset(cs, u.Params["collation"])); err != nil {
			return nil, target.URLErrorf("--db: charset %q: %v", cs, err)
		}
	} else if co, ok := u.Params["collation"]; ok {
		cfg.Collation = co
	}
	if v, ok := u.Params["allowCleartextPasswords"]; ok {
		cfg.AllowCleartextPasswords = v == "true" || v == "1"
	}
	// Blocking sockets up to 8 busy connections per CPU: see blockconn.New.
	tr := blockconn.New(8, target.Concurrency(ctx))
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dial := tr.Dial
		if target.Polled(ctx) && (cfg.TLSConfig == "" || cfg.TLSConfig == "false") { // TLS is never split
			dial = tr.DialPolled
		}
		c, err := dial(ctx, network, addr)
		if slot, ok := ctx.Value(tapKey{}).(**tapConn); ok && err == nil {
			*slot = &tapConn{Conn: c}
			return *slot, nil
		}
		return c, err
	}
	connector, err := my.NewConnector(cfg)
	if err != nil {
		return nil, target.URLErrorf("--db %q is not a valid MySQL URL: %v", u, target.Scrub(err.Error(), u.Raw()))
	}
	conns := sql.OpenDB(connector)
	conns.SetMaxIdleConns(-1)
	conns.SetConnMaxLifetime(0)
	t := &mysqlTarget{conns: conns, cfg: cfg, addr: cfg.Addr, dbname: cfg.DBName, user: cfg.User, kind: "mysql", timeout: cfg.Timeout}
	// The dial timeout does not bound the handshake: a server that accepts and stays silent (a
	// PostgreSQL port) would hold the first connection until the context ends.
	cctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	c, err := conns.Conn(cctx)
	if err == nil {
		err = c.QueryRowContext(cctx, "SELECT VERSION()").Scan(&t.version)
		c.Close()
	}
	if err != nil {
		t.Close()
		return nil, t.connErr(ctx, err)
	}
	if strings.Contains(strings.ToLower(t.version), "mariadb") {
		t.kind = "mariadb"
	}
	return t, nil
}

// params are the URL parameters a MySQL or MariaDB URL may carry (docs/cli.md, "Safety").
var params = []target.Param{
	{Name: "tls", Doc: "TLS: true, false, skip-verify or preferred", Check: target.OneOf("true", "false", "skip-verify", "preferred")},
	{Name: "timeout", Doc: "connect timeout, a duration such as 10s", Check: target.IsDuration},
	{Name: "readTimeout", Doc: "I/O read timeout, a duration", Check: target.IsDuration},
	{Name: "writeTimeout", Doc: "I/O write timeout, a duration", Check: target.IsDuration},
	{Name: "charset", Doc: "connection character set, a name such as utf8mb4", Check: target.IsIdent},
	{Name: "collation", Doc: "connection collation, a name such as utf8mb4_general_ci", Check: target.IsIdent},
	{Name: "allowCleartextPasswords", Doc: "true or false: allow the cleartext authentication plugin (use with tls)", Check: target.OneOf("true", "false", "1", "0")},
	{Name: "password", Doc: "the password, when not in the userinfo", Secret: true},
}

func (t *mysqlTarget) connErr(ctx context.Context, err error) error {
	msg := err.Error()
	var me *my.MySQLError
	var oe *net.OpError
	var missing string
	switch {
	case errors.As(err, &me) && (me.Number == 1045 || me.Number == 1698):
		msg = fmt.Sprintf("login failed for user %q (wrong password or no such user)", t.user)
	case errors.As(err, &me) && me.Number == 1049:
		msg = fmt.Sprintf("database %q does not exist (create it with: CREATE DATABASE %s)", t.dbname, t.dbname)
		missing = t.dbname
	case errors.As(err, &me) && me.Number == 1044:
		msg = fmt.Sprintf("user %q may not use database %q", t.user, t.dbname)
	case errors.As(err, &me):
		msg = me.Message
	default:
		if m := target.Unreachable(ctx, "MySQL/MariaDB", "mysql", t.addr, err, t.timeout); m != "" {
			msg = m
		} else if errors.As(err, &oe) {
			msg = oe.Err.Error()
			if i := strings.LastIndex(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
		}
	}
	kind := t.Name()
	if t.version == "" {
		kind = "MySQL/MariaDB" // not known until connected
	}
	ce := &target.ConnectError{Kind: kind, Addr: t.addr, Msg: msg, Err: err}
	if missing != "" {
		ce.NoDatabase, ce.Create = missing, "CREATE DATABASE "+missing
	}
	return ce
}

func (t *mysqlTarget) Kind() string { return t.kind }
func (t *mysqlTarget) Dialect() target.Dialect {
	if t.kind == "mariadb" {
		return mariadbDialect
	}
	return mysqlDialect
}
func (t *mysqlTarget) Name() string {
	if t.kind == "mariadb" {
		return "MariaDB"
	}
	return "MySQL"
}
func (t *mysqlTarget) Address() string  { return t.addr }
func (t *mysqlTarget) Database() string { return t.dbname }
func (t *mysqlTarget) Close() error     { return t.conns.Close() }

func (t *mysqlTarget) Version(ctx context.Context) (string, error) { return t.version, nil }

func (t *mysqlTarget) statusTable() string {
	if t.kind == "mariadb" {
		return "information_schema.GLOBAL_STATUS"
	}
	return "performance_schema.global_status"
}

// TxnCounterSQL counts COMMIT and ROLLBACK statements server-wide (MySQL has no per-database
// counter); the stored procedures commit explicitly, so each transaction is counted once.
// MariaDB's information_schema.GLOBAL_STATUS has the Com_* counters and is read in one statement
// with the headline; MySQL 8's performance_schema.global_status leaves them out (only SHOW GLOBAL
// STATUS has them), so on MySQL this is the statement Snapshot runs for them.
func (t *mysqlTarget) TxnCounterSQL() string {
	if t.kind != "mariadb" {
		return comStatus
	}
	return fmt.Sprintf("(SELECT CAST(SUM(VARIABLE_VALUE) AS SIGNED) FROM %s WHERE VARIABLE_NAME IN ('COM_COMMIT','COM_ROLLBACK','Com_commit','Com_rollback'))", t.statusTable())
}

// comStatus reads MySQL's transaction counter and start.
const comStatus = "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback', 'Uptime')"

// Snapshot implements target.Snapshotter. On MySQL it takes two statements: the headline and the
// server's clock in one, then SHOW GLOBAL STATUS for Com_commit, Com_rollback and Uptime (an
// autocommitted SELECT and a SHOW count in neither). The two are a round trip apart, at both edges
// alike. On MariaDB one statement reads all (target.SnapshotSQL).
func (t *mysqlTarget) Snapshot(ctx context.Context, c target.Conn, headlineSQL string) (target.Reading, error) {
	if t.kind == "mariadb" {
		return target.SnapshotSQL(ctx, t, c, headlineSQL)
	}
	var r target.Reading
	var now int64
	q := "SELECT 0, UNIX_TIMESTAMP()"
	if headlineSQL != "" {
		q = "SELECT COALESCE(" + headlineSQL + ", 0), UNIX_TIMESTAMP()"
	}
	if err := c.QueryRow(ctx, q, target.SimpleArgs(c)...).Scan(&r.Headline, &now); err != nil {
		return r, err
	}
	rows, err := c.Query(ctx, comStatus, target.SimpleArgs(c)...)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	var seen int
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			return r, err
		}
		switch strings.ToLower(name) {
		case "com_commit", "com_rollback":
			r.Counter += v
			seen++
		case "uptime":
			r.Start = now - v
		}
	}
	if err := rows.Err(); err != nil {
		return r, err
	}
	r.NoCounter = seen < 2
	return r, nil
}

func (t *mysqlTarget) TxnCounterName() string {
	return "Com_commit + Com_rollback (server-wide: MySQL has no per-database counter)"
}

var _ target.Snapshotter = (*mysqlTarget)(nil)

func (t *mysqlTarget) UptimeSQL() string {
	return fmt.Sprintf("(SELECT CAST(UNIX_TIMESTAMP() - VARIABLE_VALUE AS SIGNED) FROM %s WHERE VARIABLE_NAME IN ('UPTIME','Uptime'))", t.statusTable())
}

// Settings records the variables that matter for reading a result; those a server lacks (MySQL
// 8's innodb_spin_wait_pause_multiplier and innodb_log_writer_threads on MariaDB) are left out.
func (t *mysqlTarget) Settings(ctx context.Context, c target.Conn) (map[string]string, error) {
	rows, err := c.Query(ctx, `SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_buffer_pool_size',
		'innodb_flush_log_at_trx_commit','innodb_log_file_size','transaction_isolation','tx_isolation',
		'max_connections','sync_binlog','log_bin','innodb_spin_wait_delay','innodb_doublewrite','innodb_io_capacity',
		'innodb_spin_wait_pause_multiplier','innodb_log_writer_threads','innodb_redo_log_capacity','local_infile','performance_schema')`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		m[k] = v
	}
	return m, rows.Err()
}

// FreeConnections implements target.Capacity: max_connections less Threads_connected, and no more
// than max_user_connections allows when that is set.
func (t *mysqlTarget) FreeConnections(ctx context.Context, c target.Conn) (int, string, error) {
	var max, perUser, inUse int
	err := c.QueryRow(ctx, fmt.Sprintf(`SELECT @@max_connections, @@max_user_connections,
		(SELECT CAST(VARIABLE_VALUE AS SIGNED) FROM %s WHERE VARIABLE_NAME IN ('THREADS_CONNECTED','Threads_connected'))`, t.statusTable())).Scan(&max, &perUser, &inUse)
	if err != nil {
		return 0, "", err
	}
	inUse-- // the connection asking, closed before the run opens its own
	free, desc := max-inUse, fmt.Sprintf("max_connections %d, %d in use; raise max_connections for more", max, inUse)
	if perUser > 0 {
		var mine int
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = SUBSTRING_INDEX(CURRENT_USER(), '@', 1)").Scan(&mine); err == nil && perUser-mine+1 < free {
			free, desc = perUser-mine+1, fmt.Sprintf("max_user_connections %d, %d in use by this user; raise max_user_connections for more", perUser, mine-1)
		}
	}
	return free, desc, nil
}

func (t *mysqlTarget) Classify(err error) target.ErrClass {
	var me *my.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1213, 1205: // deadlock, lock wait timeout
			return target.ErrRetryable
		case 1053, 1927, 2006, 2013, 1152, 1158, 1159, 1160, 1161, 1184:
			return target.ErrConnection
		case 1644:
			if strings.Contains(me.Message, target.RollbackMarker) {
				return target.ErrRollback
			}
		}
		return target.ErrFatal
	}
	var ce *target.ConnectError
	if errors.As(err, &ce) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, my.ErrInvalidConn) ||
		errors.Is(err, sql.ErrConnDone) || target.IsConnLoss(err) {
		return target.ErrConnection
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return target.ErrConnection
	}
	return target.ErrFatal
}

func (t *mysqlTarget) Conn(ctx context.Context) (target.Conn, error) {
	var tap *tapConn
	c, err := sqlconn.New(context.WithValue(ctx, tapKey{}, &tap), t.conns)
	if err != nil {
		return nil, t.connErr(ctx, err)
	}
	c.Fast = true
	if w := newWire(tap, t.cfg.MaxAllowedPacket, t.cfg.ReadTimeout, t.cfg.WriteTimeout); w != nil {
		c.Wire = w
	}
	c.BeginSQL = "START TRANSACTION"
	c.BeginRO = "START TRANSACTION"
	c.BulkLoader = t.bulkLoad
	return &conn{c, t}, nil
}

// conn adds LOAD DATA of delimited text to the shared database/sql connection.
type conn struct {
	*sqlconn.Conn
	t *mysqlTarget
}

// IntCell implements target.Cells: the wire reads *p when it encodes the argument, so that
// setting it allocates nothing (an int64 boxed into an argument list allocates); a statement the
// driver runs instead reads it through driver.Valuer.
func (c *conn) IntCell(p *int64) any { return intCell{p} }

// BytesDest implements target.Cells: the connection's rows copy a column into a *[]byte,
// reusing its capacity.
func (c *conn) BytesDest(b *[]byte) any { return b }

// NullIntDest implements target.Cells.
func (c *conn) NullIntDest(v *int64, valid *bool) any { return &target.IntScanner{V: v, Valid: valid} }

// SimpleArgs implements target.Cells: a statement without arguments is already sent as one text
// statement.
func (c *conn) SimpleArgs() []any { return nil }

type intCell struct{ p *int64 }

// Value implements driver.Valuer, for the statements the driver runs.
func (c intCell) Value() (driver.Value, error) { return *c.p, nil }

// SetImplicitTx implements target.ImplicitTx (autocommit off instead of START TRANSACTION).
func (c *conn) SetImplicitTx(on bool) { c.Conn.ImplicitTx = on }

// LoadDelimited streams r through LOAD DATA LOCAL INFILE with FIELDS TERMINATED BY delim, or
// as INSERTs where the server refuses LOAD DATA LOCAL.
func (c *conn) LoadDelimited(ctx context.Context, table string, columns []string, delim byte, r io.Reader) (int64, error) {
	if !c.t.localInfile(ctx, c.Conn) {
		return insertDelimited(ctx, c.Conn, table, columns, delim, r)
	}
	name := fmt.Sprintf("cairn-%d", readerSeq.Add(1))
	lines := &lineCounter{r: r}
	my.RegisterReaderHandler(name, func() io.Reader { return lines })
	defer my.DeregisterReaderHandler(name)
	q := fmt.Sprintf("LOAD DATA LOCAL INFILE 'Reader::%s' INTO TABLE %s CHARACTER SET binary FIELDS TERMINATED BY '%c' ESCAPED BY '' LINES TERMINATED BY '\\n' (%s)",
		name, table, delim, strings.Join(columns, ", "))
	return allOrNothing(ctx, c.Conn, "LOAD DATA", table, func() (int64, int64, error) {
		res, err := c.C.ExecContext(ctx, q)
		if err != nil {
			return 0, lines.n, err
		}
		n, _ := res.RowsAffected()
		return n, lines.n, nil
	})
}

// lineCounter counts the lines read through it.
type lineCounter struct {
	r io.Reader
	n int64
}

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n += int64(bytes.Count(p[:n], []byte{'\n'}))
	return n, err
}

// allOrNothing runs a LOAD DATA LOCAL, which returns the rows it loaded and the rows sent, so that
// none of them stays unless all went in. The server cannot stop a client's stream, so with LOCAL
// it skips the rows it refuses (a duplicate key, a value it cannot store) with a warning instead
// of failing; target.Conn promises a bulk load that is whole or absent. The load therefore runs in
// a transaction of its own (a savepoint inside the caller's) that is undone when fewer rows went in
// than were sent. The INSERT loads (insert.go) run in it too, as several statements that stand or
// fall together; how names the statement in errors.
func allOrNothing(ctx context.Context, c *sqlconn.Conn, how, table string, load func() (loaded, sent int64, err error)) (int64, error) {
	begin, commit, undo := "BEGIN", "COMMIT", "ROLLBACK"
	if c.InTx() {
		begin, commit, undo = "SAVEPOINT cairn_load", "RELEASE SAVEPOINT cairn_load", "ROLLBACK TO SAVEPOINT cairn_load"
	}
	if _, err := c.C.ExecContext(ctx, begin); err != nil {
		return 0, err
	}
	n, sent, err := load()
	if err == nil && n != sent {
		err = fmt.Errorf("the server refused %d of %d rows (duplicate keys or values it cannot store); none were kept", sent-n, sent)
	}
	if err != nil {
		_, _ = c.C.ExecContext(context.WithoutCancel(ctx), undo)
		return 0, fmt.Errorf("%s %s: %w", how, table, err)
	}
	if _, err := c.C.ExecContext(ctx, commit); err != nil {
		return 0, fmt.Errorf("%s %s: %w", how, table, err)
	}
	return n, nil
}

var readerSeq atomic.Int64

// loadData streams rows through LOAD DATA LOCAL INFILE from an in-memory pipe.
//
// Both loaders say CHARACTER SET binary: the rows are UTF-8 (ASCII in every workload) and go into
// the columns as they are. Naming latin1, as before, made the server convert every string into the
// tables' utf8mb4, about 7% of its CPU in a TPC-C load.
func loadData(ctx context.Context, c *sqlconn.Conn, table string, columns []string, fill func(target.RowWriter) error) (int64, error) {
	pr, pw := io.Pipe()
	name := fmt.Sprintf("cairn-%d", readerSeq.Add(1))
	my.RegisterReaderHandler(name, func() io.Reader { return pr })
	defer my.DeregisterReaderHandler(name)
	w := target.NewTextRowWriter(pw)
	var fillErr error
	n, err := allOrNothing(ctx, c, "LOAD DATA", table, func() (int64, int64, error) {
		done := make(chan error, 1)
		var n int64
		go func() {
			q := fmt.Sprintf("LOAD DATA LOCAL INFILE 'Reader::%s' INTO TABLE %s CHARACTER SET binary (%s)", name, table, strings.Join(columns, ", "))
			res, err := c.C.ExecContext(ctx, q)
			if err == nil {
				n, _ = res.RowsAffected()
			}
			pr.CloseWithError(err)
			done <- err
		}()
		fillErr = fill(w)
		if fillErr == nil {
			fillErr = w.FlushBuf()
		}
		pw.CloseWithError(fillErr)
		lerr := <-done
		if fillErr != nil && !errors.Is(fillErr, io.ErrClosedPipe) {
			return n, w.Rows, fillErr
		}
		return n, w.Rows, lerr
	})
	if fillErr != nil && !errors.Is(fillErr, io.ErrClosedPipe) {
		return 0, fillErr // the generator's own error, as it gave it
	}
	return n, err
}

// RunningSQL implements target.RunningThreads: Threads_running less the sampling thread, which
// runs while it reads it. MariaDB builds its whole status table for one variable (about 110 µs
// of server CPU a read, against 15 µs for SELECT 1), 50 times a second; with performance_schema
// on, its threads table counts the same client threads for the cost of a scan of the threads.
func (t *mysqlTarget) RunningSQL() (string, []any, bool) {
	status := "SELECT CAST(VARIABLE_VALUE AS SIGNED) - 1 FROM " + t.statusTable() + " WHERE VARIABLE_NAME = 'THREADS_RUNNING'"
	if t.kind != "mariadb" {
		return status, nil, false
	}
	return `SELECT IF(@@performance_schema, (SELECT COUNT(*) FROM performance_schema.threads
  WHERE TYPE = 'FOREGROUND' AND PROCESSLIST_COMMAND <> 'Sleep' AND PROCESSLIST_ID <> CONNECTION_ID()), (` + status + `))`, nil, false
}

// Split implements target.Splitter: on the wire (no TLS).
func (c *conn) Split(name string) bool {
	w, ok := c.Conn.Wire.(*wire)
	if !ok || w.broken != nil || w.fd < 0 {
		return false
	}
	if name == "" {
		return !c.Conn.ImplicitTx
	}
	_, ok = c.Conn.Wired(name)
	return ok
}

// Fd implements target.Splitter.
func (c *conn) Fd() int {
	if w, ok := c.Conn.Wire.(*wire); ok {
		return w.fd
	}
	return -1
}

// Blocking implements target.Splitter.
func (c *conn) Blocking() bool {
	w, ok := c.Conn.Wire.(*wire)
	if !ok {
		return false
	}
	_, ok = w.nc.(*blockconn.Conn)
	return ok
}

// Buffered implements target.Splitter.
func (c *conn) Buffered() bool {
	w, ok := c.Conn.Wire.(*wire)
	return ok && w.rend > w.rpos
}

// SendPrepared implements target.Splitter.
func (c *conn) SendPrepared(name string, args []any) error {
	id, ok := c.Conn.Wired(name)
	if !ok {
		return fmt.Errorf("mysql: statement %q is not on the wire", name)
	}
	return c.Conn.Wire.(*wire).sendPrepared(id, args)
}

// SendText implements target.Splitter.
func (c *conn) SendText(sql []byte) error { return c.Conn.Wire.(*wire).sendText(sql) }

// Receive implements target.Splitter.
func (c *conn) Receive(dst []byte) ([]byte, error) { return c.Conn.Wire.(*wire).receive(dst) }

var _ target.Splitter = (*conn)(nil)
