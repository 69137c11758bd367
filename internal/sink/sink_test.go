package sink_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/sink"
	"github.com/cairn-bench/cairn/internal/spec"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/testutil"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

// A run ends in the sink, the bus's first subscriber: it is stored and written once, and every
// subscriber after it hears the same lifecycle (begun, summary carrying the stored id, stored as
// its id, written to the file) in order; a file that cannot be written is the run's failure.
func TestSinkStoresAndTellsEverySubscriber(t *testing.T) {
	ctx := context.Background()
	s, err := spec.New("tpcb", false)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"db": testutil.SQLite(t), "vu": "1", "rampup": "0s", "duration": "1s", "progress": "0s", "seed": "7"} {
		if err := s.Set(k, v); err != nil {
			t.Fatalf("set %s: %v", k, err)
		}
	}
	s.AskPrepare()
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := resultstore.Open(ctx, filepath.Join(dir, "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	jsonPath := filepath.Join(dir, "run.json")
	var first, second []event.Event
	var idAtSummary string
	rec := func(to *[]event.Event) event.Subscriber {
		return event.Func(func(_ context.Context, e event.Event) error {
			if sum, ok := e.(event.Summary); ok && sum.Run != nil {
				idAtSummary = sum.Run.ID
			}
			*to = append(*to, e)
			return nil
		})
	}
	bus := event.New(sink.New(store, jsonPath), rec(&first))
	bus.Subscribe(rec(&second))

	se, err := session.Open(ctx, s, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	d, err := se.Run(ctx, bus)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Publish(ctx, event.Summary{What: results.KindRun, Run: d, Spec: s}); err != nil {
		t.Fatalf("the run's outcome: %v", err)
	}
	want := []string{"event.Begun", "event.Summary", "event.Stored", "event.Written"}
	for name, got := range map[string][]event.Event{"first": first, "second": second} {
		var kinds []string
		for _, e := range got {
			switch e.(type) {
			case event.Note, event.Tick, event.Window: // the host's warnings depend on the machine
			default:
				kinds = append(kinds, fmt.Sprintf("%T", e))
			}
		}
		if !slices.Equal(kinds, want) {
			t.Errorf("%s subscriber heard %v, want %v", name, kinds, want)
		}
	}
	if idAtSummary == "" {
		t.Error("the summary was heard before the run was stored: it carries no id")
	}
	var stored event.Stored
	var written event.Written
	for _, e := range first {
		switch e := e.(type) {
		case event.Stored:
			stored = e
		case event.Written:
			written = e
		}
	}
	if stored.ID == "" || stored.ID != d.ID || stored.Path != store.Path || stored.What != results.KindRun {
		t.Errorf("stored event %+v, document id %q", stored, d.ID)
	}
	if l, err := store.Load(ctx, d.ID); err != nil || l.Run == nil {
		t.Errorf("the stored run does not load: %v", err)
	}
	if written.Path != jsonPath {
		t.Errorf("written to %q, want %q", written.Path, jsonPath)
	}
	if _, err := os.Stat(jsonPath); err != nil {
		t.Errorf("no --json file: %v", err)
	}

	// A file that cannot be written fails the run, and says which.
	bad := event.New(sink.New(nil, filepath.Join(dir, "no-such-dir", "run.json")))
	var we *sink.WriteError
	if err := bad.Publish(ctx, event.Summary{What: results.KindRun, Run: d, Spec: s}); !errors.As(err, &we) {
		t.Errorf("a --json file that cannot be written ends in %v, want a WriteError", err)
	}
	if es, err := store.List(ctx, resultstore.Filter{}); err != nil || len(es) != 1 {
		t.Errorf("the store holds %d results (%v), want the one run", len(es), err)
	}
}
