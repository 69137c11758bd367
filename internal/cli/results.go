package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/outfile"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// resultsPath is the --results flag (a persistent flag of the root), else the default.
func resultsPath(cmd *cobra.Command) string {
	if f := cmd.Flag("results"); f != nil && f.Value.String() != "" {
		return f.Value.String()
	}
	return resultstore.DefaultPath()
}

// openForWriting opens a store that must already exist, to change it.
func openForWriting(ctx context.Context, path string) (*resultstore.Store, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, &resultstore.Error{Msg: fmt.Sprintf("no results store at %s: runs and profiles create it (or give --results)", path)}
	}
	return resultstore.Open(ctx, path)
}

func newResults(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "results",
		Short: "List, show, compare, export and remove stored runs and profiles",
		Long: `Every run and profile is recorded in a local SQLite store (see docs/results-store.md):
$CAIRN_RESULTS, else $XDG_DATA_HOME/cairn/results.db, else ~/.local/share/cairn/results.db;
--results PATH chooses another.`,
		Args: cobra.ArbitraryArgs,
		RunE: group,
	}
	cmd.AddCommand(newResultsList(stdout), newResultsShow(stdout), newResultsCompare(stdout), newResultsExport(stdout), newResultsBundle(stdout), newResultsRm(stdout), newResultsMerge(stdout))
	return cmd
}

func newResultsList(stdout io.Writer) *cobra.Command {
	var f resultstore.Filter
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List stored runs and profiles, newest first",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, ok := target.DialectNamed(f.Target); f.Target != "" && !ok {
				names := target.Dialects()
				sort.Strings(names)
				return usagef("--target %q: use %s", f.Target, strings.Join(names, ", "))
			}
			if f.Limit < 0 {
				return usagef("--limit %d: must be 0 (all) or more", f.Limit)
			}
			var ue *workload.UnknownError
			if _, err := workload.Get(f.Workload); f.Workload != "" && errors.As(err, &ue) {
				return usagef("--workload %q: use %s", f.Workload, strings.Join(ue.Known, ", "))
			}
			path := resultsPath(cmd)
			es, stored, err := resultstore.ListAt(cmd.Context(), path, f)
			switch {
			case err != nil:
				return err
			case !stored:
				fmt.Fprintf(stdout, "no results stored yet (runs and profiles are stored in %s)\n", path)
			case len(es) == 0:
				fmt.Fprintf(stdout, "no results match in %s\n", path)
			default:
				return summary.List(stdout, es)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.Workload, "workload", "", "only this workload (tpcc, …)")
	cmd.Flags().StringVar(&f.Target, "target", "", "only this target kind: sqlite, postgres, mysql, mariadb")
	cmd.Flags().IntVar(&f.Limit, "limit", 20, "at most this many (0 = all)")
	cmd.Flags().BoolVar(&f.Steps, "steps", false, "also list the runs that are steps of profiles")
	return cmd
}

func newResultsShow(stdout io.Writer) *cobra.Command {
	var asSpec bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a stored run's summary or a profile's step table (--spec: the run spec or study file it ran with)",
		Args:  exactIDs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ls, err := resultstore.Read(cmd.Context(), resultsPath(cmd), args)
			if err != nil {
				return err
			}
			l := ls[0]
			if !asSpec {
				summary.Show(stdout, l)
				return nil
			}
			_, b, err := session.StoredSpec(l)
			if err != nil {
				return err
			}
			_, err = stdout.Write(b)
			return err
		},
	}
	cmd.Flags().BoolVar(&asSpec, "spec", false, "print the run spec the result ran with, as YAML ('cairn run --spec FILE' runs it again), or a study's file ('cairn study run FILE')")
	return cmd
}

// exactIDs accepts n positional ids (n = 0: one or more).
func exactIDs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if n > 0 && len(args) != n {
			return usagef("%s takes %d id, got %d (see 'cairn results list')", cmd.CommandPath(), n, len(args))
		}
		if n == 0 && len(args) == 0 {
			return usagef("%s needs at least one id (see 'cairn results list')", cmd.CommandPath())
		}
		return nil
	}
}

