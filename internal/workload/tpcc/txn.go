package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Transaction types, in the order of the result tables.
const (
	TxNewOrder = iota
	TxPayment
	TxOrderStatus
	TxDelivery
	TxStockLevel
)

// TxnNames are the types' names in results.
var TxnNames = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// txnLabels name the types on the progress line, which has room for five short names.
var txnLabels = []string{"NO", "PAY", "OS", "DL", "SL"}

// The deck of clause 5.2.4: 10 New-Order, 10 Payment, 1 each of the others, shuffled per pass.
var deckCards = [23]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4}

// Keying times and mean think times in seconds (clause 5.2.5.7).
var (
	keyingSec = [5]float64{18, 3, 2, 2, 2}
	thinkSec  = [5]float64{12, 12, 10, 5, 5}
)

// VUConfig configures the VUs.
type VUConfig struct {
	Mode          string // "sql" or "procs"
	AllWarehouses bool
	Seed          uint64
	Meta          Meta
	Run           Constants
	// Replicas, when not nil, take the read-only transactions (Order-Status, Stock-Level): each
	// VU holds a connection to one of them beside its primary's (docs/tpcc.md#replicas).
	Replicas *target.Replicated
}

// Mode names.
const (
	ModeSQL   = "sql"
	ModeProcs = "procs"
)

// Deck is a terminal's shuffled card deck.
type Deck struct {
	cards [23]int
	pos   int
	r     *rand.Rand
}

// NewDeck returns a deck that draws from r.
func NewDeck(r *rand.Rand) *Deck {
	d := &Deck{cards: deckCards, pos: len(deckCards), r: r}
	return d
}

// Next returns the next card, reshuffling after the last.
func (d *Deck) Next() int {
	if d.pos == len(d.cards) {
		d.r.Shuffle(len(d.cards), func(i, j int) { d.cards[i], d.cards[j] = d.cards[j], d.cards[i] })
		d.pos = 0
	}
	c := d.cards[d.pos]
	d.pos++
	return c
}

type line struct {
	num    int // ol_number, in the order drawn
	item   int
	supply int
	qty    int
	price  int64
	remote int
	sqty   int64
	data   string
	dist   string
}

// VU is one TPC-C terminal.
type VU struct {
	opt        VUConfig
	dialect    target.Dialect
	q          map[string]string
	c          target.Conn
	r          *rand.Rand
	deck       *Deck
	w, dist    int // home warehouse and the Stock-Level district
	warehouses int
	typ        int
	prepared   map[string]bool

	// inputs of the transaction in hand
	homeW         int
	d, cw, cd     int
	cid           int
	byName        bool
	last          []byte
	lines         []line
	allLocal      int
	rollback      bool
	amount        int64
	carrier       int
	threshold     int
	seen          map[int]bool
	buf           []byte
	args          []any
	sink          [14]any           // display-only columns are scanned here and dropped
	sinkPtrs      []any             // pointers into sink, built once: no allocation per Payment
	tc            target.TextCaller // --mode procs on PostgreSQL: calls without allocation
	params        [8][]byte         // the call's parameters as text, reused
	out           []byte            // the call's result as text
	DeliverySkips atomic.Int64      // read by the engine while abandoned VUs may still run

	// With replicas: the primary's and the replica's connection, each with its prepared
	// statements and call path; Do points c, prepared and tc at the one the transaction goes to.
	id           int
	pc, rc       target.Conn
	pprep, rprep map[string]bool
	ptc, rtc     target.TextCaller
}

// NewVU makes terminal id: home warehouse and district spread evenly over the VUs.
func NewVU(id int, dialect target.Dialect, opt VUConfig) (*VU, error) {
	q, err := txnStmts(dialect)
	if err != nil {
		return nil, err
	}
	W := opt.Meta.Warehouses
	r := newRand(opt.Seed, uint64(id)+1<<32)
	v := &VU{opt: opt, dialect: dialect, q: q, r: r, deck: NewDeck(r), warehouses: W, id: id,
		w: id%W + 1, dist: (id/W)%districtsPerW + 1, seen: map[int]bool{}, prepared: map[string]bool{}}
	for i := range v.sink {
		v.sinkPtrs = append(v.sinkPtrs, &v.sink[i])
	}
	return v, nil
}

