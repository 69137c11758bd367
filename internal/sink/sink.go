// Package sink is where every run, profile and study ends, whoever started it: a subscriber of
// the session's event bus (internal/event) that stores the document and its steps as they come,
// writes the file asked for, and announces what it did (Opened, Stored, NotStored, Written) for
// the subscribers after it. Its errors fail what runs: a step it could not store fails the
// profile. It imports only the event, results and file-output layers (k6's outputs are the
// model).
package sink

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/outfile"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
)

// Sink keeps runs, profiles and studies: it stores into Store (nil: nothing is stored) and writes
// the finished document to JSON ("" for none). Subscribe it first: the document is stored before
// the others hear its summary, so that the summary and the file carry its id.
type Sink struct {
	Store *resultstore.Store
	JSON  string
}

// New makes a sink.
func New(store *resultstore.Store, jsonPath string) *Sink {
	return &Sink{Store: store, JSON: jsonPath}
}

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

// Handle stores what the event carries. Store operations outlive the run's context: what was
// measured before a Ctrl-C is kept.
func (k *Sink) Handle(ctx context.Context, e event.Event) error {
	bg := context.WithoutCancel(ctx)
	switch e := e.(type) {
	case event.Begun:
		// A profile or a study is stored before its first run: a kill at any point leaves what it
		// measured up to there.
		if k.Store == nil {
			return nil
		}
		var err error
		var id string
		switch {
		case e.Profile != nil:
			err, id = k.Store.BeginProfile(bg, e.Profile), e.Profile.ID
		case e.Study != nil:
			err, id = k.Store.BeginStudy(bg, e.Study), e.Study.ID
		default:
			return nil
		}
		if err != nil {
			return err
		}
		event.Emit(ctx, event.Opened{What: e.What, ID: id, Path: k.Store.Path})
	case event.StepDone:
		if k.Store == nil {
			return nil
		}
		if err := k.Store.SaveRun(bg, e.Run, e.I); err != nil {
			return err
		}
		if e.Profile != nil {
			return k.Store.UpdateProfile(bg, e.Profile)
		}
	case event.Checkpoint:
		if k.Store != nil {
			return k.Store.UpdateStudy(bg, e.Study)
		}
	case event.Summary:
		switch {
		case e.Run != nil:
			return k.run(ctx, e.Run)
		case e.Profile != nil:
			return k.profile(ctx, e.Profile)
		case e.Study != nil:
			return k.study(ctx, e.Study)
		}
	}
	return nil
}

// run keeps a run: stored, then written; a document not written says so before one not stored.
func (k *Sink) run(ctx context.Context, d *results.Document) error {
	var storeErr error
	if k.Store != nil {
		storeErr = k.Store.SaveRun(context.WithoutCancel(ctx), d, 0)
		if storeErr == nil {
			event.Emit(ctx, event.Stored{What: results.KindRun, ID: d.ID, Path: k.Store.Path})
		}
	}
	if k.JSON != "" {
		if werr := d.WriteJSON(k.JSON); werr != nil {
			return &WriteError{Path: k.JSON, Err: werr}
		}
		event.Emit(ctx, event.Written{What: results.KindRun, Path: k.JSON})
	}
	if storeErr != nil {
		return &NotStoredError{storeErr}
	}
	return nil
}

// profile completes a stored profile and writes it when it has steps.
func (k *Sink) profile(ctx context.Context, p *results.Profile) error {
	var err error
	if k.Store != nil && p.ID != "" {
		err = k.Store.UpdateProfile(context.WithoutCancel(ctx), p)
		event.Emit(ctx, event.Stored{What: results.KindProfile, ID: p.ID, Path: k.Store.Path})
	}
	if k.JSON != "" && len(p.Steps) > 0 {
		if werr := k.writeJSON(ctx, results.KindProfile, p); werr != nil {
			return werr
		}
	}
	return err
}

// study ends a stored study. One that measured nothing and left nothing to restore is removed
// from the store: it would look like a result.
func (k *Sink) study(ctx context.Context, doc *results.Study) error {
	var err error
	if k.Store != nil && doc.ID != "" {
		if !doc.Measured() && doc.Restored {
			err = k.Store.Remove(context.WithoutCancel(ctx), doc.ID)
			event.Emit(ctx, event.NotStored{What: results.KindStudy, ID: doc.ID})
		} else {
			event.Emit(ctx, event.Stored{What: results.KindStudy, ID: doc.ID, Path: k.Store.Path})
		}
	}
	if k.JSON != "" {
		if werr := k.writeJSON(ctx, results.KindStudy, doc); werr != nil {
			return werr
		}
	}
	return err
}

func (k *Sink) writeJSON(ctx context.Context, what string, v any) error {
	if err := WriteJSON(k.JSON, v); err != nil {
		return &WriteError{Path: k.JSON, Err: err}
	}
	event.Emit(ctx, event.Written{What: what, Path: k.JSON})
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
