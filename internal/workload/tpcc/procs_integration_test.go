package tpcc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestProcsEquivalence proves that --mode procs (the server-side functions and procedures of
// sql/<dialect>/procs.sql) has the same database effects as the client-SQL mode (txn.go): the same
// database, prepared twice with the same seed, is run through the same transactions (one VU, same
// run seed) once per mode, and fingerprints of every table (aggregates, and hashes of the rows a
// run can touch, timestamps aside) must be identical.
//
// The servers come from CAIRN_TEST_PG and CAIRN_TEST_MYSQL (testutil's defaults: cairn_test on the
// CI servers). An unreachable server skips its subtest, unless CAIRN_TEST_REQUIRE names it. The
// test database's TPC-C tables are dropped before and after (so packages must not share the
// database concurrently: CI runs go test -p 1).
func TestProcsEquivalence(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs PostgreSQL and MariaDB/MySQL servers")
	}
	for _, s := range testutil.Servers() { // a server skips, or fails when CAIRN_TEST_REQUIRE names it
		t.Run(s.Name, func(t *testing.T) { testProcsEquivalence(t, s.URL(t)) })
	}
}

const (
	procsPrepSeed = 20261122
	procsRunSeed  = 4242 // the first candidate; see pickRunSeed
	procsTxns     = 300
)

// procsWarehouses is 1 unless CAIRN_TEST_PROCS_WAREHOUSES says otherwise: with one warehouse there
// are no remote order lines or remote payments, so 2 covers more (and takes twice the load time).
func procsWarehouses(t *testing.T) int {
	w := 1
	if v := os.Getenv("CAIRN_TEST_PROCS_WAREHOUSES"); v != "" {
		if _, err := fmt.Sscan(v, &w); err != nil || w < 1 {
			t.Fatalf("CAIRN_TEST_PROCS_WAREHOUSES=%q: want a number >= 1", v)
		}
	}
	return w
}

// pickRunSeed returns the first run seed from procsRunSeed on whose transactions (drawn without a
// database: inputs never depend on results) include a requested New-Order rollback and, with
// more than one warehouse, a remote order line and a remote payment, so those paths are compared.
func pickRunSeed(t *testing.T, dialect target.Dialect, meta *Meta) (uint64, Constants) {
	t.Helper()
	for seed := uint64(procsRunSeed); seed < procsRunSeed+1000; seed++ {
		rc := RunConstants(newRand(seed, 1<<40), meta.Load)
		vu, err := NewVU(0, dialect, VUConfig{Mode: ModeSQL, Seed: seed, Meta: *meta, Run: rc})
		if err != nil {
			t.Fatal(err)
		}
		rollback, remoteLine, remotePay := false, false, false
		for i := 0; i < procsTxns; i++ {
			switch vu.Next() {
			case TxNewOrder:
				rollback = rollback || vu.rollback
				remoteLine = remoteLine || vu.allLocal == 0
			case TxPayment:
				remotePay = remotePay || vu.cw != vu.homeW
			}
		}
		if rollback && (meta.Warehouses == 1 || remoteLine && remotePay) {
			return seed, rc
		}
	}
	t.Fatal("no run seed covers the rollback and remote paths")
	return 0, Constants{}
}

func openTestTarget(t *testing.T, url string) target.Target {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tg, err := target.Open(ctx, url)
	if err != nil {
		t.Fatalf("open %s: %v", target.Redact(url), err)
	}
	return tg
}

// modeRun is what one mode's run produced.
type modeRun struct {
	initial, final map[string]string
	types          [5]int
	rollbacks      int
	seed           uint64
	elapsed        time.Duration
}

