// Package session owns a run's life: it runs what a front end asks for — a run spec, a profile,
// a study's schedule of steps, or a workload's prepare, check or cleanup — by the one code path
// the command line and cairn serve both call. It opens the target, prepares the schema when the
// spec asks, starts the observers, drives the workload with the engine (or runs its own timed
// tests inside the same observers: TPC-H's, workload.Tester), builds the result document (the
// one builder every workload's runs go through), and tells what happens on one
// event bus (internal/event). Front ends differ only in how they make the spec and in who
// listens: the result sink (always first), the terminal's printer, a web service's event stream
// and /metrics, all subscribers.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/sink"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Options are where a session's outcome goes and who hears it go.
type Options struct {
	Store   string // the results store's path; "" stores nothing
	JSON    string // write the document to this file too; "" none
	Version string // cairn's
	// Subscribers hear the session's events, after the result sink: the terminal's Printer, a
	// web service's stream and log, its metrics.
	Subscribers []event.Subscriber
	// Preparing receives prepare's output; nil: its lines as Text events, its load as a line.
	Preparing workload.Preparing
	// From marks the run as run again from a bundle (Reruns); nil: it was not.
	From *results.FromBundle
}

// ErrInterrupted is the outcome of a run, profile or study stopped by its context (Ctrl-C) after
// the sink kept what it had measured.
var ErrInterrupted = errors.New("interrupted")

// NoneCompletedError is a run whose window completed no transaction.
type NoneCompletedError struct{ Errors int64 }

func (e *NoneCompletedError) Error() string {
	return fmt.Sprintf("no transaction completed in the measured window (%d errors)", e.Errors)
}

// bus is the session's bus: the sink (when a document is to be kept), then the subscribers.
func (o Options) bus(k *sink.Sink) *event.Bus {
	b := event.New()
	if k != nil {
		b.Subscribe(k)
	}
	for _, s := range o.Subscribers {
		b.Subscribe(s)
	}
	return b
}

func (o Options) preparing(ctx context.Context, bus *event.Bus) workload.Preparing {
	if o.Preparing != nil {
		return o.Preparing
	}
	return &preparingText{ctx: ctx, bus: bus, tally: &workload.Tally{}}
}

// tallied is ctx with p's Tally, when p tells the load's rows per table and loader.
func tallied(ctx context.Context, p workload.Preparing) context.Context {
	if pt, ok := p.(*preparingText); ok {
		return workload.WithTally(ctx, pt.tally)
	}
	return ctx
}

// loadEvery is how often a load is told as a Loading event.
const loadEvery = time.Second

// preparingText tells prepare's output as Text events, a line when a load begins, and the load
// as Loading events, once a second and once at its end.
type preparingText struct {
	ctx   context.Context
	bus   *event.Bus
	tally *workload.Tally
	mu    sync.Mutex
	stop  chan struct{}
	done  chan struct{}
}

func (p *preparingText) Say(format string, a ...any) {
	p.bus.Publish(p.ctx, event.Text{Line: fmt.Sprintf(format, a...)})
}

func (p *preparingText) Load(total int64, rows *atomic.Int64) {
	p.Loaded()
	p.bus.Publish(p.ctx, event.Text{Line: fmt.Sprintf("loading: %d rows", total), Err: true})
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		t0 := time.Now()
		tell := func(last bool) {
			p.bus.Publish(p.ctx, p.loading(time.Since(t0), total, rows.Load(), last))
		}
		tick := time.NewTicker(loadEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				tell(true)
				return
			case <-tick.C:
				tell(false)
			}
		}
	}(p.stop, p.done)
}

func (p *preparingText) loading(el time.Duration, total, rows int64, last bool) event.Loading {
	l := event.Loading{Elapsed: el, Total: total, Rows: rows, Loaders: p.tally.Loaders(), Done: last}
	for _, t := range p.tally.Tables() {
		l.Tables = append(l.Tables, event.TableRows{Name: t.Name, Rows: t.Rows})
	}
	return l
}

// Loaded ends the load's events, once, whoever calls it first (the workload or the session).
func (p *preparingText) Loaded() {
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.stop, p.done = nil, nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// lineWriter tells what a part of cairn writes as text (a workload's own run, a check, a study's
// restart command) as Text events, a line each; Flush tells a last unended line.
type lineWriter struct {
	ctx context.Context
	bus *event.Bus
	err bool
	mu  sync.Mutex
	buf []byte
}

func textWriter(ctx context.Context, bus *event.Bus, err bool) *lineWriter {
	return &lineWriter{ctx: ctx, bus: bus, err: err}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := indexNL(w.buf)
		if i < 0 {
			break
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		w.bus.Publish(w.ctx, event.Text{Line: line, Err: w.err})
	}
	return len(p), nil
}

// Flush tells the last line when it has no line end.
func (w *lineWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.bus.Publish(w.ctx, event.Text{Line: string(w.buf), Err: w.err})
		w.buf = nil
	}
}

