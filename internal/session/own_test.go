package session

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpcc"
)

// runWithProgress runs the spec text and returns its document and its live progress samples.
func runWithProgress(t *testing.T, text string) (*results.Document, []event.Progress) {
	t.Helper()
	ctx := context.Background()
	s, err := spec.Read([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	se, err := Open(ctx, s, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	var samples []event.Progress
	d, err := se.Run(ctx, event.New(event.Func(func(_ context.Context, e event.Event) error {
		if p, ok := e.(event.Progress); ok {
			samples = append(samples, p)
		}
		return nil
	})))
	if err != nil {
		t.Fatal(err)
	}
	return d, samples
}

// clientTxns is what the client counted in the window as the server counts transactions: every
// attempt, committed or rolled back, the failed ones and the retried ones too.
func clientTxns(d *results.Document) int64 {
	var n int64
	for _, tx := range d.Txns {
		n += tx.Count + tx.Errors + tx.Retries
	}
	return n
}

// TestOwnStatementsNeverCount: cairn's samplers (waits and running threads every 10 ms, 200
// statements a second) and its progress readings never reach the server's transaction counter
// TPM reads. With every sampler on, TPM's count — TPM × the window's minutes — is the client's
// count of transactions in the window, to within the transactions in flight at the two edges;
// the live lines' server TPM adds up to the client's count over the same span, to within what
// the sessions hold back at the readings. On PostgreSQL the samplers run outside the database;
// with terminals they ride the pooled connections and are counted and left out; on MariaDB the
// counter (Com_commit + Com_rollback) does not count autocommitted statements.
//
// The server's own sessions count too: autovacuum's transactions in the database (its tables'
// autovacuum is turned off here, but its visits of the database remain) may add a few. Each
// check allows for a twentieth of the running-threads sampler's statements in the window beside
// its own margin: were the samplers counted, the excess would be all of them and more.
func TestOwnStatementsNeverCount(t *testing.T) {
	prepared := map[string]bool{}
	parent := t // the schema outlives the subtest that prepares it
	for _, c := range []struct {
		name, engine string
		db           func(testing.TB) string
		// keying: VUs that key and think, a transaction a second or so against the samplers'
		// hundreds of statements; live: the live lines are checked too (a busy PostgreSQL
		// session holds its counts back for a second or more, which swings them by more than
		// the samplers would add).
		keying, live bool
	}{
		{"postgres", "vu: 4\n", testutil.PG, false, false},
		{"postgres keying", "vu: 20\n", testutil.PG, true, true},
		{"postgres pooled", "vu: 2\nterminals: 20\nconnections: 2\n", testutil.PG, true, true},
		{"mariadb", "vu: 4\n", testutil.MySQL, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := c.db(t)
			text := fmt.Sprintf("workload: tpcc\ndb: %s\n%srampup: 1s\nduration: 5s\nseed: 5\nprogress: 1s\n"+
				"wait-sample: 10ms\nrunning-sample: 10ms\nwaits: instrument\n", db, c.engine)
			if !prepared[db] {
				prepared[db] = true
				parent.Cleanup(func() { workload.Cleanup(context.Background(), db, tpcc.Footprint) })
				prepare(t, text+"prepare:\n  warehouses: 1\n")
				quietTables(t, db)
			}
			if c.keying {
				text += "options:\n  keying-thinking: true\n"
			}
			d, samples := runWithProgress(t, text)
			if d.Result.TPM == nil || !strings.HasPrefix(d.Result.TPMSource, "server") {
				t.Fatalf("TPM %v, headline %+v: want server-counted", d.Result.TPM, d.Result.Headline)
			}
			if pooled := strings.HasSuffix(c.name, "pooled"); pooled != (d.Terminals != nil) {
				t.Fatalf("terminals %+v", d.Terminals)
			}
			client := clientTxns(d)
			inFlight := int64(2 * d.VU) // at most one a connection at each edge
			counted := float64(*d.Result.TPM) * d.Window.Seconds / 60
			r := results.RunningOf(d)
			if r == nil || r.Samples < 50 {
				t.Fatalf("running threads %+v: want the sampler's samples in the window", r)
			}
			background := float64(r.Samples) / 20
			if client == 0 || math.Abs(counted-float64(client)) > float64(inFlight)+1+background {
				t.Errorf("TPM %d over %.3f s counts %.0f transactions, the client %d (at most %d in flight at the edges, %.0f of the server's own): %s",
					*d.Result.TPM, d.Window.Seconds, counted, client, inFlight, background, d.Result.TPMSource)
			}
			var server, clientLive, span float64
			n := 0
			for _, p := range samples {
				if p.Source != "server" {
					continue
				}
				n++
				server += p.TxnPM * p.Interval.Minutes()
				clientLive += float64(p.Count)
				span += p.Interval.Seconds()
			}
			// A reading may lack what the sessions hold back, up to a second of their commits.
			slack := 5 + clientLive/math.Max(span, 1) + background
			if c.live && (n < 3 || math.Abs(server-clientLive) > slack) {
				t.Errorf("%d live lines' server TPM count %.0f transactions, the client %.0f (within %.0f)", n, server, clientLive, slack)
			}
			t.Logf("TPM %d (%.0f transactions), client %d; live: server %.0f, client %.0f over %d lines; %d samples of running threads",
				*d.Result.TPM, counted, client, server, clientLive, n, r.Samples)
		})
	}
}

// prepare prepares the schema of the spec text, without running it.
func prepare(t *testing.T, text string) {
	t.Helper()
	ctx := context.Background()
	s, err := spec.Read([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	se, err := Open(ctx, s, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	if err := se.prepare(ctx); err != nil {
		t.Fatal(err)
	}
}

// quietTables turns autovacuum off on the TPC-C tables of a PostgreSQL database that has just
// been loaded, whose transactions in the database would count beside the workload's (the tables
// are dropped at the test's end).
func quietTables(t *testing.T, db string) {
	tg, c := testutil.Open(t, db)
	if tg.Kind() != "postgres" {
		return
	}
	for _, tb := range []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"} {
		if _, err := c.Exec(context.Background(), "ALTER TABLE "+tb+" SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)"); err != nil {
			t.Fatal(err)
		}
	}
}
