package sqlconn

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// The fast path runs named prepared statements on the driver's own statement, inside sql.Conn.Raw,
// instead of through database/sql's Stmt. database/sql costs about 17 allocations and a dozen lock
// operations per point select on go-sql-driver/mysql (a dependency map per statement, a Rows with
// its own locks and context watcher, argument conversion through reflection), which on a 2-core
// machine is CPU taken from the server. Here arguments go into a reused []driver.NamedValue and
// result rows into a reused buffer, read completely before Raw returns, as Raw requires.

// fastStmt is a statement prepared on the driver connection.
type fastStmt struct {
	st   driver.Stmt
	cols int // result columns, learnt on the first query (the driver allocates the names each time)
	q    driver.StmtQueryContext
	e    driver.StmtExecContext
	ck   driver.NamedValueChecker // the statement's or the connection's argument converter, if any
}

// op is the call in progress, read by the Raw callback (a method value made once per connection,
// so that calling Raw allocates nothing).
type op struct {
	ctx   context.Context
	stmt  *fastStmt
	sql   string // text statement, when stmt is nil
	args  []any
	exec  bool
	n     int64
	rows  *Rows
	prep  string // statement text to prepare
	fresh *fastStmt
}

func (c *Conn) raw(dc any) error {
	o := &c.op
	if o.prep != "" {
		return c.prepareFast(o, dc)
	}
	if o.stmt == nil {
		ex, ok := dc.(driver.ExecerContext)
		if !ok {
			return errNoFast
		}
		res, err := ex.ExecContext(o.ctx, o.sql, nil)
		if err != nil {
			return err
		}
		o.n, _ = res.RowsAffected()
		return nil
	}
	nv, err := c.namedValues(o.stmt, o.args)
	if err != nil {
		return err
	}
	// With a context that cannot be cancelled there is nothing to watch, and the pre-context
	// methods take the values as they are, where the context ones first copy them into a new slice.
	plain := o.ctx.Done() == nil
	if plain {
		c.dv = c.dv[:0]
		for _, v := range nv {
			c.dv = append(c.dv, v.Value)
		}
	}
	if o.exec {
		var res driver.Result
		if plain {
			res, err = o.stmt.st.Exec(c.dv) //nolint:staticcheck // see above
		} else {
			res, err = o.stmt.e.ExecContext(o.ctx, nv)
		}
		if err != nil {
			return err
		}
		o.n, _ = res.RowsAffected()
		return nil
	}
	var dr driver.Rows
	if plain {
		dr, err = o.stmt.st.Query(c.dv) //nolint:staticcheck // see above
	} else {
		dr, err = o.stmt.q.QueryContext(o.ctx, nv)
	}
	if err != nil {
		return err
	}
	if o.stmt.cols == 0 {
		o.stmt.cols = len(dr.Columns())
	}
	err = o.rows.fill(dr, o.stmt.cols)
	if cerr := dr.Close(); err == nil {
		err = cerr
	}
	return err
}

var errNoFast = errors.New("sqlconn: the driver connection lacks the fast path's interfaces")

func (c *Conn) prepareFast(o *op, dc any) error {
	pc, ok := dc.(driver.ConnPrepareContext)
	if !ok {
		return errNoFast
	}
	st, err := pc.PrepareContext(o.ctx, o.prep)
	if err != nil {
		return err
	}
	q, qok := st.(driver.StmtQueryContext)
	e, eok := st.(driver.StmtExecContext)
	if !qok || !eok {
		st.Close()
		return errNoFast
	}
	fs := &fastStmt{st: st, q: q, e: e}
	if ck, ok := st.(driver.NamedValueChecker); ok {
		fs.ck = ck
	} else if ck, ok := dc.(driver.NamedValueChecker); ok {
		fs.ck = ck
	}
	o.fresh = fs
	return nil
}

func (c *Conn) namedValues(s *fastStmt, args []any) ([]driver.NamedValue, error) {
	nv := c.nv[:0]
	for i, a := range args {
		nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: a})
		v := &nv[i]
		var err error
		if s.ck != nil {
			err = s.ck.CheckNamedValue(v)
			if errors.Is(err, driver.ErrSkip) {
				v.Value, err = driver.DefaultParameterConverter.ConvertValue(a)
			}
		} else {
			v.Value, err = driver.DefaultParameterConverter.ConvertValue(a)
		}
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
	}
	c.nv = nv
	return nv, nil
}

// call runs the operation set up in c.op.
func (c *Conn) call() error {
	err := c.C.Raw(c.rawFn)
	o := &c.op
	o.ctx, o.args, o.stmt, o.sql = nil, nil, nil, ""
	return err
}

