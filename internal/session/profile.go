package session

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
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
	// After is the housekeeping between runs (--after), nil for none; Target is where it is done.
	After  *housekeeping
	Target target.Target
}

// stepFunc runs the workload once as st asks (its VU count; its rate, a search's step) with the
// given run seed. It returns the run's document even when interrupted (doc.Interrupted), and an
// error only when nothing was run.
type stepFunc func(ctx context.Context, st *results.Step, seed uint64) (*results.Document, error)

// StepSeed derives the run seed of run number i (0-based, in execution order) from the profile's
// seed, so that a profile repeats exactly with the same --seed while its runs differ from each other.
func StepSeed(seed uint64, i int) uint64 {
	// splitmix64 finalizer: consecutive i give unrelated seeds.
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return (z ^ (z >> 31)) >> 1
}

// stepper runs a profile's steps one run at a time, telling bus: Begun (the sink stores the
// profile), each run's StepBegun and StepDone (the sink stores the run). A profile's loop and a
// capacity search's (search.go) both run their steps through it.
type stepper struct {
	p     *results.Profile
	o     profileOptions
	step  stepFunc
	bus   *event.Bus
	tried int // runs begun
	done  int // runs measured
}

// begin fills the profile's own fields (p arrives with its descriptive ones set: workload,
// target, config) and tells Begun.
func (k *stepper) begin(ctx context.Context) error {
	p, o := k.p, k.o
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
	return k.bus.Publish(ctx, event.Begun{What: results.KindProfile, Line: o.Line, Profile: p})
}

// run runs st once more (repeat r of repeats; n runs planned in all), after the pause. stop says
// the profile ends here: interrupted (p.Interrupted set), or failed (err, the profile marked).
func (k *stepper) run(ctx context.Context, st *results.Step, n, r, repeats int) (d *results.Document, stop bool, err error) {
	p := k.p
	var hk []results.Housekeeping
	if k.tried > 0 && k.o.After != nil && ctx.Err() == nil {
		// Housekeeping first, then the pause: the server settles after its work too.
		var err error
		hk, err = k.o.After.do(ctx, k.o.Target, fmt.Sprintf("run %d", k.tried))
		if err != nil {
			if ctx.Err() != nil {
				p.Interrupted = true
				return nil, true, nil
			}
			p.Mark(results.StepFailed, fmt.Sprintf("the housekeeping after run %d failed (%v): the runs before it are all that ran", k.tried, err))
			dropUnrun(p)
			p.Summarize()
			return nil, true, err
		}
	}
	if k.tried > 0 && k.o.Pause > 0 {
		// The pause lets the server finish what the last step left (checkpoints, purge) so
		// that steps do not inherit each other's debt.
		select {
		case <-ctx.Done():
		case <-time.After(k.o.Pause):
		}
	}
	if ctx.Err() != nil {
		p.Interrupted = true
		return nil, true, nil
	}
	k.tried++
	k.bus.Publish(ctx, event.StepBegun{What: results.KindProfile, I: k.done, N: n, VU: st.VU, Rate: st.Rate, Repeat: r, Repeats: repeats})
	d, err = k.step(ctx, st, StepSeed(k.o.Seed, k.done))
	if d != nil {
		d.Housekeeping = hk
		// A run that measured and then failed (its database gone for longer than
		// max-outage) is kept with its own mark, as any other.
		d.ProfileID = p.ID
		st.Runs = append(st.Runs, d)
		p.Summarize()
		if err := k.bus.Publish(ctx, event.StepDone{What: results.KindProfile, I: k.done, Run: d, Profile: p}); err != nil {
			return d, true, err
		}
		k.done++
	}
	if err != nil {
		if ctx.Err() != nil {
			p.Interrupted = true
			return d, true, nil
		}
		// The profile measured less than planned: it is marked, wherever it is shown.
		what := fmt.Sprintf("%d VUs", st.VU)
		if st.Rate > 0 {
			what = fmt.Sprintf("rate %g/s", st.Rate)
		}
		p.Mark(results.StepFailed, fmt.Sprintf("the step at %s failed (%v): the steps before it are all that ran", what, err))
		dropUnrun(p)
		p.Summarize()
		return d, true, fmt.Errorf("profile step %s: %w", what, err)
	}
	if d.Interrupted || ctx.Err() != nil {
		p.Interrupted = true
		return d, true, nil
	}
	return d, false, nil
}

// end ends the profile: a last step that never ran is dropped, the summaries filled.
func (k *stepper) end() {
	dropUnrun(k.p)
	k.p.Summarize()
}

// runProfile runs the profile, each VU count Repeat times. On cancellation it stops after the
// current run, which keeps what it measured, and returns p with Interrupted set and no error.
func runProfile(ctx context.Context, p *results.Profile, o profileOptions, step stepFunc, bus *event.Bus) error {
	k := &stepper{p: p, o: o, step: step, bus: bus}
	if err := k.begin(ctx); err != nil {
		return err
	}
	n := len(o.VUs) * o.Repeat
	for _, vu := range o.VUs {
		st := &results.Step{VU: vu}
		p.Steps = append(p.Steps, st)
		for r := 0; r < o.Repeat; r++ {
			if _, stop, err := k.run(ctx, st, n, r, o.Repeat); stop || err != nil {
				if err == nil {
					k.end()
				}
				return err
			}
		}
	}
	k.end()
	return nil
}

// dropUnrun drops a last step that never ran (interrupted in the pause before it, or failed).
func dropUnrun(p *results.Profile) {
	if n := len(p.Steps); n > 0 && len(p.Steps[n-1].Runs) == 0 {
		p.Steps = p.Steps[:n-1]
	}
}
