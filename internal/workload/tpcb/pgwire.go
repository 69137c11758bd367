package tpcb

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// pgConner is implemented by the PostgreSQL target's connections.
type pgConner interface{ PgConn() *pgconn.PgConn }

// pgWire runs statements on a PostgreSQL connection by writing the protocol messages itself, on
// pgx's own message encoder and decoder, with every message, parameter buffer and result reused:
// a statement allocates nothing, and costs one write and one read system call, as in libpq.
// pgx's query path allocates a few objects per statement (rows, scan plans, the command tag),
// which is most of the client's own work on a one-row primary-key select.
//
// Prepared statements are sent as Bind, Execute, Sync with text parameters and text results, as
// libpq's PQexecPrepared sends them for pgbench -M prepared (libpq adds a Describe that cairn does
// not need: it knows the one column it reads). Simple statements are one Query message, as
// pgbench -M simple sends them.
//
// The connection is used only between pgx's own operations, when pgx is idle and has no read in
// progress; every exchange is read to its ReadyForQuery, so pgx finds the connection as it left it.
type pgWire struct {
	fe       *pgproto3.Frontend
	bind     pgproto3.Bind
	exec     pgproto3.Execute
	sync     pgproto3.Sync
	query    pgproto3.Query
	params   [numVars + 1][]byte // text of each parameter, reused
	txStatus byte                // from the last ReadyForQuery: 'I' idle, 'T' in a transaction, 'E' failed
	broken   error               // set when the connection can no longer be trusted
}

func newPGWire(pc *pgconn.PgConn) *pgWire {
	w := &pgWire{fe: pc.Frontend(), txStatus: 'I'}
	for i := range w.params {
		w.params[i] = make([]byte, 0, 24)
	}
	return w
}

// lostError is a failure of the connection itself (a read or write, or a message that makes no
// sense): it also matches io.ErrUnexpectedEOF, so that every target.Classify treats it as a lost
// connection and the engine reconnects.
type lostError struct{ err error }

func (e *lostError) Error() string   { return "connection lost: " + e.err.Error() }
func (e *lostError) Unwrap() []error { return []error{e.err, io.ErrUnexpectedEOF} }

func (w *pgWire) fail(err error) error {
	w.broken = &lostError{err}
	return w.broken
}

// prepared executes the prepared statement name with the given parameter values; with dst, the
// first column of the last row is parsed into it.
func (w *pgWire) prepared(name string, args []int64, dst *int64) error {
	if w.broken != nil {
		return w.broken
	}
	for i, a := range args {
		w.params[i] = strconv.AppendInt(w.params[i][:0], a, 10)
	}
	w.bind.PreparedStatement = name
	w.bind.Parameters = w.params[:len(args)]
	w.fe.SendBind(&w.bind)
	w.fe.SendExecute(&w.exec)
	w.fe.SendSync(&w.sync)
	if err := w.fe.Flush(); err != nil {
		return w.fail(err)
	}
	return w.read(dst)
}

// simple sends one statement as text.
func (w *pgWire) simple(sql []byte, dst *int64) error {
	if w.broken != nil {
		return w.broken
	}
	// The message is encoded (copied) at once, so the string may share sql's bytes: no copy.
	w.query.String = unsafe.String(unsafe.SliceData(sql), len(sql))
	w.fe.SendQuery(&w.query)
	w.query.String = ""
	if err := w.fe.Flush(); err != nil {
		return w.fail(err)
	}
	return w.read(dst)
}

// read consumes the replies up to ReadyForQuery. A server error is returned as pgx's *PgError, so
// that the target classifies it (serialization failure, deadlock, …) as it does pgx's own.
func (w *pgWire) read(dst *int64) error {
	var pgErr error
	for {
		msg, err := w.fe.Receive()
		if err != nil {
			return w.fail(err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if dst != nil && len(m.Values) > 0 && m.Values[0] != nil {
				v, ok := parseInt(m.Values[0])
				if !ok {
					return w.fail(fmt.Errorf("unexpected value %q", m.Values[0]))
				}
				*dst = v
			}
		case *pgproto3.ErrorResponse:
			if pgErr == nil {
				pgErr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			w.txStatus = m.TxStatus
			return pgErr
		case *pgproto3.CopyInResponse, *pgproto3.CopyOutResponse, *pgproto3.CopyBothResponse:
			return w.fail(errors.New("unexpected COPY response"))
		}
		// BindComplete, RowDescription, CommandComplete, EmptyQueryResponse, NoticeResponse,
		// ParameterStatus and NotificationResponse need nothing.
	}
}

// parseInt parses a decimal integer in text format without allocating.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}