func testProcsEquivalence(t *testing.T, url string) {
	tg := openTestTarget(t, url)
	t.Cleanup(func() { tg.Close() }) // runs after the schema cleanup below (cleanups run last first)
	if !tg.Dialect().Procedures {
		t.Skipf("%s has no stored procedures to compare", tg.Name())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := Cleanup(ctx, tg); err != nil {
		t.Fatalf("cleanup before: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := Cleanup(ctx, tg); err != nil {
			t.Errorf("cleanup after: %v", err)
		}
	})

	sqlRun := runMode(ctx, t, tg, ModeSQL)
	procRun := runMode(ctx, t, tg, ModeProcs)
	t.Logf("%s, %d warehouse(s), run seed %d: %d transactions per mode (new_order %d, payment %d, order_status %d, delivery %d, stock_level %d; %d rolled back); sql %v, procs %v",
		tg.Name(), procsWarehouses(t), sqlRun.seed, procsTxns, sqlRun.types[0], sqlRun.types[1], sqlRun.types[2], sqlRun.types[3], sqlRun.types[4],
		sqlRun.rollbacks, sqlRun.elapsed.Round(time.Millisecond), procRun.elapsed.Round(time.Millisecond))

	if sqlRun.rollbacks == 0 {
		t.Errorf("the run has no New-Order rollback, so that path was not compared")
	}
	if sqlRun.rollbacks != procRun.rollbacks || sqlRun.types != procRun.types || sqlRun.seed != procRun.seed {
		t.Errorf("outcomes differ: sql %v types, %d rollbacks; procs %v types, %d rollbacks",
			sqlRun.types, sqlRun.rollbacks, procRun.types, procRun.rollbacks)
	}
	compareFingerprints(t, "initial state (sql prepare vs procs prepare)", sqlRun.initial, procRun.initial)
	compareFingerprints(t, "after the run (sql vs procs)", sqlRun.final, procRun.final)
	changed := 0
	for k, v := range sqlRun.final {
		if sqlRun.initial[k] != v {
			changed++
		}
	}
	if changed == 0 {
		t.Errorf("the run changed no fingerprint: the comparison proves nothing")
	}
}

// runMode prepares a fresh schema, runs the transactions in one mode, and drops the schema.
func runMode(ctx context.Context, t *testing.T, tg target.Target, mode string) modeRun {
	t.Helper()
	var r modeRun
	meta, err := Prepare(ctx, tg, PrepareOptions{Warehouses: procsWarehouses(t), Loaders: 2, Seed: procsPrepSeed, Procedures: true})
	if err != nil {
		t.Fatalf("%s: prepare: %v", mode, err)
	}
	if !meta.Procedures {
		t.Fatalf("%s: prepare installed no procedures", mode)
	}
	c, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r.initial = fingerprint(ctx, t, c, tg.Dialect())
	if errs := consistency(ctx, t, c, tg.Dialect()); len(errs) > 0 {
		t.Errorf("%s: initial database inconsistent: %s", mode, strings.Join(errs, "; "))
	}

	seed, rc := pickRunSeed(t, tg.Dialect(), meta)
	r.seed = seed
	vu, err := NewVU(0, tg.Dialect(), VUConfig{Mode: mode, Seed: seed, Meta: *meta, Run: rc})
	if err != nil {
		t.Fatal(err)
	}
	if err := vu.Bind(ctx, c); err != nil {
		t.Fatalf("%s: bind: %v", mode, err)
	}
	start := time.Now()
	for i := 0; i < procsTxns; i++ {
		typ := vu.Next()
		rolledBack, err := vu.Do(ctx)
		if err != nil {
			t.Fatalf("%s: transaction %d (%s): %v", mode, i, TxnNames[typ], err)
		}
		r.types[typ]++
		if rolledBack {
			if typ != TxNewOrder {
				t.Fatalf("%s: transaction %d (%s) rolled back", mode, i, TxnNames[typ])
			}
			r.rollbacks++
		}
	}
	r.elapsed = time.Since(start)
	r.final = fingerprint(ctx, t, c, tg.Dialect())
	if errs := consistency(ctx, t, c, tg.Dialect()); len(errs) > 0 {
		t.Errorf("%s: database inconsistent after the run: %s", mode, strings.Join(errs, "; "))
	}
	if mode == ModeProcs && tg.Dialect().Name == "postgres" {
		procsAllocs(ctx, t, vu)
	}
	c.Close()
	if _, err := Cleanup(ctx, tg); err != nil {
		t.Fatalf("%s: cleanup: %v", mode, err)
	}
	return r
}

