package mysql

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	my "github.com/go-sql-driver/mysql"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/target/sqlconn"
)

// A server with local_infile OFF (MySQL 8's default) refuses LOAD DATA LOCAL: the loads then go
// as multi-row INSERTs of literal values, as HammerDB loads such a server. insertStmtBytes is
// about how long one INSERT grows before it is sent: well under the smallest max_allowed_packet
// of the servers (MariaDB's 16 MiB), and long enough that a statement's round trip is a small
// part of its time.
const insertStmtBytes = 1 << 20

// localInfile reports whether the server takes LOAD DATA LOCAL, read once per target on the
// first load's connection. A server that cannot say is tried with LOAD DATA LOCAL, as before.
func (t *mysqlTarget) localInfile(ctx context.Context, c *sqlconn.Conn) bool {
	t.infileMu.Lock()
	defer t.infileMu.Unlock()
	if t.infile == 0 {
		var on int64
		if err := c.C.QueryRowContext(ctx, "SELECT @@local_infile").Scan(&on); err != nil {
			return true
		}
		t.infile = 1
		if on == 0 {
			t.infile = 2
		}
	}
	return t.infile == 1
}

// isLocalRefused is the server's or the driver's refusal of LOAD DATA LOCAL.
func isLocalRefused(err error) bool {
	var me *my.MySQLError
	return errors.As(err, &me) && (me.Number == 3948 || me.Number == 1148 || me.Number == 2068)
}

// bulkLoad loads by LOAD DATA LOCAL where the server allows it, else by INSERTs.
func (t *mysqlTarget) bulkLoad(ctx context.Context, c *sqlconn.Conn, table string, columns []string, fill func(target.RowWriter) error) (int64, error) {
	if t.localInfile(ctx, c) {
		n, err := loadData(ctx, c, table, columns, fill)
		if err == nil || !isLocalRefused(err) {
			return n, err
		}
		t.refuseLocal() // local_infile turned OFF since it was read: insert from now on
	}
	return insertRows(ctx, c, table, columns, fill)
}

func (t *mysqlTarget) refuseLocal() {
	t.infileMu.Lock()
	t.infile = 2
	t.infileMu.Unlock()
}

// insertRows runs fill's rows as multi-row INSERTs, whole or not at all (allOrNothing's
// transaction). The statements are sent by a goroutine of their own while fill writes the next,
// as LOAD DATA streams while the generator writes.
func insertRows(ctx context.Context, c *sqlconn.Conn, table string, columns []string, fill func(target.RowWriter) error) (int64, error) {
	var fillErr error
	n, err := allOrNothing(ctx, c, "INSERT INTO", table, func() (int64, int64, error) {
		s := newInserter(ctx, c, table, columns)
		fillErr = fill(s.w)
		if fillErr == nil {
			fillErr = s.w.send()
		}
		n, err := s.wait()
		if fillErr != nil && !errors.Is(fillErr, errInsertFailed) {
			return n, s.w.rows, fillErr
		}
		return n, s.w.rows, err // the failed statement's own error, when one failed
	})
	if fillErr != nil && !errors.Is(fillErr, errInsertFailed) {
		return 0, fillErr // the generator's own error, as it gave it
	}
	return n, err
}

// errInsertFailed stops the generator once a statement failed; the statement's error is the load's.
var errInsertFailed = errors.New("an INSERT failed")

// inserter sends the statements an insertWriter fills, one at a time, on c.
type inserter struct {
	w    *insertWriter
	todo chan []byte
	done chan struct{}
	n    int64
	err  error
}

func newInserter(ctx context.Context, c *sqlconn.Conn, table string, columns []string) *inserter {
	s := &inserter{todo: make(chan []byte), done: make(chan struct{})}
	free := make(chan []byte, 2)
	for range 2 {
		free <- make([]byte, 0, insertStmtBytes+64<<10)
	}
	prefix := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES "
	s.w = &insertWriter{prefix: prefix, free: free, todo: s.todo, failed: s.done}
	s.w.buf = append(<-free, prefix...)
	go func() {
		defer close(s.done)
		for b := range s.todo {
			res, err := c.C.ExecContext(ctx, string(b))
			free <- b[:0]
			if err != nil {
				s.err = err
				return
			}
			k, _ := res.RowsAffected()
			s.n += k
		}
	}()
	return s
}

