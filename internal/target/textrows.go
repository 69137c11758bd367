package target

import (
	"bytes"
	"io"
	"strconv"
	"time"
)

// TextRowWriter writes rows in the tab-separated text format that both PostgreSQL's COPY … FROM STDIN
// and MySQL's LOAD DATA (with its default FIELDS/LINES options) read: \N is NULL, and backslash, tab,
// newline and carriage return inside values are escaped with a backslash.
type TextRowWriter struct {
	W     io.Writer
	buf   []byte
	col   int
	Rows  int64
	Flush int // flush threshold in bytes
	// The last time written and its text: loads write the same timestamp in row after row.
	timeSec  int64
	timeText []byte
}

// NewTextRowWriter returns a writer that flushes to w in chunks of about 256 KiB.
func NewTextRowWriter(w io.Writer) *TextRowWriter {
	return &TextRowWriter{W: w, buf: make([]byte, 0, 300<<10), Flush: 256 << 10}
}

func (t *TextRowWriter) sep() {
	if t.col > 0 {
		t.buf = append(t.buf, '\t')
	}
	t.col++
}

func (t *TextRowWriter) Int(v int64) { t.sep(); t.buf = strconv.AppendInt(t.buf, v, 10) }

// Money writes cents as a decimal with two places.
func (t *TextRowWriter) Money(c int64) { t.sep(); t.buf = AppendFixed(t.buf, c, 2) }

// Fixed4 writes ten-thousandths as a decimal with four places.
func (t *TextRowWriter) Fixed4(v int64) { t.sep(); t.buf = AppendFixed(t.buf, v, 4) }

// textEscape marks the bytes the text format escapes.
var textEscape = [256]bool{'\\': true, '\t': true, '\n': true, '\r': true}

// Str appends b escaped. Generated strings rarely hold a byte to escape, so the clean runs between
// such bytes are copied whole: a load spent a quarter of cairn's CPU appending byte by byte.
func (t *TextRowWriter) Str(b []byte) {
	t.sep()
	for {
		i := 0
		for i < len(b) && !textEscape[b[i]] {
			i++
		}
		t.buf = append(t.buf, b[:i]...)
		if i == len(b) {
			return
		}
		switch b[i] {
		case '\\':
			t.buf = append(t.buf, '\\', '\\')
		case '\t':
			t.buf = append(t.buf, '\\', 't')
		case '\n':
			t.buf = append(t.buf, '\\', 'n')
		case '\r':
			t.buf = append(t.buf, '\\', 'r')
		}
		b = b[i+1:]
	}
}

func (t *TextRowWriter) Text(s string) { t.Str([]byte(s)) }

func (t *TextRowWriter) Time(sec int64) {
	t.sep()
	if t.timeText == nil || sec != t.timeSec {
		t.timeSec, t.timeText = sec, time.Unix(sec, 0).UTC().AppendFormat(t.timeText[:0], "2006-01-02 15:04:05")
	}
	t.buf = append(t.buf, t.timeText...)
}

func (t *TextRowWriter) Null() { t.sep(); t.buf = append(t.buf, '\\', 'N') }

func (t *TextRowWriter) EndRow() error {
	t.buf = append(t.buf, '\n')
	t.col = 0
	t.Rows++
	if len(t.buf) >= t.Flush {
		return t.FlushBuf()
	}
	return nil
}

// FlushBuf writes what is buffered.
func (t *TextRowWriter) FlushBuf() error {
	if len(t.buf) == 0 {
		return nil
	}
	_, err := t.W.Write(t.buf)
	t.buf = t.buf[:0]
	return err
}

// AppendFixed appends v / 10^places as a decimal number ("-0.10", "300000.00").
func AppendFixed(b []byte, v int64, places int) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	p := int64(1)
	for i := 0; i < places; i++ {
		p *= 10
	}
	b = strconv.AppendInt(b, v/p, 10)
	b = append(b, '.')
	frac := v % p
	for d := p / 10; d > 0; d /= 10 {
		b = append(b, byte('0'+frac/d))
		frac %= d
	}
	return b
}

// WriteLines passes through whole lines already in this format (a file a TextRowWriter wrote), so
// that loading such a file costs no re-encoding: b must end with '\n'.
func (t *TextRowWriter) WriteLines(b []byte) error {
	if err := t.FlushBuf(); err != nil {
		return err
	}
	t.Rows += int64(bytes.Count(b, []byte{'\n'}))
	_, err := t.W.Write(b)
	return err
}
