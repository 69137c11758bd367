package session

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
)

// A profile is one workload at each of a list of VU counts, each step possibly repeated, pausing
// between steps. Its loop knows nothing of any workload: a workload that can run once can be
// profiled, through the stepFunc it is given.

// profileOptions configure a profile.
type profileOptions struct {
	VUs    []int
	Repeat int
	Pause  time.Duration
	Seed   uint64 // each step's run seed is derived from it (StepSeed)
	Line   string // what runs, the profile's Begun line
}

// stepFunc runs the workload once at vu virtual users with the given run seed. It returns the
// run's document even when interrupted (doc.Interrupted), and an error only when nothing was run.
type stepFunc func(ctx context.Context, vu int, seed uint64) (*results.Document, error)

// StepSeed derives the run seed of run number i (0-based, in execution order) from the profile's
// seed, so that a profile repeats exactly with the same --seed while its runs differ from each other.
func StepSeed(seed uint64, i int) uint64 {
	// splitmix64 finalizer: consecutive i give unrelated seeds.
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return (z ^ (z >> 31)) >> 1
}

// runProfile runs the profile, telling bus: Begun (the sink stores the profile), each step's
// StepBegun and StepDone (the sink stores its run). p arrives with its descriptive fields set
// (workload, target, config); runProfile fills its steps, summaries and marks. On cancellation
// it stops after the current run, which keeps what it measured, and returns p with Interrupted
// set and no error.
func runProfile(ctx context.Context, p *results.Profile, o profileOptions, step stepFunc, bus *event.Bus) error {
	p.Format, p.Kind = results.FormatVersion, results.KindProfile
	p.VUs, p.Repeat, p.PauseSec = o.VUs, o.Repeat, o.Pause.Seconds()
	if p.StartedAt.IsZero() {
		p.StartedAt = time.Now().UTC()
	}
	if p.Host == nil {
		p.Host = observe.ReadHost(false)
	}
	if p.Cairn.Go == "" {
		p.Cairn.Go = runtime.Version()
	}
	if err := bus.Publish(ctx, event.Begun{What: results.KindProfile, Line: o.Line, Profile: p}); err != nil {
		return err
	}
	n := len(o.VUs) * o.Repeat
	i := 0
	for si, vu := range o.VUs {
		st := &results.Step{VU: vu}
		p.Steps = append(p.Steps, st)
		for r := 0; r < o.Repeat; r++ {
			if (si > 0 || r > 0) && o.Pause > 0 {
				// The pause lets the server finish what the last step left (checkpoints, purge) so
				// that steps do not inherit each other's debt.
				select {
				case <-ctx.Done():
				case <-time.After(o.Pause):
				}
			}
			if ctx.Err() != nil {
				p.Interrupted = true
				break
			}
			bus.Publish(ctx, event.StepBegun{What: results.KindProfile, I: i, N: n, VU: vu, Repeat: r, Repeats: o.Repeat})
			d, err := step(ctx, vu, StepSeed(o.Seed, i))
			if d != nil {
				// A run that measured and then failed (its database gone for longer than
				// max-outage) is kept with its own mark, as any other.
				d.ProfileID = p.ID
				st.Runs = append(st.Runs, d)
				p.Summarize()
				if err := bus.Publish(ctx, event.StepDone{What: results.KindProfile, I: i, Run: d, Profile: p}); err != nil {
					return err
				}
				i++
			}
			if err != nil {
				if ctx.Err() != nil {
					p.Interrupted = true
					break
				}
				// The profile measured less than planned: it is marked, wherever it is shown.
				p.Mark(results.StepFailed, fmt.Sprintf("the step at %d VUs failed (%v): the steps before it are all that ran", vu, err))
				dropUnrun(p)
				p.Summarize()
				return fmt.Errorf("profile step %d VUs: %w", vu, err)
			}
			if d.Interrupted || ctx.Err() != nil {
				p.Interrupted = true
				break
			}
		}
		if p.Interrupted {
			break
		}
	}
	dropUnrun(p)
	p.Summarize()
	return nil
}

// dropUnrun drops a last step that never ran (interrupted in the pause before it, or failed).
func dropUnrun(p *results.Profile) {
	if n := len(p.Steps); n > 0 && len(p.Steps[n-1].Runs) == 0 {
		p.Steps = p.Steps[:n-1]
	}
}
