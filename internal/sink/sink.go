// Package sink is where every run, profile and study ends, whoever started it: it stores the
// document, writes the file asked for, records an interruption, and tells its subscribers what
// happened (k6's output manager is the model). Front ends subscribe — the command line a terminal
// printer, a web service an event stream — and word the typed outcomes it returns; none keeps a
// copy of this lifecycle.
package sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cairn-bench/cairn/internal/outfile"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/runner"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/study"
)

// Kind is what an event reports.
type Kind int

const (
	Begun       Kind = iota // Line says what runs; Study (with Plan) for a study
	Note                    // Line: a note before a run (the host's warnings)
	StepBegun               // I of N begins: VU, Repeat of Repeats, Case for a study's step
	StepDone                // Run is the step's document, stored
	Applied                 // a study's setting: Name, Value, ReadBack ("" when restored), Live
	Summary                 // Run, Profile or Study is the finished document (Spec: the run's)
	Stored                  // What (results.KindRun …) was stored as ID in the store at Path
	Opened                  // What (a profile, a study) is stored as ID before its first run, to be completed
	NotStored               // the study measured nothing and was removed from the store
	Written                 // What's document was written to Path
	Interrupted             // stopped before What started: nothing was measured
)

// Event is one thing that happened; which fields are set depends on Kind.
type Event struct {
	Kind                  Kind
	What                  string // results.KindRun, KindProfile or KindStudy
	Line                  string
	I, N, VU              int
	Repeat, Repeats       int
	Case                  string
	Name, Value, ReadBack string
	Live                  bool
	ID, Path              string
	Run                   *results.Document
	Profile               *results.Profile
	Study                 *results.Study
	Plan                  *study.Study
	Spec                  *spec.Spec
}

// Subscriber receives every event of the sink it subscribed to, in order, on the goroutine that
// caused it; it must not block for long.
type Subscriber interface{ Event(Event) }

// Func is a Subscriber made of a function.
type Func func(Event)

func (f Func) Event(e Event) { f(e) }

// Sink ends runs, profiles and studies: it stores into Store (nil: nothing is stored) and writes
// the document to JSON ("" for none).
type Sink struct {
	Store *resultstore.Store
	JSON  string
	subs  []Subscriber
}

// New makes a sink with its subscribers.
func New(store *resultstore.Store, jsonPath string, subs ...Subscriber) *Sink {
	return &Sink{Store: store, JSON: jsonPath, subs: subs}
}

// Subscribe adds a subscriber: it receives every event from now on.
func (k *Sink) Subscribe(s Subscriber) { k.subs = append(k.subs, s) }

func (k *Sink) publish(e Event) {
	for _, s := range k.subs {
		s.Event(e)
	}
}

// ErrInterrupted is the outcome of a run, profile or study stopped by its context (Ctrl-C) after
// the sink kept what it had measured.
var ErrInterrupted = errors.New("interrupted")

// NotStoredError is a result measured but not stored.
type NotStoredError struct{ Err error }

func (e *NotStoredError) Error() string {
	return fmt.Sprintf("the result was measured but not stored: %v", e.Err)
}
func (e *NotStoredError) Unwrap() error { return e.Err }

// WriteError is a document that could not be written to the file asked for (the front end's
// option that named it is the front end's to say).
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return fmt.Sprintf("write %s: %v", e.Path, e.Err) }
func (e *WriteError) Unwrap() error { return e.Err }

// NoneCompletedError is a run whose window completed no transaction.
type NoneCompletedError struct{ Errors int64 }

func (e *NoneCompletedError) Error() string {
	return fmt.Sprintf("no transaction completed in the measured window (%d errors)", e.Errors)
}

// RunHooks has the run's start line and notes published as events.
func (k *Sink) RunHooks(h *runner.Hooks) {
	h.Start = func(line string) { k.publish(Event{Kind: Begun, What: results.KindRun, Line: line}) }
	h.Note = func(line string) { k.publish(Event{Kind: Note, Line: line}) }
}

