package profile

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
)

func TestStepSeed(t *testing.T) {
	seen := map[uint64]bool{}
	for i := 0; i < 100; i++ {
		s := StepSeed(42, i)
		if s == 0 || seen[s] || s != StepSeed(42, i) {
			t.Fatalf("run %d: seed %d (repeated, zero or not deterministic)", i, s)
		}
		seen[s] = true
	}
	if StepSeed(42, 0) == StepSeed(43, 0) {
		t.Fatal("different profile seeds give the same run seed")
	}
}

func doc(vu int, nopm int64) *results.Document {
	return &results.Document{VU: vu, MainTxn: "new_order", Result: results.Result{NOPM: &nopm},
		Txns: map[string]*results.Txn{"new_order": {Count: 1}}}
}

// TestRunOrderAndHooks drives the loop with a step function that records what it was asked to run.
func TestRunOrderAndHooks(t *testing.T) {
	var asked []int
	var seeds []uint64
	step := func(ctx context.Context, vu int, seed uint64) (*results.Document, error) {
		asked, seeds = append(asked, vu), append(seeds, seed)
		return doc(vu, int64(100*vu)), nil
	}
	var done []int
	p := &results.Profile{ID: "7"}
	err := Run(context.Background(), p, Options{VUs: []int{1, 2, 4}, Repeat: 2, Seed: 9}, step, Hooks{
		StepDone: func(p *results.Profile, d *results.Document, i int) error {
			done = append(done, i)
			if d.ProfileID != "7" {
				t.Errorf("run %d not tied to the profile", i)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(asked, []int{1, 1, 2, 2, 4, 4}) || !reflect.DeepEqual(done, []int{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("asked %v, done %v", asked, done)
	}
	if seeds[0] != StepSeed(9, 0) || seeds[5] != StepSeed(9, 5) {
		t.Fatalf("seeds %v", seeds)
	}
	if len(p.Steps) != 3 || p.Steps[2].Summary.Headline.Mean != 400 || p.Marks.Peak != 4 || p.Interrupted {
		t.Fatalf("profile %+v", p)
	}
}

// TestRunInterrupted cancels during the second step's run: that run's document is kept (as an
// interrupted run keeps what it measured), no further step starts, and the profile says so.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var asked []int
	step := func(ctx context.Context, vu int, seed uint64) (*results.Document, error) {
		asked = append(asked, vu)
		d := doc(vu, 10)
		if vu == 2 {
			cancel()
			d.Interrupted = true
		}
		return d, nil
	}
	p := &results.Profile{}
	if err := Run(ctx, p, Options{VUs: []int{1, 2, 4}, Repeat: 1, Pause: time.Millisecond}, step, Hooks{}); err != nil {
		t.Fatal(err)
	}
	if !p.Interrupted || len(p.Steps) != 2 || !reflect.DeepEqual(asked, []int{1, 2}) {
		t.Fatalf("interrupted %v, %d steps, asked %v", p.Interrupted, len(p.Steps), asked)
	}
}

// TestRunInterruptedInPause cancels during the pause between steps: the pause ends at once and
// the step after it never starts.
func TestRunInterruptedInPause(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	step := func(ctx context.Context, vu int, seed uint64) (*results.Document, error) {
		time.AfterFunc(50*time.Millisecond, cancel)
		return doc(vu, 10), nil
	}
	p := &results.Profile{}
	start := time.Now()
	if err := Run(ctx, p, Options{VUs: []int{1, 2}, Repeat: 1, Pause: time.Hour}, step, Hooks{}); err != nil {
		t.Fatal(err)
	}
	if !p.Interrupted || len(p.Steps) != 1 || time.Since(start) > time.Minute {
		t.Fatalf("interrupted %v, %d steps, after %s", p.Interrupted, len(p.Steps), time.Since(start))
	}
}

func TestRunStepFails(t *testing.T) {
	boom := errors.New("server gone")
	step := func(ctx context.Context, vu int, seed uint64) (*results.Document, error) {
		if vu == 2 {
			return nil, boom
		}
		return doc(vu, 10), nil
	}
	p := &results.Profile{}
	err := Run(context.Background(), p, Options{VUs: []int{1, 2}, Repeat: 1}, step, Hooks{})
	if !errors.Is(err, boom) || len(p.Steps[0].Runs) != 1 {
		t.Fatalf("err %v, steps %+v", err, p.Steps)
	}
}