func indexNL(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// InputError is a job asked for wrongly: the user's to fix (exit 2, HTTP 400).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }
func (e *InputError) BadInput()     {}

func inputf(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }

// OpenStore opens (creating if needed) the store a job writes to; nil for "".
func OpenStore(ctx context.Context, path string) (*resultstore.Store, error) {
	if path == "" {
		return nil, nil
	}
	return resultstore.Open(ctx, path)
}

// Execute runs a checked spec, a run or a profile; the sink stores, writes, and the subscribers
// hear how it ended.
func Execute(ctx context.Context, s *spec.Spec, o Options) error {
	return execute(ctx, s, o, func(se *Session, bus *event.Bus) error {
		if s.Profile {
			p, err := se.Profile(ctx, bus)
			return endProfile(ctx, bus, p, err)
		}
		d, err := se.Run(ctx, bus)
		se.Preparing.Loaded()
		if d != nil {
			d.Bundle = o.From
		}
		return endRun(ctx, bus, d, s, err)
	})
}

// execute opens what a job of a spec needs and runs job on it: the store first (a bad store fails
// before minutes of measuring), then cairn bound to its client CPUs, then the database, and the
// bus whose sink stores and writes what the job tells it.
func execute(ctx context.Context, s *spec.Spec, o Options, job func(se *Session, bus *event.Bus) error) error {
	store, err := OpenStore(ctx, o.Store)
	if err != nil {
		return err
	}
	if store != nil {
		defer store.Close()
	}
	bound, err := BindClient(s)
	if err != nil {
		return err
	}
	se, err := Open(ctx, s, o.Version, bound)
	if err != nil {
		return err
	}
	defer se.Close()
	bus := o.bus(sink.New(store, o.JSON))
	se.Preparing = o.preparing(ctx, bus)
	return job(se, bus)
}

// endRun ends a run: d and err are what Session.Run returned. The sink stores the document
// before the other subscribers hear its summary, so that the summary and the file carry its id.
func endRun(ctx context.Context, bus *event.Bus, d *results.Document, s *spec.Spec, err error) error {
	if d == nil {
		return none(ctx, bus, results.KindRun, err)
	}
	if perr := bus.Publish(ctx, event.Summary{What: results.KindRun, Run: d, Spec: s}); perr != nil {
		return perr // not stored, or not written
	}
	// An interruption or an empty window says more than the error that ended the run.
	if d.Interrupted || ctx.Err() != nil {
		return ErrInterrupted
	}
	var done, errs int64
	for _, tx := range d.Txns {
		done += tx.Count
		errs += tx.Errors
	}
	if done == 0 {
		return &NoneCompletedError{Errors: errs}
	}
	return err
}

// endProfile ends a profile: p and err are what Session.Profile returned.
func endProfile(ctx context.Context, bus *event.Bus, p *results.Profile, err error) error {
	if p == nil {
		return none(ctx, bus, results.KindProfile, err)
	}
	perr := bus.Publish(ctx, event.Summary{What: results.KindProfile, Profile: p})
	if err := ending(perr, err); err != nil {
		return err
	}
	if p.Interrupted {
		return ErrInterrupted
	}
	return nil
}

// ending is what a profile or a study ended in: a document not written says so first, then the
// error that ended it, then what the sink could not do.
func ending(sinkErr, err error) error {
	var we *sink.WriteError
	if errors.As(sinkErr, &we) {
		return sinkErr
	}
	if err != nil {
		return err
	}
	return sinkErr
}

// none is the outcome of a run, profile or study that returned no document.
func none(ctx context.Context, bus *event.Bus, what string, err error) error {
	if err != nil && ctx.Err() != nil {
		bus.Publish(ctx, event.Interrupted{What: what})
		return ErrInterrupted
	}
	return err
}

// BindClient binds cairn's threads to the spec's client CPUs, before the target opens: the
// connections' threads, and the Ps blocking sockets reserve, follow the binding. The binding is
// the process's: a front end running several jobs runs such a job alone. nil: none asked.
func BindClient(s *spec.Spec) ([]int, error) {
	cpus, err := CPUs(s)
	if err != nil || cpus == nil {
		return nil, err
	}
	return cpus, observe.PinSelf(cpus)
}

// BindSelf binds cairn's threads to a study case's client CPUs, or to every CPU again (nil).
func BindSelf(cpus []int) error {
	if cpus == nil {
		all, err := observe.OnlineCPUs()
		if err != nil {
			return err
		}
		cpus = all
	}
	return observe.PinSelf(cpus)
}

// Plan checks a study against its server and writes its steps, changing nothing.
func Plan(ctx context.Context, st *study.Study, w io.Writer) error {
	p, err := study.Preview(target.WithConnectTimeout(ctx, st.Spec.ConnectTimeout), st)
	if err != nil {
		return Unreachable(err)
	}
	p.Print(w)
	fmt.Fprintln(w, "nothing was changed")
	return nil
}

// Reachable opens a study's target; a server it cannot reach is the user's to fix before a
// study, which changes nothing until it can.
func Reachable(ctx context.Context, db string) (address string, err error) {
	t, err := target.Open(ctx, db)
	if err != nil {
		return "", Unreachable(err)
	}
	defer t.Close()
	return t.Address(), nil
}

// Unreachable makes a connection error the user's to fix.
func Unreachable(err error) error {
	var ce *target.ConnectError
	if errors.As(err, &ce) {
		return &InputError{err.Error()}
	}
	return err
}

// SpecText is a spec as --print-spec writes it: a comment on its passwords, then the YAML.
func SpecText(s *spec.Spec) []byte {
	return append([]byte(spec.SecretsNote(s.SecretVars(), "cairn run --spec reads")), s.YAML()...)
}

// StoredSpec is what a stored result ran with, as text that runs it again: a study's file
// (kind "study", for 'cairn study run'), or a run's or profile's run spec (kind "run", for
// 'cairn run --spec'). Its passwords stay ${VAR} references, as the result stores them.
func StoredSpec(l results.Loaded) (kind string, text []byte, err error) {
	if l.Study != nil {
		b, err := study.FileText(l.Study)
		if err != nil {
			return "", nil, fmt.Errorf("result %s was stored without its study file (by an older cairn?): %w", l.ID, err)
		}
		return "study", b, nil
	}
	config := l.Profile.GetConfig()
	if l.Run != nil {
		config = l.Run.Config
	}
	sp, err := spec.FromConfig(config)
	if err != nil {
		return "", nil, fmt.Errorf("result %s was stored without a run spec (by an older cairn?): %w", l.ID, err)
	}
	return "run", SpecText(sp), nil
}

// Prepare runs a workload's prepare on db; a complete schema is not an error, an interruption
// leaves a partial one that cleanup removes (said on Err).
func Prepare(ctx context.Context, w workload.Workload, db string, opts any, o Options) error {
	if db == "" {
		db = target.DefaultDB()
	}
	t, err := target.Open(ctx, db)
	if err != nil {
		return err
	}
	defer t.Close()
	bus := o.bus(nil)
	p := o.preparing(ctx, bus)
	err = w.Prepare(tallied(workload.WithVersion(ctx, o.Version), p), t, opts, p)
	p.Loaded()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		return nil
	}
	if err != nil && ctx.Err() != nil {
		bus.Publish(ctx, event.Text{Err: true,
			Line: fmt.Sprintf("cairn: prepare interrupted; the partial schema remains: run 'cairn %s cleanup' before preparing again", w.Info().Name)})
		return ErrInterrupted
	}
	return err
}