// wait closes the queue and returns what the statements inserted, or the first one's error.
func (s *inserter) wait() (int64, error) {
	if !s.w.closed {
		close(s.todo)
		s.w.closed = true
	}
	<-s.done
	return s.n, s.err
}

// insertWriter is a target.RowWriter that writes rows as the literal values of an INSERT.
// Strings go quoted where they hold no quote, backslash or NUL (every generated string), else as
// a hexadecimal literal, which no sql_mode reads otherwise.
type insertWriter struct {
	prefix   string
	buf      []byte
	col      int
	rows     int64 // rows written, sent or not
	pending  int   // rows in buf
	free     chan []byte
	todo     chan []byte
	failed   chan struct{}
	closed   bool
	timeSec  int64
	timeText []byte
}

func (w *insertWriter) sep() {
	switch {
	case w.col > 0:
		w.buf = append(w.buf, ',')
	case w.pending > 0:
		w.buf = append(w.buf, ",("...)
	default:
		w.buf = append(w.buf, '(')
	}
	w.col++
}

func (w *insertWriter) Int(v int64)    { w.sep(); w.buf = strconv.AppendInt(w.buf, v, 10) }
func (w *insertWriter) Money(c int64)  { w.sep(); w.buf = target.AppendFixed(w.buf, c, 2) }
func (w *insertWriter) Fixed4(v int64) { w.sep(); w.buf = target.AppendFixed(w.buf, v, 4) }
func (w *insertWriter) Text(s string)  { w.Str([]byte(s)) }
func (w *insertWriter) Null()          { w.sep(); w.buf = append(w.buf, "NULL"...) }
func (w *insertWriter) Str(b []byte)   { w.sep(); w.buf = appendLiteral(w.buf, b) }
func (w *insertWriter) Time(sec int64) {
	w.sep()
	if w.timeText == nil || sec != w.timeSec {
		w.timeSec, w.timeText = sec, time.Unix(sec, 0).UTC().AppendFormat(w.timeText[:0], "'2006-01-02 15:04:05'")
	}
	w.buf = append(w.buf, w.timeText...)
}

// appendLiteral appends b as a string literal.
func appendLiteral(buf, b []byte) []byte {
	if bytes.IndexByte(b, '\'') < 0 && bytes.IndexByte(b, '\\') < 0 && bytes.IndexByte(b, 0) < 0 {
		buf = append(buf, '\'')
		buf = append(buf, b...)
		return append(buf, '\'')
	}
	const hex = "0123456789ABCDEF"
	buf = append(buf, "X'"...)
	for _, c := range b {
		buf = append(buf, hex[c>>4], hex[c&15])
	}
	return append(buf, '\'')
}

func (w *insertWriter) EndRow() error {
	w.buf = append(w.buf, ')')
	w.col = 0
	w.pending++
	w.rows++
	if len(w.buf) >= insertStmtBytes {
		return w.send()
	}
	return nil
}

// send queues the statement written so far and takes a free buffer for the next.
func (w *insertWriter) send() error {
	if w.pending == 0 {
		return nil
	}
	select {
	case w.todo <- w.buf:
	case <-w.failed:
		return errInsertFailed
	}
	w.pending = 0
	select {
	case b := <-w.free:
		w.buf = append(b, w.prefix...)
	case <-w.failed:
		return errInsertFailed
	}
	return nil
}

// insertDelimited is LoadDelimited's INSERTs: each line of r is a row of fields separated by
// delim (a trailing delimiter, as dbgen writes, ends the last field), each sent as a string that
// the server converts to its column's type.
func insertDelimited(ctx context.Context, c *sqlconn.Conn, table string, columns []string, delim byte, r io.Reader) (int64, error) {
	return insertRows(ctx, c, table, columns, func(w target.RowWriter) error {
		br := bufio.NewReaderSize(r, 256<<10)
		for {
			line, err := br.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				return fmt.Errorf("a line of %s longer than %d bytes", table, br.Size())
			}
			if len(line) > 0 {
				line = bytes.TrimSuffix(line, []byte{'\n'})
				for i := 0; i < len(columns); i++ {
					j := bytes.IndexByte(line, delim)
					if j < 0 {
						j = len(line)
					}
					w.Str(line[:j])
					line = line[min(j+1, len(line)):]
				}
				if err := w.EndRow(); err != nil {
					return err
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
}
