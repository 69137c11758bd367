package dbgen

import (
	"math"
	"strconv"
)

// Seeds, bounds and average lengths below are dbgen's (dss.h, dists.dss and the seed table in
// driver.c), in the per-column form of the Java/Rust ports.

// randomText is a comment: a random slice of the text pool, 0.4× to 1.6× the average length.
type randomText struct {
	r        rowRand
	min, max int32
}

func newRandomText(seed int64, avg float64, rowsPerUnit int32) randomText {
	return randomText{r: newRowRand(seed, 2*rowsPerUnit), min: int32(avg * 0.4), max: int32(avg * 1.6)}
}

func (t *randomText) appendTo(b, pool []byte) []byte {
	off := t.r.nextInt(0, int32(len(pool))-t.max)
	n := t.r.nextInt(t.min, t.max)
	return append(b, pool[off:off+n]...)
}

const alnumChars = "0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,"

// alnum is a v-string (addresses): each draw over 0..2³¹−1 yields five 6-bit characters.
type alnum struct {
	r        rowRand
	min, max int32
}

func newAlnum(seed int64, avg int32) alnum {
	return alnum{r: newRowRand(seed, 9), min: int32(float64(avg) * 0.4), max: int32(float64(avg) * 1.6)}
}

func (a *alnum) appendTo(b []byte) []byte {
	n := a.r.nextInt(a.min, a.max)
	var ci int64
	for i := int32(0); i < n; i++ {
		if i%5 == 0 {
			ci = int64(a.r.nextInt(0, math.MaxInt32))
		}
		b = append(b, alnumChars[ci&0x3f])
		ci >>= 6
	}
	return b
}

type phone struct{ r rowRand }

func newPhone(seed int64) phone { return phone{newRowRand(seed, 3)} }

func (p *phone) appendTo(b []byte, nation int64) []byte {
	b = appendPad(b, 10+nation%90, 2)
	b = append(b, '-')
	b = appendPad(b, int64(p.r.nextInt(100, 999)), 3)
	b = append(b, '-')
	b = appendPad(b, int64(p.r.nextInt(100, 999)), 3)
	b = append(b, '-')
	return appendPad(b, int64(p.r.nextInt(1000, 9999)), 4)
}

type pickString struct {
	r rowRand
	d *dist
}

func newPick(seed int64, d *dist, rowsPerUnit int32) pickString {
	return pickString{newRowRand(seed, rowsPerUnit), d}
}

func (p *pickString) next() string { return p.d.random(&p.r) }

func appendPad(b []byte, v int64, width int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for v > 0 || i > len(tmp)-width {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, tmp[i:]...)
}

// appendMoney prints hundredths as dbgen does: "-0.50", "1234.05".
func appendMoney(b []byte, c int64) []byte {
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	return append(b, '.', byte('0'+c/10%10), byte('0'+c%10))
}

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

func partPrice(key int64) int64 { return 90000 + (key/10)%20001 + (key%1000)*100 }

// rowsFor scales a base row count as dbgen does: below SF 1 by whole thousandths
// (int(1000·sf)·base/1000, at least 1), from SF 1 on by the integer part of the scale factor.
func rowsFor(base int64, sf float64) int64 {
	if sf < 1 {
		return max(int64(int(1000*sf))*base/1000, 1)
	}
	return base * int64(sf)
}

// unitGen formats one generation unit: one row, or for partsupp a part's four rows, or for
// lineitem an order's lines. It returns the buffer and the number of rows written.
type unitGen interface {
	appendUnit(b []byte, unit int64) ([]byte, int)
}

// --- region and nation -----------------------------------------------------------------------

type regionGen struct {
	d       *dist
	comment randomText
	pool    []byte
}

func (g *regionGen) appendUnit(b []byte, i int64) ([]byte, int) {
	b = appendInt(b, i-1)
	b = append(b, '|')
	b = append(b, g.d.values[i-1]...)
	b = append(b, '|')
	b = g.comment.appendTo(b, g.pool)
	b = append(b, '|', '\n')
	g.comment.r.rowFinished()
	return b, 1
}

type nationGen struct {
	d       *dist
	comment randomText
	pool    []byte
}

func (g *nationGen) appendUnit(b []byte, i int64) ([]byte, int) {
	b = appendInt(b, i-1)
	b = append(b, '|')
	b = append(b, g.d.values[i-1]...)
	b = append(b, '|')
	b = appendInt(b, int64(g.d.weights[i-1]))
	b = append(b, '|')
	b = g.comment.appendTo(b, g.pool)
	b = append(b, '|', '\n')
	g.comment.r.rowFinished()
	return b, 1
}

