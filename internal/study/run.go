package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/profile"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/runner"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/textfmt"
	"github.com/cairn-bench/cairn/internal/undo"
)

// Hooks are how a study reports while it runs; any may be nil.
type Hooks struct {
	runner.Hooks
	// Begin receives the study before its first run (store it: runs refer to its id).
	Begin func(s *results.Study) error
	// Step is told before each run: its position, the total and what it runs.
	Step func(i, n int, step Step)
	// Done receives each run once it is measured, placed in the study: store it (setting d.ID).
	Done func(d *results.Document, i int) error
	// Update receives the study after each run, its steps naming their runs' ids, and at its end
	// before the journal forgets its settings (store it): a kill at any point leaves a stored
	// document that says what happened up to there.
	Update func(s *results.Study) error
	// Applied is told of every setting applied and read back, live changes included.
	Applied func(name, value, readBack string, live bool)
	// Bind binds cairn's own threads to a case's client CPUs, or to every CPU again (nil): the
	// binding is the process's, so the front end that owns the process makes it. A study with
	// client CPUs needs it.
	Bind func(cpus []int) error
	// RestartOutput receives what the restart command writes; nil discards it.
	RestartOutput io.Writer
	// Store is the path of the results store Begin stores the study in, "" for none: the journal
	// keeps it, so that a restore after a crash marks the stored study restored.
	Store string
}

// runState is a study being run: its admin connection, the settings as they stand now.
type runState struct {
	plan    *Plan
	t       target.Target
	c       target.Conn
	mu      sync.Mutex        // one change at a time on c: live changes run on timers
	current map[string]string // setting (lower case) → the value it holds now (as given)
	entries []*undo.Entry
	doc     *results.Study
	h       Hooks
	lock    *target.StudyLock // the server's study lock; nil when the study changes nothing there
}

// Run runs the study: it checks it (Check), writes the settings as found to the undo journal
// and the study's document before changing any, runs every step with its case's settings applied
// and read back, makes the live changes inside each window, and at the end, on an error and on
// Ctrl-C puts every setting back and reads it back. An interrupted study keeps what it measured.
func Run(ctx context.Context, st *Study, version string, h Hooks) (*results.Study, error) {
	s := st.Spec
	st.DrawSeed()
	t, err := target.Open(ctx, s.DB)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	// Before the settings are read as found: another study's changes would be read as the
	// server's own, and restored to at the end.
	lock, err := Lock(ctx, t, st, h.Note)
	if err != nil {
		return nil, err
	}
	r := &runState{t: t, current: map[string]string{}, h: h, lock: lock}
	defer func() { r.lock.Close() }()
	plan, err := Check(ctx, t, st)
	if err != nil {
		return nil, err
	}
	r.plan = plan
	r.doc = newDocument(ctx, st, t, plan, version)
	if h.Begin != nil {
		if err := h.Begin(r.doc); err != nil {
			return nil, err
		}
	}
	var server []target.Setting
	var names []string
	for _, x := range plan.Settings {
		if IsHost(x.Name) {
			// Before the first change: a crash from here on leaves the journal to restore from.
			e, err := observe.RecordGovernor(x)
			if err != nil {
				return nil, err
			}
			r.entries = append(r.entries, e)
			continue
		}
		server, names = append(server, x), append(names, x.Name)
	}
	if len(server) > 0 {
		if r.c, err = t.Conn(ctx); err != nil {
			return nil, err
		}
		defer func() { r.c.Close() }()
		if !t.Dialect().Embedded {
			e, err := undo.Record(target.SettingsUndoKind, fmt.Sprintf("settings %s of %s", strings.Join(names, ", "), t.Address()),
				target.Redact(s.DB), journalEntry{SettingsUndo: target.SettingsUndo{Where: t.Address(), Settings: server}, Study: r.doc.ID, Results: h.Store})
			if err != nil {
				return nil, err
			}
			r.entries = append(r.entries, e)
		}
	}
	runErr := r.steps(ctx, st)
	restoreErr := r.restore(context.WithoutCancel(ctx), st)
	now := time.Now().UTC()
	r.doc.EndedAt = &now
	if restoreErr != nil {
		restoreErr = fmt.Errorf("settings not all restored ('cairn study restore --db URL' retries): %w", restoreErr)
	} else {
		r.doc.MarkRestored(now, "study")
	}
	r.doc.Summarize()
	var updateErr error
	if h.Update != nil {
		updateErr = h.Update(r.doc)
	}
	if restoreErr == nil {
		// Only now that the document says so: a kill before this leaves the journal to restore from.
		for _, e := range r.entries {
			restoreErr = errors.Join(restoreErr, e.Done())
		}
	}
	return r.doc, errors.Join(runErr, restoreErr, updateErr)
}

