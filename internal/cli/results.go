package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/results"
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
	return os.WriteFile(path, append(b, '\n'), 0o644)
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
			if f.Target != "" && !map[string]bool{"sqlite": true, "postgres": true, "mysql": true, "mariadb": true}[f.Target] {
				return target.Usagef("--target %q: use sqlite, postgres, mysql or mariadb", f.Target)
			}
			if f.Limit < 0 {
				return target.Usagef("--limit %d: must be 0 (all) or more", f.Limit)
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
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tSTARTED (UTC)\tWORKLOAD\tTARGET\tVUS\tRESULT\tMAIN P95 MS\tWINDOW\t")
			for _, e := range es {
				kind := e.Kind
				if e.ProfileID != 0 {
					kind = "step of " + strconv.FormatInt(e.ProfileID, 10)
				}
				res := "-"
				if e.Headline != nil {
					res = thousands(*e.Headline) + " " + e.HeadlineName
					if e.Kind == results.KindProfile {
						res = "peak " + res
					}
				}
				if e.Interrupted {
					res += " (interrupted)"
				}
				p95 := "-"
				if e.MainP95ms != nil {
					p95 = ms(*e.MainP95ms)
				}
				win := "-"
				if e.Kind == results.KindRun {
					win = fmt.Sprintf("%.0f s", e.WindowSeconds)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t\n", e.ID, kind, e.StartedAt.Format("2006-01-02 15:04:05"),
					e.Workload, e.TargetName, e.TargetVersion, e.VU, res, p95, win)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&f.Workload, "workload", "", "only this workload (tpcc, …)")
	cmd.Flags().StringVar(&f.Target, "target", "", "only this target kind: sqlite, postgres, mysql, mariadb")
	cmd.Flags().IntVar(&f.Limit, "limit", 20, "at most this many (0 = all)")
	cmd.Flags().BoolVar(&f.Steps, "steps", false, "also list the runs that are steps of profiles")
	return cmd
}

// loaded is one stored result: a run or a profile.
type loaded struct {
	id      string
	run     *results.Document
	profile *results.Profile
}

func (l loaded) workload() string {
	if l.run != nil {
		return l.run.Workload
	}
	return l.profile.Workload
}

func (l loaded) kind() string {
	if l.run != nil {
		return results.KindRun
	}
	return results.KindProfile
}

func (l loaded) label() string {
	var t results.Target
	if l.run != nil {
		t = l.run.Target
	} else {
		t = l.profile.Target
	}
	return fmt.Sprintf("#%s %s %s", l.id, t.Name, t.Version)
}

func loadIDs(ctx context.Context, s *results.Store, ids []string) ([]loaded, error) {
	var out []loaded
	for _, id := range ids {
		d, p, err := s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, loaded{id: id, run: d, profile: p})
	}
	return out, nil
}

func newResultsShow(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Print a stored run's summary or a profile's step table",
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
			if l.run != nil {
				fmt.Fprintf(stdout, "result %s, started %s\n", l.id, l.run.StartedAt.Format("2006-01-02 15:04:05 MST"))
				printSummary(stdout, l.run)
				printConditions(stdout, l.run.Target, l.run.Host)
				return nil
			}
			fmt.Fprintf(stdout, "profile %s, started %s\n", l.id, l.profile.StartedAt.Format("2006-01-02 15:04:05 MST"))
			printProfile(stdout, l.profile)
			for _, st := range l.profile.Steps {
				for _, d := range st.Runs {
					fmt.Fprintf(stdout, "  step %s: result %s\n", plural(st.VU, "VU"), d.ID)
				}
			}
			printConditions(stdout, l.profile.Target, l.profile.Host)
			return nil
		},
	}
}

func printConditions(w io.Writer, t results.Target, h *results.Host) {
	fmt.Fprintf(w, "\ntarget: %s %s at %s\n", t.Name, t.Version, t.Address)
	if len(t.Settings) > 0 {
		keys := make([]string, 0, len(t.Settings))
		for k := range t.Settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + t.Settings[k]
		}
		fmt.Fprintf(w, "settings: %s\n", strings.Join(parts, " "))
	}
	if h != nil {
		fmt.Fprintf(w, "host: %s · %s · %d cores / %d threads · %d MiB · %s · %s", h.Hostname, h.CPUModel, h.Cores, h.Threads, h.MemoryMiB, h.Kernel, h.OS)
		if h.Governor != "" {
			fmt.Fprintf(w, " · governor %s", h.Governor)
		}
		fmt.Fprintln(w)
	}
}

// exactIDs accepts n positional ids (n = 0: one or more).
func exactIDs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if n > 0 && len(args) != n {
			return target.Usagef("%s takes %d id, got %d (see 'cairn results list')", cmd.CommandPath(), n, len(args))
		}
		if n == 0 && len(args) == 0 {
			return target.Usagef("%s needs at least one id (see 'cairn results list')", cmd.CommandPath())
		}
		return nil
	}
}

