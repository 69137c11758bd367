package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
)

// Server-side mode (--mode procs): each transaction is one call of a function (PostgreSQL) or
// stored procedure (MySQL/MariaDB) from sql/<dialect>/procs.sql, one round trip, with the same
// inputs the client-SQL mode draws. The calls are in sql/<dialect>/calls.sql.

func (v *VU) bindProcs(ctx context.Context) error {
	calls, err := stmtMap(v.dialect, "calls.sql")
	if err != nil {
		return fmt.Errorf("--mode procs is not available for %s: %w", v.dialect, err)
	}
	for name, q := range calls {
		if err := v.c.Prepare(ctx, name, q); err != nil {
			return err
		}
		v.q[name] = q
	}
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
	pg := v.dialect == "postgres"
	var out int64
	call := func(name string, args ...any) error {
		if pg {
			// Every function returns one integer (or the New-Order total, read as text).
			var res any
			err := v.c.QueryRow(ctx, name, args...).Scan(&res)
			if n, ok := res.(int32); ok {
				out = int64(n)
			}
			return err
		}
		_, err := v.c.Exec(ctx, name, args...)
		if err != nil && v.dialect == "mysql" && !strings.Contains(err.Error(), target.RollbackMarker) {
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
		items := make([]int, len(v.lines))
		supply := make([]int, len(v.lines))
		qty := make([]int, len(v.lines))
		for i, l := range v.lines {
			items[i], supply[i], qty[i] = l.item, l.supply, l.qty
		}
		if pg {
			err = call("p_neword", v.homeW, v.d, v.cid, v.allLocal, toInt32(items), toInt32(supply), toInt32(qty))
		} else {
			err = call("p_neword", v.homeW, v.d, v.cid, v.allLocal, len(items),
				string(intList(nil, items)), string(intList(nil, supply)), string(intList(nil, qty)))
		}
	case TxPayment:
		err = call("p_payment", v.homeW, v.d, v.cw, v.cd, v.cid, boolInt(v.byName), string(v.last), v.amount)
	case TxOrderStatus:
		err = call("p_ostat", v.cw, v.cd, v.cid, boolInt(v.byName), string(v.last))
	case TxDelivery:
		err = call("p_delivery", v.homeW, v.carrier)
		if err == nil && pg {
			v.DeliverySkips.Add(out) // districts without an undelivered order
		}
	case TxStockLevel:
		err = call("p_slev", v.homeW, v.dist, v.threshold)
	}
	if err != nil && strings.Contains(err.Error(), target.RollbackMarker) {
		return true, nil
	}
	return false, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func toInt32(xs []int) []int32 {
	out := make([]int32, len(xs))
	for i, x := range xs {
		out[i] = int32(x)
	}
	return out
}