// --- part ----------------------------------------------------------------------------------

type partGen struct {
	pool              []byte
	colors            *dist
	nameR             rowRand
	scratch           []string
	mfgr, brand, size boundedInt
	typ, container    pickString
	comment           randomText
}

func newPartGen(d *distributions, pool []byte) *partGen {
	return &partGen{
		pool: pool, colors: d.colors,
		nameR:     newRowRand(709314158, int32(len(d.colors.values))),
		scratch:   make([]string, len(d.colors.values)),
		mfgr:      newBoundedInt(1, 1, 5, 1),
		brand:     newBoundedInt(46831694, 1, 5, 1),
		typ:       newPick(1841581359, d.types, 1),
		size:      newBoundedInt(1193163244, 1, 50, 1),
		container: newPick(727633698, d.containers, 1),
		comment:   newRandomText(804159733, 14, 1),
	}
}

func (g *partGen) advance(n int64) {
	g.nameR.advanceRows(n)
	g.mfgr.advanceRows(n)
	g.brand.advanceRows(n)
	g.typ.r.advanceRows(n)
	g.size.advanceRows(n)
	g.container.r.advanceRows(n)
	g.comment.r.advanceRows(n)
}

func (g *partGen) appendUnit(b []byte, key int64) ([]byte, int) {
	b = appendInt(b, key)
	b = append(b, '|')
	// p_name: five distinct colours, a partial Fisher–Yates shuffle of the colour list.
	copy(g.scratch, g.colors.values)
	last := int32(len(g.scratch) - 1)
	for i := int32(0); i < 5; i++ {
		j := g.nameR.nextInt(i, last)
		g.scratch[i], g.scratch[j] = g.scratch[j], g.scratch[i]
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, g.scratch[i]...)
	}
	m := int64(g.mfgr.next())
	b = append(b, "|Manufacturer#"...)
	b = appendInt(b, m)
	b = append(b, "|Brand#"...)
	b = appendInt(b, m*10+int64(g.brand.next()))
	b = append(b, '|')
	b = append(b, g.typ.next()...)
	b = append(b, '|')
	b = appendInt(b, int64(g.size.next()))
	b = append(b, '|')
	b = append(b, g.container.next()...)
	b = append(b, '|')
	b = appendMoney(b, partPrice(key))
	b = append(b, '|')
	b = g.comment.appendTo(b, g.pool)
	b = append(b, '|', '\n')
	g.nameR.rowFinished()
	g.mfgr.rowFinished()
	g.brand.rowFinished()
	g.typ.r.rowFinished()
	g.size.rowFinished()
	g.container.r.rowFinished()
	g.comment.r.rowFinished()
	return b, 1
}

// --- supplier ------------------------------------------------------------------------------

type supplierGen struct {
	pool                                []byte
	address                             alnum
	nation, acctbal, bbbComment, bbbTyp boundedInt
	phone                               phone
	comment                             randomText
	bbbJunk, bbbOffset                  rowRand
}

func newSupplierGen(d *distributions, pool []byte) *supplierGen {
	return &supplierGen{
		pool:       pool,
		address:    newAlnum(706178559, 25),
		nation:     newBoundedInt(110356601, 0, int32(len(d.nations.values)-1), 1),
		phone:      newPhone(884434366),
		acctbal:    newBoundedInt(962338209, -99999, 999999, 1),
		comment:    newRandomText(1341315363, 63, 1),
		bbbComment: newBoundedInt(202794285, 1, 10000, 1),
		bbbJunk:    newRowRand(263032577, 1),
		bbbOffset:  newRowRand(715851524, 1),
		bbbTyp:     newBoundedInt(753643799, 0, 100, 1),
	}
}

func (g *supplierGen) advance(n int64) {
	g.address.r.advanceRows(n)
	g.nation.advanceRows(n)
	g.phone.r.advanceRows(n)
	g.acctbal.advanceRows(n)
	g.comment.r.advanceRows(n)
	g.bbbComment.advanceRows(n)
	g.bbbJunk.advanceRows(n)
	g.bbbOffset.advanceRows(n)
	g.bbbTyp.advanceRows(n)
}

const (
	bbbBase   = "Customer "
	bbbLength = len(bbbBase) + len("Complaints")
)