// journalEntry is a study's settings entry in the undo journal: the settings as found, and the
// stored study a restore after a crash marks restored.
type journalEntry struct {
	target.SettingsUndo
	Study   string `json:"study,omitempty"`   // its id in the results store
	Results string `json:"results,omitempty"` // the store's path
}

// newDocument is the study's document before its first run: what it varies, the settings as
// found, the schedule, and a profile per case to fill.
func newDocument(ctx context.Context, st *Study, t target.Target, plan *Plan, version string) *results.Study {
	s := st.Spec
	targetVersion, _ := t.Version(ctx)
	doc := &results.Study{Format: results.StudyFormat, Kind: results.KindStudy, Name: st.Name, Workload: s.Workload,
		Cairn: results.Cairn{Version: version, Go: runtime.Version()}, StartedAt: time.Now().UTC(), Order: st.Order,
		Target: results.Target{Kind: t.Kind(), Name: t.Name(), Version: targetVersion, Address: t.Address(), Database: t.Database()},
		Host:   observe.ReadHost(false), VUs: s.VU, Repeat: s.Repeat, Config: st.Config()}
	for _, f := range st.Settings {
		doc.Factors = append(doc.Factors, results.Factor{Name: f.Name, Levels: f.Values})
	}
	if len(st.ClientCPUs) > 1 || st.ClientCPUs[0] != "" {
		doc.Factors = append(doc.Factors, results.Factor{Name: "client-cpus", Levels: st.ClientCPUs})
	}
	if len(st.ServerCPUs) > 1 || st.ServerCPUs[0] != "" {
		doc.Factors = append(doc.Factors, results.Factor{Name: "server-cpus", Levels: st.ServerCPUs})
	}
	for _, x := range plan.Settings {
		doc.Original = append(doc.Original, results.SettingValue{Name: x.Name, Value: x.Value})
	}
	for _, ch := range st.Schedule {
		ss := results.ScheduledSet{AtSec: ch.At.Seconds()}
		for _, a := range ch.Set {
			ss.Set = append(ss.Set, results.SettingValue{Name: a.Name, Value: a.Value})
		}
		doc.Schedule = append(doc.Schedule, ss)
	}
	for _, c := range st.Cases() {
		sc := &results.StudyCase{Label: c.Label(), ClientCPUs: c.ClientCPUs, ServerCPUs: c.ServerCPUs,
			Profile: &results.Profile{Format: results.FormatVersion, Kind: results.KindProfile, Workload: s.Workload,
				Cairn: doc.Cairn, StartedAt: doc.StartedAt, Target: doc.Target, VUs: s.VU, Repeat: s.Repeat, PauseSec: s.Pause.Seconds()}}
		for _, a := range c.Settings {
			sc.Levels = append(sc.Levels, results.SettingValue{Name: a.Name, Value: a.Value})
		}
		if c.ClientCPUs != "" {
			sc.Levels = append(sc.Levels, results.SettingValue{Name: "client-cpus", Value: c.ClientCPUs})
			sc.ClientTopology = cpuTopology(c.ClientCPUs)
		}
		if c.ServerCPUs != "" {
			sc.Levels = append(sc.Levels, results.SettingValue{Name: "server-cpus", Value: c.ServerCPUs})
			sc.ServerTopology = cpuTopology(c.ServerCPUs)
		}
		doc.Cases = append(doc.Cases, sc)
	}
	return doc
}

