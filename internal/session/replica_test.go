package session

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

// A TPC-C run on a PostgreSQL primary with a streaming replica the test starts: Order-Status and
// Stock-Level run on the replica (its own pg_stat_database counts them, the primary's does not),
// the rest on the primary; TPM is the sum of both servers' counters; the replica's lag is
// sampled. Both modes: client SQL, and the procedures (which replication carries).
func TestTPCCReadsOnAPostgresReplica(t *testing.T) {
	pg := testutil.PG(t)
	db := testutil.Databases(t, pg, "cairn_replica_test")[0]
	replica := testutil.PGStandby(t, pg, db)
	prepareTPCC(t, db)
	testutil.CaughtUp(t, pg, replica)
	for _, mode := range []string{"sql", "procs"} {
		t.Run(mode, func(t *testing.T) {
			s, err := spec.Read([]byte(fmt.Sprintf("workload: tpcc\ndb: %s\nreplica: %s\nvu: 4\nrampup: 1s\nduration: 8s\nseed: 5\noptions:\n  mode: %s\n", db, replica, mode)))
			if err != nil {
				t.Fatal(err)
			}
			checkReplicaRun(t, s)
			if mode == "procs" {
				routedAllocs(t, s)
			}
		})
	}
	t.Run("oltp", func(t *testing.T) { checkOLTPOnReplica(t, db, replica) })
}

