package session

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

// throwaway is an observer nothing else knows of: this file and its one registration are all of it.
type throwaway struct {
	observe.Base
	seconds, edges int
}

func (o *throwaway) Tick(*metrics.Second) { o.seconds++ }
func (o *throwaway) Window(bool)          { o.edges++ }
func (o *throwaway) Section() any         { return map[string]any{"seconds": o.seconds, "edges": o.edges} }

func init() {
	observe.Register(observe.Kind{Name: "throwaway", Order: 100, Start: func(context.Context, *observe.Env) (observe.Observer, error) {
		return &throwaway{}, nil
	}})
}

// TestObserverSection: a registered observer watches every engine run without runner or Watch
// naming it, and its section is in the result document, through JSON and the results store.
func TestObserverSection(t *testing.T) {
	ctx := context.Background()
	s, err := spec.New("oltp", false)
	if err != nil {
		t.Fatal(err)
	}
	s.DB = testutil.SQLite(t)
	for k, v := range map[string]string{"options.tables": "1", "options.table-size": "1000", "vu": "1", "rampup": "0s",
		"duration": "2s", "progress": "0s", "seed": "1"} {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	s.AskPrepare()
	tg, err := target.Open(ctx, s.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	se := &Session{Spec: s, W: s.WorkloadOf(), T: tg, Version: "test"}
	d, err := se.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"seconds": float64(len(d.Series)), "edges": float64(2)}
	st, err := resultstore.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SaveRun(ctx, d, 0); err != nil {
		t.Fatal(err)
	}
	back, _, err := st.Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := back.Extra["observations"].(map[string]any)
	if len(d.Series) < 2 || !reflect.DeepEqual(got["throwaway"], want) {
		t.Errorf("stored section extra.observations.throwaway = %v, want %v (%d seconds in the series)", got["throwaway"], want, len(d.Series))
	}
	if back.Host == nil || back.Waits != nil {
		t.Errorf("the registered observers' sections: host %v, waits %v (SQLite has none)", back.Host, back.Waits)
	}
}
