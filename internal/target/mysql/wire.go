package mysql

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	my "github.com/go-sql-driver/mysql"

	"github.com/cairn-bench/cairn/internal/target/blockconn"
	"github.com/cairn-bench/cairn/internal/target/sqlconn"
)

// wire is the hot path of a MySQL/MariaDB connection: prepared statements (COM_STMT_PREPARE,
// COM_STMT_EXECUTE, binary result rows) and argument-free text statements (COM_QUERY: BEGIN,
// COMMIT, SET) written and read on the connection's socket with reused buffers, so that a call
// allocates nothing and costs one write and (usually) one read system call. go-sql-driver/mysql
// allocates a result, a rows object and a row per statement, and its binary rows box every integer;
// measured in docs/benchmarks.md. The driver keeps everything else: connecting, authentication,
// LOAD DATA, statements whose arguments or result columns the wire does not encode (dates, times,
// FLOAT, CALL), each an exchange the wire never interleaves with its own.
//
// The socket is the one the driver dialed, handed over by the target's DialFunc (tap below); the
// driver only ever reads a reply to its own command, so a reply read here to the end leaves the
// connection as the driver expects it. Values are encoded and decoded as the driver does
// (writeExecutePacket, binaryRows.readRow), so a statement reads and writes exactly what it did
// through the driver (TestWireMatchesDriver).
type wire struct {
	nc           net.Conn
	deprecateEOF bool // negotiated CLIENT_DEPRECATE_EOF: no EOF packet after column definitions
	maxPacket    int  // the driver's max_allowed_packet, for its long-data threshold
	rto, wto     time.Duration
	wbuf         []byte
	rbuf         []byte
	rpos, rend   int
	seq          byte   // sequence number of the last packet read
	long         []byte // a payload of several packets, joined
	stmts        []wstmt
	num          []byte // scratch for an unsigned BIGINT above MaxInt64, as text
	sent         *wstmt // the statement sent apart (sendPrepared), nil for text
	binding      *wstmt // the statement whose parameter types the command in wbuf carries, at bindAt
	bindAt       int
	tcols        []wcol // a text statement's result columns, reused
	fd           int    // the socket's descriptor, for poll(2) (target.Splitter); -1 if unknown
	broken       error
}

type wstmt struct {
	id     uint32
	params int
	cols   []wcol // result columns, from the prepare
	exec   []wcol // result columns sent with an execution, reused
	types  []byte // the parameter types the server last received with this statement
	bound  bool   // types holds them: an execution with the same types sends none
	closed bool
}

type wcol struct {
	typ      byte
	unsigned bool
}

// MySQL protocol constants (https://dev.mysql.com/doc/dev/mysql-server/latest/).
const (
	comQuery       = 0x03
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
	comStmtClose   = 0x19

	clientSSL          = 1 << 11
	clientDeprecateEOF = 1 << 24

	statusMoreResults = 0x0008
	flagUnsigned      = 0x0020
	maxPayload        = 1<<24 - 1

	typeDecimal    = 0x00
	typeTiny       = 0x01
	typeShort      = 0x02
	typeLong       = 0x03
	typeDouble     = 0x05
	typeNull       = 0x06
	typeLongLong   = 0x08
	typeInt24      = 0x09
	typeYear       = 0x0d
	typeVarChar    = 0x0f
	typeBit        = 0x10
	typeVector     = 0xf2
	typeJSON       = 0xf5
	typeNewDecimal = 0xf6
	typeEnum       = 0xf7
	typeSet        = 0xf8
	typeTinyBlob   = 0xf9
	typeMediumBlob = 0xfa
	typeLongBlob   = 0xfb
	typeBlob       = 0xfc
	typeVarString  = 0xfd
	typeString     = 0xfe
	typeGeometry   = 0xff
)

// fixedSize is the width of a binary-protocol value of fixed size (the integers and DOUBLE the
// wire decodes); 0 for a length-encoded one.
func fixedSize(typ byte) int {
	switch typ {
	case typeTiny:
		return 1
	case typeShort, typeYear:
		return 2
	case typeInt24, typeLong:
		return 4
	case typeLongLong, typeDouble:
		return 8
	}
	return 0
}

