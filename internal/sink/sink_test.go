package sink_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/runner"
	"github.com/cairn-bench/cairn/internal/sink"
	"github.com/cairn-bench/cairn/internal/spec"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/testutil"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

// A run ends in the sink: it is stored and written once, and every subscriber hears the same
// lifecycle (begun, summary, stored as its id, written to the file) in order; a run stopped
// before it started is an interruption, and nothing is stored.
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
	var first, second []sink.Event
	k := sink.New(store, jsonPath, sink.Func(func(e sink.Event) { first = append(first, e) }))
	k.Subscribe(sink.Func(func(e sink.Event) { second = append(second, e) }))

	se, err := runner.Open(ctx, s, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer se.Close()
	var h runner.Hooks
	k.RunHooks(&h)
	d, err := se.Run(ctx, h)
	if err := k.Run(ctx, d, s, err); err != nil {
		t.Fatalf("the run's outcome: %v", err)
	}
	want := []sink.Kind{sink.Begun, sink.Summary, sink.Stored, sink.Written}
	for name, got := range map[string][]sink.Event{"first": first, "second": second} {
		var kinds []sink.Kind
		for _, e := range got {
			if e.Kind != sink.Note { // the host's warnings depend on the machine
				kinds = append(kinds, e.Kind)
			}
		}
		if len(kinds) != len(want) {
			t.Fatalf("%s subscriber heard %v, want %v", name, kinds, want)
		}
		for i := range want {
			if kinds[i] != want[i] {
				t.Errorf("%s subscriber heard %v, want %v", name, kinds, want)
			}
		}
	}
	var stored, written sink.Event
	for _, e := range first {
		switch e.Kind {
		case sink.Stored:
			stored = e
		case sink.Written:
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

	stopped, cancel := context.WithCancel(ctx)
	cancel()
	first = nil
	if err := k.Run(stopped, nil, s, stopped.Err()); err != sink.ErrInterrupted {
		t.Errorf("a run stopped before it started ends in %v, want ErrInterrupted", err)
	}
	if len(first) != 1 || first[0].Kind != sink.Interrupted || first[0].What != results.KindRun {
		t.Errorf("a run stopped before it started told %+v", first)
	}
	if es, err := store.List(ctx, resultstore.Filter{}); err != nil || len(es) != 1 {
		t.Errorf("the store holds %d results (%v), want the one run", len(es), err)
	}
}
