package postgres

import (
	"errors"
	"io"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/cairn-bench/cairn/internal/target"
)

// wire implements target.TextCaller by writing the protocol messages itself, on pgx's own message
// encoder and decoder, with every message reused: a call allocates nothing and costs one write
// and one read system call, as in libpq. pgx's query path allocates a few objects per statement
// (rows, scan plans, the command tag, binary parameter encoders), which is most of the client's
// own work on a one-row primary-key select or a stored-procedure call.
//
// Prepared statements are sent as Bind, Execute, Sync with text parameters and text results, as
// libpq's PQexecPrepared sends them for pgbench -M prepared (libpq adds a Describe that cairn does
// not need: the caller knows the one column it reads). Simple statements are one Query message,
// as pgbench -M simple sends them.
//
// The connection is used only between pgx's own operations, when pgx is idle and has no read in
// progress; every exchange is read to its ReadyForQuery, so pgx finds the connection as it left it.
type wire struct {
	fe       *pgproto3.Frontend
	bind     pgproto3.Bind
	exec     pgproto3.Execute
	sync     pgproto3.Sync
	query    pgproto3.Query
	txStatus byte  // from the last ReadyForQuery: 'I' idle, 'T' in a transaction, 'E' failed
	broken   error // set when the connection can no longer be trusted
}

// lostError is a failure of the connection itself (a read or write, or a message that makes no
// sense): it also matches io.ErrUnexpectedEOF, so that every target.Classify treats it as a lost
// connection and the engine reconnects.
type lostError struct{ err error }

func (e *lostError) Error() string   { return "connection lost: " + e.err.Error() }
func (e *lostError) Unwrap() []error { return []error{e.err, io.ErrUnexpectedEOF} }

func (w *wire) fail(err error) error {
	w.broken = &lostError{err}
	return w.broken
}

func (c *conn) wire() (*wire, error) {
	if c.pending {
		// An implicit BEGIN waits for pgx's next statement; a call on the wire would run outside it.
		return nil, errors.New("postgres: a text call cannot follow an implicit Begin")
	}
	if c.w == nil {
		c.w = &wire{fe: c.c.PgConn().Frontend(), txStatus: 'I'}
	}
	if c.w.broken != nil {
		return nil, c.w.broken
	}
	return c.w, nil
}

// CallPrepared implements target.TextCaller.
func (c *conn) CallPrepared(name string, params [][]byte, dst []byte) ([]byte, error) {
	w, err := c.wire()
	if err != nil {
		return dst, err
	}
	w.bind.PreparedStatement = name
	w.bind.Parameters = params
	w.fe.SendBind(&w.bind)
	w.bind.Parameters = nil
	w.fe.SendExecute(&w.exec)
	w.fe.SendSync(&w.sync)
	if err := w.fe.Flush(); err != nil {
		return dst, w.fail(err)
	}
	return w.read(dst)
}

// CallSimple implements target.TextCaller.
func (c *conn) CallSimple(sql []byte, dst []byte) ([]byte, error) {
	w, err := c.wire()
	if err != nil {
		return dst, err
	}
	// The message is encoded (copied) at once, so the string may share sql's bytes: no copy.
	w.query.String = unsafe.String(unsafe.SliceData(sql), len(sql))
	w.fe.SendQuery(&w.query)
	w.query.String = ""
	if err := w.fe.Flush(); err != nil {
		return dst, w.fail(err)
	}
	return w.read(dst)
}

// InTransaction implements target.TextCaller, from the last ReadyForQuery the wire read.
func (c *conn) InTransaction() bool {
	return c.w != nil && c.w.broken == nil && c.w.txStatus != 'I'
}

// read consumes the replies up to ReadyForQuery, appending the first column of the last row to
// dst. A server error is returned as pgx's *PgError, so that Classify sees it as it sees pgx's own.
func (w *wire) read(dst []byte) ([]byte, error) {
	var pgErr error
	n := len(dst)
	for {
		msg, err := w.fe.Receive()
		if err != nil {
			return dst[:n], w.fail(err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if len(m.Values) > 0 {
				dst = append(dst[:n], m.Values[0]...) // copied: the decoder reuses its buffer
			}
		case *pgproto3.ErrorResponse:
			if pgErr == nil {
				pgErr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			w.txStatus = m.TxStatus
			return dst, pgErr
		case *pgproto3.CopyInResponse, *pgproto3.CopyOutResponse, *pgproto3.CopyBothResponse:
			return dst[:n], w.fail(errors.New("unexpected COPY response"))
		}
		// BindComplete, RowDescription, CommandComplete, EmptyQueryResponse, NoticeResponse,
		// ParameterStatus and NotificationResponse need nothing.
	}
}

var _ target.TextCaller = (*conn)(nil)
