package fanout_test

import (
	"bytes"
	"context"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/report"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/fanout"
)

type quiet struct{}

func (quiet) Say(string, ...any)        {}
func (quiet) Load(int64, *atomic.Int64) {}
func (quiet) Loaded()                   {}

func prepare(t *testing.T, db string, rows int) {
	t.Helper()
	w, _ := workload.Get("fanout")
	tg, err := target.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	o := w.PrepareOptions().(*fanout.PrepareSpec)
	o.Rows, o.Seed = rows, 42
	if err := w.Prepare(context.Background(), tg, o, quiet{}); err != nil {
		t.Fatal(err)
	}
}

func check(t *testing.T, db string) string {
	t.Helper()
	w, _ := workload.Get("fanout")
	tg, err := target.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var out bytes.Buffer
	if err := w.(workload.Checker).Check(context.Background(), tg, nil, &out); err != nil {
		t.Fatalf("check: %v\n%s", err, out.String())
	}
	return out.String()
}

// run runs the fan-out with the spec's keys set as given and returns its document and figures.
func run(t *testing.T, db string, set map[string]string) (*results.Document, *fanout.Extra, string) {
	t.Helper()
	s, err := spec.New("fanout", false)
	if err != nil {
		t.Fatal(err)
	}
	set["db"] = db
	// Every key given is set (a list of those it knew once left wait-sample out, unnoticed).
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if err := s.Set(k, set[k]); err != nil {
			t.Fatalf("set %s: %v", k, err)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	se, err := session.Open(context.Background(), s, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	d, err := se.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	x, ok := fanout.ExtraOf(d)
	if !ok {
		t.Fatal("no extra.fanout in the document")
	}
	w, _ := workload.Get("fanout")
	var sum bytes.Buffer
	w.(workload.Summarizer).Summary(&sum, d, &s.Engine.Engine, s.Options)
	return d, x, sum.String()
}

var reqID = regexp.MustCompile(`^[0-9]+-[0-9]+$`)

// The figures hold together: every request sent one statement to each of its shards, per shard
// and per server add up, the slow log's requests name their shards and ids.
func consistent(t *testing.T, d *results.Document, x *fanout.Extra, shards, servers, fan int) {
	t.Helper()
	if x.Shards != shards || x.Servers != servers || x.Fanout != fan || x.Requests == 0 || x.Mismatches != 0 {
		t.Fatalf("figures %+v", x)
	}
	if m := d.Main(); m == nil || m.Count != x.Requests || m.Errors != 0 {
		t.Errorf("the engine counted %+v, the fan-out %d requests", m, x.Requests)
	}
	if x.Statements != x.Requests*int64(fan) || len(x.PerShard) != shards || len(x.PerServer) != servers {
		t.Errorf("%d statements for %d requests of %d; %d shards, %d servers", x.Statements, x.Requests, fan, len(x.PerShard), len(x.PerServer))
	}
	var stmts, last, slowest int64
	for _, g := range x.PerShard {
		stmts += g.Statements
		last += g.Last
		slowest += g.Slowest
	}
	var srvStmts int64
	for _, g := range x.PerServer {
		srvStmts += g.Statements
	}
	if stmts != x.Statements || srvStmts != x.Statements || last != x.Requests || slowest != x.Requests {
		t.Errorf("per shard %d, per server %d statements of %d; last %d of %d requests", stmts, srvStmts, x.Statements, last, x.Requests)
	}
	if x.PhysicalMs.P50 <= 0 || x.LogicalMs.P50 < x.PhysicalMs.P50 || x.SchedMs.Max <= 0 || x.ShortBoard.MaxPhysicalMs.Mean > x.ShortBoard.SumPhysicalMs.Mean {
		t.Errorf("latencies: logical %+v physical %+v sched %+v board %+v", x.LogicalMs, x.PhysicalMs, x.SchedMs, x.ShortBoard)
	}
	if len(x.Slow) == 0 || len(x.Slow) > 20 {
		t.Fatalf("%d slow requests", len(x.Slow))
	}
	for i, s := range x.Slow {
		if !reqID.MatchString(s.ID) || len(s.Statements) != fan || (i > 0 && s.RTMs > x.Slow[i-1].RTMs) {
			t.Errorf("slow request %d: %+v", i, s)
		}
	}
}

// 4 MariaDB servers of the test's own × 8 databases = 32 shards: prepare, check, run; every
// figure per shard and per server, no shard the short board by cairn's doing. Then one shard is
// slowed on purpose (a table lock held 40 ms in every 80): the run names it the shard slowest
// most often, with the logical p99 far above the physical p99, and the server's own slow log
// finds each of the slowest requests by the id cairn sent.
func TestFanout32Shards(t *testing.T) {
	servers := testutil.MariaDBs(t, 4)
	var urls []string
	for _, s := range servers {
		urls = append(urls, testutil.Databases(t, s+"mysql", "shard_0", "shard_1", "shard_2", "shard_3", "shard_4", "shard_5", "shard_6", "shard_7")...)
	}
	// The compact form names the same 32 shards in the same order.
	var hosts []string
	for _, s := range servers {
		hosts = append(hosts, strings.TrimSuffix(strings.TrimPrefix(s, "mysql://cairn:cairn@"), "/"))
	}
	compact := "mysql://cairn:cairn@" + strings.Join(hosts, ",") + "/shard_{0..7}"
	if got, _ := target.ExpandSet(compact); strings.Join(got, " ") != target.JoinSet(urls) {
		t.Fatalf("compact form %q expands to %q", compact, got)
	}
	db := target.JoinSet(urls)
	prepare(t, compact, 400)
	if out := check(t, db); !strings.Contains(out, "32 shards of 400 rows") {
		t.Errorf("check said %q", out)
	}

	d, x, sum := run(t, db, map[string]string{"vu": "3", "rampup": "500ms", "duration": "2s", "options.parallelism": "8"})
	consistent(t, d, x, 32, 4, 32)
	// No shard is the short board by cairn's doing: none of the 32 equal shards is the slowest
	// of a request more than three times its share.
	for _, g := range x.PerShard {
		if g.Slowest > 3*x.Requests/32+10 {
			t.Errorf("%s was the slowest in %d of %d requests, unslowed\n%s", g.Name, g.Slowest, x.Requests, sum)
		}
	}
	if x.Parallelism != 8 || len(x.PerServer) != 4 || x.PerServer[0].Shards != 8 {
		t.Errorf("servers %+v", x.PerServer)
	}
	if r := results.RunningOf(d); r == nil || len(r.PerServer) != 4 {
		t.Errorf("running threads per server: %+v", r)
	}
	// Wait events of every server, each apart: differences of each one's own counters.
	if w := d.Waits; w == nil || len(w.PerServer) != 4 || !strings.Contains(w.Source, "of each of 4 servers") {
		t.Errorf("waits per server: %+v", w)
	} else {
		for i, s := range w.PerServer {
			if s.Server != hosts[i] {
				t.Errorf("waits of server %d: %s, want %s", i, s.Server, hosts[i])
			}
		}
	}
	for _, want := range []string{"logical:", "physical:", "scheduling delay", "short board", "per server", "most time added first", "slowest requests", "cairn-req=", "running threads per server"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}

	// One shard slowed on purpose; its server logs every statement to its slow-log table (only
	// that server: the log costs it CPU, which on the others would make their shards slower in
	// fact), where each of the slowest requests is found by its id.
	const slow = 13
	_, lc := testutil.Open(t, urls[slow])
	for _, q := range []string{"SET GLOBAL log_output='TABLE'", "SET GLOBAL long_query_time=0", "SET GLOBAL slow_query_log=1"} {
		if _, err := lc.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- testutil.HoldLocks(urls[slow], fanout.Table, 40*time.Millisecond, stop)
	}()
	_, x, sum = run(t, db, map[string]string{"vu": "3", "rampup": "500ms", "duration": "3s", "options.parallelism": "8"})
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Exec(context.Background(), "SET GLOBAL slow_query_log=0"); err != nil {
		t.Fatal(err)
	}
	byLast := append([]fanout.Group(nil), x.PerShard...)
	sort.SliceStable(byLast, func(i, j int) bool { return byLast[i].Slowest > byLast[j].Slowest })
	// Half the requests meet the lock, held 40 ms at a time: the logical p99 is most of a hold
	// and above the physical one (of which a thirty-second is the slowed shard's). Not twice the
	// physical p99: a host with a load of 20 made that 39 ms against 77.
	if byLast[0].Name != x.PerShard[slow].Name || x.LogicalMs.P99 < 30 || x.LogicalMs.P99 <= x.PhysicalMs.P99 {
		t.Errorf("slowest most often %s (%d), want %s; logical p99 %.3f ms, physical p99 %.3f ms\n%s", byLast[0].Name, byLast[0].Slowest,
			x.PerShard[slow].Name, x.LogicalMs.P99, x.PhysicalMs.P99, sum)
	}
	t.Logf("slowed shard %d: slowest in %.1f%% of requests; logical p99 %.3f ms, physical p99 %.3f ms", slow, x.PerShard[slow].SlowestPct, x.LogicalMs.P99, x.PhysicalMs.P99)
	// Ranked by the time each added to the logical response time, the slowed shard and its server
	// come first, whatever their counts of ending last (the requests that wait for the lock are
	// few, the others end last by a hair); the summary's tables are in that order.
	byAdded, srvRank := results.RankByAdded(x.PerShard), results.RankByAdded(x.PerServer)
	if byAdded[0].Name != x.PerShard[slow].Name || srvRank[0].Name != x.PerServer[slow/8].Name {
		t.Errorf("ranked by time added: shard %s, server %s; want %s on %s\n%s", byAdded[0].Name, srvRank[0].Name, x.PerShard[slow].Name, x.PerServer[slow/8].Name, sum)
	}
	var added, addedPct float64
	for _, g := range x.PerShard {
		added += g.AddedMs
		addedPct += g.AddedPct
	}
	// Every request's time added is that of one shard: the shards' add up to the servers', and
	// per request to at most the mean logical response time (as the VU timed it).
	var srvAdded float64
	for _, g := range x.PerServer {
		srvAdded += g.AddedMs
	}
	if added <= 0 || math.Abs(added-srvAdded) > 0.01*added || math.Abs(addedPct-100) > 1 || added/float64(x.Requests) > x.ShortBoard.RequestMs.Mean {
		t.Errorf("time added: shards %.3f ms (%.1f%%), servers %.3f ms, %d requests of %.3f ms mean", added, addedPct, srvAdded, x.Requests, x.ShortBoard.RequestMs.Mean)
	}
	if _, after, _ := strings.Cut(sum, "shards, most time added first"); !strings.HasPrefix(after[strings.Index(after, "\n")+1:], x.PerShard[slow].Name+" ") {
		t.Errorf("the summary does not rank the slowed shard first:\n%s", sum)
	}
	byLastCount := append([]fanout.Group(nil), x.PerShard...)
	sort.SliceStable(byLastCount, func(i, j int) bool { return byLastCount[i].Last > byLastCount[j].Last })
	t.Logf("slowed shard %d: added %.4f ms per request (%.1f%% of the time added), last in %.1f%% (first by count: %s, %.1f%%)", slow,
		x.PerShard[slow].AddedMeanMs, x.PerShard[slow].AddedPct, x.PerShard[slow].LastPct, byLastCount[0].Name, byLastCount[0].LastPct)
	for _, s := range x.Slow {
		var n int
		if err := lc.QueryRow(context.Background(), "SELECT COUNT(*) FROM mysql.slow_log WHERE db = ? AND CONVERT(sql_text USING utf8mb4) LIKE ?",
			"shard_5", "%cairn-req="+s.ID+" %").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("slow request %s: %d statements with its id in the slowed shard's slow log, want 1", s.ID, n)
		}
	}

	lines, err := workload.Cleanup(context.Background(), compact, fanout.Footprint)
	if err != nil || len(lines) < 32 {
		t.Errorf("cleanup: %v, %q", err, lines)
	}
}

// Prepared statements on MySQL/MariaDB are sent and read by the VU's own goroutine, polling its
// sockets: sums and figures hold with fewer in flight than shards and with all of them, and a
// shard held up by table locks is charged its own wait, not the shards read after it (an answer
// is read when its socket is ready, not in send order).
func TestFanoutPreparedPolled(t *testing.T) {
	// A server of the test's own: a stall of a server others load too would lengthen every
	// shard's slowest statements, which this test compares.
	urls := testutil.Databases(t, testutil.MariaDBs(t, 1)[0]+"mysql", "cairn_fanpoll_0", "cairn_fanpoll_1", "cairn_fanpoll_2", "cairn_fanpoll_3")
	db := target.JoinSet(urls)
	prepare(t, db, 200)
	for _, par := range []string{"1", "2", "4"} {
		d, x, _ := run(t, db, map[string]string{"vu": "2", "rampup": "200ms", "duration": "1s", "rate": "500", "options.protocol": "prepared", "options.parallelism": par})
		consistent(t, d, x, 4, 1, 4)
	}
	const slow = 1
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- testutil.HoldLocks(urls[slow], fanout.Table, 150*time.Millisecond, stop) }()
	_, x, sum := run(t, db, map[string]string{"vu": "2", "rampup": "200ms", "duration": "2s", "options.protocol": "prepared", "options.parallelism": "4"})
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Each VU's statement to the slowed shard waits out part of every 150 ms lock, which its
	// p99.9 shows; read in send order, the shards sent after it would be charged as much. (Not the
	// max: a stall of this shared host's CPUs, tens of ms, lengthens every shard's longest
	// statement; the lock is long enough to stand above them.)
	if held := x.PerShard[slow].RTMs.P999; held < 100 {
		t.Fatalf("the slowed shard's p99.9 is %.3f ms\n%s", held, sum)
	}
	for k, g := range x.PerShard {
		if k != slow && g.RTMs.P999*2 > x.PerShard[slow].RTMs.P999 {
			t.Errorf("%s: p99.9 %.3f ms, the slowed shard's %.3f ms\n%s", g.Name, g.RTMs.P999, x.PerShard[slow].RTMs.P999, sum)
		}
	}
}

