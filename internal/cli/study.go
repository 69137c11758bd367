package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
	"github.com/cairn-bench/cairn/internal/workload"
)

func newStudy(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "study",
		Short: "Run a tuning experiment from one file: settings swept or changed live, across VU counts, repeated and restored",
		Long: `A study file (YAML, docs/studies.md) is a run spec with the factors it varies: server settings
(every combination of the listed values), VU counts, client and server CPU lists; how often and in
what order its runs go; and settings changed live at set times inside each run's window.

  cairn study plan studies/spin-wait-delay-live.yaml     # checks it against the server, changes nothing
  cairn study run  studies/spin-wait-delay-live.yaml --set duration=30s --set repeat=1
  cairn study restore --db URL                           # puts settings back after a crash
  cairn results compare STUDY ; cairn report STUDY -o study.html

Settings are put back as found at the end, on an error and on Ctrl-C; after a crash the journal
keeps them for 'cairn study restore', and no study starts on that server until it has run.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return cmd.Help()
		},
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

// reachable opens a study's target; a server it cannot reach is the user's to fix before a
// study, which changes nothing until it can.
func reachable(ctx context.Context, db string) (target.Target, error) {
	t, err := target.Open(ctx, db)
	var ce *target.ConnectError
	if errors.As(err, &ce) {
		return nil, &usageError{err.Error()}
	}
	return t, err
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
			// Opening an SQLite file creates it: plan leaves no file it did not find.
			if u, err := target.ParseURL(st.Spec.DB); err == nil && u.Path != "" {
				if _, err := os.Stat(u.Path); errors.Is(err, os.ErrNotExist) {
					defer os.Remove(u.Path)
				}
			}
			t, err := reachable(cmd.Context(), st.Spec.DB)
			if err != nil {
				return err
			}
			defer t.Close()
			// A study running on the server has its settings changed: plan would show them as found.
			lock, err := study.Lock(cmd.Context(), t, st)
			if err != nil {
				return err
			}
			if lock != nil {
				defer lock.Close()
			}
			drawn := st.Order == "random" && st.DrawSeed()
			p, err := study.Check(cmd.Context(), t, st)
			if err != nil {
				return err
			}
			p.SeedDrawn = drawn
			p.Print(stdout)
			fmt.Fprintln(stdout, "nothing was changed")
			return nil
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
			ctx := cmd.Context()
			store, err := openStore(ctx, resultsPath(cmd), f.noStore)
			if err != nil {
				return err
			}
			if store != nil {
				defer store.Close()
			}
			if t, err := reachable(ctx, st.Spec.DB); err != nil {
				return err
			} else {
				t.Close()
			}
			return runStudy(ctx, st, store, f.json, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&sets, "set", nil, "change a key of the study: PATH=VALUE (repeatable)")
	fs.StringVar(&f.json, "json", "", "write the study document to this file")
	fs.BoolVar(&f.noStore, "no-store", false, "do not record the study in the results store")
	return cmd
}

func runStudy(ctx context.Context, st *study.Study, store *results.Store, jsonPath string, stdout, stderr io.Writer) error {
	bg := context.WithoutCancel(ctx)
	h := study.Hooks{}
	if store != nil {
		h.Store = store.Path
	}
	h.Preparing = &terminalPreparing{out: stdout, err: stderr}
	h.Note = func(line string) { fmt.Fprintln(stdout, line) }
	h.Progress = func(_ workload.Progress, line string) { fmt.Fprintln(stderr, line) }
	h.Begin = func(s *results.Study) error {
		fmt.Fprintf(stdout, "study %s: %s on %s %s (%s), %s, order %s, seed %d\n", s.Name, s.Workload, s.Target.Name, s.Target.Version,
			target.Redact(st.Spec.DB), plural(len(st.Steps()), "run"), s.Order, st.Spec.Seed)
		if store == nil {
			return nil
		}
		return store.BeginStudy(bg, s)
	}
	h.Step = func(i, n int, step study.Step) {
		fmt.Fprintf(stderr, "run %d/%d: %s, %s, repeat %d/%d\n", i+1, n, step.Case.Label(), plural(step.VU, "VU"), step.Repeat+1, st.Spec.Repeat)
	}
	h.Applied = func(name, value, readBack string, live bool) {
		switch {
		case readBack == "":
			fmt.Fprintf(stdout, "restored %s = %s\n", name, value)
		case live:
			fmt.Fprintf(stdout, "live: %s = %s (reads %s)\n", name, value, readBack)
		default:
			fmt.Fprintf(stdout, "set %s = %s (reads %s)\n", name, value, readBack)
		}
	}
	h.Done = func(d *results.Document, i int) error {
		if store != nil {
			if err := store.SaveRun(bg, d, i); err != nil {
				return err
			}
		}
		fmt.Fprintln(stdout, summary.StepLine(d))
		return nil
	}
	h.Update = func(s *results.Study) error {
		if store == nil {
			return nil
		}
		return store.UpdateStudy(bg, s)
	}
	doc, err := study.Run(ctx, st, Version, h)
	if doc == nil {
		if err != nil && ctx.Err() != nil {
			fmt.Fprintln(stderr, "cairn: interrupted before the study started")
			return errInterrupted
		}
		return err
	}
	summary.Study(stdout, doc)
	if store != nil && doc.ID != "" {
		if !doc.Measured() && doc.Restored {
			// Nothing to compare or report, and nothing left to restore: a stored study would
			// look like a result.
			if rerr := store.Remove(bg, doc.ID); rerr != nil && err == nil {
				err = rerr
			}
			fmt.Fprintln(stdout, "the study measured nothing: it is not stored")
		} else {
			fmt.Fprintf(stdout, "stored as study %s in %s\n", doc.ID, store.Path)
		}
	}
	if jsonPath != "" {
		if werr := writeJSON(jsonPath, doc); werr != nil {
			return fmt.Errorf("write --json: %w", werr)
		}
		fmt.Fprintf(stdout, "study document written to %s\n", jsonPath)
	}
	if err != nil {
		return err
	}
	if doc.Interrupted {
		return errInterrupted
	}
	return nil
}

func newStudyRestore(stdout io.Writer) *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "restore --db URL",
		Short: "Put back the settings a study that crashed or was killed left changed on this server",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if db == "" {
				return usagef("cairn study restore needs --db URL: the server whose settings to put back (with its password)")
			}
			t, err := reachable(cmd.Context(), db)
			if err != nil {
				return err
			}
			where := t.Address()
			t.Close()
			pending, err := target.PendingSettings(where)
			if err != nil {
				return err
			}
			if len(pending) == 0 {
				fmt.Fprintf(stdout, "nothing to restore: no study left settings changed on %s\n", where)
				return nil
			}
			for _, e := range pending {
				if e.Alive() {
					return failed{fmt.Sprintf("%s: the study (cairn pid %d) still runs and restores them itself", e.What, e.PID)}
				}
				if err := e.Undo(cmd.Context(), db); err != nil {
					return fmt.Errorf("%s: %w", e.What, err)
				}
				fmt.Fprintf(stdout, "restored: %s (changed %s by cairn pid %d)\n", e.What, e.Made.Format("2006-01-02 15:04:05 MST"), e.PID)
				if err := markStudyRestored(cmd.Context(), stdout, e, db, "cairn study restore"); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "the server's URL, with its password")
	return cmd
}

// markStudyRestored has the stored study whose settings a journal entry kept say that they are
// restored, once the entry is undone.
func markStudyRestored(ctx context.Context, stdout io.Writer, e *undo.Entry, db, by string) error {
	id, err := study.MarkRestored(ctx, e, db, by)
	if err != nil {
		return failed{err.Error()}
	}
	if id != "" {
		fmt.Fprintf(stdout, "study %s marked restored (read back equal) in its results store\n", id)
	}
	return nil
}