// decodable reports whether the wire decodes a result column of type t as the driver does: the
// integers (int64), DOUBLE (float64), and what the driver returns as bytes. The rest (DATE,
// DATETIME, TIMESTAMP, TIME, FLOAT) stay with the driver.
func decodable(t byte) bool {
	switch t {
	case typeTiny, typeShort, typeLong, typeLongLong, typeInt24, typeYear, typeDouble, typeNull,
		typeDecimal, typeNewDecimal, typeVarChar, typeBit, typeEnum, typeSet, typeTinyBlob,
		typeMediumBlob, typeLongBlob, typeBlob, typeVarString, typeString, typeGeometry, typeJSON, typeVector:
		return true
	}
	return false
}

// tapConn is the socket as the driver sees it; it notes the capabilities the driver sent in its
// handshake response (its first write), which say how replies are framed.
type tapConn struct {
	net.Conn
	caps   uint32
	tapped bool
}

func (t *tapConn) Write(p []byte) (int, error) {
	if !t.tapped {
		t.tapped = true
		if len(p) >= 8 {
			t.caps = binary.LittleEndian.Uint32(p[4:8])
		}
	}
	return t.Conn.Write(p)
}

// tapKey carries, in a dial's context, where the target's DialFunc leaves the socket it dialed.
type tapKey struct{}

func newWire(t *tapConn, maxPacket int, rto, wto time.Duration) *wire {
	if t == nil || !t.tapped || t.caps&clientSSL != 0 {
		return nil // TLS: the driver wrapped the socket, whose bytes are no longer the protocol's
	}
	return &wire{nc: t.Conn, deprecateEOF: t.caps&clientDeprecateEOF != 0, maxPacket: maxPacket,
		rto: rto, wto: wto, wbuf: make([]byte, 0, 4096), rbuf: make([]byte, 16384), fd: sockFd(t.Conn)}
}

// sockFd is a socket's descriptor, blocking (blockconn) or on Go's poller: poll(2) sees either
// become readable, and a read through Go's poller then finds the answer without parking.
func sockFd(c net.Conn) int {
	if f, ok := c.(interface{ Fd() int }); ok {
		return f.Fd()
	}
	fd := -1
	if sc, ok := c.(syscall.Conn); ok && blockconn.CanPoll {
		if rc, err := sc.SyscallConn(); err == nil {
			rc.Control(func(s uintptr) { fd = int(s) })
		}
	}
	return fd
}

// lostError is a failure of the connection itself; it matches io.ErrUnexpectedEOF and the driver's
// ErrInvalidConn, so that Classify treats it as a lost connection and the engine reconnects.
type lostError struct{ err error }

func (e *lostError) Error() string   { return "connection lost: " + e.err.Error() }
func (e *lostError) Unwrap() []error { return []error{e.err, io.ErrUnexpectedEOF, my.ErrInvalidConn} }

func (w *wire) fail(err error) error {
	if w.broken == nil {
		w.broken = &lostError{err}
		w.nc.Close()
	}
	return w.broken
}

var errMalformed = errors.New("malformed packet")

