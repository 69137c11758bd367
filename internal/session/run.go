package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Session is a spec with its target open.
type Session struct {
	Spec    *spec.Spec
	W       workload.Workload
	T       target.Target
	Version string // cairn's
	// clientCPUs are the CPUs cairn was bound to when the session opened (--client-cpus).
	clientCPUs []int
	// partRun names the run a part (--part) belongs to.
	partRun string
	// Preparing receives prepare's output (a spec that asks to prepare); nil: nowhere.
	Preparing workload.Preparing
	// rep is the primary T with the spec's replicas, nil without them.
	rep *target.Replicated
}

// NoFileError is a run on an SQLite file that does not exist: cairn does not create an empty one.
type NoFileError struct{ Path, Workload string }

func (e *NoFileError) Error() string {
	return fmt.Sprintf("no database file %s: run 'cairn %s prepare' first", e.Path, e.Workload)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *NoFileError) BadInput() {}

// CPUs checks the spec's CPU bindings without changing any: --server-cpus needs a server on this
// host, and both lists CPUs of this host. It returns the client's list, for the front end that
// owns the process to bind cairn's threads to before Open (a binding is the process's, not a
// run's).
func CPUs(s *spec.Spec) (client []int, err error) {
	u, err := target.ParseURL(s.DB)
	if err != nil {
		return nil, err
	}
	if s.ServerCPUs != "" {
		if u.Path != "" {
			return nil, &observe.RemoteError{Where: u.Path, Why: "SQLite runs inside cairn", Inside: true}
		}
		if h := u.Parsed.Hostname(); !observe.IsLocalHost(h) {
			return nil, &observe.RemoteError{Where: u.Parsed.Host, Why: "remote"}
		}
		if _, err := observe.HostCPUs("server-cpus", s.ServerCPUs); err != nil {
			return nil, err
		}
	}
	if s.ClientCPUs == "" {
		return nil, nil
	}
	return observe.HostCPUs("client-cpus", s.ClientCPUs)
}

// UnboundError is a spec with client CPUs opened by a front end that did not bind cairn to them.
type UnboundError struct{ CPUs string }

func (e *UnboundError) Error() string {
	return fmt.Sprintf("client CPUs %s: this front end does not bind cairn's threads", e.CPUs)
}

// Open opens the spec's database. Unless the spec asks to prepare, an SQLite file must exist.
// bound is the CPU list the front end bound cairn's threads to for the spec's client CPUs (CPUs
// returns it), recorded with the run.
func Open(ctx context.Context, s *spec.Spec, version string, bound []int) (*Session, error) {
	if _, err := CPUs(s); err != nil {
		return nil, err
	}
	if s.ClientCPUs != "" && bound == nil {
		return nil, &UnboundError{CPUs: s.ClientCPUs}
	}
	if path := target.MissingFile(s.DB); path != "" && s.Prepare == nil {
		return nil, &NoFileError{Path: path, Workload: s.Workload}
	}
	busy := 0
	for _, n := range s.VU {
		busy = max(busy, n)
	}
	octx := target.WithConnectTimeout(target.WithConcurrency(ctx, busy), s.ConnectTimeout)
	t, err := target.Open(octx, s.DB)
	if err != nil {
		return nil, err
	}
	rep, err := openReplicas(octx, t, s.Replica, s.Route)
	if err != nil {
		t.Close()
		return nil, err
	}
	return &Session{Spec: s, W: s.WorkloadOf(), T: t, Version: version, clientCPUs: bound, rep: rep}, nil
}

// Close closes the target and the replicas.
func (se *Session) Close() {
	if se.rep != nil {
		se.rep.Close()
	}
	se.T.Close()
}

// startWorkload starts the workload on the target, its VUs given the replicas to send reads to.
func (se *Session) startWorkload(ctx context.Context, seed uint64) (*workload.Run, error) {
	def, err := se.W.Start(target.WithReplicated(ctx, se.rep), se.T, se.Spec.Options, seed)
	if err != nil {
		return nil, err
	}
	return def, se.routed(def)
}

// RandomSeed draws a seed for runs given none.
func RandomSeed() uint64 { return workload.RandomSeed() }

// prepare prepares the schema when the spec asks and it is not there yet.
func (se *Session) prepare(ctx context.Context) error {
	if se.Spec.Prepare == nil {
		return nil
	}
	p := se.Preparing
	if p == nil {
		p = quiet{}
	}
	err := se.W.Prepare(tallied(workload.WithVersion(ctx, se.Version), p), se.T, se.Spec.Prepare.Options, p)
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		return nil
	}
	return err
}

type quiet struct{}

func (quiet) Say(string, ...any)        {}
func (quiet) Load(int64, *atomic.Int64) {}
func (quiet) Loaded()                   {}

// Run runs the spec once (a run spec; a profile runs through Profile), telling bus (nil: no one)
// what runs and what the engine measures as it goes. The spec's seed is drawn when it is 0, so
// that the stored config is the spec that ran.
func (se *Session) Run(ctx context.Context, bus *event.Bus) (*results.Document, error) {
	return se.run(ctx, bus, true)
}

