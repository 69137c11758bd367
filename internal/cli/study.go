package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/target"
)

func newStudy(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "study",
		Short: "Run a tuning experiment from one file: settings swept or changed live, across VU counts, repeated and restored",
		Long: `A study file (YAML, docs/studies.md) is a run spec with the factors it varies: server settings
(every combination of the listed values), VU counts, client and server CPU lists, workload options
and the schema (a list under options or prepare: each schema prepared in turn); how often and in
what order its runs go; and settings changed live at set times inside each run's window.

  cairn study plan studies/spin-wait-delay-live.yaml     # checks it against the server, changes nothing
  cairn study run  studies/spin-wait-delay-live.yaml --set duration=30s --set repeat=1
  cairn study restore --db URL                           # puts settings back after a crash
  cairn results compare STUDY ; cairn report STUDY -o study.html

Settings are put back as found at the end, on an error and on Ctrl-C; after a crash the journal
keeps them for 'cairn study restore', and no study starts on that server until it has run. A study
whose schema is a factor starts on a database without the workload's schema and drops each schema
it prepared (at the end, on an error and on Ctrl-C; after a crash: 'cairn WORKLOAD cleanup').`,
		Args: cobra.ArbitraryArgs,
		RunE: group,
	}
	cmd.AddCommand(newStudyPlan(stdout), newStudyRun(stdout, stderr), newStudyRestore(stdout))
	return cmd
}

// readStudy reads a study file and applies --set.
func readStudy(file string, sets []string) (*study.Study, error) {
	st, err := study.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if err := applySets(sets, st.Set, "duration=30s or repeat=1"); err != nil {
		return nil, err
	}
	return st, nil
}

func oneFile(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("%s takes one study file, got %d (see --help)", cmd.CommandPath(), len(args))
	}
	return nil
}

func newStudyPlan(stdout io.Writer) *cobra.Command {
	var sets []string
	cmd := &cobra.Command{
		Use:   "plan FILE [--set PATH=VALUE]…",
		Short: "Check a study against its server and print its steps and how long it takes; change nothing",
		Args:  oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := readStudy(args[0], sets)
			if err != nil {
				return err
			}
			return session.Plan(cmd.Context(), st, stdout)
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "change a key of the study: PATH=VALUE (repeatable)")
	return cmd
}

func newStudyRun(stdout, stderr io.Writer) *cobra.Command {
	var sets []string
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run FILE [--set PATH=VALUE]… [--json FILE]",
		Short: "Run a study: every case at every VU count, repeated, in its order; settings restored at the end",
		Args:  oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := readStudy(args[0], sets)
			if err != nil {
				return err
			}
			return session.Study(cmd.Context(), st, jobOptions(resultsPath(cmd), f, stdout, stderr))
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&sets, "set", nil, "change a key of the study: PATH=VALUE (repeatable)")
	fs.StringVar(&f.json, "json", "", "write the study document to this file")
	fs.BoolVar(&f.noStore, "no-store", false, "do not record the study in the results store")
	return cmd
}

func newStudyRestore(stdout io.Writer) *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "restore --db URL",
		Short: "Put back the settings a study that crashed or was killed left changed on this server, and drop the schema it prepared",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if db == "" {
				return usagef("cairn study restore needs --db URL: the server whose settings to put back (with its password)")
			}
			where, err := session.Reachable(cmd.Context(), db)
			if err != nil {
				return err
			}
			pending, err := session.PendingStudyChanges(where, db)
			if err != nil {
				return err
			}
			if len(pending) == 0 {
				fmt.Fprintf(stdout, "nothing to restore: no study left settings changed or a schema on %s\n", where)
				return nil
			}
			study.Restore(cmd.Context(), pending, db, "cairn study restore", false, func(r study.Restored) bool {
				switch {
				case r.Running:
					err = failed{fmt.Sprintf("%s: the study (cairn pid %d) still runs and restores them itself", r.What, r.PID)}
				case r.Err != nil:
					err = fmt.Errorf("%s: %w", r.What, r.Err)
				case r.MarkErr != nil:
					restoredLine(stdout, r)
					err = failed{r.MarkErr.Error()}
				default:
					restoredLine(stdout, r)
				}
				return err == nil
			})
			return err
		},
	}
	cmd.Flags().Var(target.DBList{P: &db}, "db", "the server's URL, with its password (a shard set's: every server)")
	connectFlag(cmd)
	return cmd
}

// restoredLine says that a change is undone, and the stored study it marked restored.
func restoredLine(w io.Writer, r study.Restored) {
	fmt.Fprintf(w, "restored: %s (changed %s by cairn pid %d)\n", r.What, r.Made.Format("2006-01-02 15:04:05 MST"), r.PID)
	if r.Study != "" {
		fmt.Fprintf(w, "study %s marked restored (read back equal) in its results store\n", r.Study)
	}
}
