package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpcb"
)

func TestTPCBBadInput(t *testing.T) {
	dir := t.TempDir()
	none := "sqlite://" + dir + "/none.db"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"tpcb", "run", "--db", none, "--script", "nosuch"}, "unknown script"},
		{[]string{"tpcb", "run", "--db", none, "-b", "s"}, "unknown script"}, // ambiguous prefix
		{[]string{"tpcb", "run", "--db", none, "--protocol", "extended"}, "--protocol"},
		{[]string{"tpcb", "run", "--db", none, "--scale", "0"}, "--scale 0"},
		{[]string{"tpcb", "run", "--db", none, "--vu", "0"}, "--vu 0"},
		{[]string{"tpcb", "run", "--db", none}, "prepare"},
		{[]string{"tpcb", "check", "--db", none}, "prepare"},
		{[]string{"tpcb", "prepare", "--db", "sqlite://" + dir + "/p.db", "--scale", "0"}, "--scale 0"},
		{[]string{"tpcb", "prepare", "--db", "sqlite://" + dir + "/p.db", "--fillfactor", "90"}, "SQLite has no per-table fill factor"},
		{[]string{"tpcb", "prepare", "--db", "sqlite://" + dir + "/p.db", "--fillfactor", "5"}, "--fillfactor 5"},
		{[]string{"tpcb", "nosuch"}, "unknown command"},
		{[]string{"tpcb", "run", "--no-such-flag"}, "unknown flag"},
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
}

// tpcbPrepared prepares scale 1 on url (after dropping whatever was there) and registers a cleanup.
func tpcbPrepared(t *testing.T, url string) {
	t.Helper()
	if code, _, stderr := cairn(t, "tpcb", "cleanup", "--db", url); code != 0 && !strings.HasPrefix(url, "sqlite") {
		t.Fatalf("cleanup: %d %s", code, stderr)
	}
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url, "--scale", "1"); code != 0 {
		t.Fatalf("prepare: exit %d\n%s\n%s", code, out, stderr)
	}
	t.Cleanup(func() { cairn(t, "tpcb", "cleanup", "--db", url) })
}