// Check runs a workload's consistency check on a database that holds its schema; its report is
// told as Text events.
func Check(ctx context.Context, w workload.Workload, db string, opts any, o Options) error {
	c, ok := w.(workload.Checker)
	if !ok {
		return inputf("%s has no check", w.Info().Name)
	}
	t, err := OpenExisting(ctx, db, w.Info().Name)
	if err != nil {
		return err
	}
	defer t.Close()
	out := textWriter(ctx, o.bus(nil), false)
	defer out.Flush()
	return c.Check(ctx, t, opts, out)
}

// Cleanup drops what the workload's record says its prepare created, and nothing else, and says
// what it dropped and what it left alone (Text events).
func Cleanup(ctx context.Context, db string, f workload.Footprint, o Options) error {
	if db == "" {
		db = target.DefaultDB()
	}
	lines, err := workload.Cleanup(ctx, db, f)
	if err != nil {
		return err
	}
	bus := o.bus(nil)
	for _, line := range lines {
		bus.Publish(ctx, event.Text{Line: line})
	}
	return nil
}

// OpenExisting opens a database that a command expects to hold a schema already: for SQLite it
// refuses to create a new, empty file.
func OpenExisting(ctx context.Context, db, workload string) (target.Target, error) {
	if db == "" {
		db = target.DefaultDB()
	}
	if path := target.MissingFile(db); path != "" {
		return nil, &NoFileError{Path: path, Workload: workload}
	}
	return target.Open(ctx, db)
}