func (c *Conn) prepareFastStmt(ctx context.Context, query string) (*fastStmt, error) {
	c.op.ctx, c.op.prep = ctx, query
	err := c.call()
	fs := c.op.fresh
	c.op.prep, c.op.fresh = "", nil
	return fs, err
}

func (c *Conn) fastExec(ctx context.Context, s *fastStmt, q string, args []any) (int64, error) {
	c.op.ctx, c.op.stmt, c.op.sql, c.op.args, c.op.exec = ctx, s, q, args, true
	err := c.call()
	return c.op.n, err
}

func (c *Conn) fastQuery(ctx context.Context, s *fastStmt, args []any) (*Rows, error) {
	c.op.rows.reset()
	c.op.ctx, c.op.stmt, c.op.args, c.op.exec = ctx, s, args, false
	if err := c.call(); err != nil {
		return nil, err
	}
	return c.op.rows, nil
}

// Rows holds a result read to the end: values in row order, byte values copied into one arena
// (the driver reuses its read buffer from one row to the next). A Wire fills it through Int,
// Float, Bytes and Null, which keep integers and floats unboxed, so that scanning them into
// *int64 or *float64 allocates nothing.
type Rows struct {
	cols  int
	vals  []driver.Value // cellAny values, parallel to spans
	spans []span         // each cell's kind, and where a []byte value lies in arena
	arena []byte
	boxes []box          // per cell, the last []byte value boxed for Scan
	row   []driver.Value // Next's destination, reused
	cur   int            // row being scanned, -1 before the first Next
	nrows int
	err   error
}

func (r *Rows) NumColumns() int { return r.cols }

// box is a []byte value already converted to an interface. Converting a slice to an interface
// allocates; a cell that lies where it lay in the previous result (a point select's column, at the
// same place in an arena that has not moved) reuses it, since the bytes are read through it anyway.
type box struct {
	p *byte
	n int
	v any
}

type span struct {
	off, n int
	kind   cellKind
	num    uint64 // cellInt's int64, cellFloat's float64 bits
}

type cellKind uint8

const (
	cellAny cellKind = iota // in vals
	cellBytes
	cellInt
	cellFloat
)

// Start begins a result of cols columns (a Wire's, filled with the methods below, a row's cells
// in column order, each row ended with EndRow).
func (r *Rows) Start(cols int) { r.cols = cols }

// Int adds an integer cell.
func (r *Rows) Int(v int64) {
	r.spans = append(r.spans, span{kind: cellInt, num: uint64(v)})
	r.vals = append(r.vals, nil)
}

// Float adds a float64 cell.
func (r *Rows) Float(v float64) {
	r.spans = append(r.spans, span{kind: cellFloat, num: math.Float64bits(v)})
	r.vals = append(r.vals, nil)
}

// Bytes adds a []byte cell, copied.
func (r *Rows) Bytes(b []byte) {
	r.spans = append(r.spans, span{off: len(r.arena), n: len(b), kind: cellBytes})
	r.arena = append(r.arena, b...)
	r.vals = append(r.vals, nil)
}

// Null adds a NULL cell.
func (r *Rows) Null() {
	r.spans = append(r.spans, span{})
	r.vals = append(r.vals, nil)
}

// EndRow ends a row.
func (r *Rows) EndRow() { r.nrows++ }

func (r *Rows) reset() {
	r.vals, r.spans, r.arena = r.vals[:0], r.spans[:0], r.arena[:0]
	r.cur, r.nrows, r.err = -1, 0, nil
}

func (r *Rows) fill(dr driver.Rows, cols int) error {
	r.cols = cols
	if cap(r.row) < r.cols {
		r.row = make([]driver.Value, r.cols)
	}
	row := r.row[:r.cols]
	for {
		if err := dr.Next(row); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		for _, v := range row {
			if b, ok := v.([]byte); ok {
				r.Bytes(b)
				continue
			}
			r.spans = append(r.spans, span{})
			r.vals = append(r.vals, v)
		}
		r.nrows++
	}
}

func (r *Rows) Next() bool {
	if r.cur+1 >= r.nrows {
		r.cur = r.nrows
		return false
	}
	r.cur++
	return true
}

func (r *Rows) Err() error { return r.err }
func (r *Rows) Close()     {}