func (g *supplierGen) appendUnit(b []byte, key int64) ([]byte, int) {
	b = appendInt(b, key)
	b = append(b, "|Supplier#"...)
	b = appendPad(b, key, 9)
	b = append(b, '|')
	b = g.address.appendTo(b)
	b = append(b, '|')
	nation := int64(g.nation.next())
	b = appendInt(b, nation)
	b = append(b, '|')
	b = g.phone.appendTo(b, nation)
	b = append(b, '|')
	b = appendMoney(b, int64(g.acctbal.next()))
	b = append(b, '|')
	start := len(b)
	b = g.comment.appendTo(b, g.pool)
	// The Better Business Bureau comments Q16 looks for: in 10 suppliers per 10,000, part of the
	// comment is overwritten with "Customer …Complaints" or "Customer …Recommends".
	if g.bbbComment.next() <= 10 {
		c := b[start:]
		noise := int(g.bbbJunk.nextInt(0, int32(len(c)-bbbLength)))
		off := int(g.bbbOffset.nextInt(0, int32(len(c)-(bbbLength+noise))))
		typ := "Recommends"
		if g.bbbTyp.next() < 50 {
			typ = "Complaints"
		}
		copy(c[off:], bbbBase)
		copy(c[off+len(bbbBase)+noise:], typ)
	}
	b = append(b, '|', '\n')
	g.address.r.rowFinished()
	g.nation.rowFinished()
	g.phone.r.rowFinished()
	g.acctbal.rowFinished()
	g.comment.r.rowFinished()
	g.bbbComment.rowFinished()
	g.bbbJunk.rowFinished()
	g.bbbOffset.rowFinished()
	g.bbbTyp.rowFinished()
	return b, 1
}

// --- customer ------------------------------------------------------------------------------

type customerGen struct {
	pool            []byte
	address         alnum
	nation, acctbal boundedInt
	phone           phone
	segment         pickString
	comment         randomText
}

func newCustomerGen(d *distributions, pool []byte) *customerGen {
	return &customerGen{
		pool:    pool,
		address: newAlnum(881155353, 25),
		nation:  newBoundedInt(1489529863, 0, int32(len(d.nations.values)-1), 1),
		phone:   newPhone(1521138112),
		acctbal: newBoundedInt(298370230, -99999, 999999, 1),
		segment: newPick(1140279430, d.segments, 1),
		comment: newRandomText(1335826707, 73, 1),
	}
}

func (g *customerGen) advance(n int64) {
	g.address.r.advanceRows(n)
	g.nation.advanceRows(n)
	g.phone.r.advanceRows(n)
	g.acctbal.advanceRows(n)
	g.segment.r.advanceRows(n)
	g.comment.r.advanceRows(n)
}

func (g *customerGen) appendUnit(b []byte, key int64) ([]byte, int) {
	b = appendInt(b, key)
	b = append(b, "|Customer#"...)
	b = appendPad(b, key, 9)
	b = append(b, '|')
	b = g.address.appendTo(b)
	b = append(b, '|')
	nation := int64(g.nation.next())
	b = appendInt(b, nation)
	b = append(b, '|')
	b = g.phone.appendTo(b, nation)
	b = append(b, '|')
	b = appendMoney(b, int64(g.acctbal.next()))
	b = append(b, '|')
	b = append(b, g.segment.next()...)
	b = append(b, '|')
	b = g.comment.appendTo(b, g.pool)
	b = append(b, '|', '\n')
	g.address.r.rowFinished()
	g.nation.rowFinished()
	g.phone.r.rowFinished()
	g.acctbal.rowFinished()
	g.segment.r.rowFinished()
	g.comment.r.rowFinished()
	return b, 1
}

// --- partsupp ------------------------------------------------------------------------------

const suppliersPerPart = 4

type partsuppGen struct {
	pool      []byte
	suppliers int64
	qty, cost boundedInt
	comment   randomText
}

func newPartsuppGen(sf float64, pool []byte) *partsuppGen {
	return &partsuppGen{
		pool:      pool,
		suppliers: rowsFor(10000, sf),
		qty:       newBoundedInt(1671059989, 1, 9999, suppliersPerPart),
		cost:      newBoundedInt(1051288424, 100, 100000, suppliersPerPart),
		comment:   newRandomText(1961692154, 124, suppliersPerPart),
	}
}

func (g *partsuppGen) advance(n int64) {
	g.qty.advanceRows(n)
	g.cost.advanceRows(n)
	g.comment.r.advanceRows(n)
}

// partSupplier is the spec's formula for the i-th supplier of a part (clause 4.2.3).
func partSupplier(part, i, suppliers int64) int64 {
	return (part+i*(suppliers/suppliersPerPart+(part-1)/suppliers))%suppliers + 1
}