// run runs the spec once; begun: tell bus what runs first (a study's step does not: the study's
// StepBegun says it).
func (se *Session) run(ctx context.Context, bus *event.Bus, begun bool) (*results.Document, error) {
	s := se.Spec
	if s.Part != "" {
		// Every part draws the same seed, from the run's name, before the seed is in the spec.
		se.partRun = partRunName(s)
		if s.Seed == 0 {
			s.Seed = workload.SeedOf(se.partRun)
		}
	}
	if s.Seed == 0 {
		s.Seed = RandomSeed()
	}
	if err := se.prepare(ctx); err != nil {
		return nil, err
	}
	if tr, ok := se.W.(workload.Tester); ok {
		return se.tests(ctx, tr, bus, begun)
	}
	def, err := se.start(ctx)
	if err != nil {
		return nil, err
	}
	vus := fmt.Sprint(s.VU[0]) + " VU"
	if c := run.ConfigOf(s.Engine.Engine, s.VU[0], 0, false); c.Terminals > 0 {
		vus = fmt.Sprintf("%d terminals over %d connections", c.Terminals, c.VUs)
	}
	if begun {
		if err := bus.Publish(ctx, event.Begun{What: results.KindRun, Line: se.startLine(def, "running", vus)}); err != nil {
			return nil, err
		}
	}
	return se.once(ctx, def, s.VU[0], s.Seed, s, bus)
}

