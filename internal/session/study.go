package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/sink"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Study runs a study on a server it can reach, its settings restored at its end: a schedule of
// steps, each a run through the same code as any run, its case's settings applied before it by
// the study, which puts them back at the end, on an error and on Ctrl-C. An interrupted study
// keeps what it measured.
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
	k := sink.New(store, o.JSON)
	bus := o.bus(k)
	after, err := studyHousekeeping(ctx, st, bus)
	if err != nil {
		return err
	}
	restart := textWriter(ctx, bus, true)
	defer restart.Flush()
	cfg := study.Config{Version: o.Version, Bus: bus, RestartOutput: restart}
	if store != nil {
		cfg.Store = store.Path
	}
	sv, err := study.Begin(ctx, st, cfg)
	if err != nil {
		return endStudy(ctx, bus, nil, err)
	}
	var schema studySchema
	runErr := studySteps(ctx, st, sv, bus, o, &schema, after)
	runErr = errors.Join(runErr, schema.drop(ctx, st, bus))
	doc, err := sv.End(ctx, runErr)
	return endStudy(ctx, bus, doc, err)
}

// studySteps runs every step of the study in its order; when the schema is a factor, schema
// says which the database holds.
func studySteps(ctx context.Context, st *study.Study, sv *study.Server, bus *event.Bus, o Options, schema *studySchema, after *housekeeping) error {
	s, doc := st.Spec, sv.Doc()
	steps := st.Steps()
	var pinned bool
	for i, step := range steps {
		var hk []results.Housekeeping
		if i > 0 && after != nil && ctx.Err() == nil {
			// Before the next case's settings are applied: the housekeeping is the last run's.
			var err error
			if hk, err = after.study(ctx, s.DB, fmt.Sprintf("run %d", i)); err != nil {
				if ctx.Err() != nil {
					doc.Interrupted = true
					return nil
				}
				return err
			}
		}
		if i > 0 && s.Pause > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(s.Pause):
			}
		}
		if ctx.Err() != nil {
			doc.Interrupted = true
			return nil
		}
		if err := sv.Apply(ctx, step.Case); err != nil {
			return err
		}
		failed := func(err error) error {
			return fmt.Errorf("study run %d (%s, %s): %w", i+1, step.Case.Label(), workload.Plural(step.VU, "VU"), err)
		}
		bus.Publish(ctx, event.StepBegun{What: results.KindStudy, I: i, N: len(steps), VU: step.VU, Repeat: step.Repeat,
			Repeats: s.Repeat, Case: step.Case.Label()})
		one, err := st.CaseSpec(step.Case)
		if err != nil {
			return failed(err)
		}
		one.Profile, one.VU, one.Seed = false, []int{step.VU}, StepSeed(s.Seed, i)
		one.Schedule = st.LoadSchedule() // the step's VU count runs first
		one.ClientCPUs, one.ServerCPUs = step.Case.ClientCPUs, step.Case.ServerCPUs
		switch level := step.Case.Schema; {
		case level == "" && i > 0, level != "" && level == schema.level:
			one.Prepare = nil // the schema is there: prepared by the first step, or this level's
		case level != "":
			// Another level: the study drops the schema it prepared for the last one, and
			// prepares this one's (a run's prepare, when the schema is missing).
			if err := schema.drop(ctx, st, bus); err != nil {
				return failed(err)
			}
			if err := schema.prepare(st, level); err != nil {
				return failed(err)
			}
		}
		bound, err := CPUs(one)
		if err != nil {
			return failed(err)
		}
		if bound != nil || pinned {
			// A case without a client binding after one with: cairn runs on every CPU again.
			if err := BindSelf(bound); err != nil && bound != nil {
				return failed(err)
			}
			pinned = bound != nil
		}
		d, err := studyStep(ctx, sv, one, bound, bus, o)
		if d == nil {
			if ctx.Err() != nil {
				doc.Interrupted = true
				return nil
			}
			return failed(err)
		}
		d.Study = &results.StudyRef{Case: step.Case.Index, Repeat: step.Repeat, Step: i}
		d.Housekeeping = hk
		d.ProfileID = doc.ID
		doc.Place(d)
		doc.Summarize()
		if derr := bus.Publish(ctx, event.StepDone{What: results.KindStudy, I: i, Run: d}); derr != nil {
			return derr
		}
		doc.Steps = append(doc.Steps, results.StudyStepOrder{Case: step.Case.Index, VU: step.VU, Repeat: step.Repeat, Result: d.ID})
		if uerr := bus.Publish(ctx, event.Checkpoint{Study: doc}); uerr != nil {
			return uerr
		}
		if err != nil && !d.Interrupted {
			return err
		}
		if d.Interrupted || ctx.Err() != nil {
			doc.Interrupted = true
			return nil
		}
	}
	return nil
}