// procsAllocs counts allocations per transaction of --mode procs on PostgreSQL, after the
// fingerprints are taken. The calls go through target.TextCaller, where neither cairn nor the
// protocol codec allocates; pgx's query path, used before, allocated on every call (its rows,
// scan plans, the array parameters' encoders). A higher count means something on the path
// started allocating. (The requested New-Order rollbacks, 1%, allocate their error.)
func procsAllocs(ctx context.Context, t *testing.T, vu *VU) {
	t.Helper()
	if _, ok := vu.c.(target.TextCaller); !ok {
		t.Fatal("the PostgreSQL connection does not implement target.TextCaller")
	}
	n := testing.AllocsPerRun(500, func() {
		typ := vu.Next()
		if _, err := vu.Do(ctx); err != nil {
			t.Fatalf("procs: %s: %v", TxnNames[typ], err)
		}
	})
	t.Logf("procs on PostgreSQL: %.2f allocations per transaction", n)
	if n > 0.5 {
		t.Errorf("procs on PostgreSQL: %.2f allocations per transaction, want at most 0.5", n)
	}
}

func compareFingerprints(t *testing.T, what string, a, b map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if a[k] != b[k] {
			t.Errorf("%s: %s differs:\n  sql:   %s\n  procs: %s", what, k, a[k], b[k])
		}
	}
	if len(a) != len(b) {
		t.Errorf("%s: %d fingerprints vs %d", what, len(a), len(b))
	}
}

// txt renders a SQL expression as text, NULL as "~", so every dialect scans it into a string.
func txt(dialect target.Dialect, expr string) string {
	if dialect.Name == "postgres" {
		return "COALESCE((" + expr + ")::text, '~')"
	}
	return "COALESCE(CAST(" + expr + " AS CHAR), '~')"
}