// watch closes the connection if ctx ends during an exchange, as the driver's watcher does; done
// reports the context's error if it did. Contexts that cannot end (the VUs') cost nothing.
func (w *wire) watch(ctx context.Context) (stop func() bool, err error) {
	if ctx.Done() == nil {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.AfterFunc(ctx, func() { w.nc.Close() }), nil
}

func (w *wire) done(ctx context.Context, stop func() bool, err error) error {
	if stop != nil && !stop() {
		w.fail(ctx.Err())
		return ctx.Err()
	}
	return err
}

// command starts a command packet in wbuf.
func (w *wire) command(cmd byte) {
	w.wbuf = append(w.wbuf[:0], 0, 0, 0, 0, cmd)
	w.binding = nil
}

// send writes the command in wbuf as one packet.
func (w *wire) send() error {
	n := len(w.wbuf) - 4
	w.wbuf[0], w.wbuf[1], w.wbuf[2], w.wbuf[3] = byte(n), byte(n>>8), byte(n>>16), 0
	if w.wto > 0 {
		w.nc.SetWriteDeadline(time.Now().Add(w.wto))
	}
	if _, err := w.nc.Write(w.wbuf); err != nil {
		return w.fail(err)
	}
	if s := w.binding; s != nil { // the server has these types now
		s.types, s.bound = append(s.types[:0], w.wbuf[w.bindAt:w.bindAt+2*s.params]...), true
		w.binding = nil
	}
	return nil
}

// fill makes at least k bytes from rpos available in rbuf.
func (w *wire) fill(k int) error {
	if w.rend-w.rpos >= k {
		return nil
	}
	n := copy(w.rbuf, w.rbuf[w.rpos:w.rend])
	w.rpos, w.rend = 0, n
	if k > len(w.rbuf) {
		b := make([]byte, max(k, 2*len(w.rbuf)))
		copy(b, w.rbuf[:n])
		w.rbuf = b
	}
	for w.rend < k {
		if w.rto > 0 {
			w.nc.SetReadDeadline(time.Now().Add(w.rto))
		}
		m, err := w.nc.Read(w.rbuf[w.rend:])
		w.rend += m
		if err != nil && w.rend < k {
			return w.fail(err)
		}
	}
	return nil
}

// packet reads the next packet's payload; it stays valid until the next read.
func (w *wire) packet() ([]byte, error) {
	p, err := w.one()
	if err != nil || len(p) < maxPayload {
		if err == nil && len(p) == 0 {
			return nil, w.fail(errMalformed)
		}
		return p, err
	}
	w.long = append(w.long[:0], p...)
	for len(p) == maxPayload {
		if p, err = w.one(); err != nil {
			return nil, err
		}
		w.long = append(w.long, p...)
	}
	return w.long, nil
}

func (w *wire) one() ([]byte, error) {
	if err := w.fill(4); err != nil {
		return nil, err
	}
	h := w.rbuf[w.rpos:]
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	w.seq = h[3]
	if err := w.fill(4 + n); err != nil {
		return nil, err
	}
	p := w.rbuf[w.rpos+4 : w.rpos+4+n]
	w.rpos += 4 + n
	return p, nil
}

// serverError is an ERR packet as the driver returns it.
func serverError(p []byte) error {
	if len(p) < 3 {
		return &my.MySQLError{Message: "malformed error packet"}
	}
	me := &my.MySQLError{Number: binary.LittleEndian.Uint16(p[1:3])}
	pos := 3
	if len(p) >= 9 && p[3] == '#' {
		copy(me.SQLState[:], p[4:9])
		pos = 9
	}
	me.Message = string(p[pos:])
	return me
}

// lenenc reads a length-encoded integer at p[0:]; null is the NULL marker (0xfb).
func lenenc(p []byte) (v uint64, n int, null bool) {
	if len(p) == 0 {
		return 0, 0, false
	}
	switch p[0] {
	case 0xfb:
		return 0, 1, true
	case 0xfc:
		if len(p) < 3 {
			return 0, len(p), false
		}
		return uint64(p[1]) | uint64(p[2])<<8, 3, false
	case 0xfd:
		if len(p) < 4 {
			return 0, len(p), false
		}
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4, false
	case 0xfe:
		if len(p) < 9 {
			return 0, len(p), false
		}
		return binary.LittleEndian.Uint64(p[1:9]), 9, false
	}
	return uint64(p[0]), 1, false
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// okStatus reads an OK packet (or an OK with the 0xfe header): affected rows and status flags.
func okStatus(p []byte) (affected int64, status uint16) {
	a, n, _ := lenenc(p[1:])
	_, m, _ := lenenc(p[1+n:])
	if pos := 1 + n + m; len(p) >= pos+2 {
		status = binary.LittleEndian.Uint16(p[pos:])
	}
	return int64(a), status
}

// end reads the packet that ends column definitions or rows: EOF before CLIENT_DEPRECATE_EOF, an
// OK with the 0xfe header after; p[0] is 0xfe.
func (w *wire) endStatus(p []byte) uint16 {
	if !w.deprecateEOF {
		if len(p) >= 5 {
			return binary.LittleEndian.Uint16(p[3:5])
		}
		return 0
	}
	_, s := okStatus(p)
	return s
}

// column reads a column definition's type and unsigned flag.
func column(p []byte) (wcol, error) {
	pos := 0
	for range 6 { // catalog, schema, table, org_table, name, org_name
		l, n, _ := lenenc(p[pos:])
		pos += n + int(l)
		if n == 0 || pos > len(p) {
			return wcol{}, errMalformed
		}
	}
	_, n, _ := lenenc(p[pos:]) // length of the fixed fields
	pos += n
	if pos+9 > len(p) {
		return wcol{}, errMalformed
	}
	// charset 2, column length 4, type 1, flags 2
	return wcol{typ: p[pos+6], unsigned: binary.LittleEndian.Uint16(p[pos+7:])&flagUnsigned != 0}, nil
}

// columns reads n column definitions into dst, and the EOF after them when one is sent.
func (w *wire) columns(n int, dst []wcol) ([]wcol, error) {
	dst = dst[:0]
	for range n {
		p, err := w.packet()
		if err != nil {
			return nil, err
		}
		c, err := column(p)
		if err != nil {
			return nil, w.fail(err)
		}
		dst = append(dst, c)
	}
	if n > 0 && !w.deprecateEOF {
		if _, err := w.packet(); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// Prepare implements sqlconn.Wire.
func (w *wire) Prepare(ctx context.Context, query string) (int, bool, error) {
	if w.broken != nil {
		return 0, false, w.broken
	}
	if len(query) >= maxPayload-1 || strings.HasPrefix(strings.ToUpper(strings.TrimSpace(query)), "CALL") {
		return 0, false, nil // a procedure's results are known only when it runs
	}
	stop, err := w.watch(ctx)
	if err != nil {
		return 0, false, err
	}
	s, err := w.prepare(query)
	if err = w.done(ctx, stop, err); err != nil {
		return 0, false, err
	}
	for _, c := range s.cols {
		if !decodable(c.typ) {
			w.closeStmt(s.id)
			return 0, false, nil
		}
	}
	w.stmts = append(w.stmts, s)
	return len(w.stmts) - 1, true, nil
}

func (w *wire) prepare(query string) (wstmt, error) {
	w.command(comStmtPrepare)
	w.wbuf = append(w.wbuf, query...)
	if err := w.send(); err != nil {
		return wstmt{}, err
	}
	p, err := w.packet()
	if err != nil {
		return wstmt{}, err
	}
	if p[0] == 0xff {
		return wstmt{}, serverError(p)
	}
	if p[0] != 0 || len(p) < 9 {
		return wstmt{}, w.fail(errMalformed)
	}
	s := wstmt{id: binary.LittleEndian.Uint32(p[1:5])}
	cols := int(binary.LittleEndian.Uint16(p[5:7]))
	s.params = int(binary.LittleEndian.Uint16(p[7:9]))
	if _, err := w.columns(s.params, nil); err != nil {
		return wstmt{}, err
	}
	if s.cols, err = w.columns(cols, make([]wcol, 0, cols)); err != nil {
		return wstmt{}, err
	}
	return s, nil
}

func (w *wire) closeStmt(id uint32) {
	w.command(comStmtClose)
	w.wbuf = binary.LittleEndian.AppendUint32(w.wbuf, id)
	_ = w.send() // no reply; a failure marks the wire broken for the next call
}

// Close implements sqlconn.Wire.
func (w *wire) Close(id int) {
	if s := &w.stmts[id]; !s.closed && w.broken == nil {
		s.closed = true
		w.closeStmt(s.id)
	}
}

// encode writes COM_STMT_EXECUTE for s with args into wbuf, as the driver's writeExecutePacket
// does, except that the parameter types go only with an execution whose types differ from the
// last ones sent (new-params-bound-flag 0 otherwise, as libmariadb and libmysqlclient send after a
// statement's first execution): the server then keeps the conversions it set up, and the packet is
// 2 bytes a parameter shorter. false, with nothing sent, for an argument the wire does not encode.
func (w *wire) encode(s *wstmt, args []any) bool {
	if len(args) != s.params {
		return false // the driver says how they differ
	}
	w.command(comStmtExecute)
	w.wbuf = binary.LittleEndian.AppendUint32(w.wbuf, s.id)
	w.wbuf = append(w.wbuf, 0, 1, 0, 0, 0) // no cursor, one iteration
	if len(args) == 0 {
		return true
	}
	long := max(w.maxPacket/(len(args)+1), 64) // the driver sends longer values as long data
	mask := len(w.wbuf)
	for range (len(args) + 7) / 8 {
		w.wbuf = append(w.wbuf, 0)
	}
	w.wbuf = append(w.wbuf, 1) // types follow
	types := len(w.wbuf)
	for range args {
		w.wbuf = append(w.wbuf, 0, 0)
	}
	for i, a := range args {
		t, unsigned := byte(typeLongLong), false
		var v uint64
		switch a := a.(type) {
		case nil:
			t = typeNull
		case int64:
			v = uint64(a)
		case intCell:
			v = uint64(*a.p)
		case int:
			v = uint64(int64(a))
		case int32:
			v = uint64(int64(a))
		case int16:
			v = uint64(int64(a))
		case int8:
			v = uint64(int64(a))
		case uint8:
			v = uint64(a)
		case uint16:
			v = uint64(a)
		case uint32:
			v = uint64(a)
		case uint64:
			v, unsigned = a, true
		case float64:
			t, v = typeDouble, math.Float64bits(a)
		case float32:
			t, v = typeDouble, math.Float64bits(float64(a))
		case bool:
			t = typeTiny
		case []byte:
			if a == nil {
				t = typeNull
				break
			}
			if len(a) >= long {
				return false
			}
			t = typeString
			w.wbuf = append(appendLenenc(w.wbuf, uint64(len(a))), a...)
		case string:
			if len(a) >= long {
				return false
			}
			t = typeString
			w.wbuf = append(appendLenenc(w.wbuf, uint64(len(a))), a...)
		default:
			return false // time.Time, driver.Valuer, …: the driver's conversions
		}
		w.wbuf[types+2*i] = t
		if unsigned {
			w.wbuf[types+2*i+1] = 0x80
		}
		switch t {
		case typeNull:
			w.wbuf[mask+i/8] |= 1 << (i & 7)
		case typeLongLong, typeDouble:
			w.wbuf = binary.LittleEndian.AppendUint64(w.wbuf, v)
		case typeTiny:
			b := byte(0)
			if a.(bool) {
				b = 1
			}
			w.wbuf = append(w.wbuf, b)
		}
	}
	if len(w.wbuf)-4 >= maxPayload {
		return false
	}
	if n := 2 * len(args); s.bound && bytes.Equal(w.wbuf[types:types+n], s.types) {
		w.wbuf[types-1] = 0 // the server's types stand
		w.wbuf = append(w.wbuf[:types], w.wbuf[types+n:]...)
	} else {
		w.binding, w.bindAt = s, types // remembered once sent
	}
	return true
}

// Exec implements sqlconn.Wire.
func (w *wire) Exec(ctx context.Context, id int, args []any) (int64, bool, error) {
	return w.execute(ctx, id, args, nil)
}

// Query implements sqlconn.Wire.
func (w *wire) Query(ctx context.Context, id int, args []any, dst *sqlconn.Rows) (bool, error) {
	_, served, err := w.execute(ctx, id, args, dst)
	return served, err
}

func (w *wire) execute(ctx context.Context, id int, args []any, dst *sqlconn.Rows) (int64, bool, error) {
	if w.broken != nil {
		return 0, true, w.broken
	}
	s := &w.stmts[id]
	if !w.encode(s, args) {
		return 0, false, nil
	}
	stop, err := w.watch(ctx)
	if err != nil {
		return 0, true, err
	}
	var n int64
	if err = w.send(); err == nil {
		n, err = w.result(s, dst, false, nil)
	}
	return n, true, w.done(ctx, stop, err)
}

// Text implements sqlconn.Wire.
func (w *wire) Text(ctx context.Context, query string) (int64, error) {
	if w.broken != nil {
		return 0, w.broken
	}
	if len(query) >= maxPayload-1 {
		return 0, errors.New("mysql: statement longer than a packet")
	}
	w.command(comQuery)
	w.wbuf = append(w.wbuf, query...)
	stop, err := w.watch(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	if err = w.send(); err == nil {
		n, err = w.result(nil, nil, true, nil)
	}
	return n, w.done(ctx, stop, err)
}

// sendPrepared writes an execution of the statement the wire prepared as id, whose answer
// receive reads (target.Splitter).
func (w *wire) sendPrepared(id int, args []any) error {
	if w.broken != nil {
		return w.broken
	}
	s := &w.stmts[id]
	if !w.encode(s, args) {
		return errors.New("mysql: an argument the wire does not encode, sent apart")
	}
	w.sent = s
	return w.send()
}

// sendText writes q as one text statement, whose answer receive reads.
func (w *wire) sendText(q []byte) error {
	if w.broken != nil {
		return w.broken
	}
	if len(q) >= maxPayload-1 {
		return errors.New("mysql: statement longer than a packet")
	}
	w.command(comQuery)
	w.wbuf = append(w.wbuf, q...)
	w.sent = nil
	return w.send()
}

// receive reads the answer of the statement sent apart, appending the first column of its last
// row to dst as text.
func (w *wire) receive(dst []byte) ([]byte, error) {
	if w.broken != nil {
		return dst, w.broken
	}
	_, err := w.result(w.sent, nil, w.sent == nil, &dst)
	return dst, err
}

// result reads the replies of the command sent to the end, as the driver's Exec and Query do:
// every result set (a statement may return several), the first one's rows decoded into dst when
// dst is set, and the affected rows of the last OK. text: rows are in the text protocol (never
// decoded into dst). cell, when set, gets the first column of the first result's last row as text.
func (w *wire) result(s *wstmt, dst *sqlconn.Rows, text bool, cell *[]byte) (int64, error) {
	var affected int64
	var refused error
	first := true
	for {
		p, err := w.packet()
		if err != nil {
			return 0, err
		}
		var status uint16
		switch p[0] {
		case 0x00:
			affected, status = okStatus(p)
			if first && dst != nil {
				dst.Start(0)
			}
		case 0xff:
			return 0, serverError(p)
		case 0xfb:
			// LOAD DATA LOCAL INFILE: send no data and fail; loads go through the driver.
			refused = errors.New("mysql: LOAD DATA LOCAL INFILE runs only through the bulk loader")
			w.wbuf = append(w.wbuf[:0], 0, 0, 0, w.seq+1)
			if _, err := w.nc.Write(w.wbuf); err != nil {
				return 0, w.fail(err)
			}
			continue
		default:
			ncol, n, _ := lenenc(p)
			var cols []wcol
			if s != nil {
				cols = s.exec // metadata not sent again is the last sent (MariaDB's cached metadata)
				if cols == nil {
					cols = s.cols
				}
			}
			if text || n == len(p) || p[n] == 1 { // column definitions follow (MariaDB may skip them)
				into := w.tcols
				if s != nil {
					into = s.exec
				}
				if into, err = w.columns(int(ncol), into); err != nil {
					return 0, err
				}
				if s != nil {
					s.exec = into
				} else {
					w.tcols = into
				}
				cols = into
			}
			decode := first && dst != nil
			if decode {
				if len(cols) != int(ncol) {
					return 0, w.fail(errMalformed)
				}
				for _, c := range cols {
					if !decodable(c.typ) {
						decode = false
						err = fmt.Errorf("mysql: result column of type %d changed since the statement was prepared", c.typ)
					}
				}
				if decode {
					dst.Start(len(cols))
				}
			}
			var into *[]byte
			if first {
				into = cell
			}
			if status, err = w.rows(cols, dst, decode, err, into, text); err != nil {
				return 0, err
			}
		}
		first = false
		if status&statusMoreResults == 0 {
			return affected, refused
		}
	}
}

// rows reads result rows to their end, decoding them into dst when decode is set, and returns the
// status flags of the packet that ends them; a server error ends them too. failed is returned once
// the rows are read.
func (w *wire) rows(cols []wcol, dst *sqlconn.Rows, decode bool, failed error, cell *[]byte, text bool) (uint16, error) {
	n0 := 0
	if cell != nil {
		n0 = len(*cell)
	}
	for {
		p, err := w.packet()
		if err != nil {
			return 0, err
		}
		switch {
		case p[0] == 0xfe && len(p) < maxPayload:
			return w.endStatus(p), failed
		case p[0] == 0xff:
			return 0, serverError(p)
		}
		if decode {
			if err := w.row(p, cols, dst); err != nil {
				return 0, w.fail(err)
			}
		}
		if cell != nil && len(cols) > 0 {
			c, err := w.firstCell(p, cols, text, (*cell)[:n0])
			if err != nil {
				return 0, w.fail(err)
			}
			*cell = c
		}
	}
}

// firstCell appends a row's first column to dst as text (nothing for NULL), from a text row or a
// binary one as row decodes it.
func (w *wire) firstCell(p []byte, cols []wcol, text bool, dst []byte) ([]byte, error) {
	pos := 0
	if !text {
		pos = 1 + (len(cols)+7+2)>>3
		if p[0] != 0 || pos > len(p) {
			return dst, errMalformed
		}
		if p[1]&(1<<2) != 0 || cols[0].typ == typeNull {
			return dst, nil
		}
		b := p[pos:]
		c := cols[0]
		need := fixedSize(c.typ)
		if len(b) < need {
			return dst, errMalformed
		}
		switch c.typ {
		case typeTiny:
			if c.unsigned {
				return strconv.AppendInt(dst, int64(b[0]), 10), nil
			}
			return strconv.AppendInt(dst, int64(int8(b[0])), 10), nil
		case typeShort, typeYear:
			u := binary.LittleEndian.Uint16(b)
			if c.unsigned {
				return strconv.AppendInt(dst, int64(u), 10), nil
			}
			return strconv.AppendInt(dst, int64(int16(u)), 10), nil
		case typeInt24, typeLong:
			u := binary.LittleEndian.Uint32(b)
			if c.unsigned {
				return strconv.AppendInt(dst, int64(u), 10), nil
			}
			return strconv.AppendInt(dst, int64(int32(u)), 10), nil
		case typeLongLong:
			u := binary.LittleEndian.Uint64(b)
			if c.unsigned {
				return strconv.AppendUint(dst, u, 10), nil
			}
			return strconv.AppendInt(dst, int64(u), 10), nil
		case typeDouble:
			return strconv.AppendFloat(dst, math.Float64frombits(binary.LittleEndian.Uint64(b)), 'g', -1, 64), nil
		}
	}
	l, n, null := lenenc(p[pos:])
	if n == 0 || pos+n+int(l) > len(p) {
		return dst, errMalformed
	}
	if null {
		return dst, nil
	}
	return append(dst, p[pos+n:pos+n+int(l)]...), nil
}

// row decodes a binary row as the driver's binaryRows.readRow does.
func (w *wire) row(p []byte, cols []wcol, dst *sqlconn.Rows) error {
	pos := 1 + (len(cols)+7+2)>>3
	if p[0] != 0 || pos > len(p) {
		return errMalformed
	}
	mask := p[1:pos]
	for i, c := range cols {
		if (mask[(i+2)>>3]>>uint((i+2)&7))&1 == 1 || c.typ == typeNull {
			dst.Null()
			continue
		}
		size := fixedSize(c.typ)
		if size > 0 && pos+size > len(p) {
			return errMalformed
		}
		b := p[pos:]
		switch c.typ {
		case typeTiny:
			if c.unsigned {
				dst.Int(int64(b[0]))
			} else {
				dst.Int(int64(int8(b[0])))
			}
		case typeShort, typeYear:
			u := binary.LittleEndian.Uint16(b)
			if c.unsigned {
				dst.Int(int64(u))
			} else {
				dst.Int(int64(int16(u)))
			}
		case typeInt24, typeLong:
			u := binary.LittleEndian.Uint32(b)
			if c.unsigned {
				dst.Int(int64(u))
			} else {
				dst.Int(int64(int32(u)))
			}
		case typeLongLong:
			u := binary.LittleEndian.Uint64(b)
			if c.unsigned && u > math.MaxInt64 {
				w.num = strconv.AppendUint(w.num[:0], u, 10)
				dst.Bytes(w.num)
			} else {
				dst.Int(int64(u))
			}
		case typeDouble:
			dst.Float(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		default:
			l, n, null := lenenc(b)
			if n == 0 || pos+n+int(l) > len(p) {
				return errMalformed
			}
			if null {
				dst.Null()
			} else {
				dst.Bytes(b[n : n+int(l)])
			}
			size = n + int(l)
		}
		pos += size
	}
	dst.EndRow()
	return nil
}

var _ sqlconn.Wire = (*wire)(nil)