// Two PostgreSQL databases as a shard set: prepared statements, a fan-out to one shard of two,
// serial and open loop; check; a set given in another order is refused naming the shard.
func TestFanoutPostgres(t *testing.T) {
	urls := testutil.Databases(t, testutil.PG(t), "cairn_h8_fan0", "cairn_h8_fan1")
	db := target.JoinSet(urls)
	prepare(t, db, 200)
	check(t, db)
	// Sampled every 10 ms: at the default 100 ms a 1 s window's ten samples of two VUs' short
	// statements can all miss them on a busy host.
	d, x, _ := run(t, db, map[string]string{"vu": "2", "rampup": "200ms", "duration": "1s", "options.protocol": "prepared", "wait-sample": "10ms"})
	consistent(t, d, x, 2, 1, 2)
	// PostgreSQL samples one database's sessions: each shard's database is sampled apart.
	if w := d.Waits; w == nil || len(w.PerServer) != 2 || !strings.HasSuffix(w.PerServer[1].Server, "/cairn_h8_fan1") || w.Samples == 0 ||
		w.Samples != w.PerServer[0].Samples+w.PerServer[1].Samples {
		t.Errorf("waits per database: %+v", w)
	}
	d, x, _ = run(t, db, map[string]string{"vu": "2", "rampup": "200ms", "duration": "1s", "options.fanout": "1", "options.parallelism": "1", "rate": "200"})
	consistent(t, d, x, 2, 1, 1)
	if x.PerShard[0].Statements == 0 || x.PerShard[1].Statements == 0 {
		t.Errorf("with --fanout 1, the VUs should serve both shards between them: %+v", x.PerShard)
	}
	tg, err := target.Open(context.Background(), target.JoinSet([]string{urls[1], urls[0]}))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	w, _ := workload.Get("fanout")
	_, err = w.Start(context.Background(), tg, w.RunOptions(), 1)
	if err == nil || !strings.Contains(err.Error(), "shard 0 of 2") || !strings.Contains(err.Error(), "in the order they were prepared in") {
		t.Errorf("a reordered set: %v", err)
	}
}