// txnStmts are the dialect's transaction statements, parsed once and shared read-only by every
// VU: 10,000 terminals would otherwise hold 10,000 copies of the SQL text (bindProcs copies the
// map before it adds the calls).
func txnStmts(d target.Dialect) (map[string]string, error) {
	key := strings.Join(d.Chain(), "/")
	if m, ok := txnStmtCache.Load(key); ok {
		return m.(map[string]string), nil
	}
	m, err := stmtMap(d, "txn.sql")
	if err != nil {
		return nil, err
	}
	txnStmtCache.Store(key, m)
	return m, nil
}

var txnStmtCache sync.Map

// Bind prepares every fixed statement on c; statements with a {{row}} or {{each}}
// template are prepared on first use. With replicas, it opens the VU's replica connection (again)
// and prepares them there too.
func (v *VU) Bind(ctx context.Context, c target.Conn) error {
	if err := v.bind(ctx, c); err != nil || v.opt.Replicas == nil {
		return err
	}
	pc, pp, ptc := v.c, v.prepared, v.tc
	if v.rc != nil {
		v.opt.Replicas.CloseReplicaConn(v.rc)
		v.rc = nil
	}
	rc, _, err := v.opt.Replicas.ReplicaConn(ctx, v.id)
	if err != nil {
		return err
	}
	if err := v.bind(ctx, rc); err == nil {
		err = v.opt.Replicas.Publish(ctx, rc)
	}
	if err != nil {
		v.opt.Replicas.CloseReplicaConn(rc)
		return err
	}
	v.rc, v.rprep, v.rtc = rc, v.prepared, v.tc
	v.pc, v.pprep, v.ptc = pc, pp, ptc
	v.c, v.prepared, v.tc = pc, pp, ptc
	return nil
}

// route points the VU at the connection its transaction in hand goes to: a replica's for the
// read-only ones, when it has one.
func (v *VU) route() {
	if v.typ == TxOrderStatus || v.typ == TxStockLevel {
		v.c, v.prepared, v.tc = v.rc, v.rprep, v.rtc
	} else {
		v.c, v.prepared, v.tc = v.pc, v.pprep, v.ptc
	}
}

func (v *VU) bind(ctx context.Context, c target.Conn) error {
	v.c = c
	v.prepared = map[string]bool{}
	if v.opt.Mode == ModeProcs {
		return v.bindProcs(ctx)
	}
	if it, ok := c.(target.ImplicitTx); ok {
		it.SetImplicitTx(true) // no round trip for BEGIN, as BenchBase's JDBC drivers do
	}
	for name, q := range v.q {
		if strings.Contains(q, "{{") {
			continue
		}
		if err := c.Prepare(ctx, name, q); err != nil {
			return err
		}
		v.prepared[name] = true
	}
	return nil
}

// stmt returns the name of the prepared statement, expanding and preparing a template for n rows.
func (v *VU) stmt(ctx context.Context, name string, n int) (string, error) {
	key := name + "#" + strconv.Itoa(n)
	if v.prepared[key] {
		return key, nil
	}
	q, err := ExpandRows(v.dialect, v.q[name], n)
	if err != nil {
		return "", err
	}
	if err := v.c.Prepare(ctx, key, q); err != nil {
		return "", err
	}
	v.prepared[key] = true
	return key, nil
}

