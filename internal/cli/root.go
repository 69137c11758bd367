// Package cli is the command line: it builds one command set from the workload registry, turns
// flags into run specs, and prints, stores and writes what the layers below return. It holds the
// only knowledge of cobra, the terminal, the wording of usage errors and exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/outfile"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/workload"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

// Version is set at build time with -ldflags "-X github.com/cairn-bench/cairn/internal/cli.Version=…".
var Version = "0.1.0-dev"

// Exit codes (docs/cli.md).
const (
	ExitOK          = 0
	ExitFailed      = 1 // the run, the check or the connection failed
	ExitUsage       = 2 // bad usage or input
	ExitInterrupted = 130
)

// errInterrupted marks a command that was stopped by SIGINT/SIGTERM after printing what it had.
var errInterrupted = session.ErrInterrupted

// failed marks an outcome that is not an error message of its own (a failed check prints its report).
type failed struct{ msg string }

func (f failed) Error() string { return f.msg }

// usageError is bad usage of the command line itself (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) BadInput()     {}

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// badInput is implemented by every layer's errors that are the user's to fix: a bad URL, option,
// spec or schema state, an unknown result, a store cairn cannot use. They exit 2.
type badInput interface{ BadInput() }

// Main runs the command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, errInterrupted) {
		return ExitInterrupted
	}
	err = flagged(err)
	var f failed
	var cf *workload.CheckFailed
	var bi badInput
	switch {
	case errors.As(err, &f):
		if f.msg != "" {
			fmt.Fprintln(stderr, "cairn: "+f.msg)
		}
		return ExitFailed
	case errors.As(err, &cf):
		fmt.Fprintln(stderr, "cairn: "+cf.Msg)
		return ExitFailed
	case errors.As(err, &bi):
		fmt.Fprintln(stderr, "cairn: "+oneLine(err.Error()))
		return ExitUsage
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "cairn: interrupted")
		return ExitInterrupted
	}
	fmt.Fprintln(stderr, "cairn: "+oneLine(err.Error()))
	return ExitFailed
}

func oneLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "cairn",
		Short: "cairn benchmarks databases: TPC-C-derived OLTP, sysbench's oltp and pgbench's TPC-B on SQLite, PostgreSQL, MySQL and MariaDB",
		Long: `cairn benchmarks databases. Point it at a database with --db (default: the embedded SQLite
file cairn.db, or $CAIRN_DB), build a schema with 'prepare', drive it with 'run', verify it with 'check'.

  cairn tpcc prepare --warehouses 1
  cairn tpcc run --vu 4 --rampup 10s --duration 1m
  cairn tpcc profile --vu 1,2,4,8
  cairn oltp prepare --tables 4 --table-size 100000 && cairn oltp run --workload read-only
  cairn tpcb prepare --scale 10 && cairn tpcb run --script select-only
  cairn tpcc run --vu 2 --print-spec > s.yaml && cairn run --spec s.yaml
  cairn results list
  cairn report 1 -o report.html

Exit codes: 0 ok, 1 the run/check/connection failed, 2 bad usage or input, 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
		Args:          cobra.ArbitraryArgs,
		RunE:          group,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &usageError{err.Error() + " (see --help)"}
	})
	// Every output path is checked before the work: a run must not measure for an hour and then
	// fail to write its --json.
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		// The results store is never a benchmark's database, whatever path names it.
		cmd.SetContext(target.WithReserved(cmd.Context(), "cairn's results store", resultsPath(cmd)))
		return checkOutputs(cmd)
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentFlags().String("results", "", "results store file (default $CAIRN_RESULTS, else $XDG_DATA_HOME/cairn/results.db or ~/.local/share/cairn/results.db)")
	for _, w := range workload.All() {
		root.AddCommand(newWorkload(w, stdout, stderr))
	}
	root.AddCommand(newSpecRun(stdout, stderr), newResults(stdout), newReport(stdout, stderr), newHost(stdout), newRestore(stdout), newStudy(stdout, stderr), newServe(stderr))
	return root
}

// outputFlags are the flags that name something cairn writes: a file, or a directory it creates.
var outputFlags = []struct {
	name string
	dir  bool
}{{"json", false}, {"output", false}, {"png", true}, {"out", true}}

// checkOutputs refuses, before any work, an output path that cannot be written: a missing
// directory, a directory where a file is wanted, no write access.
func checkOutputs(cmd *cobra.Command) error {
	for _, o := range outputFlags {
		f := cmd.Flags().Lookup(o.name)
		if f == nil || !f.Changed || f.Value.String() == "" {
			continue
		}
		if err := outfile.Check(f.Value.String(), o.dir); err != nil {
			return usagef("--%s %s", o.name, err)
		}
	}
	return nil
}

// group is the action of a command that only groups others: its help, or which exist.
func group(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return cmd.Help()
}

// unknownCommand is the usage error for a subcommand that does not exist, listing those that do.
func unknownCommand(cmd *cobra.Command, name string) error {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return usagef("unknown command %q for %q (use %s)", name, cmd.CommandPath(), options.JoinOr(names))
}

// noArgs rejects positional arguments with exit code 2.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q (see --help)", cmd.CommandPath(), strings.Join(args, " "))
	}
	return nil
}
