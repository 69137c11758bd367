package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/workload"
)

// jobOptions are a job's options from the command line: its store (none with --no-store), its
// --json, and the terminal as the printer, with prepare's load as a progress bar.
func jobOptions(storePath string, f runFlags, stdout, stderr io.Writer) session.Options {
	if f.noStore {
		storePath = ""
	}
	return session.Options{Store: storePath, JSON: f.json, Version: Version, Subscribers: printer(stdout, stderr),
		Preparing: &terminalPreparing{out: stdout, err: stderr}}
}

// printer is the terminal: the session's events as lines on stdout and stderr.
func printer(stdout, stderr io.Writer) []event.Subscriber {
	return []event.Subscriber{session.Printer{Out: stdout, Err: stderr}}
}

// execute runs a spec from the command line (session.Execute is the one code path).
func execute(ctx context.Context, s *spec.Spec, storePath string, f runFlags, stdout, stderr io.Writer) error {
	return session.Execute(ctx, s, jobOptions(storePath, f, stdout, stderr))
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
			return session.Cleanup(cmd.Context(), db, f, session.Options{Subscribers: printer(stdout, stdout)})
		},
	}
	dbFlag(cmd, &db, false, true)
	return cmd
}
