package study

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/textfmt"
	"github.com/cairn-bench/cairn/internal/undo"
)

// Server is a study's hold on its server while it runs: its admin connection, its lock, the
// settings as they stand now and the undo journal's entries. The session runs the study's steps;
// the study applies each case's settings before its step (Apply), makes the live changes inside
// each window (Live), and puts every setting back at the end (End), telling the bus what it set.
type Server struct {
	plan       *Plan
	st         *Study
	t          target.Target
	c          target.Conn
	mu         sync.Mutex        // one change at a time on c: live changes run on timers
	current    map[string]string // setting (lower case) → the value it holds now (as given)
	entries    []*undo.Entry
	doc        *results.Study
	bus        *event.Bus
	restartOut io.Writer
	lock       *target.StudyLock // the server's study lock; nil when the study changes nothing there
}

// Config is what a study needs from the session that runs it.
type Config struct {
	Version string // cairn's
	// Bus hears the study's Begun (the sink stores the study: runs refer to its id), its notes,
	// the settings it applies (Applied) and its checkpoints.
	Bus *event.Bus
	// RestartOutput receives what the restart command writes; nil discards it.
	RestartOutput io.Writer
	// Store is the path of the results store the study is stored in, "" for none: the journal
	// keeps it, so that a restore after a crash marks the stored study restored.
	Store string
}

// Begin starts a study on its server: it takes the server's study lock, checks the study
// (Check), tells the bus it begins with its document, and writes the settings as found to the
// undo journal before changing any. On an error it has released what it took.
func Begin(ctx context.Context, st *Study, cfg Config) (_ *Server, err error) {
	s := st.Spec
	st.DrawSeed()
	t, err := target.Open(ctx, s.DB)
	if err != nil {
		return nil, err
	}
	r := &Server{st: st, t: t, current: map[string]string{}, bus: cfg.Bus, restartOut: cfg.RestartOutput}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	// Before the settings are read as found: another study's changes would be read as the
	// server's own, and restored to at the end.
	r.lock, err = Lock(ctx, t, st, r.note(ctx))
	if err != nil {
		return nil, err
	}
	plan, err := Check(ctx, t, st)
	if err != nil {
		return nil, err
	}
	r.plan = plan
	r.doc = newDocument(ctx, st, t, plan, cfg.Version)
	r.doc.HostNotes = plan.Host
	if err := r.bus.Publish(ctx, event.Begun{What: results.KindStudy, Line: begunLine(r.doc, st), Study: r.doc}); err != nil {
		return nil, err
	}
	for _, n := range plan.Host {
		r.bus.Publish(ctx, event.Note{Line: n})
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
		if !t.Dialect().Embedded {
			e, err := undo.Record(target.SettingsUndoKind, fmt.Sprintf("settings %s of %s", strings.Join(names, ", "), t.Address()),
				target.Redact(s.DB), journalEntry{SettingsUndo: target.SettingsUndo{Where: t.Address(), Settings: server}, Study: r.doc.ID, Results: cfg.Store})
			if err != nil {
				return nil, err
			}
			r.entries = append(r.entries, e)
		}
	}
	return r, nil
}

// begunLine says what the study runs: "study name: tpcc on PostgreSQL 16.2 (host:5432/db), 12
// runs, order random, seed 7".
func begunLine(s *results.Study, st *Study) string {
	return fmt.Sprintf("study %s: %s on %s %s (%s), %s, order %s, seed %d", s.Name, s.Workload, s.Target.Name, s.Target.Version,
		target.Redact(st.Spec.DB), textfmt.Plural(len(st.Steps()), "run"), s.Order, st.Spec.Seed)
}

func (r *Server) note(ctx context.Context) func(string) {
	return func(line string) { r.bus.Publish(ctx, event.Note{Line: line}) }
}

func (r *Server) close() {
	r.lock.Close()
	if r.c != nil {
		r.c.Close()
	}
	r.t.Close()
}

// Doc is the study's document, as the steps fill it.
func (r *Server) Doc() *results.Study { return r.doc }