func newResultsCompare(stdout io.Writer) *cobra.Command {
	var failOn float64
	var gateBy string
	cmd := &cobra.Command{
		Use:   "compare ID1 ID2 [ID…] | compare STUDY [STUDY…]",
		Short: "Compare runs, profiles or studies side by side, or a study's cases, with the % change of each figure against the first",
		Long: `Compare runs or profiles of one workload side by side; the first is the baseline.

An argument may be a comma-separated group of repeated runs (compare 3,4,5 6,7,8): the group's
figures are means, and a difference is called significant only when a two-sided Mann-Whitney U
test over the runs gives p < 0.05, as benchstat does. Profiles are matched step by step by VU count;
steps run with --repeat are tested the same way. One study id compares its cases, each against
the first listed level, per VU count, over its repeats; several study ids of one design compare
the studies case by case. An argument ending in .json is a bundle's file ('cairn results
bundle'): its runs, one group. See docs/results-store.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("compare needs at least two ids (or groups like 3,4,5), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("gate-by") && !cmd.Flags().Changed("fail-on-regression") {
				return usagef("--gate-by chooses how --fail-on-regression judges a loss: give --fail-on-regression PCT with it")
			}
			if err := session.Compare(cmd.Context(), resultsPath(cmd), args, stdout); err != nil || !cmd.Flags().Changed("fail-on-regression") {
				return err
			}
			return summary.GateAt(cmd.Context(), resultsPath(cmd), args, failOn, gateBy, stdout)
		},
	}
	cmd.Flags().Float64Var(&failOn, "fail-on-regression", 0, "PCT: exit 1 when NEW's headline (any step's, for profiles) is worse than BASE's by more than PCT percent and significant over the repeats (docs/ci.md)")
	cmd.Flags().StringVar(&gateBy, "gate-by", summary.GateByTest, "how --fail-on-regression judges a loss: test (worse by more than PCT and Mann-Whitney p < 0.05) or interval (the 95% interval of the change lies wholly below -PCT; runs only; docs/ci.md)")
	return cmd
}

func newResultsExport(stdout io.Writer) *cobra.Command {
	var format, out string
	var series bool
	cmd := &cobra.Command{
		Use:   "export ID",
		Short: "Write a stored run or profile as JSON (the full document) or CSV",
		Long: `Write a stored result. --format json writes the full result document (a profile's includes
every step's run). --format csv writes, for a run, one row per transaction type (or with --series
the per-second time series), and for a profile one row per run of each step.`,
		Args: exactIDs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "json" && format != "csv" {
				return usagef("--format %q: use json or csv", format)
			}
			ls, err := resultstore.Read(cmd.Context(), resultsPath(cmd), args)
			if err != nil {
				return err
			}
			export := func(w io.Writer) error { return results.Export(w, ls[0], format == "csv", series) }
			if out == "" || out == "-" {
				return export(stdout)
			}
			if err := outfile.Write(out, export); err != nil {
				return fmt.Errorf("-o: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "json or csv")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	cmd.Flags().BoolVar(&series, "series", false, "csv of a run: the per-second time series instead of the per-transaction table")
	return cmd
}

func newResultsBundle(stdout io.Writer) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "bundle ID… -o FILE",
		Short: "Write stored runs into one file that says everything needed to understand and repeat them ('cairn run --bundle' runs them again)",
		Long: `Write one JSON document holding each run whole: the run spec it ran (passwords stay ${VAR}
references), cairn's version and commit, the database's version and every setting read, the
host's facts, the data's prepare record (its seed, sizes and the cairn that generated it), the
figures, series and histograms. 'cairn run --bundle FILE --db URL' runs them again. -o - writes
to standard output. See docs/results-store.md.`,
		Args: exactIDs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("results bundle needs -o FILE: the bundle's file (- for standard output)")
			}
			b, err := session.Bundle(cmd.Context(), resultsPath(cmd), Version, args)
			if err != nil {
				return err
			}
			write := func(w io.Writer) error { return results.WriteBundle(w, b) }
			if out == "-" {
				return write(stdout)
			}
			if err := outfile.Write(out, write); err != nil {
				return fmt.Errorf("-o: %w", err)
			}
			fmt.Fprintf(stdout, "wrote %s to %s ('cairn run --bundle %s --db URL' runs it again)\n", workload.Plural(len(b.Runs), "run"), out, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the bundle's file (- for standard output)")
	return cmd
}

func newResultsRm(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "rm ID",
		Short: "Remove a stored run, or a profile with all its steps",
		Args:  exactIDs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openForWriting(cmd.Context(), resultsPath(cmd))
			if err != nil {
				return err
			}
			defer s.Close()
			if err := s.Remove(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "removed result %s from %s\n", args[0], s.Path)
			return nil
		},
	}
}

func newResultsMerge(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "merge ID|FILE.json…",
		Short: "Make one run of the stored parts of a run measured by several load generators (--part I/N), and store it",
		Long: `Merge every part of one run (docs/scale.md): transactions summed, latency, service-time and
connection-wait histograms merged, the time series summed on one clock, the headline counted once by
the database over the parts' common window, each part's client CPU and memory kept.
An argument ending in .json is a part's document written with --json. A run with a part missing
is refused.`,
		Args: exactIDs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := resultstore.MergeAt(cmd.Context(), resultsPath(cmd), args)
			if err != nil {
				return err
			}
			summary.Show(stdout, results.Loaded{ID: d.ID, Run: d})
			return nil
		},
	}
}