// studyStep runs one step, the study making the schedule's live changes inside its window.
func studyStep(ctx context.Context, sv *study.Server, one *spec.Spec, bound []int, bus *event.Bus, o Options) (*results.Document, error) {
	se, err := Open(ctx, one, o.Version, bound)
	if err != nil {
		return nil, err
	}
	defer se.Close()
	se.Preparing = o.preparing(ctx, bus)
	live := sv.Live(ctx)
	stop := bus.Subscribe(live)
	d, err := se.run(ctx, bus, false)
	stop()
	return d, live.Finish(d, err)
}

// endStudy ends a study: doc and err are what it ended with. A study that measured nothing and
// left nothing to restore is removed from the store (the sink): it would look like a result.
func endStudy(ctx context.Context, bus *event.Bus, doc *results.Study, err error) error {
	if doc == nil {
		return none(ctx, bus, results.KindStudy, err)
	}
	perr := bus.Publish(ctx, event.Summary{What: results.KindStudy, Study: doc})
	if err := ending(perr, err); err != nil {
		return err
	}
	if doc.Interrupted {
		return ErrInterrupted
	}
	return nil
}

// studySchema is what a study whose schema is a factor has prepared: the level the database
// holds, and whether a schema of the study's (perhaps a partial one) may be there; entry is its
// record in the undo journal, for 'cairn restore' to drop it after a crash.
type studySchema struct {
	level    string
	prepared bool
	entry    *undo.Entry
}

// studySchemaUndo is the undo journal's kind for a schema a study prepared.
const studySchemaUndo = "study-schema"

// studySchemaData is what 'cairn restore' needs to drop a study's schema: the workload whose
// cleanup drops it, and where.
type studySchemaData struct {
	Workload string `json:"workload"`
	DB       string `json:"db"` // the study's database URL, redacted
}

func init() {
	undo.Register(studySchemaUndo, func(ctx context.Context, e *undo.Entry, db string) error {
		var d studySchemaData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		if db == "" || target.Redact(db) != d.DB {
			return fmt.Errorf("give --db %s to drop the %s schema a study prepared there", d.DB, d.Workload)
		}
		w, err := workload.Get(d.Workload)
		if err != nil {
			return err
		}
		_, err = workload.Cleanup(ctx, db, w.Info().Footprint)
		return err
	})
}

// PendingStudyChanges are the undo journal's records of what killed studies left on db, whose
// server is at where: the settings they changed, and the schemas they prepared and did not drop,
// for 'cairn study restore'.
func PendingStudyChanges(where, db string) ([]*undo.Entry, error) {
	out, err := target.PendingSettings(where)
	if err != nil {
		return nil, err
	}
	all, err := undo.Pending()
	if err != nil {
		return nil, err
	}
	for _, e := range all {
		var d studySchemaData
		if e.Kind == studySchemaUndo && json.Unmarshal(e.Data, &d) == nil && d.DB == target.Redact(db) {
			out = append(out, e)
		}
	}
	return out, nil
}

// prepare records, before a level's schema is prepared, that the study's schema may be there.
func (sc *studySchema) prepare(st *study.Study, level string) error {
	if sc.entry == nil {
		w := st.Spec.WorkloadOf().Info()
		e, err := undo.Record(studySchemaUndo, fmt.Sprintf("the %s schema a study prepared on %s", w.Title, target.Redact(st.Spec.DB)), target.Redact(st.Spec.DB),
			studySchemaData{Workload: w.Name, DB: target.Redact(st.Spec.DB)})
		if err != nil {
			return err
		}
		sc.entry = e
	}
	sc.level, sc.prepared = level, true
	return nil
}

// drop drops the schema the study prepared, by its meta record (what cairn's cleanup drops),
// on a context that an interruption does not cancel: a study leaves no schema of its own.
func (sc *studySchema) drop(ctx context.Context, st *study.Study, bus *event.Bus) error {
	if !sc.prepared {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	w := st.Spec.WorkloadOf().Info()
	lines, err := workload.Cleanup(ctx, st.Spec.DB, w.Footprint)
	for _, l := range lines {
		bus.Publish(ctx, event.Text{Line: "schema " + sc.level + ": " + l})
	}
	if err != nil {
		return fmt.Errorf("the %s schema the study prepared (%s) was not all dropped ('cairn %s cleanup --db URL' drops it): %w", w.Title, sc.level, w.Name, err)
	}
	sc.level, sc.prepared = "", false
	err = sc.entry.Done()
	sc.entry = nil
	return err
}

// studyHousekeeping reads the study's --after list and refuses, before anything changes on the
// server, what its database cannot do; nil when the list is empty.
func studyHousekeeping(ctx context.Context, st *study.Study, bus *event.Bus) (*housekeeping, error) {
	if st.Spec.After == "" {
		return nil, nil
	}
	t, err := target.Open(ctx, st.Spec.DB)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return newHousekeeping(st.Spec.After, t, st.Spec.WorkloadOf().Info().Footprint, bus)
}

// study does the tasks on the study's database, opened for them: a study's steps each open
// their own.
func (h *housekeeping) study(ctx context.Context, db, after string) ([]results.Housekeeping, error) {
	t, err := target.Open(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("housekeeping after %s: %w", after, err)
	}
	defer t.Close()
	return h.do(ctx, t, after)
}
