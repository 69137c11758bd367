package tpcc

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
)

// Server-side mode (--mode procs): each transaction is one call of a function (PostgreSQL) or
// stored procedure (MySQL/MariaDB) from sql/<dialect>/procs.sql, one round trip, with the same
// inputs the client-SQL mode draws. The calls are in sql/<dialect>/calls.sql.

func (v *VU) bindProcs(ctx context.Context) error {
	calls, err := stmtMap(v.dialect, "calls.sql")
	if err != nil {
		return fmt.Errorf("--mode procs is not available for %s: %w", v.dialect.Name, err)
	}
	v.q = maps.Clone(v.q) // the shared txnStmts stay as parsed
	for name, q := range calls {
		if err := v.c.Prepare(ctx, name, q); err != nil {
			return err
		}
		v.q[name] = q
	}
	v.tc, _ = v.c.(target.TextCaller)
	return nil
}

// intList renders ints as "1,2,3" for MySQL procedures, which take no arrays.
func intList(b []byte, xs []int) []byte {
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "%d", x)
	}
	return b
}

func (v *VU) doProc(ctx context.Context) (bool, error) {
	var err error
	if v.tc != nil {
		err = v.callText() // PostgreSQL
	} else {
		err = v.callMySQL(ctx)
	}
	if err != nil && strings.Contains(err.Error(), target.RollbackMarker) {
		return true, nil
	}
	return false, err
}

// callText makes the call through target.TextCaller (PostgreSQL): parameters in text format,
// arrays as {1,2,3}. Every function returns one value; Delivery's is the number of districts
// without an undelivered order.
func (v *VU) callText() error {
	p := &v.params
	n := 0
	put := func(xs ...int) {
		for _, x := range xs {
			p[n] = strconv.AppendInt(p[n][:0], int64(x), 10)
			n++
		}
	}
	putArray := func(get func(l line) int) {
		b := append(p[n][:0], '{')
		for i, l := range v.lines {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(get(l)), 10)
		}
		p[n] = append(b, '}')
		n++
	}
	var name string
	switch v.typ {
	case TxNewOrder:
		name = "p_neword"
		put(v.homeW, v.d, v.cid, v.allLocal)
		putArray(func(l line) int { return l.item })
		putArray(func(l line) int { return l.supply })
		putArray(func(l line) int { return l.qty })
	case TxPayment:
		name = "p_payment"
		put(v.homeW, v.d, v.cw, v.cd, v.cid, boolInt(v.byName))
		p[n] = append(p[n][:0], v.last...)
		p[n+1] = strconv.AppendInt(p[n+1][:0], v.amount, 10)
		n += 2
	case TxOrderStatus:
		name = "p_ostat"
		put(v.cw, v.cd, v.cid, boolInt(v.byName))
		p[n] = append(p[n][:0], v.last...)
		n++
	case TxDelivery:
		name = "p_delivery"
		put(v.homeW, v.carrier)
	case TxStockLevel:
		name = "p_slev"
		put(v.homeW, v.dist, v.threshold)
	}
	var err error
	v.out, err = v.tc.CallPrepared(name, p[:n], v.out[:0])
	if err == nil && v.typ == TxDelivery {
		skips, perr := strconv.Atoi(string(v.out)) // no allocation: the conversion does not escape
		if perr != nil {
			return fmt.Errorf("p_delivery returned %q, not a count", v.out)
		}
		v.DeliverySkips.Add(int64(skips))
	}
	return err
}

// callMySQL calls the stored procedure, which takes lists as comma-separated strings.
func (v *VU) callMySQL(ctx context.Context) error {
	call := func(name string, args ...any) error {
		_, err := v.c.Exec(ctx, name, args...)
		if err != nil && !strings.Contains(err.Error(), target.RollbackMarker) {
			// The procedures roll back on every SQL error, but a lost connection or a client-side
			// failure can leave a transaction open; end it before the next call. (Not after the
			// requested rollback: a second ROLLBACK would be counted in Com_rollback again.)
			_ = v.c.Rollback(ctx)
		}
		return err
	}
	var err error
	switch v.typ {
	case TxNewOrder:
		items, supply, qty := v.lineColumns()
		err = call("p_neword", v.homeW, v.d, v.cid, v.allLocal, len(items),
			string(intList(nil, items)), string(intList(nil, supply)), string(intList(nil, qty)))
	case TxPayment:
		err = call("p_payment", v.homeW, v.d, v.cw, v.cd, v.cid, boolInt(v.byName), string(v.last), v.amount)
	case TxOrderStatus:
		err = call("p_ostat", v.cw, v.cd, v.cid, boolInt(v.byName), string(v.last))
	case TxDelivery:
		err = call("p_delivery", v.homeW, v.carrier)
	case TxStockLevel:
		err = call("p_slev", v.homeW, v.dist, v.threshold)
	}
	return err
}

func (v *VU) lineColumns() (items, supply, qty []int) {
	items = make([]int, len(v.lines))
	supply = make([]int, len(v.lines))
	qty = make([]int, len(v.lines))
	for i, l := range v.lines {
		items[i], supply[i], qty[i] = l.item, l.supply, l.qty
	}
	return items, supply, qty
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