func sums(t *testing.T, url string) tpcb.Sums {
	t.Helper()
	tg, err := target.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	s, err := tpcb.ReadSums(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTPCBEndToEnd prepares scale 1 on every target, runs each script with 2 VUs for 2 s, and
// checks what each script must do to the balances: select-only changes nothing; tpcb-like keeps
// accounts, tellers, branches and history equal; simple-update moves accounts and history only.
func TestTPCBEndToEnd(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			tpcbPrepared(t, url)

			// Prepare again on a complete schema: says so, exit 0, touches nothing.
			code, out, _ := cairn(t, "tpcb", "prepare", "--db", url, "--scale", "1")
			if code != 0 || !strings.Contains(out, "already holds a complete tpcb schema") {
				t.Fatalf("second prepare: exit %d, %q", code, out)
			}
			// A scale that does not match the data is bad input.
			code, _, stderr := cairn(t, "tpcb", "run", "--db", url, "--scale", "7", "--duration", "1s")
			if code != ExitUsage || !strings.Contains(stderr, "does not match") {
				t.Errorf("--scale 7 on scale 1: exit %d %q", code, stderr)
			}
			oneCleanLine(t, stderr)

			s0 := sums(t, url)
			if s0 != (tpcb.Sums{}) {
				t.Fatalf("fresh data: %+v", s0)
			}
			for _, script := range []string{"select-only", "tpcb-like", "simple-update"} {
				before := sums(t, url)
				js := filepath.Join(t.TempDir(), "r.json")
				code, out, stderr := cairn(t, "tpcb", "run", "--db", url, "--script", script, "--vu", "2", "--duration", "2s",
					"--scale", "1", "--progress", "1s", "--seed", "5", "--no-store", "--json", js)
				if code != 0 {
					t.Fatalf("run %s: exit %d\n%s\n%s", script, code, out, stderr)
				}
				if !strings.Contains(out, "tps = ") || !strings.Contains(out, "number of transactions actually processed: ") {
					t.Errorf("%s: no pgbench-style report:\n%s", script, out)
				}
				if !strings.Contains(stderr, "progress: ") {
					t.Errorf("%s: no progress lines:\n%s", script, stderr)
				}
				d := readDoc(t, js)
				if tps := field(t, d, "result.tps").(float64); tps <= 0 {
					t.Errorf("%s: tps %v", script, tps)
				}
				if n := field(t, d, "transactions."+script+".count").(float64); n <= 0 {
					t.Errorf("%s: count %v", script, n)
				}
				if e := field(t, d, "transactions."+script+".errors").(float64); e != 0 {
					t.Errorf("%s: %v errors: %v", script, e, d["errors"])
				}
				sc, _ := tpcb.FindScript(script)
				for _, st := range sc.Stmts {
					if n := field(t, d, "statements."+st+".count").(float64); n <= 0 {
						t.Errorf("%s: statement %s count %v", script, st, n)
					}
				}
				for p, want := range map[string]any{"workload": "tpcb", "main_transaction": script, "mode": "prepared",
					"config.options.scale": 1.0, "config.options.script": script, "extra.scale": 1.0} {
					if got := field(t, d, p); got != want {
						t.Errorf("%s: %s = %v, want %v", script, p, got, want)
					}
				}
				after := sums(t, url)
				switch script {
				case "select-only":
					if after != before {
						t.Errorf("select-only changed the data: %+v -> %+v", before, after)
					}
				case "tpcb-like":
					if after.Accounts != after.History || after.Tellers != after.History || after.Branches != after.History ||
						after.HistoryRows <= before.HistoryRows {
						t.Errorf("tpcb-like: %+v", after)
					}
				case "simple-update":
					if after.Accounts != after.History || after.Tellers != before.Tellers || after.Branches != before.Branches ||
						after.HistoryRows <= before.HistoryRows {
						t.Errorf("simple-update: %+v -> %+v", before, after)
					}
				}
			}
			// The simple protocol runs the same statements as text.
			code, out, stderr = cairn(t, "tpcb", "run", "--db", url, "-b", "tpcb", "-M", "simple", "--vu", "2", "--duration", "1s",
				"--progress", "0", "--no-store")
			if code != 0 || !strings.Contains(out, "query mode: simple") {
				t.Fatalf("simple protocol: exit %d\n%s\n%s", code, out, stderr)
			}
			code, out, stderr = cairn(t, "tpcb", "check", "--db", url)
			if code != 0 {
				t.Errorf("check: exit %d\n%s%s", code, out, stderr)
			}
			if tg.Name == "postgres" {
				testNoAllocs(t, url)
			}

			code, _, _ = cairn(t, "tpcb", "cleanup", "--db", url)
			if code != 0 {
				t.Fatal("cleanup failed")
			}
			code, _, stderr = cairn(t, "tpcb", "run", "--db", url, "--duration", "1s")
			if code != ExitUsage || !strings.Contains(stderr, "prepare") {
				t.Errorf("run after cleanup: exit %d %q", code, stderr)
			}
			oneCleanLine(t, stderr)
		})
	}
}

type nullSink struct {
	t0 time.Time
	n  int
}

func (s *nullSink) Now() time.Duration { return time.Since(s.t0) }

func (s *nullSink) Statement(int, time.Duration, time.Duration) { s.n++ }

