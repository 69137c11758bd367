package summary

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/diagnosis"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Show prints a stored result: a run's summary, a profile's step table, a study's cases, each
// with the ids of its runs and the conditions it was measured under.
func Show(w io.Writer, l results.Loaded) {
	const when = "2006-01-02 15:04:05 MST"
	switch {
	case l.Study != nil:
		fmt.Fprintf(w, "study %s, started %s\n", l.ID, l.Study.StartedAt.Format(when))
		Study(w, l.Study)
		for _, d := range l.Study.Runs() {
			fmt.Fprintf(w, "  run %d: %s, %s: result %s\n", d.Study.Step+1, l.Study.Cases[d.Study.Case].Label, textfmt.Plural(d.VU, "VU"), d.ID)
			fmt.Fprintln(w, "    "+diagnosis.Diagnosis(d, nil))
		}
	case l.Run != nil:
		fmt.Fprintf(w, "result %s, started %s\n", l.ID, l.Run.StartedAt.Format(when))
		Run(w, l.Run, nil)
	default:
		fmt.Fprintf(w, "profile %s, started %s\n", l.ID, l.Profile.StartedAt.Format(when))
		Profile(w, l.Profile)
		for _, st := range l.Profile.Steps {
			for _, d := range st.Runs {
				fmt.Fprintf(w, "  step %s: result %s\n", textfmt.Plural(st.VU, "VU"), d.ID)
			}
		}
	}
	switch {
	case l.Run != nil:
		Conditions(w, l.On(), l.Run.Host)
	case l.Study != nil:
		Conditions(w, l.On(), l.Study.Host)
	default:
		Conditions(w, l.On(), l.Profile.Host)
	}
}

// Compare prints groups of stored results side by side (store.Store.LoadGroups loads them):
// a study alone compares its cases, studies of one design each other; otherwise runs or profiles,
// the first group the baseline.
func Compare(w io.Writer, groups [][]results.Loaded) {
	if len(groups) > 1 && groups[0][0].Study != nil {
		var ls []results.Loaded
		for _, g := range groups {
			ls = append(ls, g[0])
		}
		Studies(w, ls)
		return
	}
	if first := groups[0][0]; first.Study != nil {
		// Study prints each case's and segment's evidence, with what shifted against the first.
		Study(w, first.Study)
		fmt.Fprintln(w)
		for _, d := range first.Study.Runs() {
			fmt.Fprintf(w, "%s, %s\n", first.Study.Cases[d.Study.Case].Label, diagnosis.Diagnosis(d, nil))
		}
		return
	}
	sides := make([]Group, len(groups))
	for i, g := range groups {
		sides[i] = Group{Label: groupLabel(g), Profile: g[0].Profile}
		for _, l := range g {
			sides[i].Runs = append(sides[i].Runs, l.Run)
		}
	}
	if groups[0][0].Profile != nil {
		CompareProfiles(w, sides)
	} else {
		CompareRuns(w, sides)
	}
	fmt.Fprintln(w)
	for i := 1; i < len(sides); i++ {
		if sides[0].Profile != nil {
			profileShifts(w, sides[0].Profile, sides[i].Profile, fmt.Sprintf("%c against A", 'A'+i), "A", string(rune('A'+i)))
			continue
		}
		FunctionShifts(w, fmt.Sprintf("%c against A", 'A'+i), "A", string(rune('A'+i)), sides[0].Runs, sides[i].Runs)
	}
	// Each side's evidence, so that a difference in the figures comes with its cause.
	fmt.Fprintln(w)
	for _, g := range sides {
		fmt.Fprintln(w, g.Label+":")
		if g.Profile != nil {
			StepDiagnoses(w, g.Profile, "  ")
			continue
		}
		for _, d := range g.Runs {
			fmt.Fprintln(w, "  "+diagnosis.Diagnosis(d, nil))
		}
	}
}

// IDs are the ids of a group, as given.
func IDs(g []results.Loaded) []string {
	s := make([]string, len(g))
	for i, l := range g {
		s[i] = l.ID
	}
	return s
}

func groupLabel(g []results.Loaded) string {
	if len(g) == 1 {
		t := g[0].On()
		return fmt.Sprintf("#%s %s %s", g[0].ID, t.Name, t.Version)
	}
	return "#" + strings.Join(IDs(g), ",") + " (mean of " + strconv.Itoa(len(g)) + ")"
}

// profileShifts prints the function shifts of each VU count two profiles both ran.
func profileShifts(w io.Writer, base, other *results.Profile, what, baseCol, otherCol string) {
	for _, st := range other.Steps {
		if b := base.StepAt(st.VU); b != nil {
			FunctionShifts(w, fmt.Sprintf("%s at %s", what, textfmt.Plural(st.VU, "VU")), baseCol, otherCol, b.Runs, st.Runs)
		}
	}
}
