package summary

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// List prints stored results, one line each, as 'results list' shows them.
func List(w io.Writer, es []resultstore.Entry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tSTARTED (UTC)\tWORKLOAD\tTARGET\tVUS\tRESULT\tMAIN P95 MS\tWINDOW\t")
	for _, e := range es {
		kind := e.Kind
		if e.ProfileID != 0 {
			kind = "step of " + strconv.FormatInt(e.ProfileID, 10)
		}
		res := "-"
		if e.Headline != nil {
			res = Thousands(*e.Headline) + " " + e.HeadlineName
			if e.Kind == results.KindProfile {
				res = "peak " + res
			}
		}
		if e.Live {
			res = "per live segment: compare " + strconv.FormatInt(e.ID, 10)
		}
		if e.Interrupted {
			res += " (interrupted)"
		}
		marks := markLabels(e.NotAsPlanned)
		if len(marks) > 0 && e.Kind != results.KindRun {
			res += " (" + strings.Join(marks, ", ") + ")"
		}
		p95 := "-"
		if e.MainP95ms != nil && !e.Live {
			p95 = textfmt.Ms(*e.MainP95ms)
		}
		win := "-"
		if e.Kind == results.KindRun {
			win = fmt.Sprintf("%.0f s", e.WindowSeconds)
			// Not as planned (cut short of it by Ctrl-C or an error, an outage…): not comparable as it is.
			if len(marks) > 0 {
				win += ", " + strings.Join(marks, ", ")
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t\n", e.ID, kind, e.StartedAt.Format("2006-01-02 15:04:05"),
			e.Workload, e.TargetName, e.TargetVersion, e.VU, res, p95, win)
	}
	return tw.Flush()
}

// markLabels are a stored result's reasons for its mark, as lists show them: "cut short".
func markLabels(codes []string) []string {
	var out []string
	for _, c := range codes {
		out = append(out, strings.ToLower(results.Reason{Code: c}.Label()))
	}
	return out
}
