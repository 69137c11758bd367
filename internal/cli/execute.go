package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/runner"
	"github.com/cairn-bench/cairn/internal/sink"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// execute runs a spec from the command line: the store is opened first (a bad --results fails
// before minutes of measuring), then cairn is bound to its client CPUs and the database opened;
// the sink stores, writes and says how the run or profile ended, the terminal prints it.
func execute(ctx context.Context, s *spec.Spec, storePath string, f runFlags, stdout, stderr io.Writer) error {
	store, err := openStore(ctx, storePath, f.noStore)
	if err != nil {
		return err
	}
	if store != nil {
		defer store.Close()
	}
	bound, err := bindClient(s)
	if err != nil {
		return err
	}
	se, err := runner.Open(ctx, s, Version, bound)
	if err != nil {
		return err
	}
	defer se.Close()
	k := sink.New(store, f.json, terminal{stdout, stderr})
	h := runner.Hooks{
		Preparing: &terminalPreparing{out: stdout, err: stderr},
		Progress:  func(_ workload.Progress, line string) { fmt.Fprintln(stderr, line) },
		Out:       stdout,
	}
	if s.Profile {
		k.ProfileHooks(ctx, &h, s.Repeat)
		p, err := se.Profile(ctx, h)
		return k.Profile(ctx, p, err)
	}
	k.RunHooks(&h)
	d, err := se.Run(ctx, h)
	h.Preparing.Loaded()
	return k.Run(ctx, d, s, err)
}

// bindClient binds cairn's threads to the spec's client CPUs, before the target opens: the
// connections' threads, and the Ps blocking sockets reserve, follow the binding. The binding is
// the process's, so the command line, which owns the process, makes it; nil: none asked.
func bindClient(s *spec.Spec) ([]int, error) {
	cpus, err := runner.CPUs(s)
	if err != nil || cpus == nil {
		return nil, err
	}
	return cpus, observe.PinSelf(cpus)
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
			lines, err := workload.Cleanup(cmd.Context(), db, f)
			if err != nil {
				return err
			}
			for _, line := range lines {
				fmt.Fprintln(stdout, line)
			}
			return nil
		},
	}
	dbFlag(cmd, &db, false, true)
	return cmd
}
