package job

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/sink"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Printer is the sink's subscriber that words its events as a terminal shows them: what a run
// measured on Out, what is under way on Err. The command line prints them; cairn serve keeps
// them as a job's log.
type Printer struct{ Out, Err io.Writer }

func (t Printer) Event(e sink.Event) {
	switch e.Kind {
	case sink.Begun, sink.Note:
		if s, st := e.Study, e.Plan; s != nil {
			fmt.Fprintf(t.Out, "study %s: %s on %s %s (%s), %s, order %s, seed %d\n", s.Name, s.Workload, s.Target.Name, s.Target.Version,
				target.Redact(st.Spec.DB), workload.Plural(len(st.Steps()), "run"), s.Order, st.Spec.Seed)
			return
		}
		fmt.Fprintln(t.Out, e.Line)
	case sink.StepBegun:
		what := workload.Plural(e.VU, "VU")
		if e.Case != "" {
			what = fmt.Sprintf("%s, %s, repeat %d/%d", e.Case, what, e.Repeat+1, e.Repeats)
		} else if e.Repeats > 1 {
			what += fmt.Sprintf(" (repeat %d/%d)", e.Repeat+1, e.Repeats)
		}
		fmt.Fprintf(t.Err, "run %d/%d: %s\n", e.I+1, e.N, what)
	case sink.StepDone:
		fmt.Fprintln(t.Out, summary.StepLine(e.Run))
	case sink.Applied:
		switch {
		case e.ReadBack == "":
			fmt.Fprintf(t.Out, "restored %s = %s\n", e.Name, e.Value)
		case e.Live:
			fmt.Fprintf(t.Out, "live: %s = %s (reads %s)\n", e.Name, e.Value, e.ReadBack)
		default:
			fmt.Fprintf(t.Out, "set %s = %s (reads %s)\n", e.Name, e.Value, e.ReadBack)
		}
	case sink.Summary:
		switch {
		case e.Run != nil:
			summary.Run(t.Out, e.Run, e.Spec)
		case e.Profile != nil:
			summary.Profile(t.Out, e.Profile)
		case e.Study != nil:
			summary.Study(t.Out, e.Study)
		}
	case sink.Stored:
		fmt.Fprintf(t.Out, "stored as %s %s in %s\n", DocWord[e.What], e.ID, e.Path)
	case sink.NotStored:
		fmt.Fprintln(t.Out, "the study measured nothing: it is not stored")
	case sink.Written:
		fmt.Fprintf(t.Out, "%s document written to %s\n", DocWord[e.What], e.Path)
	case sink.Interrupted:
		fmt.Fprintf(t.Err, "cairn: interrupted before the %s started\n", e.What)
	}
}

// DocWord is what a stored document is called: a run's is its result.
var DocWord = map[string]string{results.KindRun: "result", results.KindProfile: "profile", results.KindStudy: "study"}

// Compare writes what 'cairn results compare' prints of args: ids, groups of ids joined by
// commas, or one study's id.
func Compare(ctx context.Context, store string, args []string, w io.Writer) error {
	ids := [][]string{{args[0]}} // one argument is one study, not a group
	if len(args) > 1 {
		ids = nil
		for _, a := range args {
			ids = append(ids, strings.Split(a, ","))
		}
	}
	groups, err := resultstore.ReadGroups(ctx, store, ids, true)
	if err != nil {
		return mismatch(err)
	}
	summary.Compare(w, groups)
	return nil
}

// mismatch words why results cannot be compared.
func mismatch(err error) error {
	var me *resultstore.MismatchError
	if !errors.As(err, &me) {
		return err
	}
	a, b := me.First, me.Other
	switch me.Why {
	case resultstore.NotAStudy:
		return inputf("compare needs at least two ids (or groups like 3,4,5), or one study's id; %s is a %s", a.ID, a.Kind())
	case resultstore.OtherWorkload:
		return inputf("result %s is %s %s and result %s %s %s: compare results of one workload",
			a.ID, Article(a.Workload()), a.Kind(), b.ID, Article(b.Workload()), b.Kind())
	case resultstore.StudyAmong:
		return inputf("result %s is a study: compare its cases with 'cairn results compare %s' alone, or it with studies of its design", b.ID, b.ID)
	case resultstore.OtherKind:
		return inputf("result %s is a %s and result %s a %s: compare runs with runs, profiles with profiles", a.ID, a.Kind(), b.ID, b.Kind())
	}
	return inputf("%s: groups (ids joined by commas) are for repeated runs; a profile repeats its steps with --repeat",
		strings.Join(summary.IDs(me.Group), ","))
}

// Article puts "a" or "an" before a word: "an oltp run", "a tpcc run".
func Article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}
