package resultstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// A run stored before the steady-state judgement is judged when read back, from its stored
// series by the rules of a new run: the same section and intervals as judging the document itself.
func TestSteadyOfEarlierDocuments(t *testing.T) {
	var pts []string
	for i := 1; i <= 40; i++ {
		n := 200 + 7*(i%3) // a steady New-Order count with a little noise
		if i <= 12 {
			n = 80 // a warm-up past the 5 s rampup
		}
		pts = append(pts, fmt.Sprintf(`{"t": %d, "window": %v, "txns": %d, "headline_txns": %d, "errors": 0, "p95_ms": %d}`, i, i > 5, 2*n, n, 5+i%2))
	}
	doc := `{"format": 3, "kind": "run", "workload": "tpcc", "window": {"rampup_seconds": 5, "client_seconds": 35},
		"result": {"headline": {"name": "NOPM", "unit": "New-Orders per minute", "value": 12000, "source": "server", "transaction": "new_order"}, "tpm": 24000},
		"timeseries": [` + strings.Join(pts, ",") + `]}`
	var d results.Document
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SaveRun(ctx, &d, 0); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := d
	want.JudgeSteady()
	if got.Steady == nil || !reflect.DeepEqual(got.Steady, want.Steady) || !reflect.DeepEqual(got.Result.Intervals, want.Result.Intervals) {
		t.Fatalf("read back: %+v %+v, want %+v %+v", got.Steady, got.Result.Intervals, want.Steady, want.Result.Intervals)
	}
	if got.Steady.ShortBySeconds <= 0 || len(got.Result.Intervals) != 2 {
		t.Errorf("the stored warm-up past the rampup was not found, or not both figures' intervals: %+v %+v", got.Steady, got.Result.Intervals)
	}
}