// steps runs every step of the study in its order.
func (r *runState) steps(ctx context.Context, st *Study) error {
	s := st.Spec
	steps := st.Steps()
	var pinned bool
	for i, step := range steps {
		if i > 0 && s.Pause > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(s.Pause):
			}
		}
		if ctx.Err() != nil {
			r.doc.Interrupted = true
			return nil
		}
		if err := r.apply(ctx, st, step.Case); err != nil {
			return err
		}
		if r.h.Step != nil {
			r.h.Step(i, len(steps), step)
		}
		one := *s
		one.Profile, one.VU, one.Seed = false, []int{step.VU}, profile.StepSeed(s.Seed, i)
		one.ClientCPUs, one.ServerCPUs = step.Case.ClientCPUs, step.Case.ServerCPUs
		if i > 0 {
			one.Prepare = nil
		}
		bound, err := runner.CPUs(&one)
		if err != nil {
			return fmt.Errorf("study run %d (%s, %s): %w", i+1, step.Case.Label(), textfmt.Plural(step.VU, "VU"), err)
		}
		if bound != nil || pinned {
			// A case without a client binding after one with: cairn runs on every CPU again.
			if r.h.Bind != nil {
				err = r.h.Bind(bound)
			} else if bound != nil {
				err = &runner.UnboundError{CPUs: one.ClientCPUs}
			}
			if err != nil && bound != nil {
				return fmt.Errorf("study run %d (%s, %s): %w", i+1, step.Case.Label(), textfmt.Plural(step.VU, "VU"), err)
			}
			pinned = bound != nil
		}
		d, err := r.run(ctx, st, &one, bound)
		if d == nil {
			if ctx.Err() != nil {
				r.doc.Interrupted = true
				return nil
			}
			return fmt.Errorf("study run %d (%s, %s): %w", i+1, step.Case.Label(), textfmt.Plural(step.VU, "VU"), err)
		}
		d.Study = &results.StudyRef{Case: step.Case.Index, Repeat: step.Repeat, Step: i}
		d.ProfileID = r.doc.ID
		r.doc.Place(d)
		r.doc.Summarize()
		if r.h.Done != nil {
			if derr := r.h.Done(d, i); derr != nil {
				return derr
			}
		}
		r.doc.Steps = append(r.doc.Steps, results.StudyStepOrder{Case: step.Case.Index, VU: step.VU, Repeat: step.Repeat, Result: d.ID})
		if r.h.Update != nil {
			if uerr := r.h.Update(r.doc); uerr != nil {
				return uerr
			}
		}
		if err != nil && !d.Interrupted {
			return err
		}
		if d.Interrupted || ctx.Err() != nil {
			r.doc.Interrupted = true
			return nil
		}
	}
	return nil
}

