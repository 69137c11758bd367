package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/outfile"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/target"
)

// resultsPath is the --results flag (a persistent flag of the root), else the default.
func resultsPath(cmd *cobra.Command) string {
	if f := cmd.Flag("results"); f != nil && f.Value.String() != "" {
		return f.Value.String()
	}
	return results.DefaultStorePath()
}

// openStore opens (creating if needed) the store a run writes to; nil with --no-store.
func openStore(ctx context.Context, path string, noStore bool) (*results.Store, error) {
	if noStore {
		return nil, nil
	}
	return results.OpenStore(ctx, path)
}

// openForReading opens a store that must already exist, read-only: reading commands never create
// or write one, and need no write access.
func openForReading(ctx context.Context, path string) (*results.Store, error) {
	return results.OpenStoreReadOnly(ctx, path)
}

// openForWriting opens a store that must already exist, to change it.
func openForWriting(ctx context.Context, path string) (*results.Store, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, &results.StoreError{Msg: fmt.Sprintf("no results store at %s: runs and profiles create it (or give --results)", path)}
	}
	return results.OpenStore(ctx, path)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteBytes(path, append(b, '\n'))
}

func newResults(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "results",
		Short: "List, show, compare, export and remove stored runs and profiles",
		Long: `Every run and profile is recorded in a local SQLite store (see docs/results-store.md):
$CAIRN_RESULTS, else $XDG_DATA_HOME/cairn/results.db, else ~/.local/share/cairn/results.db;
--results PATH chooses another.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newResultsList(stdout), newResultsShow(stdout), newResultsCompare(stdout), newResultsExport(stdout), newResultsRm(stdout))
	return cmd
}

func newResultsList(stdout io.Writer) *cobra.Command {
	var f results.Filter
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
			path := resultsPath(cmd)
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				fmt.Fprintf(stdout, "no results stored yet (runs and profiles are stored in %s)\n", path)
				return nil
			}
			s, err := openForReading(cmd.Context(), path)
			if err != nil {
				return err
			}
			defer s.Close()
			es, err := s.List(cmd.Context(), f)
			if err != nil {
				return err
			}
			if len(es) == 0 {
				fmt.Fprintf(stdout, "no results match in %s\n", path)
				return nil
			}
			return summary.List(stdout, es)
		},
	}
	cmd.Flags().StringVar(&f.Workload, "workload", "", "only this workload (tpcc, …)")
	cmd.Flags().StringVar(&f.Target, "target", "", "only this target kind: sqlite, postgres, mysql, mariadb")
	cmd.Flags().IntVar(&f.Limit, "limit", 20, "at most this many (0 = all)")
	cmd.Flags().BoolVar(&f.Steps, "steps", false, "also list the runs that are steps of profiles")
	return cmd
}

// loaded is one stored result: a run, a profile or a study.
type loaded struct {
	id      string
	run     *results.Document
	profile *results.Profile
	study   *results.Study
}

func (l loaded) workload() string {
	switch {
	case l.run != nil:
		return l.run.Workload
	case l.study != nil:
		return l.study.Workload
	}
	return l.profile.Workload
}

func (l loaded) kind() string {
	switch {
	case l.run != nil:
		return results.KindRun
	case l.study != nil:
		return results.KindStudy
	}
	return results.KindProfile
}

func (l loaded) label() string {
	var t results.Target
	switch {
	case l.run != nil:
		t = l.run.Target
	case l.study != nil:
		t = l.study.Target
	default:
		t = l.profile.Target
	}
	return fmt.Sprintf("#%s %s %s", l.id, t.Name, t.Version)
}

func loadIDs(ctx context.Context, s *results.Store, ids []string) ([]loaded, error) {
	var out []loaded
	for _, id := range ids {
		r, err := s.Load(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, loaded{id: id, run: r.Run, profile: r.Profile, study: r.Study})
	}
	return out, nil
}

func newResultsShow(stdout io.Writer) *cobra.Command {
	var asSpec bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a stored run's summary or a profile's step table (--spec: the run spec it ran with)",
		Args:  exactIDs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openForReading(cmd.Context(), resultsPath(cmd))
			if err != nil {
				return err
			}
			defer s.Close()
			ls, err := loadIDs(cmd.Context(), s, args)
			if err != nil {
				return err
			}
			l := ls[0]
			if l.study != nil {
				if asSpec {
					return usagef("result %s is a study: its file is in its document's config ('cairn results export %s')", l.id, l.id)
				}
				fmt.Fprintf(stdout, "study %s, started %s\n", l.id, l.study.StartedAt.Format("2006-01-02 15:04:05 MST"))
				summary.Study(stdout, l.study)
				for _, d := range l.study.Runs() {
					fmt.Fprintf(stdout, "  run %d: %s, %s: result %s\n", d.Study.Step+1, l.study.Cases[d.Study.Case].Label, plural(d.VU, "VU"), d.ID)
				}
				summary.Conditions(stdout, l.study.Target, l.study.Host)
				return nil
			}
			if asSpec {
				config := l.profile.GetConfig()
				if l.run != nil {
					config = l.run.Config
				}
				sp, err := spec.FromConfig(config)
				if err != nil {
					return fmt.Errorf("result %s was stored without a run spec (by an older cairn?): %w", l.id, err)
				}
				_, err = stdout.Write(specText(sp))
				return err
			}
			if l.run != nil {
				fmt.Fprintf(stdout, "result %s, started %s\n", l.id, l.run.StartedAt.Format("2006-01-02 15:04:05 MST"))
				summary.Run(stdout, l.run, nil)
				summary.Conditions(stdout, l.run.Target, l.run.Host)
				return nil
			}
			fmt.Fprintf(stdout, "profile %s, started %s\n", l.id, l.profile.StartedAt.Format("2006-01-02 15:04:05 MST"))
			summary.Profile(stdout, l.profile)
			for _, st := range l.profile.Steps {
				for _, d := range st.Runs {
					fmt.Fprintf(stdout, "  step %s: result %s\n", plural(st.VU, "VU"), d.ID)
				}
			}
			summary.Conditions(stdout, l.profile.Target, l.profile.Host)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asSpec, "spec", false, "print the run spec the result ran with, as YAML ('cairn run --spec FILE' runs it again)")
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
	return &cobra.Command{
		Use:   "compare ID1 ID2 [ID…] | compare STUDY",
		Short: "Compare runs or profiles side by side, or a study's cases, with the % change of each figure against the first",
		Long: `Compare runs or profiles of one workload side by side; the first is the baseline.

An argument may be a comma-separated group of repeated runs (compare 3,4,5 6,7,8): the group's
figures are means, and a difference is called significant only when a two-sided Mann-Whitney U
test over the runs gives p < 0.05, as benchstat does. Profiles are matched step by step by VU count;
steps run with --repeat are tested the same way. One study id compares its cases, each against
the first listed level, per VU count, over its repeats. See docs/results-store.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("compare needs at least two ids (or groups like 3,4,5), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openForReading(cmd.Context(), resultsPath(cmd))
			if err != nil {
				return err
			}
			defer s.Close()
			if len(args) == 1 {
				ls, err := loadIDs(cmd.Context(), s, args)
				if err != nil {
					return err
				}
				if ls[0].study == nil {
					return usagef("compare needs at least two ids (or groups like 3,4,5), or one study's id; %s is a %s", args[0], ls[0].kind())
				}
				summary.Study(stdout, ls[0].study)
				return nil
			}
			var groups [][]loaded
			for _, a := range args {
				g, err := loadIDs(cmd.Context(), s, strings.Split(a, ","))
				if err != nil {
					return err
				}
				groups = append(groups, g)
			}
			first := groups[0][0]
			for _, g := range groups {
				for _, l := range g {
					if l.workload() != first.workload() {
						return usagef("result %s is %s %s and result %s %s %s: compare results of one workload",
							first.id, article(first.workload()), first.kind(), l.id, article(l.workload()), l.kind())
					}
					if l.study != nil {
						return usagef("result %s is a study: compare its cases with 'cairn results compare %s' alone", l.id, l.id)
					}
					if l.kind() != first.kind() {
						return usagef("result %s is a %s and result %s a %s: compare runs with runs, profiles with profiles",
							first.id, first.kind(), l.id, l.kind())
					}
					if l.profile != nil && len(g) > 1 {
						return usagef("%s: groups (ids joined by commas) are for repeated runs; a profile repeats its steps with --repeat",
							strings.Join(idsOf(g), ","))
					}
				}
			}
			sides := make([]summary.Group, len(groups))
			for i, g := range groups {
				sides[i] = summary.Group{Label: groupLabel(g), Profile: g[0].profile}
				for _, l := range g {
					sides[i].Runs = append(sides[i].Runs, l.run)
				}
			}
			if first.profile != nil {
				summary.CompareProfiles(stdout, sides)
				return nil
			}
			summary.CompareRuns(stdout, sides)
			return nil
		},
	}
}