// testNoAllocs runs transactions of every script and protocol on one PostgreSQL connection and
// checks that the workload's hot path, statement timing included, allocates nothing.
func testNoAllocs(t *testing.T, url string) {
	ctx := context.Background()
	tg, err := target.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	for i := range tpcb.Scripts {
		for _, proto := range []string{tpcb.ProtoPrepared, tpcb.ProtoSimple} {
			comp, err := tpcb.Compile(tg.Dialect(), &tpcb.Scripts[i])
			if err != nil {
				t.Fatal(err)
			}
			c, err := tg.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			v := tpcb.NewVU(0, comp, proto, 1, 3)
			if err := v.Bind(ctx, c); err != nil {
				t.Fatal(err)
			}
			sink := &nullSink{t0: time.Now()}
			var _ workload.StatementTimer = v
			v.SetStatementSink(sink)
			var runErr error
			allocs := testing.AllocsPerRun(200, func() {
				v.Next()
				if _, err := v.Do(ctx); err != nil && runErr == nil {
					runErr = err
				}
			})
			c.Close()
			if runErr != nil {
				t.Fatalf("%s %s: %v", comp.Name, proto, runErr)
			}
			if allocs != 0 || sink.n == 0 {
				t.Errorf("%s %s: %.1f allocations per transaction (%d statements timed)", comp.Name, proto, allocs, sink.n)
			}
		}
	}
}

// TestTPCBRateLimit runs an open loop far above what the database can do, with a latency limit:
// transactions already later than the limit are skipped, and some that run are late; both are
// counted in the document and printed as pgbench prints them.
func TestTPCBRateLimit(t *testing.T) {
	url := testutil.SQLite(t)
	tpcbPrepared(t, url)
	js := filepath.Join(t.TempDir(), "r.json")
	code, out, stderr := cairn(t, "tpcb", "run", "--db", url, "--vu", "2", "--duration", "2s", "--rate", "200000",
		"--latency-limit", "1ms", "--progress", "1s", "--no-store", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	d := readDoc(t, js)
	late := field(t, d, "transactions.tpcb-like.late").(float64)
	skipped := field(t, d, "transactions.tpcb-like.skipped").(float64)
	if late <= 0 || skipped <= 0 {
		t.Errorf("late %v, skipped %v", late, skipped)
	}
	for _, want := range []string{"number of transactions skipped: ", "number of transactions above the 1.0 ms latency limit: ",
		"rate limit schedule lag: avg ", "latency stddev = "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, " skipped") || !strings.Contains(stderr, " lag ") {
		t.Errorf("progress lines lack lag and skipped:\n%s", stderr)
	}
	if _, ok := field(t, d, "transactions.tpcb-like.service_ms").(map[string]any); !ok {
		t.Error("no service time in an open-loop run")
	}
}

// TestTPCBOverPgbenchTables: tables of pgbench's names that no cairn prepare made (pgbench -i's)
// are bad input for prepare and run alike, and cleanup leaves them alone.
func TestTPCBOverPgbenchTables(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			cairn(t, "tpcb", "cleanup", "--db", url)
			_, c := testutil.Open(t, url) // closed after the cleanup below has dropped the table
			for _, q := range []string{"DROP TABLE IF EXISTS pgbench_branches", "CREATE TABLE pgbench_branches (bid int)"} {
				if _, err := c.Exec(context.Background(), q); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { c.Exec(context.Background(), "DROP TABLE IF EXISTS pgbench_branches") })
			for _, args := range [][]string{{"prepare"}, {"run", "--duration", "1s"}} {
				code, _, stderr := cairn(t, append([]string{"tpcb"}, append(args, "--db", url)...)...)
				if code != ExitUsage || !strings.Contains(stderr, "pgbench_branches") || !strings.Contains(stderr, "pgbench -i") {
					t.Errorf("%s over pgbench's table: exit %d %q", args[0], code, stderr)
				}
				oneCleanLine(t, stderr)
			}
			if code, out, _ := cairn(t, "tpcb", "cleanup", "--db", url); code != 0 || !strings.Contains(out, "left alone") {
				t.Errorf("cleanup: exit %d %q", code, out)
			}
			var n int
			if err := c.QueryRow(context.Background(), "SELECT COUNT(*) FROM pgbench_branches").Scan(&n); err != nil {
				t.Errorf("cleanup dropped pgbench's own table: %v", err)
			}
		})
	}
}
