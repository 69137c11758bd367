package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/outfile"
	"github.com/cairn-bench/cairn/internal/report"
	"github.com/cairn-bench/cairn/internal/resultstore"
)

func newReport(stdout, stderr io.Writer) *cobra.Command {
	var out, pngDir string
	var diff []string
	cmd := &cobra.Command{
		Use:   "report ID [ID…]",
		Short: "Write an HTML report (and with --png, PNG charts) of stored runs or profiles",
		Long: `Write one self-contained HTML file that opens offline: the conditions of each result (target,
version, settings, host), its figures, and charts: throughput and latency over time, latency
distributions per transaction type, and for profiles throughput and p95/p99 against VUs. Several
ids are drawn overlaid. --png DIR writes the same charts as PNG files. See docs/reports.md.`,
		Args: exactIDs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" && pngDir == "" {
				out = "report.html"
			}
			ls, err := resultstore.Read(cmd.Context(), resultsPath(cmd), args)
			if err != nil {
				return err
			}
			items, err := report.Items(ls, diff)
			if err != nil {
				return err
			}
			if len(diff) > 0 {
				var err error
				switch {
				case ls[0].Study != nil:
					err = report.CheckDiff(ls[0].Study, diff)
				case len(ls) == 1 && ls[0].Run != nil && len(ls[0].Run.Segments) > 0:
					err = report.CheckRunDiff(ls[0].Run, diff)
				default:
					return usagef("--diff chooses what a study's, or a run's with live changes, differential flame graph compares: result %s is neither", ls[0].ID)
				}
				if err != nil {
					return err
				}
			}
			if out != "" {
				if err := writeReport(out, items, "cairn report: "+strings.Join(args, ", ")); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "report written to %s\n", out)
			}
			if pngDir != "" {
				files, err := report.PNG(pngDir, items)
				if err != nil {
					return fmt.Errorf("--png %s: %w", pngDir, err)
				}
				fmt.Fprintf(stdout, "%d charts written to %s\n", len(files), pngDir)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "HTML file to write (default report.html unless --png is given)")
	cmd.Flags().StringVar(&pngDir, "png", "", "also write each chart as a PNG file into this directory")
	cmd.Flags().StringSliceVar(&diff, "diff", nil, "X,Y: the differential flame graph of Y against X of a study, or of one run with live changes: two live segments by number (1,4), or a study's two cases by letter (A,C); default the first and last segment, or cases A and B")
	return cmd
}

// writeReport writes through path (a symlink's target, a device), never renamed over it; the page
// is rendered before the first byte is written, so a failed report leaves the file as it was.
func writeReport(path string, items []report.Item, title string) error {
	err := outfile.Write(path, func(w io.Writer) error { return report.HTML(w, items, title) })
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	return nil
}