func (g *partsuppGen) appendUnit(b []byte, part int64) ([]byte, int) {
	for i := int64(0); i < suppliersPerPart; i++ {
		b = appendInt(b, part)
		b = append(b, '|')
		b = appendInt(b, partSupplier(part, i, g.suppliers))
		b = append(b, '|')
		b = appendInt(b, int64(g.qty.next()))
		b = append(b, '|')
		b = appendMoney(b, int64(g.cost.next()))
		b = append(b, '|')
		b = g.comment.appendTo(b, g.pool)
		b = append(b, '|', '\n')
	}
	g.qty.rowFinished()
	g.cost.rowFinished()
	g.comment.r.rowFinished()
	return b, suppliersPerPart
}

// --- orders and lineitem -------------------------------------------------------------------

const (
	shipDays     = 121 + 30 // latest ship date plus latest receipt, after the order date
	orderDateMax = minGenDate + (totalDates - shipDays - 1)
	linesMax     = 7
)

// orderKey is dbgen's mk_sparse: of every 32 keys the base data uses the first 8 (seq 0) and the
// refresh sets the next 8 (seq 1), so inserted orders never collide with loaded ones.
func orderKey(index, seq int64) int64 {
	return ((index>>3)<<2+seq)<<3 + index&7
}

// lineStreams are the per-line columns that orders also draws, to compute o_totalprice and
// o_orderstatus from the same values lineitem prints.
type lineStreams struct {
	qty, discount, tax, shipDate boundedInt
	partKey                      boundedLong
}

func newLineStreams(sf float64) lineStreams {
	return lineStreams{
		qty:      newBoundedInt(209208115, 1, 50, linesMax),
		discount: newBoundedInt(554590007, 0, 10, linesMax),
		tax:      newBoundedInt(721958466, 0, 8, linesMax),
		partKey:  newBoundedLong(1808217256, sf >= 30000, 1, rowsFor(200000, sf), linesMax),
		shipDate: newBoundedInt(1769349045, 1, 121, linesMax),
	}
}

func (l *lineStreams) advance(n int64) {
	l.qty.advanceRows(n)
	l.discount.advanceRows(n)
	l.tax.advanceRows(n)
	l.partKey.advanceRows(n)
	l.shipDate.advanceRows(n)
}

func (l *lineStreams) rowFinished() {
	l.qty.rowFinished()
	l.discount.rowFinished()
	l.tax.rowFinished()
	l.partKey.rowFinished()
	l.shipDate.rowFinished()
}

type ordersGen struct {
	seq                int64
	pool               []byte
	date, lines, clerk boundedInt
	cust               boundedLong
	maxCust            int64
	priority           pickString
	comment            randomText
	line               lineStreams
}

func newOrdersGen(sf float64, d *distributions, pool []byte) *ordersGen {
	maxClerk := int32(math.Max(sf*1000, 1000))
	return &ordersGen{
		pool:     pool,
		date:     newBoundedInt(1066728069, minGenDate, orderDateMax, 1),
		lines:    newBoundedInt(1434868289, 1, linesMax, 1),
		cust:     newBoundedLong(851767375, sf >= 30000, 1, rowsFor(150000, sf), 1),
		maxCust:  rowsFor(150000, sf),
		priority: newPick(591449447, d.priorities, 1),
		clerk:    newBoundedInt(1171034773, 1, maxClerk, 1),
		comment:  newRandomText(276090261, 49, 1),
		line:     newLineStreams(sf),
	}
}

func (g *ordersGen) advance(n int64) {
	g.date.advanceRows(n)
	g.lines.advanceRows(n)
	g.cust.advanceRows(n)
	g.priority.r.advanceRows(n)
	g.clerk.advanceRows(n)
	g.comment.r.advanceRows(n)
	g.line.advance(n)
}

func (g *ordersGen) appendUnit(b []byte, index int64) ([]byte, int) {
	date := g.date.next()
	// A third of the customers never order (clause 4.2.3): step off multiples of 3.
	cust := g.cust.next()
	delta := int64(1)
	for cust%3 == 0 {
		cust += delta
		cust = min(cust, g.maxCust)
		delta = -delta
	}
	var total int64
	shipped := int32(0)
	n := g.lines.next()
	for i := int32(0); i < n; i++ {
		q := int64(g.line.qty.next())
		disc := int64(g.line.discount.next())
		tax := int64(g.line.tax.next())
		ext := partPrice(g.line.partKey.next()) * q
		total += ext * (100 - disc) / 100 * (100 + tax) / 100
		if inPast(g.line.shipDate.next() + date) {
			shipped++
		}
	}
	status := byte('O')
	if shipped == n {
		status = 'F'
	} else if shipped > 0 {
		status = 'P'
	}
	b = appendInt(b, orderKey(index, g.seq))
	b = append(b, '|')
	b = appendInt(b, cust)
	b = append(b, '|', status, '|')
	b = appendMoney(b, total)
	b = append(b, '|')
	b = appendDate(b, date)
	b = append(b, '|')
	b = append(b, g.priority.next()...)
	b = append(b, "|Clerk#"...)
	b = appendPad(b, int64(g.clerk.next()), 9)
	b = append(b, "|0|"...)
	b = g.comment.appendTo(b, g.pool)
	b = append(b, '|', '\n')
	g.date.rowFinished()
	g.lines.rowFinished()
	g.cust.rowFinished()
	g.priority.r.rowFinished()
	g.clerk.rowFinished()
	g.comment.r.rowFinished()
	g.line.rowFinished()
	return b, 1
}

