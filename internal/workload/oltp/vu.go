package oltp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Statement types, as timed and counted. A write that changes no row (a DELETE of an id already
// deleted, an UPDATE of a missing row) is a type of its own, of class "other": sysbench's drivers
// count a statement without a result set as a write only when it affected rows (drv_pgsql.c,
// drv_mysql.c: nrows > 0 ? SB_CNT_WRITE : SB_CNT_OTHER).
const (
	StPointSelect = iota
	StSimpleRange
	StSumRange
	StOrderRange
	StDistinctRange
	StIndexUpdate
	StNonIndexUpdate
	StDelete
	StInsert
	StBegin
	StCommit
	StIndexUpdateNoRow
	StNonIndexUpdateNoRow
	StDeleteNoRow
	nStmt
)

// StmtTypes are the statement types' names and classes, indexed by the St constants.
var StmtTypes = [nStmt]workload.Statement{
	{Name: "point_select", Class: workload.ClassRead},
	{Name: "simple_range", Class: workload.ClassRead},
	{Name: "sum_range", Class: workload.ClassRead},
	{Name: "order_range", Class: workload.ClassRead},
	{Name: "distinct_range", Class: workload.ClassRead},
	{Name: "index_update", Class: workload.ClassWrite},
	{Name: "non_index_update", Class: workload.ClassWrite},
	{Name: "delete", Class: workload.ClassWrite},
	{Name: "insert", Class: workload.ClassWrite},
	{Name: "begin", Class: workload.ClassOther},
	{Name: "commit", Class: workload.ClassOther},
	{Name: "index_update_no_row", Class: workload.ClassOther},
	{Name: "non_index_update_no_row", Class: workload.ClassOther},
	{Name: "delete_no_row", Class: workload.ClassOther},
}

// sqlKind is one statement of txn.sql, prepared once per table.
type sqlKind int

const (
	sqlPointSelect sqlKind = iota
	sqlSimpleRange
	sqlSumRange
	sqlOrderRange
	sqlDistinctRange
	sqlIndexUpdate
	sqlNonIndexUpdate
	sqlDelete
	sqlInsert
	sqlInsertAuto
	nSQL
)

var sqlNames = [nSQL]string{"point_select", "simple_range", "sum_range", "order_range", "distinct_range",
	"index_update", "non_index_update", "delete", "insert", "insert_auto"}

// cell is one input of a statement: the two integers, or the c and pad strings.
type cell int

const (
	cellI0 cell = iota
	cellI1
	cellC
	cellPad
)

// layouts are the parameters of each statement, in the order of txn.sql's placeholders.
var layouts = [nSQL][]cell{
	sqlPointSelect:    {cellI0},
	sqlSimpleRange:    {cellI0, cellI1},
	sqlSumRange:       {cellI0, cellI1},
	sqlOrderRange:     {cellI0, cellI1},
	sqlDistinctRange:  {cellI0, cellI1},
	sqlIndexUpdate:    {cellI0},
	sqlNonIndexUpdate: {cellC, cellI0},
	sqlDelete:         {cellI0},
	sqlInsert:         {cellI0, cellI1, cellC, cellPad},
	sqlInsertAuto:     {cellI1, cellC, cellPad},
}

// Statements returns the statement types a workload can run under o (the engine's list) and, for
// each St constant, its index in that list (-1 when the workload never runs it).
func (w *Workload) Statements(o Options) ([]workload.Statement, [nStmt]int) {
	o.Resolve(w)
	var use [nStmt]bool
	for _, p := range w.ops {
		if !o.active(w, p) {
			continue
		}
		switch p {
		case opPointSelects:
			use[StPointSelect] = true
		case opSimpleRanges:
			use[StSimpleRange] = true
		case opSumRanges:
			use[StSumRange] = true
		case opOrderRanges:
			use[StOrderRange] = true
		case opDistinctRanges:
			use[StDistinctRange] = true
		case opIndexUpdates:
			use[StIndexUpdate], use[StIndexUpdateNoRow] = true, true
		case opNonIndexUpdates:
			use[StNonIndexUpdate], use[StNonIndexUpdateNoRow] = true, true
		case opDeleteInserts:
			use[StDelete], use[StDeleteNoRow], use[StInsert] = true, true, true
		case opDelete:
			use[StDelete], use[StDeleteNoRow] = true, true
		case opInsert:
			use[StInsert] = true
		}
	}
	if w.UsesTrx(o) {
		use[StBegin], use[StCommit] = true, true
	}
	var list []workload.Statement
	var idx [nStmt]int
	for i := range idx {
		idx[i] = -1
		if use[i] {
			idx[i] = len(list)
			list = append(list, StmtTypes[i])
		}
	}
	return list, idx
}

// phase is one op of the event in hand with its inputs, drawn by Next before Do runs them, so
// that a retry after a deadlock sends the same statements.
type phase struct {
	op    op
	n     int
	table int
	ids   []int64
	ks    []int64
	cs    [][]byte // c values, len(CTemplate) each
	pads  [][]byte // pad values, len(PadTemplate) each
}

// Counters are a run's whole-run totals, shared by its VUs.
type Counters struct {
	Inserted atomic.Int64 // rows inserted
	Deleted  atomic.Int64 // rows deleted
	Restarts atomic.Int64 // events restarted after a duplicate key (sysbench's ignored errors)
}

// VUOptions configure a VU.
type VUOptions struct {
	Workload  *Workload
	Options   Options
	Tables    int
	TableSize int
	Seed      uint64
	Counters  *Counters
	// Replicas, when not nil, take every event: the VU runs on a connection to one of them
	// (a read-only test, docs/oltp.md#replicas).
	Replicas *target.Replicated
}

// maxRestarts bounds the restarts of one event after duplicate keys; sysbench has no bound.
const maxRestarts = 100

// VU runs one workload's events on its own connection. Everything a statement needs is allocated
// once: parameters live in fixed cells, rows are scanned into reused buffers, and the prepared
// statements' names are built when the VU is made.
type VU struct {
	w        *Workload
	o        Options
	dialect  target.Dialect
	cells    target.Cells // the driver's allocation-free arguments, when it has them
	simple   bool
	trx      bool
	beginSQL string
	tables   int
	size     uint32
	r        Rand
	dist     Dist
	cnt      *Counters
	c        target.Conn
	vuID     int
	rep      *target.Replicated // the replicas, when the VU runs on one (rc)
	rc       target.Conn
	sink     workload.StatementSink
	sidx     [nStmt]int
	phases   []phase

	text  [nSQL][]string // statement text per table (index table-1)
	names [nSQL][]string // prepared statement names per table
	used  [nSQL]bool
	tmpl  [nSQL][][]tmplPart // --protocol simple: per table, the text around the placeholders
	q     map[string]string

	// Parameter cells and the argument lists built on them.
	ci      [2]int64
	cbuf    []byte
	padbuf  []byte
	cBox    any // cbuf, boxed once
	padBox  any
	args    [nSQL][]any
	noArgs  []any
	textDst textBuf
	sumDst  intBuf
	textArg []any // {&textDst}
	sumArg  []any // {a scanner into sumDst}
	qbuf    []byte

	// Rows inserted and deleted by the event in hand: added to the run's counters once they are
	// committed (at once in autocommit), so that the counters match the tables.
	evIns, evDel int64
}

// NewVU makes VU id; its random stream depends on the run seed and id only.
func NewVU(id int, dialect target.Dialect, vo VUOptions) (*VU, error) {
	vo.Options.Resolve(vo.Workload)
	q, err := stmtMap(dialect, "txn.sql")
	if err != nil {
		return nil, err
	}
	d, err := NewDist(vo.Options.Dist)
	if err != nil {
		return nil, err
	}
	w, o := vo.Workload, vo.Options
	v := &VU{w: w, o: o, dialect: dialect, simple: o.Protocol == ProtocolSimple,
		trx: w.UsesTrx(o), tables: vo.Tables, size: uint32(vo.TableSize), r: NewRand(vo.Seed, uint64(id)+1<<40),
		dist: *d, cnt: vo.Counters, q: q, vuID: id, rep: vo.Replicas}
	if v.cnt == nil {
		v.cnt = &Counters{}
	}
	switch {
	case w.readOnly && o.ReadOnlyTrx:
		v.beginSQL = q["begin_read_only"]
	case w.readOnly:
		v.beginSQL = q["begin_read"]
	default:
		v.beginSQL = q["begin"]
	}
	_, v.sidx = w.Statements(o)
	for _, p := range w.ops {
		if !o.active(w, p) {
			continue
		}
		n := o.count(p)
		ph := phase{op: p, n: n, ids: make([]int64, n)}
		switch p {
		case opPointSelects:
			v.used[sqlPointSelect] = true
		case opSimpleRanges:
			v.used[sqlSimpleRange] = true
		case opSumRanges:
			v.used[sqlSumRange] = true
		case opOrderRanges:
			v.used[sqlOrderRange] = true
		case opDistinctRanges:
			v.used[sqlDistinctRange] = true
		case opIndexUpdates:
			v.used[sqlIndexUpdate] = true
		case opNonIndexUpdates:
			v.used[sqlNonIndexUpdate] = true
			ph.cs = strs(n, len(CTemplate))
		case opDeleteInserts:
			v.used[sqlDelete], v.used[sqlInsert] = true, true
			ph.ks = make([]int64, n)
			ph.cs, ph.pads = strs(n, len(CTemplate)), strs(n, len(PadTemplate))
		case opDelete:
			v.used[sqlDelete] = true
		case opInsert:
			v.used[sqlInsertAuto] = true
			ph.ks = make([]int64, n)
			ph.cs, ph.pads = strs(n, len(CTemplate)), strs(n, len(PadTemplate))
		}
		v.phases = append(v.phases, ph)
	}
	for k := sqlKind(0); k < nSQL; k++ {
		if !v.used[k] {
			continue
		}
		base, ok := q[sqlNames[k]]
		if !ok {
			return nil, fmt.Errorf("oltp: txn.sql for %s has no statement %s", dialect.Name, sqlNames[k])
		}
		for n := 1; n <= v.tables; n++ {
			text := forTable(base, n, 0)
			v.text[k] = append(v.text[k], text)
			if v.simple {
				v.tmpl[k] = append(v.tmpl[k], splitPlaceholders(text, layouts[k]))
			}
			v.names[k] = append(v.names[k], "sb_"+sqlNames[k]+"_"+strconv.Itoa(n))
		}
	}

	v.cbuf = make([]byte, len(CTemplate))
	v.padbuf = make([]byte, len(PadTemplate))
	v.cBox, v.padBox = v.cbuf, v.padbuf
	v.textDst.b = make([]byte, 0, 128)
	for k := sqlKind(0); k < nSQL; k++ {
		v.args[k] = make([]any, len(layouts[k]))
	}
	return v, nil
}

func strs(n, l int) [][]byte {
	b := make([]byte, n*l)
	s := make([][]byte, n)
	for i := range s {
		s[i] = b[i*l : (i+1)*l : (i+1)*l]
	}
	return s
}

// cellArg is what a Cells driver is given for a cell: the integer cells through the target's
// cells, and the string buffers boxed once. Their contents change; the interface values do not, so
// setting them allocates nothing.
func (v *VU) cellArg(c cell) any {
	switch c {
	case cellI0:
		return v.cells.IntCell(&v.ci[0])
	case cellI1:
		return v.cells.IntCell(&v.ci[1])
	case cellC:
		return v.cBox
	}
	return v.padBox
}

// Bind prepares the workload's statements on c, once per table, as oltp_common.lua's
// prepare_for_each_table does. With --protocol simple nothing is prepared.
func (v *VU) Bind(ctx context.Context, c target.Conn) error {
	if v.rep != nil {
		// The engine's connection to the primary stays idle: the events run on the replica's.
		if v.rc != nil {
			v.rep.CloseReplicaConn(v.rc)
		}
		rc, _, err := v.rep.ReplicaConn(ctx, v.vuID)
		if err != nil {
			return err
		}
		v.rc, c = rc, rc
		if err := v.bind(ctx, c); err != nil {
			return err
		}
		return v.rep.Publish(ctx, c)
	}
	return v.bind(ctx, c)
}

func (v *VU) bind(ctx context.Context, c target.Conn) error {
	v.c = c
	v.cells, _ = c.(target.Cells)
	v.textArg, v.sumArg, v.noArgs = []any{&v.textDst}, []any{&target.IntScanner{V: &v.sumDst.v, Valid: &v.sumDst.valid}}, nil
	if v.cells != nil {
		v.textArg = []any{v.cells.BytesDest(&v.textDst.b)}
		v.sumArg = []any{v.cells.NullIntDest(&v.sumDst.v, &v.sumDst.valid)}
		if v.simple {
			v.noArgs = v.cells.SimpleArgs() // (Exec without arguments already sends one message)
		}
		for k := sqlKind(0); k < nSQL; k++ {
			for i, cl := range layouts[k] {
				v.args[k][i] = v.cellArg(cl)
			}
		}
	}
	if v.simple {
		return nil
	}
	for k := sqlKind(0); k < nSQL; k++ {
		for i, name := range v.names[k] {
			if err := c.Prepare(ctx, name, v.text[k][i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// SetStatementSink implements workload.StatementTimer.
func (v *VU) SetStatementSink(s workload.StatementSink) { v.sink = s }

// clock is the sink's clock, or zero when nobody times statements.
func (v *VU) clock() time.Duration {
	if v.sink == nil {
		return 0
	}
	return v.sink.Now()
}

// Next draws the inputs of the next event; there is one transaction type.
func (v *VU) Next() int {
	v.draw()
	return 0
}

// id is oltp_common.lua's get_id(): sysbench.rand.default(1, table_size).
func (v *VU) id() int64 { return int64(v.dist.Draw(&v.r, 1, v.size)) }

// draw draws an event's inputs in the order sysbench's event functions draw them: for each
// execute_* function a table (sysbench.rand.uniform(1, tables)), then per statement its values.
func (v *VU) draw() {
	for i := range v.phases {
		p := &v.phases[i]
		p.table = int(v.r.Uniform(1, uint32(v.tables)))
		for j := 0; j < p.n; j++ {
			switch p.op {
			case opNonIndexUpdates: // set_rand_str(c_value_template), then get_id()
				v.r.RandStr(p.cs[j], CTemplate)
				p.ids[j] = v.id()
			case opDeleteInserts: // id, k, then c and pad
				p.ids[j] = v.id()
				p.ks[j] = v.id()
				v.r.RandStr(p.cs[j], CTemplate)
				v.r.RandStr(p.pads[j], PadTemplate)
			case opInsert: // oltp_insert.lua: k, c, pad (the id is the database's)
				p.ks[j] = v.id()
				v.r.RandStr(p.cs[j], CTemplate)
				v.r.RandStr(p.pads[j], PadTemplate)
			default:
				p.ids[j] = v.id()
			}
		}
	}
}

// Do runs the event in hand. A duplicate key from the INSERT of a delete/insert pair (two VUs
// deleting and re-inserting the same id) restarts the event with new inputs, as sysbench does on
// PostgreSQL, where drv_pgsql.c treats unique_violation as an ignorable error.
func (v *VU) Do(ctx context.Context) (bool, error) {
	for attempt := 0; ; attempt++ {
		err := v.event(ctx)
		if err == nil || attempt >= maxRestarts || !isDuplicateKey(err) {
			return false, err
		}
		v.cnt.Restarts.Add(1)
		v.draw()
	}
}

func (v *VU) event(ctx context.Context) error {
	v.evIns, v.evDel = 0, 0
	if !v.trx {
		defer v.count()
	}
	if v.trx {
		if err := v.control(ctx, v.beginSQL, StBegin); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
	}
	for i := range v.phases {
		if err := v.run(ctx, &v.phases[i]); err != nil {
			if v.trx {
				_ = v.c.Rollback(ctx)
			}
			return err
		}
	}
	if v.trx {
		if err := v.control(ctx, v.q["commit"], StCommit); err != nil {
			// A failed COMMIT may leave the transaction open (SQLite's SQLITE_BUSY).
			_ = v.c.Rollback(ctx)
			return fmt.Errorf("commit: %w", err)
		}
		v.count()
	}
	return nil
}

// count adds the event's committed rows to the run's counters.
func (v *VU) count() {
	if v.evIns != 0 {
		v.cnt.Inserted.Add(v.evIns)
	}
	if v.evDel != 0 {
		v.cnt.Deleted.Add(v.evDel)
	}
}

// run executes one op's statements.
func (v *VU) run(ctx context.Context, p *phase) error {
	rs := int64(v.o.RangeSize)
	for j := 0; j < p.n; j++ {
		var err error
		switch p.op {
		case opPointSelects:
			v.set(p.ids[j], 0)
			err = v.read(ctx, sqlPointSelect, p.table, StPointSelect)
		case opSimpleRanges:
			v.set(p.ids[j], p.ids[j]+rs-1)
			err = v.read(ctx, sqlSimpleRange, p.table, StSimpleRange)
		case opSumRanges:
			v.set(p.ids[j], p.ids[j]+rs-1)
			err = v.read(ctx, sqlSumRange, p.table, StSumRange)
		case opOrderRanges:
			v.set(p.ids[j], p.ids[j]+rs-1)
			err = v.read(ctx, sqlOrderRange, p.table, StOrderRange)
		case opDistinctRanges:
			v.set(p.ids[j], p.ids[j]+rs-1)
			err = v.read(ctx, sqlDistinctRange, p.table, StDistinctRange)
		case opIndexUpdates:
			v.set(p.ids[j], 0)
			_, err = v.write(ctx, sqlIndexUpdate, p.table, StIndexUpdate, StIndexUpdateNoRow)
		case opNonIndexUpdates:
			v.set(p.ids[j], 0)
			copy(v.cbuf, p.cs[j])
			_, err = v.write(ctx, sqlNonIndexUpdate, p.table, StNonIndexUpdate, StNonIndexUpdateNoRow)
		case opDeleteInserts:
			v.set(p.ids[j], p.ks[j])
			var n int64
			if n, err = v.write(ctx, sqlDelete, p.table, StDelete, StDeleteNoRow); err != nil {
				break
			}
			v.evDel += n
			copy(v.cbuf, p.cs[j])
			copy(v.padbuf, p.pads[j])
			if n, err = v.write(ctx, sqlInsert, p.table, StInsert, StInsert); err == nil {
				v.evIns += n
			}
		case opDelete:
			v.set(p.ids[j], 0)
			var n int64
			if n, err = v.write(ctx, sqlDelete, p.table, StDelete, StDeleteNoRow); err == nil {
				v.evDel += n
			}
		case opInsert:
			v.set(0, p.ks[j])
			copy(v.cbuf, p.cs[j])
			copy(v.padbuf, p.pads[j])
			var n int64
			if n, err = v.write(ctx, sqlInsertAuto, p.table, StInsert, StInsert); err == nil {
				v.evIns += n
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// set fills the two integer cells.
func (v *VU) set(i0, i1 int64) {
	v.ci[0], v.ci[1] = i0, i1
}

// argsFor returns the prepared statement's arguments. With the driver's cells they are fixed (see
// cellArg); for database/sql drivers, which convert every argument anyway, the values are boxed on
// each call.
func (v *VU) argsFor(k sqlKind) []any {
	a := v.args[k]
	if v.cells != nil {
		return a
	}
	for i, c := range layouts[k] {
		switch c {
		case cellI0:
			a[i] = v.ci[0]
		case cellI1:
			a[i] = v.ci[1]
		case cellC:
			a[i] = v.strArg(v.cbuf, v.cBox)
		case cellPad:
			a[i] = v.strArg(v.padbuf, v.padBox)
		}
	}
	return a
}

// strArg is a CHAR parameter: the reused buffer for MySQL, a string for SQLite, whose driver
// would store a []byte as a BLOB.
func (v *VU) strArg(b []byte, box any) any {
	if v.dialect.BytesAsBlob {
		return string(b)
	}
	return box
}

// read runs a SELECT and reads its rows into the reused destinations.
func (v *VU) read(ctx context.Context, k sqlKind, table int, st int) error {
	dst := v.textArg
	if k == sqlSumRange {
		dst = v.sumArg
	}
	t0 := v.clock()
	var rows target.Rows
	var err error
	if v.simple {
		rows, err = v.c.Query(ctx, v.literal(k, table), v.noArgs...)
	} else {
		rows, err = v.c.Query(ctx, v.names[k][table-1], v.argsFor(k)...)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", sqlNames[k], err)
	}
	for rows.Next() {
		if err = rows.Scan(dst...); err != nil {
			break
		}
	}
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", sqlNames[k], err)
	}
	if v.sink != nil {
		v.sink.Statement(v.sidx[st], t0, v.sink.Now())
	}
	return nil
}

// write runs an UPDATE, DELETE or INSERT and times it as st, or as none when it changed no row.
func (v *VU) write(ctx context.Context, k sqlKind, table int, st, none int) (int64, error) {
	t0 := v.clock()
	var n int64
	var err error
	if v.simple {
		n, err = v.c.Exec(ctx, v.literal(k, table))
	} else {
		n, err = v.c.Exec(ctx, v.names[k][table-1], v.argsFor(k)...)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", sqlNames[k], err)
	}
	if v.sink != nil {
		if n == 0 {
			st = none
		}
		v.sink.Statement(v.sidx[st], t0, v.sink.Now())
	}
	return n, nil
}

// control sends BEGIN or COMMIT as text (no arguments: one round trip on every driver).
func (v *VU) control(ctx context.Context, sql string, st int) error {
	t0 := v.clock()
	if _, err := v.c.Exec(ctx, sql); err != nil {
		return err
	}
	if v.sink != nil {
		v.sink.Statement(v.sidx[st], t0, v.sink.Now())
	}
	return nil
}

// tmplPart is a piece of statement text followed by the cell that fills the placeholder after it
// (cell -1: none, the last piece).
type tmplPart struct {
	text string
	cell cell
}

// literal is the statement with its values written in, for --protocol simple (sysbench's
// con:query(string.format(…)) in oltp_insert.lua). The values are integers and strings of digits
// and dashes, so quoting them needs no escaping.
func (v *VU) literal(k sqlKind, table int) string {
	b := v.qbuf[:0]
	for _, p := range v.tmpl[k][table-1] {
		b = append(b, p.text...)
		switch p.cell {
		case cellI0:
			b = strconv.AppendInt(b, v.ci[0], 10)
		case cellI1:
			b = strconv.AppendInt(b, v.ci[1], 10)
		case cellC:
			b = append(append(append(b, '\''), v.cbuf...), '\'')
		case cellPad:
			b = append(append(append(b, '\''), v.padbuf...), '\'')
		}
	}
	v.qbuf = b
	return string(b)
}

// splitPlaceholders cuts a statement at its placeholders ($n or ?), which follow the layout's order.
func splitPlaceholders(q string, layout []cell) []tmplPart {
	var parts []tmplPart
	start, k := 0, 0
	for i := 0; i < len(q); i++ {
		end := -1
		switch {
		case q[i] == '?':
			end = i + 1
		case q[i] == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			end = i + 1
			for end < len(q) && q[end] >= '0' && q[end] <= '9' {
				end++
			}
		}
		if end < 0 {
			continue
		}
		c := cell(-1)
		if k < len(layout) {
			c = layout[k]
		}
		if n, err := strconv.Atoi(q[i+1 : end]); err == nil && n >= 1 && n <= len(layout) {
			c = layout[n-1] // $n names its parameter
		}
		parts = append(parts, tmplPart{text: q[start:i], cell: c})
		k++
		start = end
		i = end - 1
	}
	return append(parts, tmplPart{text: q[start:], cell: -1})
}

// isDuplicateKey recognizes a unique-key violation on each target: SQLSTATE 23505 (pgx's PgError),
// MySQL's error 1062, SQLite's UNIQUE constraint.
func isDuplicateKey(err error) bool {
	var s interface{ SQLState() string }
	if errors.As(err, &s) {
		return s.SQLState() == "23505"
	}
	m := err.Error()
	return strings.Contains(m, "Error 1062") || strings.Contains(m, "UNIQUE constraint failed")
}

// textBuf receives a text column into a buffer it reuses: a Cells driver through its BytesDest,
// database/sql through Scan.
type textBuf struct{ b []byte }

// Scan implements sql.Scanner.
func (t *textBuf) Scan(src any) error {
	switch s := src.(type) {
	case []byte:
		t.b = append(t.b[:0], s...)
	case string:
		t.b = append(t.b[:0], s...)
	case nil:
		t.b = t.b[:0]
	default:
		return fmt.Errorf("cannot scan %T into a text column", src)
	}
	return nil
}

// intBuf receives SUM(k), which is NULL over a range of deleted rows, and a decimal on MySQL,
// through a target.IntScanner or a Cells driver's NullIntDest.
type intBuf struct {
	v     int64
	valid bool
}