// run runs one step, making the schedule's live changes inside its window.
func (r *runState) run(ctx context.Context, st *Study, one *spec.Spec, bound []int) (*results.Document, error) {
	sp := st.Spec
	se, err := runner.Open(ctx, one, "", bound)
	if err != nil {
		return nil, err
	}
	defer se.Close()
	se.Version = r.doc.Cairn.Version
	h := r.h.Hooks
	var mu sync.Mutex
	var changes []results.SettingChange
	var timers []*time.Timer
	var liveErr error
	var windowStart time.Time
	// The live-changed settings' values as the window starts: the first segment's.
	var first []results.SettingValue
	r.mu.Lock()
	for _, ch := range st.Schedule {
		for _, a := range ch.Set {
			v, ok := r.current[strings.ToLower(a.Name)]
			if !ok {
				v = r.plan.Setting(a.Name).Value
			}
			first = append(first, results.SettingValue{Name: a.Name, Value: v})
		}
	}
	r.mu.Unlock()
	if len(st.Schedule) > 0 {
		h.Window = func(start bool) {
			mu.Lock()
			defer mu.Unlock()
			if !start {
				for _, t := range timers {
					t.Stop()
				}
				return
			}
			windowStart = time.Now()
			for _, ch := range st.Schedule {
				ch := ch
				timers = append(timers, time.AfterFunc(ch.At, func() {
					for _, a := range ch.Set {
						rb, err := r.set(context.WithoutCancel(ctx), a.Name, a.Value)
						mu.Lock()
						if err != nil {
							liveErr = errors.Join(liveErr, err)
						} else {
							changes = append(changes, results.SettingChange{AtSec: round3(time.Since(windowStart).Seconds()),
								Planned: ch.At.Seconds(), T: round3(time.Since(windowStart).Seconds() + sp.Rampup.Seconds()),
								Name: a.Name, Value: a.Value, ReadBack: rb})
						}
						mu.Unlock()
						if r.h.Applied != nil {
							r.h.Applied(a.Name, a.Value, rb, true)
						}
					}
				}))
			}
		}
	}
	d, err := se.Run(ctx, h)
	mu.Lock()
	for _, t := range timers {
		t.Stop()
	}
	if d != nil {
		d.Changes = changes
		d.Segments = results.Segments(d, first, results.SettleSeconds)
	}
	lerr := liveErr
	mu.Unlock()
	if lerr != nil && err == nil {
		err = fmt.Errorf("a live change failed: %w", lerr)
	}
	return d, err
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// apply gives the settings the case's levels, and the settings the schedule changes their
// values as found, before a run; a setting already at its value is left alone.
func (r *runState) apply(ctx context.Context, st *Study, c *Case) error {
	want := map[string]string{}
	var order []string
	for _, ch := range st.Schedule {
		for _, a := range ch.Set {
			if _, ok := want[a.Name]; !ok {
				order = append(order, a.Name)
			}
			want[a.Name] = r.plan.Setting(a.Name).Value
		}
	}
	for _, a := range c.Settings {
		if _, ok := want[a.Name]; !ok {
			order = append(order, a.Name)
		}
		want[a.Name] = a.Value
	}
	restart := false
	var applied []results.SettingValue
	for _, n := range order {
		v := want[n]
		cur, ok := r.current[strings.ToLower(n)]
		if !ok {
			cur = r.plan.Setting(n).Value
		}
		if cur == v {
			applied = append(applied, results.SettingValue{Name: n, Value: v})
			continue
		}
		rb, err := r.set(ctx, n, v)
		if err != nil {
			return err
		}
		restart = restart || r.plan.Setting(n).Restart
		applied = append(applied, results.SettingValue{Name: n, Value: rb})
		if r.h.Applied != nil {
			r.h.Applied(n, v, rb, false)
		}
	}
	if restart {
		if err := r.restart(ctx, st); err != nil {
			return err
		}
	}
	sc := r.doc.Cases[c.Index]
	if sc.Applied == nil {
		sc.Applied = applied
	}
	return nil
}

// set changes one setting and checks that the server took the value as given.
func (r *runState) set(ctx context.Context, name, value string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.plan.Setting(name)
	rb, err := configurer(r.t, name).SetSetting(ctx, r.c, *s, value)
	if err != nil {
		return "", err
	}
	r.current[strings.ToLower(name)] = value
	if !SameValue(value, rb) {
		return rb, &target.SettingValueError{Name: s.Name, Value: value, Why: fmt.Sprintf("the server reads it back as %s", rb)}
	}
	return rb, nil
}

// SameValue says whether the server's read-back is the value given: equal but for case, the
// same boolean, or the same number; a value with a unit ("16MB") is the server's to convert, and
// passes as read back.
func SameValue(given, readBack string) bool {
	if strings.EqualFold(given, readBack) {
		return true
	}
	b := func(v string) string {
		switch strings.ToLower(v) {
		case "on", "true", "yes", "1":
			return "on"
		case "off", "false", "no", "0":
			return "off"
		}
		return ""
	}
	if bg, br := b(given), b(readBack); bg != "" && bg == br {
		return true
	}
	ng, ug, okg := splitNum(given)
	nr, _, okr := splitNum(readBack)
	if okg && ug != "" {
		return true
	}
	return okg && okr && ng == nr
}

func splitNum(v string) (float64, string, bool) {
	i := 0
	for i < len(v) && strings.ContainsRune("+-.0123456789", rune(v[i])) {
		i++
	}
	var n float64
	if i == 0 {
		return 0, "", false
	}
	if _, err := fmt.Sscan(v[:i], &n); err != nil {
		return 0, "", false
	}
	return n, strings.TrimSpace(v[i:]), true
}

// restart runs the study's restart command and waits for the server to answer again.
func (r *runState) restart(ctx context.Context, st *Study) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", st.Restart)
	if out := r.h.RestartOutput; out != nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the restart command failed: %w", err)
	}
	deadline := time.Now().Add(st.Ready)
	for {
		r.c.Close()
		c, err := r.t.Conn(ctx)
		if err == nil {
			r.c = c
			return r.relock(ctx, st)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not answer within %s of its restart: %w", st.Ready, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// relock takes the study lock again after a restart ended the session that held it.
func (r *runState) relock(ctx context.Context, st *Study) error {
	if r.lock == nil {
		return nil
	}
	r.lock.Close()
	var err error
	r.lock, err = Lock(ctx, r.t, st, nil)
	return err
}

// restore puts every setting back as found and reads it back; Run then has the document say so
// before the journal forgets them.
func (r *runState) restore(ctx context.Context, st *Study) error {
	if len(r.plan.Settings) == 0 {
		return nil
	}
	restart := false
	var errs []error
	for _, x := range r.plan.Settings {
		if _, changed := r.current[strings.ToLower(x.Name)]; !changed {
			continue
		}
		if err := configurer(r.t, x.Name).RestoreSetting(ctx, r.c, x); err != nil {
			errs = append(errs, fmt.Errorf("%s back to %s: %w", x.Name, x.Value, err))
			continue
		}
		restart = restart || x.Restart
		if r.h.Applied != nil {
			r.h.Applied(x.Name, x.Value, "", false)
		}
	}
	if restart {
		if err := r.restart(ctx, st); err != nil {
			errs = append(errs, err)
		}
	}
	for _, x := range r.plan.Settings {
		now, err := configurer(r.t, x.Name).DescribeSetting(ctx, r.c, x.Name)
		if err != nil {
			errs = append(errs, err)
		} else if now.Value != x.Value {
			errs = append(errs, fmt.Errorf("%s reads %s after its restore, not %s", x.Name, now.Value, x.Value))
		}
	}
	return errors.Join(errs...)
}
