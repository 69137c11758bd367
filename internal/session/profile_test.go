package session

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
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

// TestProfileOrderAndSteps drives the loop with a step function that records what it was asked to run.
func TestProfileOrderAndSteps(t *testing.T) {
	var asked []int
	var seeds []uint64
	step := func(ctx context.Context, st *results.Step, seed uint64) (*results.Document, error) {
		vu := st.VU
		asked, seeds = append(asked, vu), append(seeds, seed)
		return doc(vu, int64(100*vu)), nil
	}
	var done []int
	p := &results.Profile{ID: "7"}
	err := runProfile(context.Background(), p, profileOptions{VUs: []int{1, 2, 4}, Repeat: 2, Seed: 9}, step, event.New(
		event.Func(func(_ context.Context, e event.Event) error {
			if e, ok := e.(event.StepDone); ok {
				done = append(done, e.I)
				if e.Run.ProfileID != "7" || e.Profile != p {
					t.Errorf("run %d not tied to the profile", e.I)
				}
			}
			return nil
		})))
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

// TestProfileInterrupted cancels during the second step's run: that run's document is kept (as an
// interrupted run keeps what it measured), no further step starts, and the profile says so.
func TestProfileInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var asked []int
	step := func(ctx context.Context, st *results.Step, seed uint64) (*results.Document, error) {
		vu := st.VU
		asked = append(asked, vu)
		d := doc(vu, 10)
		if vu == 2 {
			cancel()
			d.Interrupted = true
		}
		return d, nil
	}
	p := &results.Profile{}
	if err := runProfile(ctx, p, profileOptions{VUs: []int{1, 2, 4}, Repeat: 1, Pause: time.Millisecond}, step, nil); err != nil {
		t.Fatal(err)
	}
	if !p.Interrupted || len(p.Steps) != 2 || !reflect.DeepEqual(asked, []int{1, 2}) {
		t.Fatalf("interrupted %v, %d steps, asked %v", p.Interrupted, len(p.Steps), asked)
	}
}

// TestRunInterruptedInPause cancels during the pause between steps: the pause ends at once and
// the step after it never starts.
func TestProfileInterruptedInPause(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	step := func(ctx context.Context, st *results.Step, seed uint64) (*results.Document, error) {
		vu := st.VU
		time.AfterFunc(50*time.Millisecond, cancel)
		return doc(vu, 10), nil
	}
	p := &results.Profile{}
	start := time.Now()
	if err := runProfile(ctx, p, profileOptions{VUs: []int{1, 2}, Repeat: 1, Pause: time.Hour}, step, nil); err != nil {
		t.Fatal(err)
	}
	if !p.Interrupted || len(p.Steps) != 1 || time.Since(start) > time.Minute {
		t.Fatalf("interrupted %v, %d steps, after %s", p.Interrupted, len(p.Steps), time.Since(start))
	}
}

func TestProfileStepFails(t *testing.T) {
	boom := errors.New("server gone")
	step := func(ctx context.Context, st *results.Step, seed uint64) (*results.Document, error) {
		vu := st.VU
		if vu == 2 {
			return nil, boom
		}
		return doc(vu, 10), nil
	}
	p := &results.Profile{}
	err := runProfile(context.Background(), p, profileOptions{VUs: []int{1, 2}, Repeat: 1}, step, nil)
	if !errors.Is(err, boom) || len(p.Steps[0].Runs) != 1 {
		t.Fatalf("err %v, steps %+v", err, p.Steps)
	}
}

// A run stopped before it started is an interruption: the subscribers hear it, and the outcome
// is ErrInterrupted; a failure that is not an interruption stays itself.
func TestNoneInterrupted(t *testing.T) {
	var heard []event.Event
	bus := event.New(event.Func(func(_ context.Context, e event.Event) error {
		heard = append(heard, e)
		return nil
	}))
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if err := none(stopped, bus, results.KindRun, stopped.Err()); err != ErrInterrupted {
		t.Errorf("a run stopped before it started ends in %v, want ErrInterrupted", err)
	}
	if len(heard) != 1 || heard[0] != (event.Interrupted{What: results.KindRun}) {
		t.Errorf("a run stopped before it started told %+v", heard)
	}
	failed := errors.New("no such table")
	if err := none(context.Background(), bus, results.KindRun, failed); err != failed || len(heard) != 1 {
		t.Errorf("a failure before the run: %v, heard %+v", err, heard)
	}
}