func newResultsCompare(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "compare ID1 ID2 [ID…]",
		Short: "Compare runs or profiles side by side, with the % change of each figure against the first",
		Long: `Compare runs or profiles of one workload side by side; the first is the baseline.

An argument may be a comma-separated group of repeated runs (compare 3,4,5 6,7,8): the group's
figures are means, and a difference is called significant only when a two-sided Mann-Whitney U
test over the runs gives p < 0.05, as benchstat does. Profiles are matched step by step by VU count;
steps run with --repeat are tested the same way. See docs/results-store.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return target.Usagef("compare needs at least two ids (or groups like 3,4,5), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openForReading(cmd.Context(), resultsPath(cmd))
			if err != nil {
				return err
			}
			defer s.Close()
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
						return target.Usagef("result %s is %s %s and result %s %s %s: compare results of one workload",
							first.id, article(first.workload()), first.kind(), l.id, article(l.workload()), l.kind())
					}
					if l.kind() != first.kind() {
						return target.Usagef("result %s is a %s and result %s a %s: compare runs with runs, profiles with profiles",
							first.id, first.kind(), l.id, l.kind())
					}
					if l.profile != nil && len(g) > 1 {
						return target.Usagef("%s: groups (ids joined by commas) are for repeated runs; a profile repeats its steps with --repeat",
							strings.Join(idsOf(g), ","))
					}
				}
			}
			if first.profile != nil {
				printCompareProfiles(stdout, groups)
				return nil
			}
			printCompareRuns(stdout, groups)
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

func printCompareRuns(w io.Writer, groups [][]loaded) {
	docs := make([][]*results.Document, len(groups))
	for i, g := range groups {
		for _, l := range g {
			docs[i] = append(docs[i], l.run)
		}
	}
	base := docs[0][0]
	headline, _, _ := base.Headline()
	if headline == "" {
		headline = "NOPM"
	}
	for i, g := range groups {
		fmt.Fprintf(w, "%c: %s\n", 'A'+i, groupLabel(g))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "figure\tA\t")
	for i := 1; i < len(groups); i++ {
		fmt.Fprintf(tw, "%c\tvs A\t", 'A'+i)
	}
	fmt.Fprintln(tw)
	anyP, anySingle, few := false, false, false
	for _, f := range results.RunFigures(headline, base.MainTxn, base.TxnOrder) {
		a := f.Values(docs[0])
		fmt.Fprintf(tw, "%s\t%s\t", f.Name, figureText(f.Name, results.NewStat(a)))
		for i := 1; i < len(groups); i++ {
			d := results.Compare(a, f.Values(docs[i]))
			fmt.Fprintf(tw, "%s\t%s\t", figureText(f.Name, d.Other), deltaText(d))
			if d.P >= 0 {
				anyP = true
				few = few || min(d.Base.N, d.Other.N) < 4
			} else {
				anySingle = true
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w)
	if anyP {
		fmt.Fprintf(w, "p: two-sided Mann-Whitney U test over the runs; '~' marks a difference within the run-to-run spread (p ≥ %.2f)\n", results.Alpha)
	}
	if few {
		fmt.Fprintln(w, "with fewer than 4 runs a side the test cannot reach p < 0.05 however large the difference: repeat more to decide")
	}
	if anySingle {
		fmt.Fprintln(w, "single runs have no spread to judge a difference against: compare groups of repeated runs (compare 1,2,3 4,5,6) to test it")
	}
}

func printCompareProfiles(w io.Writer, groups [][]loaded) {
	base := groups[0][0].profile
	name := base.Headline
	if name == "" {
		name = "NOPM"
	}
	for i, g := range groups {
		fmt.Fprintf(w, "%c: profile %s\n", 'A'+i, groupLabel(g))
	}
	for i := 1; i < len(groups); i++ {
		other := groups[i][0].profile
		steps, gm, gmP := results.CompareProfiles(base, other)
		fmt.Fprintf(w, "\n%c vs A, steps matched by VU count:\n", 'A'+i)
		if len(steps) == 0 {
			fmt.Fprintln(w, "  no VU count appears in both profiles")
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "VUs\t%s A\t%s %c\tchange\t%s p95 A\tp95 %c\tchange\t\n", name, name, 'A'+i, base.MainTxn, 'A'+i)
		for _, st := range steps {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", st.VU, statText(st.Headline.Base), statText(st.Headline.Other), deltaText(st.Headline),
				statMs(st.P95.Base), statMs(st.P95.Other), deltaText(st.P95))
		}
		tw.Flush()
		fmt.Fprintf(w, "overall (geometric mean over %d matched steps): %s %+.1f%%, p95 %+.1f%%\n", len(steps), name, 100*(gm-1), 100*(gmP-1))
		var unmatched []string
		for _, st := range other.Steps {
			if base.StepAt(st.VU) == nil {
				unmatched = append(unmatched, strconv.Itoa(st.VU))
			}
		}
		for _, st := range base.Steps {
			if other.StepAt(st.VU) == nil {
				unmatched = append(unmatched, strconv.Itoa(st.VU))
			}
		}
		if len(unmatched) > 0 {
			fmt.Fprintf(w, "steps in only one profile (not compared): %s VUs\n", strings.Join(unmatched, ", "))
		}
	}
	if base.Repeat < 2 {
		fmt.Fprintln(w, "\nsteps of single runs have no spread to judge a difference against: profile with --repeat 3 or more to test it")
	} else {
		fmt.Fprintf(w, "\n'~' marks a step difference within the run-to-run spread (two-sided Mann-Whitney U test, p ≥ %.2f)\n", results.Alpha)
		if base.Repeat < 4 {
			fmt.Fprintln(w, "with fewer than 4 runs a step the test cannot reach p < 0.05 however large the difference: repeat more to decide")
		}
	}
}

func figureText(name string, s results.Stat) string {
	if s.N == 0 {
		return "-"
	}
	if strings.HasSuffix(name, " ms") {
		t := ms(s.Mean)
		if s.N > 1 && s.Mean != 0 {
			t += fmt.Sprintf(" ±%.1f%%", 100*s.SD/s.Mean)
		}
		return t
	}
	if strings.Contains(name, "CPU") {
		return fmt.Sprintf("%.1f", s.Mean)
	}
	return statText(s)
}

func deltaText(d results.Delta) string {
	if d.Base.N == 0 || d.Other.N == 0 {
		return "-"
	}
	if d.Base.Mean == 0 {
		if d.Other.Mean == 0 {
			return "0"
		}
		return "new"
	}
	t := fmt.Sprintf("%+.1f%%", 100*d.Change)
	if d.P >= 0 {
		if !d.Significant() {
			return fmt.Sprintf("%s ~ (p=%.2f)", t, d.P)
		}
		t += fmt.Sprintf(" (p=%.3f)", d.P)
	}
	return t
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
				return target.Usagef("--format %q: use json or csv", format)
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
			w := stdout
			if out != "" && out != "-" {
				f, err := os.Create(out)
				if err != nil {
					return target.Usagef("-o %s: %v", out, err)
				}
				defer f.Close()
				w = f
			}
			l := ls[0]
			if format == "json" {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if l.run != nil {
					return enc.Encode(l.run)
				}
				return enc.Encode(l.profile)
			}
			cw := csv.NewWriter(w)
			switch {
			case l.run != nil && series:
				writeSeriesCSV(cw, l.run)
			case l.run != nil:
				cw.Write([]string{"id", "transaction", "count", "per_minute", "mix_percent", "rollbacks", "errors", "retries",
					"mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms"})
				for _, n := range l.run.TxnOrder {
					t := l.run.Txns[n]
					c := t.LatencyMs
					cw.Write(append([]string{l.id, n, i64(t.Count), f64(t.PerMinute), f64(t.Percentage), i64(t.Rollbacks), i64(t.Errors), i64(t.Retries)},
						f64(c.Mean), f64(c.P50), f64(c.P90), f64(c.P95), f64(c.P99), f64(c.P999), f64(c.Max)))
				}
			default:
				p := l.profile
				cw.Write([]string{"profile_id", "vu", "run_id", "repeat", strings.ToLower(p.Headline), "tpm", "main_p50_ms", "main_p95_ms",
					"main_p99_ms", "errors", "client_cpu_us_per_txn", "window_seconds", "interrupted"})
				for _, st := range p.Steps {
					for r, d := range st.Runs {
						_, h, _ := d.Headline()
						var tpm string
						if d.Result.TPM != nil {
							tpm = i64(*d.Result.TPM)
						}
						var p50, p95, p99 string
						if m := d.Main(); m != nil {
							p50, p95, p99 = f64(m.LatencyMs.P50), f64(m.LatencyMs.P95), f64(m.LatencyMs.P99)
						}
						cw.Write([]string{l.id, strconv.Itoa(st.VU), d.ID, strconv.Itoa(r + 1), f64(h), tpm, p50, p95, p99,
							i64(d.TotalErrors()), f64(d.Client.CPUusPerTxn), f64(d.Window.Seconds), strconv.FormatBool(d.Interrupted)})
					}
				}
			}
			cw.Flush()
			return cw.Error()
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "json or csv")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	cmd.Flags().BoolVar(&series, "series", false, "csv of a run: the per-second time series instead of the per-transaction table")
	return cmd
}

func writeSeriesCSV(cw *csv.Writer, d *results.Document) {
	cw.Write([]string{"t_seconds", "in_window", "txns", "headline_txns", "errors", "p95_ms"})
	for _, s := range d.Series {
		cw.Write([]string{f64(s.T), strconv.FormatBool(s.Window), i64(s.Txns), i64(s.Headline), i64(s.Errors), f64(s.P95ms)})
	}
}

func i64(v int64) string   { return strconv.FormatInt(v, 10) }
func f64(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

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