// ExpandRows repeats each "{{row …}}" part of q n times joined by commas, and each "{{each …}}"
// part n times joined by spaces (for CASE … WHEN arms). On PostgreSQL every ? becomes $k, numbered
// on from the statement's highest $n, in textual order: the arguments follow the text.
func ExpandRows(d target.Dialect, q string, n int) (string, error) {
	if !strings.Contains(q, "{{") {
		return q, nil
	}
	next := 1
	if d.Dollar {
		for k := 1; k < 100; k++ {
			if strings.Contains(q, "$"+strconv.Itoa(k)) {
				next = k + 1
			}
		}
	}
	var b strings.Builder
	emit := func(s string) {
		for _, ch := range s {
			if ch == '?' && d.Dollar {
				b.WriteString("$" + strconv.Itoa(next))
				next++
				continue
			}
			b.WriteRune(ch)
		}
	}
	for {
		i := strings.Index(q, "{{")
		if i < 0 {
			emit(q)
			return b.String(), nil
		}
		emit(q[:i])
		j := strings.Index(q[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated {{ in %q", q)
		}
		body, sep := q[i+2:i+j], ", "
		switch {
		case strings.HasPrefix(body, "row "):
			body = body[4:]
		case strings.HasPrefix(body, "each "):
			body, sep = body[5:], " "
		default:
			return "", fmt.Errorf("unknown template %q", body)
		}
		for r := 0; r < n; r++ {
			if r > 0 {
				b.WriteString(sep)
			}
			emit(body)
		}
		q = q[i+j+2:]
	}
}

func (v *VU) has(name string) bool {
	_, ok := v.q[name]
	return ok
}

// Keying is the spec's minimum keying time for the type.
func (v *VU) Keying(typ int) time.Duration {
	return time.Duration(keyingSec[typ] * float64(time.Second))
}

// Think is a negative exponential think time with the type's mean, truncated at 10 times the mean.
func (v *VU) Think(typ int) time.Duration {
	mean := thinkSec[typ]
	t := -math.Log(1-v.r.Float64()) * mean
	return time.Duration(min(t, 10*mean) * float64(time.Second))
}

func (v *VU) otherWarehouse() int {
	if v.warehouses == 1 {
		return v.homeW
	}
	o := uniform(v.r, 1, v.warehouses-1)
	if o >= v.homeW {
		o++
	}
	return o
}

// Next draws the next card and its inputs (clause 2.x.1).
func (v *VU) Next() int {
	v.typ = v.deck.Next()
	v.homeW = v.w
	if v.opt.AllWarehouses {
		v.homeW = uniform(v.r, 1, v.warehouses)
	}
	rc := v.opt.Run
	switch v.typ {
	case TxNewOrder:
		v.d = uniform(v.r, 1, districtsPerW)
		v.cid = NURand(v.r, aCID, rc.CID, 1, customersPerD)
		n := uniform(v.r, minOrderLines, maxOrderLines)
		v.rollback = uniform(v.r, 1, 100) == 1
		v.lines = v.lines[:0]
		clear(v.seen)
		v.allLocal = 1
		for k := 0; k < n; k++ {
			var item int
			if v.rollback && k == n-1 {
				item = invalidItemID
			} else {
				// Items within one order are distinct (as in CockroachDB's and go-tpc's drivers), so
				// each stock row is locked and updated once per order.
				for {
					item = NURand(v.r, aItem, rc.Item, 1, numItems)
					if !v.seen[item] {
						break
					}
				}
			}
			v.seen[item] = true
			l := line{num: k + 1, item: item, supply: v.homeW, qty: uniform(v.r, 1, 10)}
			if v.warehouses > 1 && uniform(v.r, 1, 100) == 1 {
				l.supply = v.otherWarehouse()
				l.remote = 1
				v.allLocal = 0
			}
			v.lines = append(v.lines, l)
		}
	case TxPayment:
		v.d = uniform(v.r, 1, districtsPerW)
		if uniform(v.r, 1, 100) <= 85 {
			v.cw, v.cd = v.homeW, v.d
		} else {
			v.cw, v.cd = v.otherWarehouse(), uniform(v.r, 1, districtsPerW)
		}
		v.drawCustomer()
		v.amount = int64(uniform(v.r, 100, 500_000))
	case TxOrderStatus:
		v.d = uniform(v.r, 1, districtsPerW)
		v.cw, v.cd = v.homeW, v.d
		v.drawCustomer()
	case TxDelivery:
		v.carrier = uniform(v.r, 1, 10)
	case TxStockLevel:
		v.threshold = uniform(v.r, 10, 20)
	}
	return v.typ
}

func (v *VU) drawCustomer() {
	v.byName = uniform(v.r, 1, 100) <= 60
	if v.byName {
		v.last = appendLastName(v.last[:0], NURand(v.r, aCLast, v.opt.Run.CLast, 0, 999))
		v.cid = 0
	} else {
		v.cid = NURand(v.r, aCID, v.opt.Run.CID, 1, customersPerD)
	}
}

// errRollback is the New-Order's requested rollback (an unused item number).
var errRollback = errors.New(target.RollbackMarker)

// Do runs the transaction in hand once.
func (v *VU) Do(ctx context.Context) (bool, error) {
	if v.rc != nil {
		v.route()
	}
	if v.opt.Mode == ModeProcs {
		return v.doProc(ctx)
	}
	readOnly := v.typ == TxOrderStatus || v.typ == TxStockLevel
	if err := v.c.Begin(ctx, readOnly); err != nil {
		return false, err
	}
	var err error
	switch v.typ {
	case TxNewOrder:
		err = v.newOrder(ctx)
	case TxPayment:
		err = v.payment(ctx)
	case TxOrderStatus:
		err = v.orderStatus(ctx)
	case TxDelivery:
		err = v.delivery(ctx)
	case TxStockLevel:
		err = v.stockLevel(ctx)
	}
	if err == errRollback {
		if rerr := v.c.Rollback(ctx); rerr != nil {
			return false, rerr
		}
		return true, nil
	}
	if err != nil {
		_ = v.c.Rollback(ctx)
		return false, err
	}
	return false, v.c.Commit(ctx)
}

func (v *VU) newOrder(ctx context.Context) error {
	w, d := v.homeW, v.d
	var discount, wtax, dtax float64
	var clast, credit string
	if err := v.c.QueryRow(ctx, "no_wc", w, d, v.cid).Scan(&discount, &clast, &credit, &wtax); err != nil {
		return fmt.Errorf("new_order customer: %w", err)
	}
	var oid int64
	if v.has("no_dist_sel") {
		if err := v.c.QueryRow(ctx, "no_dist_sel", w, d).Scan(&oid, &dtax); err != nil {
			return fmt.Errorf("new_order district: %w", err)
		}
		if _, err := v.c.Exec(ctx, "no_dist", w, d); err != nil {
			return err
		}
	} else if err := v.c.QueryRow(ctx, "no_dist", w, d).Scan(&oid, &dtax); err != nil {
		return fmt.Errorf("new_order district: %w", err)
	}
	n := len(v.lines)
	if _, err := v.c.Exec(ctx, "no_ins_order", oid, d, w, v.cid, n, v.allLocal); err != nil {
		return err
	}
	if _, err := v.c.Exec(ctx, "no_ins_new", oid, d, w); err != nil {
		return err
	}
	// Items: one statement for all lines.
	name, err := v.stmt(ctx, "no_items", n)
	if err != nil {
		return err
	}
	args := v.args[:0]
	for _, l := range v.lines {
		args = append(args, l.item)
	}
	rows, err := v.c.Query(ctx, name, args...)
	if err != nil {
		return err
	}
	found := 0
	for rows.Next() {
		var id int
		var price int64
		var iname, idata string
		if err := rows.Scan(&id, &price, &iname, &idata); err != nil {
			rows.Close()
			return err
		}
		for k := range v.lines {
			if v.lines[k].item == id {
				v.lines[k].price = price
				v.lines[k].data = idata
				found++
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if found < n {
		return errRollback // clause 2.4.2.3: an unused item number rolls the transaction back
	}
	// Stock: lock all rows in key order with one statement.
	name, err = v.stmt(ctx, "no_stock", n)
	if err != nil {
		return err
	}
	args = append(args[:0], d)
	for _, l := range v.lines {
		args = append(args, l.supply, l.item)
	}
	rows, err = v.c.Query(ctx, name, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		var iid, sw int
		var qty int64
		var sdata, sdist string
		if err := rows.Scan(&iid, &sw, &qty, &sdata, &sdist); err != nil {
			rows.Close()
			return err
		}
		for k := range v.lines {
			if v.lines[k].item == iid && v.lines[k].supply == sw {
				v.lines[k].sqty = qty
				v.lines[k].dist = sdist
				v.lines[k].data = brandGeneric(v.lines[k].data, sdata)
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// Stock: one UPDATE for all lines. The rows are locked already, so the new quantities are
	// computed here (clause 2.4.2.2) and the statement only writes them; items are distinct within
	// an order, so s_i_id names the line.
	var total int64
	name, err = v.stmt(ctx, "no_stock_upd", n)
	if err != nil {
		return err
	}
	args = args[:0]
	for _, l := range v.lines {
		q := l.sqty
		if q >= int64(l.qty)+10 {
			q -= int64(l.qty)
		} else {
			q = q - int64(l.qty) + 91
		}
		args = append(args, l.item, q)
		total += int64(l.qty) * l.price
	}
	for _, l := range v.lines {
		args = append(args, l.item, l.qty)
	}
	args = append(args, w)
	for _, l := range v.lines {
		args = append(args, l.supply, l.item)
	}
	if got, err := v.c.Exec(ctx, name, args...); err != nil {
		return err
	} else if got != int64(n) {
		return fmt.Errorf("new_order stock: updated %d rows of %d", got, n)
	}
	name, err = v.stmt(ctx, "no_ins_lines", n)
	if err != nil {
		return err
	}
	args = args[:0]
	for _, l := range v.lines {
		args = append(args, oid, d, w, l.num, l.item, l.supply, l.qty, int64(l.qty)*l.price, l.dist)
	}
	v.args = args
	if _, err := v.c.Exec(ctx, name, args...); err != nil {
		return err
	}
	// The terminal's total (clause 2.4.2.2); computed as the spec says, displayed nowhere.
	_ = float64(total) * (1 - discount) * (1 + wtax + dtax)
	return nil
}

// brandGeneric is "B" when both I_DATA and S_DATA contain "ORIGINAL", else "G" (clause 2.4.2.2).
func brandGeneric(idata, sdata string) string {
	if strings.Contains(idata, "ORIGINAL") && strings.Contains(sdata, "ORIGINAL") {
		return "B"
	}
	return "G"
}

// customerByName returns the customer at position ceil(n/2) of those with the last name, sorted by
// first name (clause 2.5.2.2).
func (v *VU) customerByName(ctx context.Context, w, d int) (int, error) {
	rows, err := v.c.Query(ctx, "cust_by_name", w, d, string(v.last))
	if err != nil {
		return 0, err
	}
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("no customer named %s in warehouse %d district %d", v.last, w, d)
	}
	return ids[(len(ids)-1)/2], nil
}

func (v *VU) payment(ctx context.Context) error {
	w, d := v.homeW, v.d
	sink := &v.sink
	ptrs := func(n int) []any { return v.sinkPtrs[:n] }
	if v.has("pay_wh_sel") {
		if _, err := v.c.Exec(ctx, "pay_wh", v.amount, w); err != nil {
			return err
		}
		if err := v.c.QueryRow(ctx, "pay_wh_sel", w).Scan(ptrs(6)...); err != nil {
			return err
		}
	} else if err := v.c.QueryRow(ctx, "pay_wh", v.amount, w).Scan(ptrs(6)...); err != nil {
		return err
	}
	wname, _ := sink[0].(string)
	if b, ok := sink[0].([]byte); ok {
		wname = string(b)
	}
	if v.has("pay_dist_sel") {
		if _, err := v.c.Exec(ctx, "pay_dist", v.amount, w, d); err != nil {
			return err
		}
		if err := v.c.QueryRow(ctx, "pay_dist_sel", w, d).Scan(ptrs(6)...); err != nil {
			return err
		}
	} else if err := v.c.QueryRow(ctx, "pay_dist", v.amount, w, d).Scan(ptrs(6)...); err != nil {
		return err
	}
	dname, _ := sink[0].(string)
	if b, ok := sink[0].([]byte); ok {
		dname = string(b)
	}
	cid := v.cid
	if v.byName {
		var err error
		if cid, err = v.customerByName(ctx, v.cw, v.cd); err != nil {
			return err
		}
	}
	// The C_DATA prefix for bad-credit customers (clause 2.5.2.2).
	b := v.buf[:0]
	for _, n := range []int{cid, v.cd, v.cw, d, w} {
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ' ')
	}
	b = target.AppendFixed(b, v.amount, 2)
	b = append(b, ' ')
	v.buf = b
	prefix := string(b)
	if v.has("pay_cust_sel") {
		if err := v.c.QueryRow(ctx, "pay_cust_sel", v.cw, v.cd, cid).Scan(ptrs(14)...); err != nil {
			return err
		}
		if _, err := v.c.Exec(ctx, "pay_cust", v.amount, v.amount, prefix, v.cw, v.cd, cid); err != nil {
			return err
		}
	} else if err := v.c.QueryRow(ctx, "pay_cust", v.amount, v.amount, prefix, v.cw, v.cd, cid).Scan(ptrs(14)...); err != nil {
		return err
	}
	if _, err := v.c.Exec(ctx, "pay_hist", cid, v.cd, v.cw, d, w, v.amount, wname+"    "+dname); err != nil {
		return err
	}
	return nil
}

func (v *VU) orderStatus(ctx context.Context) error {
	w, d := v.cw, v.cd
	cid := v.cid
	if v.byName {
		var err error
		if cid, err = v.customerByName(ctx, w, d); err != nil {
			return err
		}
	}
	var s1, s2, s3, s4 any
	if err := v.c.QueryRow(ctx, "os_cust", w, d, cid).Scan(&s1, &s2, &s3, &s4); err != nil {
		return fmt.Errorf("order_status customer: %w", err)
	}
	var oid int64
	if err := v.c.QueryRow(ctx, "os_order", w, d, cid).Scan(&oid, &s1, &s2); err != nil {
		if err == target.ErrNoRows {
			return nil // a customer without orders has nothing to show
		}
		return err
	}
	rows, err := v.c.Query(ctx, "os_lines", w, d, oid)
	if err != nil {
		return err
	}
	var s5 any
	for rows.Next() {
		if err := rows.Scan(&s1, &s2, &s3, &s4, &s5); err != nil {
			rows.Close()
			return err
		}
	}
	rows.Close()
	return rows.Err()
}

func (v *VU) delivery(ctx context.Context) error {
	w := v.homeW
	for d := 1; d <= districtsPerW; d++ {
		var oid int64
		var err error
		if v.has("dl_new_sel") {
			err = v.c.QueryRow(ctx, "dl_new_sel", w, d).Scan(&oid)
			if err == nil {
				_, err = v.c.Exec(ctx, "dl_new", w, d, oid)
			}
		} else {
			err = v.c.QueryRow(ctx, "dl_new", w, d, w, d).Scan(&oid)
		}
		if err == target.ErrNoRows {
			v.DeliverySkips.Add(1) // no undelivered order in this district (clause 2.7.4.2)
			continue
		}
		if err != nil {
			return fmt.Errorf("delivery new_order: %w", err)
		}
		var cid int64
		if v.has("dl_order_sel") {
			if err := v.c.QueryRow(ctx, "dl_order_sel", w, d, oid).Scan(&cid); err != nil {
				return err
			}
			if _, err := v.c.Exec(ctx, "dl_order", v.carrier, w, d, oid); err != nil {
				return err
			}
		} else if err := v.c.QueryRow(ctx, "dl_order", v.carrier, w, d, oid).Scan(&cid); err != nil {
			return fmt.Errorf("delivery order: %w", err)
		}
		if _, err := v.c.Exec(ctx, "dl_lines", w, d, oid); err != nil {
			return err
		}
		if _, err := v.c.Exec(ctx, "dl_cust", w, d, oid, w, d, cid); err != nil {
			return err
		}
	}
	return nil
}

func (v *VU) stockLevel(ctx context.Context) error {
	var next, count int64
	if err := v.c.QueryRow(ctx, "sl_next", v.homeW, v.dist).Scan(&next); err != nil {
		return err
	}
	return v.c.QueryRow(ctx, "sl_count", v.homeW, v.dist, next, next-20, v.homeW, v.threshold).Scan(&count)
}

// UseConn makes the terminal's next Do run on the connection conn was bound to, with the
// statements prepared on it (workload.Pooled): terminals over pooled connections never Bind.
func (v *VU) UseConn(conn workload.VU) {
	x := conn.(*VU)
	v.c, v.prepared, v.tc, v.q = x.c, x.prepared, x.tc, x.q
	v.pc, v.pprep, v.ptc, v.rc, v.rprep, v.rtc = x.pc, x.pprep, x.ptc, x.rc, x.rprep, x.rtc
}
