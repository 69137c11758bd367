package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Printer is the subscriber that shows a session's events as a terminal shows them: what was
// measured on Out, what is under way on Err. The command line prints them; cairn serve keeps
// the same words as a job's log (Words).
type Printer struct{ Out, Err io.Writer }

func (t Printer) Handle(_ context.Context, e event.Event) error {
	text, toErr := Words(e)
	if text == "" {
		return nil
	}
	w := t.Out
	if toErr {
		w = t.Err
	}
	_, err := io.WriteString(w, text)
	return err
}

// Words is what a terminal shows of e, its lines each ended, and whether it goes to stderr
// (what is under way) rather than stdout (what was done); "" for nothing.
func Words(e event.Event) (text string, toErr bool) {
	var b strings.Builder
	switch e := e.(type) {
	case event.Begun:
		fmt.Fprintln(&b, e.Line)
	case event.Note:
		fmt.Fprintln(&b, e.Line)
	case event.Text:
		fmt.Fprintln(&b, e.Line)
		toErr = e.Err
	case event.Progress:
		if e.Line != "" { // a workload's own tests tell their progress by their timings
			fmt.Fprintln(&b, e.Line)
		}
		toErr = true
	case event.QueryDone:
		tm := e.Timing
		status := workload.Plural(tm.Rows, "row")
		if tm.Error != "" {
			status = "ERROR " + firstLine(tm.Error)
		}
		fmt.Fprintf(&b, "  %-9s %-4s %9.3f s  %s\n", e.Who, tm.Name, tm.Seconds, status)
	case event.StepBegun:
		what := workload.Plural(e.VU, "VU")
		if e.Rate > 0 {
			what = fmt.Sprintf("rate %s/s, %s", summary.Thousands(e.Rate), what)
		}
		if e.Case != "" {
			what = fmt.Sprintf("%s, %s, repeat %d/%d", e.Case, what, e.Repeat+1, e.Repeats)
		} else if e.Repeats > 1 {
			what += fmt.Sprintf(" (repeat %d/%d)", e.Repeat+1, e.Repeats)
		}
		fmt.Fprintf(&b, "run %d/%d: %s\n", e.I+1, e.N, what)
		toErr = true
	case event.StepDone:
		fmt.Fprintln(&b, summary.StepLine(e.Run))
	case event.Applied:
		switch {
		case e.ReadBack == "":
			fmt.Fprintf(&b, "restored %s = %s\n", e.Name, e.Value)
		case e.Live:
			fmt.Fprintf(&b, "live: %s = %s (reads %s)\n", e.Name, e.Value, e.ReadBack)
		default:
			fmt.Fprintf(&b, "set %s = %s (reads %s)\n", e.Name, e.Value, e.ReadBack)
		}
	case event.Summary:
		switch {
		case e.Run != nil:
			sp, _ := e.Spec.(*spec.Spec)
			summary.Run(&b, e.Run, sp)
		case e.Profile != nil && len(e.Profile.Steps) > 0:
			summary.Profile(&b, e.Profile)
		case e.Study != nil:
			summary.Study(&b, e.Study)
		}
	case event.Stored:
		fmt.Fprintf(&b, "stored as %s %s in %s\n", DocWord[e.What], e.ID, e.Path)
	case event.NotStored:
		fmt.Fprintln(&b, "the study measured nothing: it is not stored")
	case event.Written:
		fmt.Fprintf(&b, "%s document written to %s\n", DocWord[e.What], e.Path)
	case event.Interrupted:
		fmt.Fprintf(&b, "cairn: interrupted before the %s started\n", e.What)
		toErr = true
	}
	return b.String(), toErr
}

// firstLine is an error's first line, as a progress line shows it.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
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
	// A bundle's file stands for its runs, one group; the other arguments are the store's.
	groups := make([][]results.Loaded, len(ids))
	var stored [][]string
	var at []int
	for i, g := range ids {
		if len(g) == 1 && strings.HasSuffix(g[0], ".json") {
			ls, err := bundled(g[0])
			if err != nil {
				return err
			}
			groups[i] = ls
			continue
		}
		stored, at = append(stored, g), append(at, i)
	}
	if len(stored) > 0 {
		gs, err := resultstore.ReadGroups(ctx, store, stored, false)
		if err != nil {
			return err
		}
		for k, g := range gs {
			groups[at[k]] = g
		}
	}
	if err := resultstore.Comparable(groups); err != nil {
		return mismatch(err)
	}
	summary.Compare(w, groups)
	return nil
}

// bundled are a bundle's runs as compare takes them, each named FILE:ID (its id where it was
// stored).
func bundled(file string) ([]results.Loaded, error) {
	b, err := readBundle(file)
	if err != nil {
		return nil, err
	}
	out := make([]results.Loaded, len(b.Runs))
	for i, r := range b.Runs {
		out[i] = results.Loaded{ID: file + ":" + r.ID, Run: r.Run}
	}
	return out, nil
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