func idsOf(g []loaded) []string {
	s := make([]string, len(g))
	for i, l := range g {
		s[i] = l.id
	}
	return s
}

func groupLabel(g []loaded) string {
	if len(g) == 1 {
		return g[0].label()
	}
	return "#" + strings.Join(idsOf(g), ",") + " (mean of " + strconv.Itoa(len(g)) + ")"
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
			s, err := openForReading(cmd.Context(), resultsPath(cmd))
			if err != nil {
				return err
			}
			defer s.Close()
			ls, err := loadIDs(cmd.Context(), s, args)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				return exportTo(stdout, ls[0], format, series)
			}
			if err := outfile.Write(out, func(w io.Writer) error { return exportTo(w, ls[0], format, series) }); err != nil {
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

// exportTo writes one stored result as JSON or CSV.
func exportTo(w io.Writer, l loaded, format string, series bool) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		switch {
		case l.run != nil:
			return enc.Encode(l.run)
		case l.study != nil:
			return enc.Encode(l.study)
		}
		return enc.Encode(l.profile)
	}
	if l.run != nil {
		return results.WriteRunCSV(w, l.id, l.run, series)
	}
	if l.study != nil {
		return results.WriteStudyCSV(w, l.id, l.study)
	}
	return results.WriteProfileCSV(w, l.id, l.profile)
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