func (r *Rows) Scan(dest ...any) error {
	if r.cur < 0 || r.cur >= r.nrows {
		return errors.New("sqlconn: Scan called without a row")
	}
	if len(dest) != r.cols {
		return fmt.Errorf("sqlconn: %d destinations for %d columns", len(dest), r.cols)
	}
	base := r.cur * r.cols
	for i, d := range dest {
		v := r.vals[base+i]
		switch sp := r.spans[base+i]; sp.kind {
		case cellBytes:
			if p, ok := d.(*[]byte); ok {
				*p = append((*p)[:0], r.arena[sp.off:sp.off+sp.n]...)
				continue
			}
			v = r.bytesAt(base+i, sp)
		case cellInt:
			if assignInt(d, int64(sp.num)) {
				continue
			}
			v = int64(sp.num)
		case cellFloat:
			if p, ok := d.(*float64); ok {
				*p = math.Float64frombits(sp.num)
				continue
			}
			v = math.Float64frombits(sp.num)
		}
		if err := assign(d, v); err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return nil
}

func (r *Rows) bytesAt(cell int, sp span) any {
	b := r.arena[sp.off : sp.off+sp.n : sp.off+sp.n]
	if sp.n == 0 {
		return b
	}
	for len(r.boxes) <= cell {
		r.boxes = append(r.boxes, box{})
	}
	bx := &r.boxes[cell]
	if bx.p != &b[0] || bx.n != sp.n {
		*bx = box{p: &b[0], n: sp.n, v: b}
	}
	return bx.v
}

// assignInt stores an integer in the destinations that need no conversion through an interface,
// as assign would; false leaves the others to assign.
func assignInt(dest any, v int64) bool {
	switch d := dest.(type) {
	case *int64:
		*d = v
	case *int:
		*d = int(v)
	case *int32:
		*d = int32(v)
	case *float64:
		*d = float64(v)
	default:
		return false
	}
	return true
}

// scanRow is QueryRow's result on the fast path.
type scanRow struct {
	r   *Rows
	err error
}

func (s *scanRow) Scan(dest ...any) error {
	if s.err != nil {
		return s.err
	}
	if !s.r.Next() {
		return target.ErrNoRows
	}
	return s.r.Scan(dest...)
}

// assign stores a driver value in a destination, with database/sql's conversions for the types the
// workloads scan into. Byte values are copied: src points into the row buffer.
func assign(dest, src any) error {
	switch d := dest.(type) {
	case sql.Scanner:
		return d.Scan(src)
	case *any:
		if b, ok := src.([]byte); ok {
			*d = bytes.Clone(b) // as database/sql: an empty value stays empty, not NULL
		} else {
			*d = src
		}
		return nil
	case *[]byte:
		switch s := src.(type) {
		case []byte:
			*d = append((*d)[:0], s...)
		case string:
			*d = append((*d)[:0], s...)
		case nil:
			*d = nil
		default:
			*d = fmt.Append((*d)[:0], s)
		}
		return nil
	case *string:
		switch s := src.(type) {
		case []byte:
			*d = string(s)
		case string:
			*d = s
		case int64:
			*d = strconv.FormatInt(s, 10)
		case float64:
			*d = strconv.FormatFloat(s, 'g', -1, 64)
		case bool:
			*d = strconv.FormatBool(s)
		case time.Time:
			*d = s.Format(time.RFC3339Nano)
		case nil:
			return errors.New("NULL into a string")
		default:
			*d = fmt.Sprint(s)
		}
		return nil
	case *int64:
		n, err := toInt(src)
		*d = n
		return err
	case *int:
		n, err := toInt(src)
		*d = int(n)
		return err
	case *int32:
		n, err := toInt(src)
		*d = int32(n)
		return err
	case *float64:
		switch s := src.(type) {
		case float64:
			*d = s
		case float32:
			*d = float64(s)
		case int64:
			*d = float64(s)
		case []byte:
			f, err := strconv.ParseFloat(string(s), 64)
			*d = f
			return err
		case string:
			f, err := strconv.ParseFloat(s, 64)
			*d = f
			return err
		default:
			return fmt.Errorf("cannot store %T in a float64", src)
		}
		return nil
	case *bool:
		switch s := src.(type) {
		case bool:
			*d = s
		case int64:
			*d = s != 0
		case []byte:
			b, err := strconv.ParseBool(string(s))
			*d = b
			return err
		default:
			return fmt.Errorf("cannot store %T in a bool", src)
		}
		return nil
	case *time.Time:
		t, ok := src.(time.Time)
		if !ok {
			return fmt.Errorf("cannot store %T in a time.Time", src)
		}
		*d = t
		return nil
	}
	return fmt.Errorf("sqlconn: cannot scan into %T", dest)
}

func toInt(src any) (int64, error) {
	switch s := src.(type) {
	case int64:
		return s, nil
	case []byte:
		return strconv.ParseInt(string(s), 10, 64)
	case string:
		return strconv.ParseInt(s, 10, 64)
	case float64:
		return int64(s), nil
	case bool:
		if s {
			return 1, nil
		}
		return 0, nil
	case nil:
		return 0, errors.New("NULL into an integer")
	}
	return 0, fmt.Errorf("cannot store %T in an integer", src)
}
