package cli

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

const (
	oltpTables    = 2
	oltpTableSize = 1000
	oltpVUs       = 2
)

// oltpPrepared drops any sbtest tables at url, prepares small ones and registers their cleanup.
func oltpPrepared(t *testing.T, url string) {
	t.Helper()
	if code, _, stderr := cairn(t, "oltp", "cleanup", "--db", url); code != 0 && !strings.HasPrefix(url, "sqlite") {
		t.Fatalf("cleanup: %d %s", code, stderr)
	}
	code, out, stderr := cairn(t, "oltp", "prepare", "--db", url, "--tables", fmt.Sprint(oltpTables),
		"--table-size", fmt.Sprint(oltpTableSize), "--seed", "7", "--loaders", "2")
	if code != 0 {
		t.Fatalf("prepare: exit %d\n%s\n%s", code, out, stderr)
	}
	t.Cleanup(func() { cairn(t, "oltp", "cleanup", "--db", url) })
}

// countRows counts the rows of every sbtest table.
func countRows(t *testing.T, url string) int64 {
	t.Helper()
	ctx := context.Background()
	tg, err := target.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	c, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var total int64
	for i := 1; i <= oltpTables; i++ {
		var n int64
		if err := c.QueryRow(ctx, fmt.Sprintf("SELECT COUNT(*) FROM sbtest%d", i)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

func num(t *testing.T, d map[string]any, path string) float64 {
	t.Helper()
	v, ok := field(t, d, path).(float64)
	if !ok {
		t.Fatalf("%s is not a number", path)
	}
	return v
}

// TestOLTPWorkloads runs every workload on every target with small tables and checks what each
// event ran: the statements per transaction that the options ask for, the query counts, and that
// the tables keep exactly the rows the run says it inserted and deleted.
func TestOLTPWorkloads(t *testing.T) {
	type perTxn map[string]float64
	rangesAndPoints := func(points float64) perTxn {
		return perTxn{"point_select": points, "simple_range": 1, "sum_range": 1, "order_range": 1, "distinct_range": 1}
	}
	with := func(p perTxn, more perTxn) perTxn {
		out := perTxn{}
		for k, v := range p {
			out[k] = v
		}
		for k, v := range more {
			out[k] = v
		}
		return out
	}
	writes := perTxn{"index_update": 1, "non_index_update": 1, "delete": 1, "insert": 1}
	trx := perTxn{"begin": 1, "commit": 1}
	cases := []struct {
		workload string
		args     []string
		txn      string
		per      perTxn
	}{
		{"point-select", nil, "point_select", perTxn{"point_select": 1}},
		{"point-select", []string{"--dist", "zipfian", "--protocol", "simple"}, "point_select", perTxn{"point_select": 1}},
		{"read-only", nil, "read_only", with(rangesAndPoints(10), trx)},
		{"read-only", []string{"--read-only-trx", "--point-selects", "3", "--dist", "pareto"}, "read_only", with(rangesAndPoints(3), trx)},
		{"read-only", []string{"--skip-trx", "--range-selects=false", "--dist", "gaussian"}, "read_only", perTxn{"point_select": 10}},
		{"read-write", nil, "read_write", with(with(rangesAndPoints(10), writes), trx)},
		{"read-write", []string{"--skip-trx", "--protocol", "simple", "--dist", "uniform"}, "read_write", with(rangesAndPoints(10), writes)},
		{"write-only", []string{"--delete-inserts", "2"}, "write_only", with(with(writes, perTxn{"delete": 2, "insert": 2}), trx)},
		{"update-index", []string{"--index-updates", "2"}, "update_index", perTxn{"index_update": 2}},
		{"update-non-index", nil, "update_non_index", perTxn{"non_index_update": 1}},
		{"insert", nil, "insert", perTxn{"insert": 1}},
		{"delete", nil, "delete", perTxn{"delete": 1}},
		{"simple-ranges", []string{"--simple-ranges", "2", "--range-size", "10"}, "simple_ranges", perTxn{"simple_range": 2}},
		{"sum-ranges", nil, "sum_ranges", perTxn{"sum_range": 1}},
		{"order-ranges", nil, "order_ranges", perTxn{"order_range": 1}},
		{"distinct-ranges", []string{"--protocol", "simple"}, "distinct_ranges", perTxn{"distinct_range": 1}},
	}
	for _, tg := range testutil.Targets() {
		tg := tg
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel() // the three targets are independent servers and files
			url := tg.URL(t)
			oltpPrepared(t, url)
			code, out, _ := cairn(t, "oltp", "prepare", "--db", url, "--tables", "2", "--table-size", "1000")
			if code != 0 || !strings.Contains(out, "already holds 2 sbtest tables of 1000 rows") {
				t.Fatalf("second prepare: exit %d, %q", code, out)
			}
			rows := countRows(t, url)
			if rows != oltpTables*oltpTableSize {
				t.Fatalf("%d rows after prepare, want %d", rows, oltpTables*oltpTableSize)
			}
			for _, c := range cases {
				name := strings.Join(append([]string{c.workload}, c.args...), " ")
				js := filepath.Join(t.TempDir(), "r.json")
				args := append([]string{"oltp", "run", "--db", url, "--workload", c.workload, "--vu", fmt.Sprint(oltpVUs),
					"--duration", "1s", "--progress", "0", "--seed", "5", "--no-store", "--json", js}, c.args...)
				code, out, stderr := cairn(t, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s\n%s", name, code, out, stderr)
				}
				if !strings.Contains(out, "TEST RESULT : System achieved") || !strings.Contains(out, "QPS on") || !strings.Contains(out, "queries: ") {
					t.Errorf("%s: no TPS/QPS result lines:\n%s", name, out)
				}
				d := readDoc(t, js)
				txns := num(t, d, "transactions."+c.txn+".count")
				if tps := num(t, d, "result.tps"); tps <= 0 || txns <= 0 {
					t.Fatalf("%s: tps %v, %v transactions\n%s", name, tps, txns, out)
				}
				if e := num(t, d, "transactions."+c.txn+".errors"); e > 0 {
					t.Errorf("%s: %v errors: %v", name, e, field(t, d, "errors"))
				}
				for _, p := range []string{"latency_ms.p50", "latency_ms.p95", "latency_ms.p99", "latency_ms.p999", "latency_ms.max"} {
					num(t, d, "transactions."+c.txn+"."+p)
				}
				wantMode := "prepared"
				if strings.Contains(name, "--protocol simple") {
					wantMode = "simple"
				}
				if m := field(t, d, "mode"); m != wantMode {
					t.Errorf("%s: mode %v, want %s", name, m, wantMode)
				}
				// Statements per event, as the options ask. Statement counts are compared with each
				// other, as they are all counted while the engine's window flag is set. Transactions
				// are counted by their end in the planned window, which begins before that flag is
				// set (after the start snapshot, which on a loaded machine has taken 0.3 s) and ends
				// a little before it is cleared (when the engine's monitor wakes up), so they are
				// compared loosely. A retried or restarted event runs its statements again, and
				// each end of the window can split one event per VU.
				stmts := field(t, d, "statements").(map[string]any)
				again := num(t, d, "transactions."+c.txn+".retries") + num(t, d, "extra.restarted_events")
				count := func(s string) float64 {
					got := 0.0
					for _, k := range []string{s, s + "_no_row"} {
						if v, ok := stmts[k]; ok {
							got += v.(map[string]any)["count"].(float64)
						}
					}
					return got
				}
				var total float64
				for s, v := range stmts {
					total += v.(map[string]any)["count"].(float64)
					if _, ok := c.per[strings.TrimSuffix(s, "_no_row")]; !ok {
						t.Errorf("%s: unexpected statement type %s", name, s)
					}
				}
				ref := ""
				for s, per := range c.per {
					if ref == "" || per < c.per[ref] || (per == c.per[ref] && s < ref) {
						ref = s
					}
				}
				events := count(ref) / c.per[ref]
				if events > 1.1*txns+2*oltpVUs+again {
					t.Errorf("%s: %v events of %s statements, %v transactions (window %v, started %v)", name, events, ref, txns, field(t, d, "window"), field(t, d, "started_at"))
				}
				for s, per := range c.per {
					if tol := 2*oltpVUs*per + 1 + 0.005*per*events + 2*per*again; math.Abs(count(s)-per*events) > tol {
						t.Errorf("%s: %v %s statements for %v events (%v transactions), want %v per event", name, count(s), s, events, txns, per)
					}
					if _, ok := stmts[s]; !ok && s != "delete" {
						t.Errorf("%s: no %s statements", name, s)
					}
				}
				if q := num(t, d, "queries.total"); q != total || num(t, d, "result.qps") <= 0 {
					t.Errorf("%s: queries.total %v, statements %v", name, q, total)
				}
				if r, w, o := num(t, d, "queries.reads"), num(t, d, "queries.writes"), num(t, d, "queries.other"); r+w+o != total {
					t.Errorf("%s: reads %v + writes %v + other %v != %v", name, r, w, o, total)
				}
				// The tables hold what the run says it did.
				ins, del := num(t, d, "extra.rows_inserted"), num(t, d, "extra.rows_deleted")
				after := countRows(t, url)
				if after != rows+int64(ins)-int64(del) {
					t.Errorf("%s: %d rows before, %v inserted, %v deleted, %d after", name, rows, ins, del, after)
				}
				switch c.workload {
				case "read-write", "write-only":
					// Each delete is paired with an insert of the same id: the size never changes.
					if after != rows {
						t.Errorf("%s: %d rows after, %d before", name, after, rows)
					}
				case "insert":
					if ins < txns {
						t.Errorf("%s: %v rows inserted by %v transactions", name, ins, txns)
					}
				}
				rows = after
				if v := num(t, d, "config.options.table-size"); v != oltpTableSize {
					t.Errorf("%s: config.options.table-size %v", name, v)
				}
			}
			// The size recorded by prepare still rules after inserts and deletes changed the tables.
			code, _, stderr := cairn(t, "oltp", "run", "--db", url, "--workload", "point-select", "--table-size", "999", "--duration", "1s")
			if code != ExitUsage || !strings.Contains(stderr, "--table-size 999: does not match") {
				t.Errorf("mismatched --table-size: exit %d %q", code, stderr)
			}
			oneCleanLine(t, stderr)
			code, _, stderr = cairn(t, "oltp", "run", "--db", url, "--tables", "3", "--duration", "1s")
			if code != ExitUsage || !strings.Contains(stderr, "--tables 3: does not match") {
				t.Errorf("mismatched --tables: exit %d %q", code, stderr)
			}
			if code, out, _ := cairn(t, "oltp", "cleanup", "--db", url); code != 0 || !strings.Contains(out, "dropped") {
				t.Fatalf("cleanup: exit %d %s", code, out)
			}
			code, _, stderr = cairn(t, "oltp", "run", "--db", url, "--duration", "1s")
			if code != ExitUsage || !strings.Contains(stderr, "prepare") {
				t.Errorf("run after cleanup: exit %d %q", code, stderr)
			}
			oneCleanLine(t, stderr)
		})
	}
}

// TestOLTPBadInput: one clear line and exit 2 for each kind of bad input.
func TestOLTPBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	prepared := "sqlite://" + filepath.Join(dir, "p.db")
	if code, out, stderr := cairn(t, "oltp", "prepare", "--db", prepared, "--table-size", "100", "--seed", "1"); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"oltp", "run", "--db", prepared, "--workload", "read-mostly"}, "unknown; use one of point-select"},
		{[]string{"oltp", "prepare", "--db", "sqlite://" + dir + "/t.db", "--tables", "0"}, "--tables 0"},
		{[]string{"oltp", "prepare", "--db", "sqlite://" + dir + "/t.db", "--table-size", "0"}, "--table-size 0"},
		{[]string{"oltp", "run", "--db", prepared, "--tables", "0"}, "--tables 0"},
		{[]string{"oltp", "run", "--db", prepared, "--table-size", "1000"}, "--table-size 1000: does not match the prepared data"},
		{[]string{"oltp", "run", "--db", "sqlite://" + dir + "/none.db"}, "run 'cairn oltp prepare' first"},
		{[]string{"oltp", "run", "--db", "sqlite://" + empty}, "holds no sysbench-style OLTP schema"},
		{[]string{"oltp", "run", "--db", prepared, "--workload", "read-write", "--read-only-trx"}, "--read-only-trx"},
		{[]string{"oltp", "run", "--db", prepared, "--workload", "read-only", "--read-only-trx", "--skip-trx"}, "exclude"},
		{[]string{"oltp", "run", "--db", prepared, "--dist", "normal"}, "--dist normal: use special, uniform"},
		{[]string{"oltp", "run", "--db", prepared, "--protocol", "binary"}, "--protocol"},
		{[]string{"oltp", "run", "--db", prepared, "--range-size", "0"}, "--range-size 0"},
		{[]string{"oltp", "run", "--db", prepared, "--vu", "0"}, "--vu 0"},
		{[]string{"oltp", "run", "--db", prepared, "--rand-spec-pct", "101"}, "--rand-spec-pct"},
		{[]string{"oltp", "nosuch"}, "unknown command"},
		{[]string{"oltp", "run", "--no-such-flag"}, "unknown flag"},
	}
	for _, c := range cases {
		code, _, stderr := cairn(t, c.args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, ExitUsage, stderr)
			continue
		}
		oneCleanLine(t, stderr)
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, stderr, c.want)
		}
	}
	if _, err := os.Stat(dir + "/none.db"); err == nil {
		t.Error("run on a missing SQLite file created it")
	}
	if code, out, _ := cairn(t, "oltp", "cleanup", "--db", "sqlite://"+dir+"/none.db"); code != 0 || !strings.Contains(out, "nothing to drop") {
		t.Errorf("cleanup of a missing file: exit %d %q", code, out)
	}
	// A table of sysbench's names that cairn did not prepare stands in the way and is never dropped.
	foreign := "sqlite://" + filepath.Join(dir, "foreign.db")
	tg, err := target.Open(context.Background(), foreign)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tg.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(context.Background(), "CREATE TABLE sbtest1 (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	tg.Close()
	for _, args := range [][]string{{"oltp", "prepare", "--db", foreign}, {"oltp", "run", "--db", foreign, "--duration", "1s"}} {
		code, _, stderr := cairn(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "not created by cairn") && !strings.Contains(stderr, "cairn did not create") || !strings.Contains(stderr, "sysbench") {
			t.Errorf("%v over sysbench's sbtest1: exit %d %q", args, code, stderr)
		}
		oneCleanLine(t, stderr)
	}
	if code, out, _ := cairn(t, "oltp", "cleanup", "--db", foreign); code != 0 || !strings.Contains(out, "left alone: table sbtest1") {
		t.Errorf("cleanup beside a foreign sbtest1: exit %d %q", code, out)
	}
}

// TestOLTPProfile profiles two VU counts on SQLite: one step line each, ranked by TPS.
func TestOLTPProfile(t *testing.T) {
	url := testutil.SQLite(t)
	if code, _, stderr := cairn(t, "oltp", "prepare", "--db", url, "--table-size", "500", "--seed", "2"); code != 0 {
		t.Fatal(stderr)
	}
	js := filepath.Join(t.TempDir(), "p.json")
	code, out, stderr := cairn(t, "oltp", "profile", "--db", url, "--workload", "point-select", "--vu", "1,2",
		"--rampup", "0", "--duration", "1s", "--pause", "0", "--no-store", "--json", js)
	if code != 0 {
		t.Fatalf("profile: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "TPS") || !strings.Contains(out, "peak:") || strings.Count(out, "  1 VU: ") != 1 {
		t.Errorf("profile output:\n%s", out)
	}
	p := readDoc(t, js)
	if field(t, p, "headline") != "TPS" || field(t, p, "main_transaction") != "point_select" {
		t.Errorf("profile document: headline %v, main %v", field(t, p, "headline"), field(t, p, "main_transaction"))
	}
}