// start checks the schema and options and the target's capacity for the largest VU count.
func (se *Session) start(ctx context.Context) (*workload.Run, error) {
	def, err := se.startWorkload(ctx, se.Spec.Seed)
	if err != nil {
		return nil, err
	}
	if se.W.Info().Uses("vu") {
		max := 0
		for _, v := range se.Spec.VU {
			max = maxInt(max, v)
		}
		if err := run.CheckCapacity(ctx, se.T, max); err != nil {
			return nil, err
		}
	}
	return def, nil
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// startLine says what runs: "running TPC-C on PostgreSQL (127.0.0.1:5432/cairn): 4 VUs, rampup
// 10s, window 1m, procs, seed 7".
func (se *Session) startLine(def *workload.Run, verb, vus string) string {
	s := se.Spec
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s on %s (%s): ", verb, se.W.Info().Title, se.T.Name(), target.Where(se.T))
	if def.Describe != "" {
		b.WriteString(def.Describe + ", ")
	}
	if strings.HasSuffix(vus, " VU") && vus != "1 VU" {
		vus += "s"
	}
	b.WriteString(vus)
	if s.Profile {
		fmt.Fprintf(&b, ", %s each", workload.Plural(s.Repeat, "run"))
	}
	fmt.Fprintf(&b, ", rampup %s", options.FormatDuration(s.Rampup))
	if s.RampupUntilSteady > 0 {
		fmt.Fprintf(&b, " then until steady (at most %s)", options.FormatDuration(s.RampupUntilSteady))
	}
	fmt.Fprintf(&b, ", window %s", options.FormatDuration(s.Duration))
	if s.Schedule != "" {
		fmt.Fprintf(&b, ", load schedule %s", s.Schedule)
	}
	if s.Profile {
		fmt.Fprintf(&b, ", pause %s", options.FormatDuration(s.Pause))
	}
	if s.Rate > 0 {
		fmt.Fprintf(&b, ", rate %g/s", s.Rate)
	}
	fmt.Fprintf(&b, ", seed %d", s.Seed)
	return b.String()
}

// once runs the engine once at vu VUs and builds the document, whose config is the spec of this
// run (a profile step's: its VU count and seed).
func (se *Session) once(ctx context.Context, def *workload.Run, vu int, seed uint64, s *spec.Spec, bus *event.Bus) (*results.Document, error) {
	cfg := run.ConfigOf(s.Engine.Engine, vu, seed, def.Pace)
	pt, err := se.partOf(ctx, def, s, &cfg)
	if err != nil {
		return nil, err
	}
	targetVersion, _ := se.T.Version(ctx)
	var settings map[string]string
	if c, err := se.T.Conn(ctx); err == nil {
		settings, _ = se.T.Settings(ctx, c)
		c.Close()
	}
	eng := &run.Engine{Cfg: cfg, Target: se.T, Types: def.Types, Main: def.Main, Headline: -1, HeadlineName: def.HeadlineName, NewVU: def.NewVU, Statements: def.Statements}
	if def.Headline == workload.HeadlineServer {
		eng.Headline, eng.HeadlineSQL = def.HeadlineTx, def.HeadlineSQL
	}
	if bus != nil {
		eng.Bus, eng.Word = bus, se.progress(def)
	}
	env := observe.Env{Target: se.T, Observation: s.Observation, Binding: s.Binding}
	if bus != nil {
		env.Note = func(line string) { bus.Publish(ctx, event.Note{Line: line}) }
	}
	if _, composite := se.T.(target.Composite); cfg.Terminals > 0 && !composite {
		// --connections is every connection the run holds: the snapshots and the observers'
		// samples ride the pool (docs/scale.md).
		lender := run.NewLender(se.T)
		defer lender.Close()
		eng.Lender = lender
		env.Conn = func(context.Context) (target.Conn, error) { return lender.Conn(), nil }
	}
	watch, err := observe.Start(ctx, env)
	if err != nil {
		return nil, err
	}
	defer watch.Close(ctx) // on every path; the explicit Close below reports its error
	if bus != nil {
		// Live changes (a study's settings, a load schedule's VUs) cut the observers' readings
		// into segments (waits, stacks).
		defer bus.Subscribe(event.Func(func(_ context.Context, e event.Event) error {
			if a, ok := e.(event.Applied); ok && a.Live {
				watch.Change(a.At.Seconds())
			}
			return nil
		}))()
	}
	eng.Observe = watch
	var lag *lagSampler
	if se.rep != nil {
		eng.Target = se.rep.EngineTarget()
		lag = startLag(ctx, se.rep)
	}
	out, err := eng.Run(ctx)
	if lag != nil {
		lag.Stop()
		se.rep.CloseConns()
	}
	restoreErr := watch.Close(ctx)
	if err := pt.done(context.WithoutCancel(ctx), se.T); err != nil {
		restoreErr = errors.Join(restoreErr, fmt.Errorf("drop the table where the parts agreed on their start (%s): %w", partTable, err))
	}
	if err != nil {
		return nil, errors.Join(err, restoreErr)
	}
	step := *s
	step.Profile, step.VU, step.Seed = false, []int{vu}, seed
	d := build(out, cfg, def, eng.Target, targetVersion, settings, se.Version, nil)
	if se.rep != nil {
		d.Replication = replicationOf(d, out, def, se.rep, lag)
	}
	if pt != nil {
		pt.mark(d, out)
	}
	watch.Fill(d)
	loadSegments(d, out, cfg)
	d.Workload = s.Workload
	d.Config = step.Config()
	if restoreErr != nil {
		return d, fmt.Errorf("the run was measured, but what cairn changed on the server was not all restored ('cairn restore' undoes the rest): %w", restoreErr)
	}
	if out.OutageStop {
		return d, &OutageError{Max: cfg.MaxOutage}
	}
	return d, nil
}

// OutageError is a run that stopped because the database gave no service for longer than
// max-outage: its document is kept, its window cut short and marked.
type OutageError struct{ Max time.Duration }

func (e *OutageError) Error() string {
	return fmt.Sprintf("the database gave no service for longer than max-outage %s: the run stopped, its window cut short (--max-outage 0 never stops)",
		options.FormatDuration(e.Max))
}

// beginProfile readies a job of several runs (a profile, a search): the seed drawn once for all
// of them, the housekeeping between runs read (--after), the schema prepared, the workload
// started, and the document begun.
func (se *Session) beginProfile(ctx context.Context, bus *event.Bus) (*results.Profile, *workload.Run, *housekeeping, error) {
	s := se.Spec
	if s.Seed == 0 {
		s.Seed = RandomSeed()
	}
	after, err := newHousekeeping(s.After, se.T, se.W.Info().Footprint, bus)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := se.prepare(ctx); err != nil {
		return nil, nil, nil, err
	}
	def, err := se.start(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	version, _ := se.T.Version(ctx)
	return &results.Profile{Workload: s.Workload, MainTxn: def.Types[def.Main], Cairn: results.ThisCairn(se.Version),
		Target: results.Target{Kind: se.T.Kind(), Name: se.T.Name(), Version: version, Address: se.T.Address(), Database: se.T.Database()},
		Config: s.Config()}, def, after, nil
}

// Profile runs the spec's profile: once per VU count (Repeat times each), pausing between runs.
// Each run is told to bus as it completes (the sink stores it), so that an interrupted profile
// keeps every step it measured.
func (se *Session) Profile(ctx context.Context, bus *event.Bus) (*results.Profile, error) {
	s := se.Spec
	p, def, after, err := se.beginProfile(ctx, bus)
	if err != nil {
		return nil, err
	}
	step := func(ctx context.Context, st *results.Step, seed uint64) (*results.Document, error) {
		vu := st.VU
		def, err := se.startWorkload(ctx, seed)
		if err != nil {
			return nil, err
		}
		d, err := se.once(ctx, def, vu, seed, s, bus)
		if d != nil && p.Target.Settings == nil {
			p.Target.Settings = d.Target.Settings
		}
		return d, err
	}
	err = runProfile(ctx, p, profileOptions{VUs: s.VU, Repeat: s.Repeat, Pause: s.Pause, Seed: s.Seed, After: after, Target: se.T,
		Line: se.startLine(def, "profiling", "VUs "+options.Format(s.VU))}, step, bus)
	return p, err
}