type lineitemGen struct {
	seq                        int64
	pool                       []byte
	suppliers                  int64
	date, lines                boundedInt
	line                       lineStreams
	suppNo, commit, receipt    boundedInt
	returnFlag, instruct, mode pickString
	comment                    randomText
}

func newLineitemGen(sf float64, d *distributions, pool []byte) *lineitemGen {
	return &lineitemGen{
		pool:       pool,
		suppliers:  rowsFor(10000, sf),
		date:       newBoundedInt(1066728069, minGenDate, orderDateMax, 1),
		lines:      newBoundedInt(1434868289, 1, linesMax, 1),
		line:       newLineStreams(sf),
		suppNo:     newBoundedInt(2095021727, 0, 3, linesMax),
		commit:     newBoundedInt(904914315, 30, 90, linesMax),
		receipt:    newBoundedInt(373135028, 1, 30, linesMax),
		returnFlag: newPick(717419739, d.returnFlags, linesMax),
		instruct:   newPick(1371272478, d.instructions, linesMax),
		mode:       newPick(675466456, d.modes, linesMax),
		comment:    newRandomText(1095462486, 27, linesMax),
	}
}

func (g *lineitemGen) advance(n int64) {
	g.date.advanceRows(n)
	g.lines.advanceRows(n)
	g.line.advance(n)
	g.suppNo.advanceRows(n)
	g.commit.advanceRows(n)
	g.receipt.advanceRows(n)
	g.returnFlag.r.advanceRows(n)
	g.instruct.r.advanceRows(n)
	g.mode.r.advanceRows(n)
	g.comment.r.advanceRows(n)
}

func (g *lineitemGen) appendUnit(b []byte, index int64) ([]byte, int) {
	date := g.date.next()
	n := g.lines.next()
	var key [20]byte
	k := appendInt(key[:0], orderKey(index, g.seq))
	for i := int32(1); i <= n; i++ {
		q := int64(g.line.qty.next())
		disc := int64(g.line.discount.next())
		tax := int64(g.line.tax.next())
		part := g.line.partKey.next()
		supp := partSupplier(part, int64(g.suppNo.next()), g.suppliers)
		ship := g.line.shipDate.next() + date
		commit := g.commit.next() + date
		receipt := g.receipt.next() + ship
		b = append(b, k...)
		b = append(b, '|')
		b = appendInt(b, part)
		b = append(b, '|')
		b = appendInt(b, supp)
		b = append(b, '|')
		b = appendInt(b, int64(i))
		b = append(b, '|')
		b = appendInt(b, q)
		b = append(b, '|')
		b = appendMoney(b, partPrice(part)*q)
		b = append(b, '|', '0', '.', byte('0'+disc/10), byte('0'+disc%10), '|',
			'0', '.', '0', byte('0'+tax), '|')
		if inPast(receipt) {
			b = append(b, g.returnFlag.next()...)
		} else {
			b = append(b, 'N')
		}
		if inPast(ship) {
			b = append(b, '|', 'F', '|')
		} else {
			b = append(b, '|', 'O', '|')
		}
		b = appendDate(b, ship)
		b = append(b, '|')
		b = appendDate(b, commit)
		b = append(b, '|')
		b = appendDate(b, receipt)
		b = append(b, '|')
		b = append(b, g.instruct.next()...)
		b = append(b, '|')
		b = append(b, g.mode.next()...)
		b = append(b, '|')
		b = g.comment.appendTo(b, g.pool)
		b = append(b, '|', '\n')
	}
	g.date.rowFinished()
	g.lines.rowFinished()
	g.line.rowFinished()
	g.suppNo.rowFinished()
	g.commit.rowFinished()
	g.receipt.rowFinished()
	g.returnFlag.r.rowFinished()
	g.instruct.r.rowFinished()
	g.mode.r.rowFinished()
	g.comment.r.rowFinished()
	return b, int(n)
}