// End puts every setting back as found and reads it back, has the document say so (told to the
// bus as a Checkpoint) before the journal forgets them, and releases the server. runErr is what
// ended the steps; End returns it joined with its own errors.
func (r *Server) End(ctx context.Context, runErr error) (*results.Study, error) {
	defer r.close()
	restoreErr := r.restore(context.WithoutCancel(ctx), r.st)
	now := time.Now().UTC()
	r.doc.EndedAt = &now
	if restoreErr != nil {
		restoreErr = fmt.Errorf("settings not all restored ('cairn study restore --db URL' retries): %w", restoreErr)
	} else {
		r.doc.MarkRestored(now, "study")
	}
	r.doc.Summarize()
	updateErr := r.bus.Publish(ctx, event.Checkpoint{Study: r.doc})
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
		Cairn: results.ThisCairn(version), StartedAt: time.Now().UTC(), Order: st.Order,
		Target: results.Target{Kind: t.Kind(), Name: t.Name(), Version: targetVersion, Address: t.Address(), Database: t.Database()},
		Host:   observe.ReadHost(false), VUs: s.VU, Repeat: s.Repeat, Config: st.Config()}
	for _, f := range st.Cases()[0].Options { // in the cases' order: the schema's first
		for _, g := range st.Options {
			if g.Name == f.Name {
				doc.Factors = append(doc.Factors, results.Factor{Name: g.Name, Levels: g.Values})
			}
		}
	}
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
		ss := results.ScheduledSet{AtSec: ch.At.Seconds(), VU: ch.VUs}
		for _, a := range ch.Set {
			ss.Set = append(ss.Set, results.SettingValue{Name: a.Name, Value: a.Value})
		}
		doc.Schedule = append(doc.Schedule, ss)
	}
	for _, c := range st.Cases() {
		sc := &results.StudyCase{Label: c.Label(), ClientCPUs: c.ClientCPUs, ServerCPUs: c.ServerCPUs,
			Profile: &results.Profile{Format: results.FormatVersion, Kind: results.KindProfile, Workload: s.Workload,
				Cairn: doc.Cairn, StartedAt: doc.StartedAt, Target: doc.Target, VUs: s.VU, Repeat: s.Repeat, PauseSec: s.Pause.Seconds()}}
		sc.Levels = append(levels(c.Options), levels(c.Settings)...)
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

// Live is one step's live changes: a subscriber of the step's bus that, told the window
// starts (event.Window), makes the schedule's changes on its timers, and stops them at its end.
type Live struct {
	r           *Server
	ctx         context.Context
	mu          sync.Mutex
	changes     []results.SettingChange
	timers      []*time.Timer
	err         error
	windowStart time.Time
	// first are the live-changed settings' values as the window starts: the first segment's.
	first []results.SettingValue
}

// Live makes the live changes of the step about to run (subscribe it to the step's bus).
func (r *Server) Live(ctx context.Context) *Live {
	l := &Live{r: r, ctx: ctx}
	r.mu.Lock()
	for _, ch := range r.st.Schedule {
		for _, a := range ch.Set {
			v, ok := r.current[strings.ToLower(a.Name)]
			if !ok {
				v = r.plan.Setting(a.Name).Value
			}
			l.first = append(l.first, results.SettingValue{Name: a.Name, Value: v})
		}
	}
	r.mu.Unlock()
	return l
}

// Handle starts the schedule's timers when the window starts, and stops them when it ends.
func (l *Live) Handle(_ context.Context, e event.Event) error {
	w, ok := e.(event.Window)
	if !ok || len(l.r.st.Schedule) == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !w.Start {
		for _, t := range l.timers {
			t.Stop()
		}
		return nil
	}
	r, ctx, sp := l.r, l.ctx, l.r.st.Spec
	// The schedule counts from the window's planned start, as its seconds do: the event comes
	// after the start's readings, which took up to 250 ms on a loaded host.
	l.windowStart = w.At
	if l.windowStart.IsZero() {
		l.windowStart = time.Now()
	}
	for _, ch := range r.st.Schedule {
		ch := ch
		l.timers = append(l.timers, time.AfterFunc(time.Until(l.windowStart.Add(ch.At)), func() {
			for _, a := range ch.Set {
				rb, err := r.set(context.WithoutCancel(ctx), a.Name, a.Value)
				l.mu.Lock()
				if err != nil {
					l.err = errors.Join(l.err, err)
				} else {
					l.changes = append(l.changes, results.SettingChange{AtSec: round3(time.Since(l.windowStart).Seconds()),
						Planned: ch.At.Seconds(), T: round3(time.Since(l.windowStart).Seconds() + sp.Rampup.Seconds()),
						Name: a.Name, Value: a.Value, ReadBack: rb})
				}
				l.mu.Unlock()
				r.bus.Publish(ctx, event.Applied{Name: a.Name, Value: a.Value, ReadBack: rb, Live: true, At: ch.At})
			}
		}))
	}
	return nil
}

// Finish stops the timers after the step's run and puts its changes and segments in d; it
// returns err, or what a live change failed in.
func (l *Live) Finish(d *results.Document, err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, t := range l.timers {
		t.Stop()
	}
	if d != nil {
		// The run's own load changes (the engine's, named vu) are live changes too: the
		// segments cut at both, a load's first value being the run's first segment's.
		first := slices.Clone(l.first)
		if len(d.Segments) > 0 {
			first = append(first, d.Segments[0].Settings...)
		}
		changes := append(slices.Clone(l.changes), d.Changes...)
		slices.SortStableFunc(changes, func(a, b results.SettingChange) int { return cmp.Compare(a.Planned, b.Planned) })
		d.Changes = changes
		d.Segments = results.Segments(d, first, results.SettleSeconds)
	}
	if l.err != nil && err == nil {
		err = fmt.Errorf("a live change failed: %w", l.err)
	}
	return err
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// Apply gives the settings the case's levels, and the settings the schedule changes their
// values as found, before a run; a setting already at its value is left alone.
func (r *Server) Apply(ctx context.Context, c *Case) error {
	st := r.st
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
		r.bus.Publish(ctx, event.Applied{Name: n, Value: v, ReadBack: rb})
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
func (r *Server) set(ctx context.Context, name, value string) (string, error) {
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
func (r *Server) restart(ctx context.Context, st *Study) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", st.Restart)
	if out := r.restartOut; out != nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	err := cmd.Run()
	if f, ok := r.restartOut.(interface{ Flush() }); ok {
		f.Flush() // its last line, unended, is shown now, not with what comes next
	}
	if err != nil {
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
func (r *Server) relock(ctx context.Context, st *Study) error {
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
func (r *Server) restore(ctx context.Context, st *Study) error {
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
		r.bus.Publish(ctx, event.Applied{Name: x.Name, Value: x.Value})
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

func levels(l []Assign) []results.SettingValue {
	var out []results.SettingValue
	for _, a := range l {
		out = append(out, results.SettingValue{Name: a.Name, Value: a.Value})
	}
	return out
}