// results compare sets the physical figures side by side, from a document as stored (extra.fanout
// read back from JSON), and leaves them out for runs of other workloads.
func TestCompareFigures(t *testing.T) {
	stored := &results.Document{Extra: map[string]any{"fanout": map[string]any{"statements": 10.0, "statements_per_s": 512.5,
		"physical_ms": map[string]any{"p50": 0.25, "p99": 1.5}, "sched_delay_ms": map[string]any{"p99": 0.02}, "short_board": map[string]any{"lag_ms": map[string]any{"p99": 3.0}}}}}
	want := map[string]float64{"physical statements/s": 512.5, "physical p50 ms": 0.25, "physical p99 ms": 1.5, "short board lag p99 ms": 3, "cairn sched delay p99 ms": 0.02}
	for _, f := range results.RunFigures("requests/s", "request", []string{"request"}) {
		w, ok := want[f.Name]
		if !ok {
			continue
		}
		delete(want, f.Name)
		if v, ok := f.Of(stored); !ok || v != w {
			t.Errorf("%s: %v %v, want %v", f.Name, v, ok, w)
		}
		if _, ok := f.Of(&results.Document{}); ok {
			t.Errorf("%s of a run without extra.fanout", f.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("not compared: %v", want)
	}
	// The report's run card shows them too.
	var html bytes.Buffer
	stored.Workload, stored.ID = "fanout", "1"
	if err := report.HTML(&html, []report.Item{{Run: stored}}, "fan-out"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "physical statements/s") || !strings.Contains(html.String(), "513") {
		t.Errorf("the report lacks the physical figures")
	}
}