// Run ends a run: d and err are what runner.Session.Run returned. The document is stored before
// the summary is published, so that the summary and the file carry its id.
func (k *Sink) Run(ctx context.Context, d *results.Document, s *spec.Spec, err error) error {
	if d == nil {
		return k.none(ctx, results.KindRun, err)
	}
	var storeErr error
	if k.Store != nil {
		storeErr = k.Store.SaveRun(context.WithoutCancel(ctx), d, 0)
	}
	k.publish(Event{Kind: Summary, What: results.KindRun, Run: d, Spec: s})
	if k.Store != nil && storeErr == nil {
		k.publish(Event{Kind: Stored, What: results.KindRun, ID: d.ID, Path: k.Store.Path})
	}
	if k.JSON != "" {
		if werr := d.WriteJSON(k.JSON); werr != nil {
			return &WriteError{Path: k.JSON, Err: werr}
		}
		k.publish(Event{Kind: Written, What: results.KindRun, Path: k.JSON})
	}
	if storeErr != nil {
		return &NotStoredError{storeErr}
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

// none is the outcome of a run, profile or study that returned no document.
func (k *Sink) none(ctx context.Context, what string, err error) error {
	if err != nil && ctx.Err() != nil {
		k.publish(Event{Kind: Interrupted, What: what})
		return ErrInterrupted
	}
	return err
}

// ProfileHooks has a profile store itself and each step as it completes, so that a profile
// stopped by Ctrl-C or a failure keeps every step it measured, and publishes the steps.
func (k *Sink) ProfileHooks(ctx context.Context, h *runner.Hooks, repeats int) {
	bg := context.WithoutCancel(ctx)
	k.RunHooks(h)
	h.Start = func(line string) { k.publish(Event{Kind: Begun, What: results.KindProfile, Line: line}) }
	h.Begin = func(p *results.Profile) error {
		if k.Store == nil {
			return nil
		}
		if err := k.Store.BeginProfile(bg, p); err != nil {
			return err
		}
		k.publish(Event{Kind: Opened, What: results.KindProfile, ID: p.ID, Path: k.Store.Path})
		return nil
	}
	h.StepStart = func(i, n, vu, rep int) {
		k.publish(Event{Kind: StepBegun, What: results.KindProfile, I: i, N: n, VU: vu, Repeat: rep, Repeats: repeats})
	}
	h.StepDone = func(p *results.Profile, d *results.Document, i int) error {
		if k.Store != nil {
			if err := k.Store.SaveRun(bg, d, i); err != nil {
				return err
			}
			if err := k.Store.UpdateProfile(bg, p); err != nil {
				return err
			}
		}
		k.publish(Event{Kind: StepDone, What: results.KindProfile, I: i, Run: d})
		return nil
	}
}

// Profile ends a profile: p and err are what runner.Session.Profile returned.
func (k *Sink) Profile(ctx context.Context, p *results.Profile, err error) error {
	if p == nil {
		return k.none(ctx, results.KindProfile, err)
	}
	if k.Store != nil && p.ID != "" {
		if uerr := k.Store.UpdateProfile(context.WithoutCancel(ctx), p); uerr != nil && err == nil {
			err = uerr
		}
	}
	if len(p.Steps) > 0 {
		k.publish(Event{Kind: Summary, What: results.KindProfile, Profile: p})
	}
	if k.Store != nil && p.ID != "" {
		k.publish(Event{Kind: Stored, What: results.KindProfile, ID: p.ID, Path: k.Store.Path})
	}
	if k.JSON != "" && len(p.Steps) > 0 {
		if werr := k.writeJSON(results.KindProfile, p); werr != nil {
			return werr
		}
	}
	if err != nil {
		return err
	}
	if p.Interrupted {
		return ErrInterrupted
	}
	return nil
}

// StudyHooks has a study store itself and its runs as they complete, and publishes its steps
// and the settings it applies.
func (k *Sink) StudyHooks(ctx context.Context, h *study.Hooks, st *study.Study) {
	bg := context.WithoutCancel(ctx)
	h.Note = func(line string) { k.publish(Event{Kind: Note, Line: line}) }
	if k.Store != nil {
		h.Store = k.Store.Path
	}
	h.Begin = func(s *results.Study) error {
		k.publish(Event{Kind: Begun, What: results.KindStudy, Study: s, Plan: st})
		if k.Store == nil {
			return nil
		}
		if err := k.Store.BeginStudy(bg, s); err != nil {
			return err
		}
		k.publish(Event{Kind: Opened, What: results.KindStudy, ID: s.ID, Path: k.Store.Path})
		return nil
	}
	h.Step = func(i, n int, step study.Step) {
		k.publish(Event{Kind: StepBegun, What: results.KindStudy, I: i, N: n, VU: step.VU, Repeat: step.Repeat,
			Repeats: st.Spec.Repeat, Case: step.Case.Label()})
	}
	h.Applied = func(name, value, readBack string, live bool) {
		k.publish(Event{Kind: Applied, Name: name, Value: value, ReadBack: readBack, Live: live})
	}
	h.Done = func(d *results.Document, i int) error {
		if k.Store != nil {
			if err := k.Store.SaveRun(bg, d, i); err != nil {
				return err
			}
		}
		k.publish(Event{Kind: StepDone, What: results.KindStudy, I: i, Run: d})
		return nil
	}
	h.Update = func(s *results.Study) error {
		if k.Store == nil {
			return nil
		}
		return k.Store.UpdateStudy(bg, s)
	}
}

// Study ends a study: doc and err are what study.Run returned. A study that measured nothing
// and left nothing to restore is removed from the store: it would look like a result.
func (k *Sink) Study(ctx context.Context, doc *results.Study, err error) error {
	if doc == nil {
		return k.none(ctx, results.KindStudy, err)
	}
	k.publish(Event{Kind: Summary, What: results.KindStudy, Study: doc})
	if k.Store != nil && doc.ID != "" {
		if !doc.Measured() && doc.Restored {
			if rerr := k.Store.Remove(context.WithoutCancel(ctx), doc.ID); rerr != nil && err == nil {
				err = rerr
			}
			k.publish(Event{Kind: NotStored, What: results.KindStudy, ID: doc.ID})
		} else {
			k.publish(Event{Kind: Stored, What: results.KindStudy, ID: doc.ID, Path: k.Store.Path})
		}
	}
	if k.JSON != "" {
		if werr := k.writeJSON(results.KindStudy, doc); werr != nil {
			return werr
		}
	}
	if err != nil {
		return err
	}
	if doc.Interrupted {
		return ErrInterrupted
	}
	return nil
}

func (k *Sink) writeJSON(what string, v any) error {
	if err := WriteJSON(k.JSON, v); err != nil {
		return &WriteError{Path: k.JSON, Err: err}
	}
	k.publish(Event{Kind: Written, What: what, Path: k.JSON})
	return nil
}

// WriteJSON writes v as indented JSON to path, through the path (outfile).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteBytes(path, append(b, '\n'))
}
