package summary

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/diagnosis"
	"github.com/cairn-bench/cairn/internal/results"
)

// shiftsShown is how many functions of each direction a comparison names.
const shiftsShown = 5

// FunctionShifts prints the server functions whose self share of the on-CPU samples changed
// most from the base runs to the other runs (what names the two sides, "B against A"): the
// ones that gained most, then the ones that lost most. Nothing when neither side recorded an
// on-CPU profile, one line when one side did not.
func FunctionShifts(w io.Writer, what, baseCol, otherCol string, base, other []*results.Document) {
	a, okA := diagnosis.SelfShares(base)
	b, okB := diagnosis.SelfShares(other)
	switch {
	case !okA && !okB:
		return
	case !okA || !okB:
		has := otherCol
		if okA {
			has = baseCol
		}
		fmt.Fprintf(w, "server functions, %s: an on-CPU profile was recorded for %s only (--observe stacks on both sides compares them)\n", what, has)
		return
	}
	gained, lost := diagnosis.FunctionShifts(a, b, shiftsShown)
	if len(gained)+len(lost) == 0 {
		fmt.Fprintf(w, "server functions, %s: no self share changed by 0.1 points or more\n", what)
		return
	}
	fmt.Fprintf(w, "server functions whose self share of the on-CPU samples changed most, %s:\n", what)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "  %s\t%s\tchange\t  function\n", baseCol, otherCol)
	for _, f := range append(gained, lost...) {
		fmt.Fprintf(tw, "  %.1f%%\t%.1f%%\t%+.1f pp\t  %s\n", f.Base, f.Other, f.Change(), f.Name)
	}
	tw.Flush()
}
