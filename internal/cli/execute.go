package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/runner"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// execute runs a spec from the command line: the store is opened first (a bad --results fails
// before minutes of measuring), then the database; a run prints its start line, progress and
// summary, and is stored and written; a profile prints a line per step and its table.
func execute(ctx context.Context, s *spec.Spec, storePath string, f runFlags, stdout, stderr io.Writer) error {
	store, err := openStore(ctx, storePath, f.noStore)
	if err != nil {
		return err
	}
	if store != nil {
		defer store.Close()
	}
	se, err := runner.Open(ctx, s, Version)
	if err != nil {
		return err
	}
	defer se.Close()
	h := runner.Hooks{
		Preparing: &terminalPreparing{out: stdout, err: stderr},
		Start:     func(line string) { fmt.Fprintln(stdout, line) },
		Note:      func(line string) { fmt.Fprintln(stdout, line) },
		Progress:  func(_ workload.Progress, line string) { fmt.Fprintln(stderr, line) },
		Out:       stdout,
	}
	if s.Profile {
		return profileRun(ctx, se, h, store, f.json, stdout, stderr)
	}
	d, err := se.Run(ctx, h)
	h.Preparing.Loaded()
	if d == nil {
		if err != nil && ctx.Err() != nil {
			fmt.Fprintln(stderr, "cairn: interrupted before the run started")
			return errInterrupted
		}
		return err
	}
	ferr := finishRun(ctx, store, d, s, f.json, stdout)
	if err != nil && ferr == nil {
		return err
	}
	return ferr
}

// finishRun stores a run's document, prints its summary, writes --json and maps its outcome to an
// error (exit code): interrupted, nothing completed, or not stored. Every workload's run ends here.
func finishRun(ctx context.Context, store *results.Store, doc *results.Document, s *spec.Spec, jsonPath string, stdout io.Writer) error {
	// Store before printing, so that the printed summary and the --json document carry the id.
	var storeErr error
	if store != nil {
		storeErr = store.SaveRun(context.WithoutCancel(ctx), doc, 0)
	}
	summary.Run(stdout, doc, s)
	if store != nil && storeErr == nil {
		fmt.Fprintf(stdout, "stored as result %s in %s\n", doc.ID, store.Path)
	}
	if jsonPath != "" {
		if err := doc.WriteJSON(jsonPath); err != nil {
			return fmt.Errorf("write --json: %w", err)
		}
		fmt.Fprintf(stdout, "result document written to %s\n", jsonPath)
	}
	if storeErr != nil {
		return fmt.Errorf("the result was measured but not stored: %w", storeErr)
	}
	if doc.Interrupted || ctx.Err() != nil {
		return errInterrupted
	}
	var done, errs int64
	for _, tx := range doc.Txns {
		done += tx.Count
		errs += tx.Errors
	}
	if done == 0 {
		return failed{fmt.Sprintf("no transaction completed in the measured window (%d errors)", errs)}
	}
	return nil
}

// profileRun runs any workload's profile, storing each step as it completes, so that a profile
// stopped by Ctrl-C or a failure keeps every step it measured.
func profileRun(ctx context.Context, se *runner.Session, h runner.Hooks, store *results.Store,
	jsonPath string, stdout, stderr io.Writer) error {
	bg := context.WithoutCancel(ctx)
	repeat := se.Spec.Repeat
	h.Begin = func(p *results.Profile) error {
		if store == nil {
			return nil
		}
		return store.BeginProfile(bg, p)
	}
	h.StepStart = func(i, n, vu, rep int) {
		fmt.Fprintf(stderr, "run %d/%d: %s", i+1, n, plural(vu, "VU"))
		if repeat > 1 {
			fmt.Fprintf(stderr, " (repeat %d/%d)", rep+1, repeat)
		}
		fmt.Fprintln(stderr)
	}
	h.StepDone = func(p *results.Profile, d *results.Document, i int) error {
		if store != nil {
			if err := store.SaveRun(bg, d, i); err != nil {
				return err
			}
			if err := store.UpdateProfile(bg, p); err != nil {
				return err
			}
		}
		fmt.Fprintln(stdout, summary.StepLine(d))
		return nil
	}
	p, err := se.Profile(ctx, h)
	if p == nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "cairn: interrupted before the profile started")
			return errInterrupted
		}
		return err
	}
	if store != nil && p.ID != "" {
		if uerr := store.UpdateProfile(bg, p); uerr != nil && err == nil {
			err = uerr
		}
	}
	if len(p.Steps) > 0 {
		summary.Profile(stdout, p)
	}
	if store != nil && p.ID != "" {
		fmt.Fprintf(stdout, "stored as profile %s in %s\n", p.ID, store.Path)
	}
	if jsonPath != "" && len(p.Steps) > 0 {
		if werr := writeJSON(jsonPath, p); werr != nil {
			return fmt.Errorf("write --json: %w", werr)
		}
		fmt.Fprintf(stdout, "profile document written to %s\n", jsonPath)
	}
	if err != nil {
		return err
	}
	if p.Interrupted {
		return errInterrupted
	}
	return nil
}

// newCleanup is every workload's cleanup command: it drops what the workload's record says its
// prepare created, and nothing else, and says what it dropped and what it left alone.
func newCleanup(stdout io.Writer, f workload.Footprint) *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "cleanup",
		Short: "Drop what " + f.Name + " prepare created (as its meta table records it), and nothing else",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if db == "" {
				db = target.DefaultDB()
			}
			if u, err := target.ParseURL(db); err == nil && u.Path != "" {
				if _, err := os.Stat(u.Path); err != nil {
					fmt.Fprintf(stdout, "no database file %s: nothing to drop\n", u.Path)
					return nil
				}
			}
			t, err := target.Open(cmd.Context(), db)
			if err != nil {
				return err
			}
			defer t.Close()
			s, err := workload.CleanupSchema(cmd.Context(), t, f)
			if err != nil {
				return err
			}
			for _, line := range s.CleanupReport(f) {
				fmt.Fprintln(stdout, line)
			}
			return nil
		},
	}
	dbFlag(cmd, &db, false, true)
	return cmd
}
