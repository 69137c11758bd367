// Package job runs what a front end asks for — a run spec, a profile, a study, or a workload's
// prepare, check or cleanup — by the one code path the command line and cairn serve both call.
// Front ends differ only in how they make the spec and in who listens: the terminal's printer,
// a web service's event stream, both subscribers to the same sink.
package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/runner"
	"github.com/cairn-bench/cairn/internal/sink"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Options are where a job's outcome goes and who hears it go.
type Options struct {
	Store   string // the results store's path; "" stores nothing
	JSON    string // write the document to this file too; "" none
	Version string // cairn's
	// Out and Err receive the lines a terminal shows: what was measured on Out, what is under
	// way on Err.
	Out, Err io.Writer
	// Preparing receives prepare's output; nil: its lines on Out, its load as a line on Err.
	Preparing workload.Preparing
	// Subscribers hear the sink's events besides the printer of Out and Err.
	Subscribers []sink.Subscriber
	// Tick receives every second of an engine run; Progress each progress sample (its line goes
	// to Err in any case).
	Tick     func(event.Tick)
	Progress func(workload.Progress)
}

// InputError is a job asked for wrongly: the user's to fix (exit 2, HTTP 400).
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }
func (e *InputError) BadInput()     {}

func inputf(format string, a ...any) error { return &InputError{fmt.Sprintf(format, a...)} }

// OpenStore opens (creating if needed) the store a job writes to; nil for "".
func OpenStore(ctx context.Context, path string) (*results.Store, error) {
	if path == "" {
		return nil, nil
	}
	return results.OpenStore(ctx, path)
}

func (o Options) preparing() workload.Preparing {
	if o.Preparing != nil {
		return o.Preparing
	}
	return Lines{Out: o.Out, Err: o.Err}
}

func (o Options) sink(store *results.Store) *sink.Sink {
	k := sink.New(store, o.JSON, Printer{o.Out, o.Err})
	for _, s := range o.Subscribers {
		k.Subscribe(s)
	}
	return k
}

func (o Options) hooks() runner.Hooks {
	return runner.Hooks{
		Preparing: o.preparing(),
		Progress: func(p workload.Progress, line string) {
			fmt.Fprintln(o.Err, line)
			if o.Progress != nil {
				o.Progress(p)
			}
		},
		Out:  o.Out,
		Tick: o.Tick,
	}
}

// Execute runs a checked spec, a run or a profile: the store is opened first (a bad store fails
// before minutes of measuring), then cairn is bound to its client CPUs and the database opened;
// the sink stores, writes and says how it ended.
func Execute(ctx context.Context, s *spec.Spec, o Options) error {
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
	se, err := runner.Open(ctx, s, o.Version, bound)
	if err != nil {
		return err
	}
	defer se.Close()
	k := o.sink(store)
	h := o.hooks()
	if s.Profile {
		k.ProfileHooks(ctx, &h, s.Repeat)
		p, err := se.Profile(ctx, h)
		return k.Profile(ctx, p, err)
	}
	k.RunHooks(&h)
	d, err := se.Run(ctx, h)
	h.Preparing.Loaded()
	return k.Run(ctx, d, s, err)
}

// BindClient binds cairn's threads to the spec's client CPUs, before the target opens: the
// connections' threads, and the Ps blocking sockets reserve, follow the binding. The binding is
// the process's: a front end running several jobs runs such a job alone. nil: none asked.
func BindClient(s *spec.Spec) ([]int, error) {
	cpus, err := runner.CPUs(s)
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

// Study runs a study on a server it can reach, its settings restored at its end.
func Study(ctx context.Context, st *study.Study, o Options) error {
	ctx = target.WithConnectTimeout(ctx, st.Spec.ConnectTimeout)
	store, err := OpenStore(ctx, o.Store)
	if err != nil {
		return err
	}
	if store != nil {
		defer store.Close()
	}
	if _, err := Reachable(ctx, st.Spec.DB); err != nil {
		return err
	}
	k := o.sink(store)
	h := study.Hooks{Hooks: o.hooks(), Bind: BindSelf, RestartOutput: o.Err}
	k.StudyHooks(ctx, &h, st)
	doc, err := study.Run(ctx, st, o.Version, h)
	return k.Study(ctx, doc, err)
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
	p := o.preparing()
	err = w.Prepare(ctx, t, opts, p)
	p.Loaded()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		return nil
	}
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(o.Err, "cairn: prepare interrupted; the partial schema remains: run 'cairn %s cleanup' before preparing again\n", w.Info().Name)
		return sink.ErrInterrupted
	}
	return err
}

// Check runs a workload's consistency check on a database that holds its schema.
func Check(ctx context.Context, w workload.Workload, db string, opts any, out io.Writer) error {
	c, ok := w.(workload.Checker)
	if !ok {
		return inputf("%s has no check", w.Info().Name)
	}
	t, err := OpenExisting(ctx, db, w.Info().Name)
	if err != nil {
		return err
	}
	defer t.Close()
	return c.Check(ctx, t, opts, out)
}

// Cleanup drops what the workload's record says its prepare created, and nothing else, and says
// what it dropped and what it left alone.
func Cleanup(ctx context.Context, db string, f workload.Footprint, out io.Writer) error {
	if db == "" {
		db = target.DefaultDB()
	}
	lines, err := workload.Cleanup(ctx, db, f)
	if err != nil {
		return err
	}
	for _, line := range lines {
		fmt.Fprintln(out, line)
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
		return nil, &runner.NoFileError{Path: path, Workload: workload}
	}
	return target.Open(ctx, db)
}

// Lines shows prepare's output as lines: what it says on Out, a line on Err when a load begins.
type Lines struct{ Out, Err io.Writer }

func (l Lines) Say(format string, a ...any) { fmt.Fprintf(l.Out, format+"\n", a...) }
func (l Lines) Load(total int64, _ *atomic.Int64) {
	fmt.Fprintf(l.Err, "loading: %d rows\n", total)
}
func (l Lines) Loaded() {}
