package tpcb

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

func capture(t *testing.T, gen func(target.RowWriter) error) string {
	t.Helper()
	var b bytes.Buffer
	w := target.NewTextRowWriter(&b)
	if err := gen(w); err != nil {
		t.Fatal(err)
	}
	if err := w.FlushBuf(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGenMatchesPgbench compares the generated COPY text with pgbench -i's: PostgreSQL 15 sends
// the accounts as "aid\tbid\t0\t" and inserts branches (bid, 0) and tellers (tid, bid, 0) with a
// NULL filler, which is what PostgreSQL 16's COPY lines "%d\t0\t\\N" and "%d\t%d\t0\t\\N" say.
func TestGenMatchesPgbench(t *testing.T) {
	g := Gen{}
	if got, want := capture(t, func(w target.RowWriter) error { return g.Branches(w, 2) }), "1\t0\t\\N\n2\t0\t\\N\n"; got != want {
		t.Errorf("branches: %q, want %q", got, want)
	}
	tellers := capture(t, func(w target.RowWriter) error { return g.Tellers(w, 2) })
	lines := strings.Split(strings.TrimSuffix(tellers, "\n"), "\n")
	if len(lines) != 20 || lines[0] != "1\t1\t0\t\\N" || lines[9] != "10\t1\t0\t\\N" || lines[10] != "11\t2\t0\t\\N" || lines[19] != "20\t2\t0\t\\N" {
		t.Errorf("tellers: %q", lines)
	}
	acc := capture(t, func(w target.RowWriter) error { return g.Accounts(w, 99999, 100002) })
	if want := "99999\t1\t0\t\n100000\t1\t0\t\n100001\t2\t0\t\n100002\t2\t0\t\n"; acc != want {
		t.Errorf("accounts: %q, want %q", acc, want)
	}
}

func TestChunksCoverAccountsOnce(t *testing.T) {
	for _, tc := range []struct {
		n       int64
		loaders int
	}{{100000, 1}, {100000, 8}, {1000000, 2}, {1234567, 3}, {50000, 4}, {1, 1}} {
		c := chunks(tc.n, tc.loaders)
		next := int64(1)
		for _, r := range c {
			if r[0] != next || r[1] < r[0] {
				t.Fatalf("n=%d loaders=%d: chunk %v after %d", tc.n, tc.loaders, r, next-1)
			}
			next = r[1] + 1
		}
		if next != tc.n+1 {
			t.Errorf("n=%d loaders=%d: chunks end at %d", tc.n, tc.loaders, next-1)
		}
	}
}

func TestFindScript(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"tpcb-like", "tpcb-like"}, {"simple-update", "simple-update"}, {"select-only", "select-only"},
		{"tpcb", "tpcb-like"}, {"sel", "select-only"}, {"simple", "simple-update"},
		{"s", ""}, {"", ""}, {"nosuch", ""}, {"select-only-x", ""},
	} {
		sc, err := FindScript(tc.in)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%q: found %s, want an error", tc.in, sc.Name)
		case tc.want != "" && (err != nil || sc.Name != tc.want):
			t.Errorf("%q: %v %v, want %s", tc.in, sc, err, tc.want)
		}
	}
}

func TestCompile(t *testing.T) {
	for _, tc := range []struct {
		dialect, name, prepared string
		args                    []int
		class                   string
	}{
		{"postgres", "accounts_update", "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", []int{varDelta, varAid}, workload.ClassWrite},
		{"postgres", "history_insert", "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
			[]int{varTid, varBid, varAid, varDelta}, workload.ClassWrite},
		{"mysql", "accounts_select", "SELECT abalance FROM pgbench_accounts WHERE aid = ?", []int{varAid}, workload.ClassRead},
		{"sqlite", "tellers_update", "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?", []int{varDelta, varTid}, workload.ClassWrite},
		{"postgres", "begin", "BEGIN", nil, workload.ClassOther},
		{"mysql", "end", "COMMIT", nil, workload.ClassOther},
		{"sqlite", "begin", "BEGIN IMMEDIATE", nil, workload.ClassOther},
	} {
		sc := &Script{Name: "t", Stmts: []string{tc.name}}
		c, err := Compile(testutil.Dialect(t, tc.dialect), sc)
		if err != nil {
			t.Fatal(err)
		}
		s := c.Stmts[0]
		if s.Prepared != tc.prepared || s.Class != tc.class || len(s.Args) != len(tc.args) {
			t.Errorf("%s %s: %q %s %v", tc.dialect, tc.name, s.Prepared, s.Class, s.Args)
			continue
		}
		for i := range s.Args {
			if s.Args[i] != tc.args[i] {
				t.Errorf("%s %s: args %v, want %v", tc.dialect, tc.name, s.Args, tc.args)
			}
		}
	}
}