// selectText builds "SELECT txt(e1), txt(e2), … FROM rest".
func selectText(dialect target.Dialect, exprs []string, rest string) string {
	cols := make([]string, len(exprs))
	for i, e := range exprs {
		cols[i] = txt(dialect, e)
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + rest
}

// queryText runs q and calls row for each row, as strings.
func queryText(ctx context.Context, t *testing.T, c target.Conn, q string, ncol int, row func([]string)) {
	t.Helper()
	rows, err := c.Query(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	vals := make([]string, ncol)
	ptrs := make([]any, ncol)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		row(vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// aggs expands "sum/min/max" of each column.
func aggs(cols ...string) []string {
	var out []string
	for _, c := range cols {
		out = append(out, "SUM("+c+")", "MIN("+c+")", "MAX("+c+")")
	}
	return out
}

// fingerprint describes every table, timestamps aside: aggregates over all rows, and a hash of
// the rows a run can write (compared exactly between the modes).
func fingerprint(ctx context.Context, t *testing.T, c target.Conn, d target.Dialect) map[string]string {
	t.Helper()
	isNull := func(col string) string { return "SUM(CASE WHEN " + col + " IS NULL THEN 1 ELSE 0 END)" }
	digitFirst := "SUM(CASE WHEN SUBSTR(c_data, 1, 1) BETWEEN '0' AND '9' THEN 1 ELSE 0 END)"
	aggregates := map[string][]string{
		"warehouse": append([]string{"COUNT(*)"}, aggs("w_ytd")...),
		"district":  append([]string{"COUNT(*)"}, aggs("d_next_o_id", "d_ytd")...),
		"customer": append(append([]string{"COUNT(*)"},
			aggs("c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt")...),
			"SUM(CHAR_LENGTH(c_data))", digitFirst),
		"history":   append([]string{"COUNT(*)", "SUM(CHAR_LENGTH(h_data))"}, aggs("h_amount")...),
		"new_order": append([]string{"COUNT(*)"}, aggs("no_o_id", "no_d_id")...),
		"orders": append([]string{"COUNT(*)", "COUNT(o_carrier_id)", isNull("o_carrier_id")},
			aggs("o_id", "o_c_id", "o_carrier_id", "o_ol_cnt", "o_all_local")...),
		"order_line": append([]string{"COUNT(*)", isNull("ol_delivery_d"), "SUM(CHAR_LENGTH(ol_dist_info))"},
			aggs("ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_quantity", "ol_amount")...),
		"item":  {"COUNT(*)", "SUM(i_price)", "SUM(i_id)"},
		"stock": append([]string{"COUNT(*)"}, aggs("s_quantity", "s_ytd", "s_order_cnt", "s_remote_cnt")...),
	}
	fp := map[string]string{}
	for table, exprs := range aggregates {
		queryText(ctx, t, c, selectText(d, exprs, table), len(exprs), func(v []string) {
			fp[table] = strings.Join(v, " ")
		})
	}
	// Row hashes: every column but the timestamps (and whether those are NULL).
	delivered := "CASE WHEN ol_delivery_d IS NULL THEN 0 ELSE 1 END"
	rowSets := []struct {
		name, rest string
		cols       []string
	}{
		{"warehouse rows", "warehouse ORDER BY w_id",
			[]string{"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"}},
		{"district rows", "district ORDER BY d_w_id, d_id",
			[]string{"d_w_id", "d_id", "d_name", "d_tax", "d_ytd", "d_next_o_id"}},
		{"customer rows (touched)", "customer WHERE c_payment_cnt <> 1 OR c_delivery_cnt <> 0 ORDER BY c_w_id, c_d_id, c_id",
			[]string{"c_w_id", "c_d_id", "c_id", "c_first", "c_last", "c_credit", "c_discount", "c_balance",
				"c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"}},
		{"customer c_data (BC)", "customer WHERE c_credit = 'BC' ORDER BY c_w_id, c_d_id, c_id",
			[]string{"c_w_id", "c_d_id", "c_id", "c_data"}},
		{"history rows", "history ORDER BY h_c_w_id, h_c_d_id, h_c_id, h_w_id, h_d_id, h_amount, h_data",
			[]string{"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_amount", "h_data"}},
		{"new_order rows", "new_order ORDER BY no_w_id, no_d_id, no_o_id",
			[]string{"no_w_id", "no_d_id", "no_o_id"}},
		{"orders rows (o_id > 2100)", "orders WHERE o_id > 2100 ORDER BY o_w_id, o_d_id, o_id",
			[]string{"o_w_id", "o_d_id", "o_id", "o_c_id", "o_carrier_id", "o_ol_cnt", "o_all_local"}},
		{"order_line rows (ol_o_id > 2100)", "order_line WHERE ol_o_id > 2100 ORDER BY ol_w_id, ol_d_id, ol_o_id, ol_number",
			[]string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number", "ol_i_id", "ol_supply_w_id", delivered,
				"ol_quantity", "ol_amount", "ol_dist_info"}},
		{"stock rows (ordered)", "stock WHERE s_order_cnt > 0 ORDER BY s_w_id, s_i_id",
			[]string{"s_w_id", "s_i_id", "s_quantity", "s_ytd", "s_order_cnt", "s_remote_cnt", "s_dist_01", "s_data"}},
	}
	for _, rs := range rowSets {
		h := sha256.New()
		n := 0
		queryText(ctx, t, c, selectText(d, rs.cols, rs.rest), len(rs.cols), func(v []string) {
			for _, s := range v {
				h.Write([]byte(s))
				h.Write([]byte{0x1f})
			}
			h.Write([]byte{0x1e})
			n++
		})
		fp[rs.name] = fmt.Sprintf("%d rows, sha256 %s", n, hex.EncodeToString(h.Sum(nil)))
	}
	return fp
}

// consistency runs the consistency conditions that hold after any run (clause 3.3.2.1–4, 8–10,
// 12; 11 holds only until the first Delivery) and returns the violated ones.
func consistency(ctx context.Context, t *testing.T, c target.Conn, d target.Dialect) []string {
	t.Helper()
	delivered := `(SELECT o_w_id AS w, o_d_id AS d, o_c_id AS cid, SUM(ol_amount) AS s FROM orders
		JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
		WHERE ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) x`
	paid := `(SELECT h_c_w_id AS w, h_c_d_id AS d, h_c_id AS cid, SUM(h_amount) AS s FROM history
		GROUP BY h_c_w_id, h_c_d_id, h_c_id) h`
	checks := []struct{ name, q string }{
		{"3.3.2.1 W_YTD = sum(D_YTD)", `SELECT COUNT(*) FROM warehouse
			WHERE w_ytd <> (SELECT SUM(d_ytd) FROM district WHERE d_w_id = w_id)`},
		{"3.3.2.2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", `SELECT COUNT(*) FROM district
			WHERE d_next_o_id - 1 <> (SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id)
			   OR d_next_o_id - 1 <> (SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id)`},
		{"3.3.2.3 NO_O_ID contiguous", `SELECT COUNT(*) FROM (SELECT no_w_id, no_d_id FROM new_order
			GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)) z`},
		{"3.3.2.4 sum(O_OL_CNT) = count(ORDER-LINE)", `SELECT COUNT(*) FROM
			(SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS n FROM orders GROUP BY o_w_id, o_d_id) o
			JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) l
			ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id WHERE o.n <> l.n`},
		{"3.3.2.5/6 O_CARRIER_ID null iff NEW-ORDER row; O_OL_CNT = lines", `SELECT COUNT(*) FROM orders
			WHERE (o_carrier_id IS NULL) <> EXISTS (SELECT 1 FROM new_order WHERE no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id)
			   OR o_ol_cnt <> (SELECT COUNT(*) FROM order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id)`},
		{"3.3.2.7 OL_DELIVERY_D null iff O_CARRIER_ID null", `SELECT COUNT(*) FROM orders JOIN order_line
			ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
			WHERE (ol_delivery_d IS NULL) <> (o_carrier_id IS NULL)`},
		{"3.3.2.8 W_YTD = sum(H_AMOUNT)", `SELECT COUNT(*) FROM warehouse
			WHERE w_ytd <> (SELECT SUM(h_amount) FROM history WHERE h_w_id = w_id)`},
		{"3.3.2.9 D_YTD = sum(H_AMOUNT)", `SELECT COUNT(*) FROM district
			WHERE d_ytd <> (SELECT SUM(h_amount) FROM history WHERE h_w_id = d_w_id AND h_d_id = d_id)`},
		{"3.3.2.10 C_BALANCE = delivered sum(OL_AMOUNT) - sum(H_AMOUNT)", `SELECT COUNT(*) FROM customer
			LEFT JOIN ` + delivered + ` ON x.w = c_w_id AND x.d = c_d_id AND x.cid = c_id
			LEFT JOIN ` + paid + ` ON h.w = c_w_id AND h.d = c_d_id AND h.cid = c_id
			WHERE c_balance <> COALESCE(x.s, 0) - COALESCE(h.s, 0)`},
		{"3.3.2.12 C_BALANCE + C_YTD_PAYMENT = delivered sum(OL_AMOUNT)", `SELECT COUNT(*) FROM customer
			LEFT JOIN ` + delivered + ` ON x.w = c_w_id AND x.d = c_d_id AND x.cid = c_id
			WHERE c_balance + c_ytd_payment <> COALESCE(x.s, 0)`},
	}
	var bad []string
	for _, ch := range checks {
		var n int64
		if err := c.QueryRow(ctx, ch.q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", ch.name, err)
		}
		if n != 0 {
			bad = append(bad, fmt.Sprintf("%s: %d violations", ch.name, n))
		}
	}
	return bad
}