// routedAllocs counts the allocations per transaction of a VU whose reads go to a replica, in
// --mode procs on PostgreSQL, where a VU without replicas allocates nothing (tpcc's
// procsAllocs): routing must add none.
func routedAllocs(t *testing.T, s *spec.Spec) {
	t.Helper()
	ctx := context.Background()
	se, err := Open(ctx, s, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	def, err := se.startWorkload(ctx, 9)
	if err != nil {
		t.Fatal(err)
	}
	vu, err := def.NewVU(0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := se.T.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := vu.Bind(ctx, c); err != nil {
		t.Fatal(err)
	}
	types := make([]int, len(def.Types))
	n := testing.AllocsPerRun(500, func() {
		typ := vu.Next()
		types[typ]++
		if _, err := vu.Do(ctx); err != nil {
			t.Fatalf("%s: %v", def.Types[typ], err)
		}
	})
	t.Logf("procs on a PostgreSQL primary with a replica: %.2f allocations per transaction (%v of %v)", n, types, def.Types)
	if n > 0.5 {
		t.Errorf("%.2f allocations per transaction with a replica, want at most 0.5", n)
	}
}

// checkReplicaRun runs s, a TPC-C spec with one replica, and checks where each type ran and
// what each server counted.
func checkReplicaRun(t *testing.T, s *spec.Spec) {
	t.Helper()
	ctx := context.Background()
	se, err := Open(ctx, s, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	d, err := se.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Replication
	if r == nil || r.Route != "reads" || len(r.Groups) != 2 || len(r.Servers) != 2 {
		t.Fatalf("replication %+v", r)
	}
	want := map[string][]string{"primary": {"new_order", "payment", "delivery"}, "replicas": {"order_status", "stock_level"}}
	mins := d.Window.Seconds / 60
	for i, g := range r.Groups {
		types := want[g.Group]
		if !slices.Equal(g.Types, types) {
			t.Errorf("group %d %q runs %v, want %v", i, g.Group, g.Types, types)
		}
		var n int64
		for _, ty := range types {
			n += d.Txns[ty].Count
			if d.Txns[ty].Errors != 0 {
				t.Errorf("%s: %d errors (%v)", ty, d.Txns[ty].Errors, d.Errors)
			}
		}
		if g.Transactions != n || n == 0 || g.LatencyMs.P50 <= 0 {
			t.Errorf("group %s: %d transactions (its types counted %d), latency %+v", g.Group, g.Transactions, n, g.LatencyMs)
		}
		// Each server's own counter saw its group's transactions and no others'. A session
		// publishes its counts up to a second late (PostgreSQL 15), and the replica's VU sessions
		// are not made to publish at the window's edges: at each edge a second of the group's
		// transactions may be on the wrong side, plus one per session.
		srv := r.Servers[i]
		if srv.TPM == nil {
			t.Fatalf("server %s: no TPM", srv.Address)
		}
		counted := float64(*srv.TPM) * mins
		rate := float64(n) / d.Window.ClientSeconds
		margin := 2*rate + float64(d.VU) + 2
		if math.Abs(counted-float64(n)) > margin {
			t.Errorf("%s %s counted %.0f transactions in the window, its group ran %d (margin %.0f)", srv.Role, srv.Address, counted, n, margin)
		}
	}
	if r.Servers[0].Role != "primary" || r.Servers[1].Role != "replica" || r.Servers[1].Address == r.Servers[0].Address {
		t.Errorf("servers %+v", r.Servers)
	}
	if d.Result.TPM == nil || *d.Result.TPM != *r.Servers[0].TPM+*r.Servers[1].TPM {
		t.Errorf("TPM %v, not the sum of the servers' %d + %d", d.Result.TPM, *r.Servers[0].TPM, *r.Servers[1].TPM)
	}
	lag := r.Servers[1].Lag
	if lag == nil || lag.MaxS == nil || len(lag.Seconds) < int(d.Window.Seconds)/2 || len(lag.AtS) != len(lag.Seconds) {
		t.Fatalf("lag %+v", lag)
	}
	for _, v := range lag.Seconds {
		if v < 0 || v > 60 {
			t.Errorf("lag sample %v s", v)
		}
	}
	var b strings.Builder
	summary.Run(&b, d, s)
	if i := strings.Index(b.String(), "connection groups"); i >= 0 {
		part, _, _ := strings.Cut(b.String()[i:], "\n\n")
		t.Logf("result.tpm %d (%s)\n%s", *d.Result.TPM, d.Result.TPMSource, part)
	}
	for _, line := range []string{"connection groups (route reads):", fmt.Sprintf("replica %s: TPM %d (its own counter); lag max", r.Servers[1].Address, *r.Servers[1].TPM),
		fmt.Sprintf("primary %s: TPM %d", r.Servers[0].Address, *r.Servers[0].TPM)} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("the summary lacks %q:\n%s", line, b.String())
		}
	}
}

// The same on MariaDB: a primary with its binary log and a replica of it, both the test's own.
func TestTPCCReadsOnAMariaDBReplica(t *testing.T) {
	primary, replica := testutil.MariaDBReplica(t)
	ctx := context.Background()
	_, c := testutil.Open(t, primary+"mysql")
	if _, err := c.Exec(ctx, "CREATE DATABASE cairn_replica_test"); err != nil {
		t.Fatal(err)
	}
	db, rdb := primary+"cairn_replica_test", replica+"cairn_replica_test"
	prepareTPCC(t, db)
	testutil.MariaDBCaughtUp(t, primary+"mysql", replica+"mysql")
	for _, mode := range []string{"sql", "procs"} {
		t.Run(mode, func(t *testing.T) {
			s, err := spec.Read([]byte(fmt.Sprintf("workload: tpcc\ndb: %s\nreplica: %s\nvu: 4\nrampup: 1s\nduration: 8s\nseed: 5\noptions:\n  mode: %s\n", db, rdb, mode)))
			if err != nil {
				t.Fatal(err)
			}
			checkReplicaRun(t, s)
		})
	}
}

// oltp's read-only test on the same primary and standby: every event runs on the replica, whose
// own counter counts them; the primary's group is empty; a test that writes is refused.
func checkOLTPOnReplica(t *testing.T, db, replica string) {
	t.Helper()
	ctx := context.Background()
	w, err := workload.Get("oltp")
	if err != nil {
		t.Fatal(err)
	}
	prep := w.PrepareOptions()
	for k, v := range map[string]string{"tables": "1", "table-size": "2000"} {
		if f, ok := options.Lookup(prep, k); !ok || f.Set(prep, v) != nil {
			t.Fatalf("oltp prepare has no %s option", k)
		}
	}
	if err := Prepare(ctx, w, db, prep, Options{}); err != nil {
		t.Fatal(err)
	}
	testutil.CaughtUp(t, db, replica)
	text := fmt.Sprintf("workload: oltp\ndb: %s\nreplica: %s\nvu: 2\nduration: 4s\nseed: 5\noptions:\n  workload: read-only\n", db, replica)
	d, err := runSpec(t, ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Replication
	if r == nil || len(r.Groups) != 2 || r.Groups[0].Transactions != 0 || r.Groups[1].Transactions != d.Txns["read_only"].Count || r.Groups[1].Transactions == 0 {
		t.Fatalf("replication %+v, transactions %+v", r, d.Txns["read_only"])
	}
	if r.Servers[0].TPM == nil || r.Servers[1].TPM == nil {
		t.Fatalf("servers %+v", r.Servers)
	}
	n := float64(r.Groups[1].Transactions)
	counted := float64(*r.Servers[1].TPM) * d.Window.Seconds / 60
	if margin := 2*n/d.Window.ClientSeconds + float64(d.VU) + 2; math.Abs(counted-n) > margin || *r.Servers[0].TPM > int64(margin) {
		t.Errorf("the replica counted %.0f events, the client %0.f (margin %.0f); the primary's TPM %d", counted, n, margin, *r.Servers[0].TPM)
	}
	if _, err := runSpec(t, ctx, strings.Replace(text, "read-only", "read-write", 1)); err == nil || !strings.Contains(err.Error(), "sends no transactions to replicas") {
		t.Errorf("read-write with replicas: %v", err)
	}
}

// prepareTPCC prepares one warehouse of TPC-C on db, through the session as the CLI does.
func prepareTPCC(t *testing.T, db string) {
	t.Helper()
	w, err := workload.Get("tpcc")
	if err != nil {
		t.Fatal(err)
	}
	prep := w.PrepareOptions()
	if f, ok := options.Lookup(prep, "warehouses"); !ok || f.Set(prep, "1") != nil {
		t.Fatal("tpcc prepare has no warehouses option")
	}
	if err := Prepare(context.Background(), w, db, prep, Options{}); err != nil {
		t.Fatal(err)
	}
}