// TestSimpleText checks --protocol simple's statements: the values written where pgbench's
// variables were, the rest of the text as in txn.sql.
func TestSimpleText(t *testing.T) {
	c, err := Compile(testutil.Dialect(t, "postgres"), &Scripts[0])
	if err != nil {
		t.Fatal(err)
	}
	vars := [numVars]int64{varAid: 123456, varBid: 2, varTid: 17, varDelta: -4321}
	want := []string{
		"BEGIN",
		"UPDATE pgbench_accounts SET abalance = abalance + -4321 WHERE aid = 123456",
		"SELECT abalance FROM pgbench_accounts WHERE aid = 123456",
		"UPDATE pgbench_tellers SET tbalance = tbalance + -4321 WHERE tid = 17",
		"UPDATE pgbench_branches SET bbalance = bbalance + -4321 WHERE bid = 2",
		"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (17, 2, 123456, -4321, CURRENT_TIMESTAMP)",
		"END",
	}
	if len(c.Stmts) != len(want) {
		t.Fatalf("%d statements", len(c.Stmts))
	}
	for i, s := range c.Stmts {
		if got := string(s.AppendSimple(nil, &vars)); got != want[i] {
			t.Errorf("%s: %q, want %q", s.Name, got, want[i])
		}
	}
	if !c.Txn {
		t.Error("tpcb-like is not a transaction")
	}
}

// TestScriptsPerDialect compiles every script for every dialect: same statements everywhere but
// for BEGIN and END, and the statement types the engine gets.
func TestScriptsPerDialect(t *testing.T) {
	for _, d := range []string{"postgres", "mysql", "sqlite"} {
		for i := range Scripts {
			c, err := Compile(testutil.Dialect(t, d), &Scripts[i])
			if err != nil {
				t.Fatalf("%s %s: %v", d, Scripts[i].Name, err)
			}
			st := c.Statements()
			if len(st) != len(Scripts[i].Stmts) {
				t.Errorf("%s %s: %d statements", d, Scripts[i].Name, len(st))
			}
			for j, s := range c.Stmts {
				if s.Name != "begin" && s.Name != "end" && !strings.Contains(s.Text, "pgbench_") {
					t.Errorf("%s %s: %q", d, s.Name, s.Text)
				}
				if st[j].Name != s.Name || st[j].Class != s.Class {
					t.Errorf("%s: statement %d is %v", d, j, st[j])
				}
			}
		}
	}
	sel, _ := Compile(testutil.Dialect(t, "postgres"), &Scripts[2])
	if len(sel.Stmts) != 1 || sel.Txn || !sel.Stmts[0].Row {
		t.Errorf("select-only: %d statements, txn %v", len(sel.Stmts), sel.Txn)
	}
}

// TestDrawRanges checks pgbench's ranges: aid 1..100000·scale, bid 1..scale, tid 1..10·scale,
// delta -5000..5000, all inclusive and all reached; and that a seed reproduces the draws.
func TestDrawRanges(t *testing.T) {
	const scale = 3
	r := rand.New(rand.NewPCG(1, 2))
	lo := [numVars]int64{1 << 62, 1 << 62, 1 << 62, 1 << 62}
	hi := [numVars]int64{-1 << 62, -1 << 62, -1 << 62, -1 << 62}
	var v [numVars]int64
	for i := 0; i < 2_000_000; i++ {
		Draw(r, scale, numVars, &v)
		for k := range v {
			lo[k], hi[k] = min(lo[k], v[k]), max(hi[k], v[k])
		}
	}
	want := [numVars][2]int64{{1, 300000}, {1, 3}, {1, 30}, {-5000, 5000}}
	for k := range want {
		if lo[k] != want[k][0] || hi[k] != want[k][1] {
			t.Errorf("%s in %d..%d, want %d..%d", varNames[k], lo[k], hi[k], want[k][0], want[k][1])
		}
	}
	a, b := rand.New(rand.NewPCG(7, 9)), rand.New(rand.NewPCG(7, 9))
	var va, vb [numVars]int64
	for i := 0; i < 100; i++ {
		Draw(a, scale, numVars, &va)
		Draw(b, scale, numVars, &vb)
		if va != vb {
			t.Fatal("the same seed drew different values")
		}
	}
	// select-only draws aid alone, as its script has only "\set aid".
	v = [numVars]int64{}
	Draw(r, scale, 1, &v)
	if v[varAid] == 0 || v[varBid] != 0 || v[varTid] != 0 || v[varDelta] != 0 {
		t.Errorf("select-only drew %v", v)
	}
}
