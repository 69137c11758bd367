package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/workload"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

// The headline a run stores is the one its workload declares, with its name, unit and who
// counted it; TPC-C also keeps result.nopm for the readers of earlier documents.
func TestHeadlineIsTheWorkloads(t *testing.T) {
	for _, c := range []struct {
		workload, prepare, name, unit, source, txn string
	}{
		{"tpcb", "scale: 1", "TPS", "transactions per second", "client", ""},
		{"tpcc", "warehouses: 1", "NOPM", "New-Orders per minute", "server", "new_order"},
	} {
		t.Run(c.workload, func(t *testing.T) {
			ctx := context.Background()
			db := "sqlite://" + filepath.Join(t.TempDir(), "h.db")
			s, err := spec.Read([]byte(fmt.Sprintf("workload: %s\ndb: %s\nvu: 1\nrampup: 0s\nduration: 2s\nseed: 3\nprepare:\n  %s\n", c.workload, db, c.prepare)))
			if err != nil {
				t.Fatal(err)
			}
			se, err := Open(ctx, s, "test", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer se.Close()
			d, err := se.Run(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := d.Result.Headline
			if h == nil || h.Name != c.name || h.Unit != c.unit || h.Source != c.source || h.Txn != c.txn || h.Value <= 0 {
				t.Fatalf("headline %+v", h)
			}
			if name, v, ok := d.Headline(); !ok || name != c.name || v != h.Value {
				t.Errorf("Headline() = %s %v %v", name, v, ok)
			}
			if (d.Result.NOPM != nil) != (c.workload == "tpcc") || (d.Result.NOPM != nil && float64(*d.Result.NOPM) != h.Value) {
				t.Errorf("result.nopm %v beside headline %+v", d.Result.NOPM, h)
			}
		})
	}
}

// counterless is a server target whose transaction counter is named but was not there.
type counterless struct{ target.Target }

func (counterless) TxnCounterSQL() string  { return "SHOW GLOBAL STATUS …" }
func (counterless) TxnCounterName() string { return "Com_commit + Com_rollback" }

// A reading without the server's transaction counter (MySQL 8's Com_* counters read where it has
// none) gives a client-counted TPM that says why, never a TPM of 0 from the server.
func TestTPMWithoutTheCounter(t *testing.T) {
	d := &results.Document{Window: results.Window{Seconds: 60, ClientSeconds: 60},
		Txns: map[string]*results.Txn{"new_order": {Count: 100}, "payment": {Count: 120}}}
	out := &run.Outcome{Start: run.Snapshot{OK: true, Headline: 10, NoCounter: true}, End: run.Snapshot{OK: true, Headline: 110, NoCounter: true}}
	def := &workload.Run{Types: []string{"new_order", "payment"}, HeadlineName: "NOPM"}
	serverHeadline(d, out, def, counterless{}, 220)
	if d.Result.TPM == nil || *d.Result.TPM != 220 || !strings.HasPrefix(d.Result.TPMSource, "client: the server's transaction counter (Com_commit + Com_rollback) could not be read") {
		t.Errorf("TPM %v from %q", d.Result.TPM, d.Result.TPMSource)
	}
	if len(d.Notes) == 0 || !strings.Contains(strings.Join(d.Notes, "\n"), "transaction counter could not be read") {
		t.Errorf("notes %q", d.Notes)
	}
}
