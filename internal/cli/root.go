// Package cli maps commands and flags to configurations and calls the layers below; it holds the
// only knowledge of cobra, the terminal and exit codes.
package cli

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/workload"
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
var errInterrupted = errors.New("interrupted")

// failed marks an outcome that is not an error message of its own (a failed check prints its report).
type failed struct{ msg string }

func (f failed) Error() string { return f.msg }

// Main runs the command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if path := os.Getenv("CAIRN_CPUPROFILE"); path != "" {
		// For finding where the driver's own CPU goes (bench/, docs/benchmarks.md).
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, errInterrupted) {
		return ExitInterrupted
	}
	code := ExitFailed
	var ue *target.UsageError
	var ce *target.ConnectError
	var se *results.StoreError
	var nf *results.NotFoundError
	var f failed
	switch {
	case errors.As(err, &se), errors.As(err, &nf):
		code = ExitUsage
	case errors.As(err, &f):
		if f.msg != "" {
			fmt.Fprintln(stderr, "cairn: "+f.msg)
		}
		return ExitFailed
	case errors.As(err, &ue), workload.IsSchemaError(err):
		code = ExitUsage
	case errors.As(err, &ce):
		code = ExitFailed
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "cairn: interrupted")
		return ExitInterrupted
	}
	fmt.Fprintln(stderr, "cairn: "+oneLine(err.Error()))
	return code
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
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
  cairn results list
  cairn report 1 -o report.html

Exit codes: 0 ok, 1 the run/check/connection failed, 2 bad usage or input, 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return cmd.Help()
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Every output path is checked before the work: a run must not measure for an hour and then
	// fail to write its --json.
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return checkOutputs(cmd) }
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &target.UsageError{Msg: err.Error() + " (see --help)"}
	})
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentFlags().String("results", "", "results store file (default $CAIRN_RESULTS, else $XDG_DATA_HOME/cairn/results.db or ~/.local/share/cairn/results.db)")
	root.AddCommand(newTPCC(stdout, stderr), newOLTP(stdout, stderr), newTPCB(stdout, stderr), newTPCH(stdout, stderr), newResults(stdout), newReport(stdout, stderr))
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
		if err := checkOutput(o.name, f.Value.String(), o.dir); err != nil {
			return err
		}
	}
	return nil
}

func checkOutput(flag, path string, dir bool) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && dir && !fi.IsDir():
		return target.Usagef("--%s %s is a file, not a directory", flag, path)
	case err == nil && !dir && fi.IsDir():
		return target.Usagef("--%s %s is a directory: give a file name", flag, path)
	case err == nil:
		if unix.Access(path, unix.W_OK) != nil {
			return target.Usagef("--%s %s is not writable", flag, path)
		}
		if dir {
			return nil
		}
	}
	// The file, or the directory to be made, goes into the nearest existing parent.
	parent := filepath.Dir(path)
	if dir {
		for {
			if _, err := os.Stat(parent); err == nil || parent == filepath.Dir(parent) {
				break
			}
			parent = filepath.Dir(parent)
		}
	}
	pi, err := os.Stat(parent)
	switch {
	case err != nil:
		return target.Usagef("--%s %s: directory %s does not exist", flag, path, parent)
	case !pi.IsDir():
		return target.Usagef("--%s %s: %s is not a directory", flag, path, parent)
	case unix.Access(parent, unix.W_OK) != nil:
		return target.Usagef("--%s %s: directory %s is not writable", flag, path, parent)
	}
	return nil
}

// unknownCommand is the usage error for a subcommand that does not exist, listing those that do.
func unknownCommand(cmd *cobra.Command, name string) error {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return target.Usagef("unknown command %q for %q (use %s)", name, cmd.CommandPath(), joinOr(names))
}

// joinOr lists words as "a, b or c".
func joinOr(w []string) string {
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " or " + w[len(w)-1]
}

// usageArgs rejects positional arguments with exit code 2.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return target.Usagef("%s takes no arguments, got %q (see --help)", cmd.CommandPath(), strings.Join(args, " "))
	}
	return nil
}

// durationFlag is a time.Duration flag that also takes a bare number of seconds and rejects negatives.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}
func (f durationFlag) Type() string { return "duration" }
func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, nerr := strconv.ParseFloat(s, 64)
		if nerr != nil {
			return fmt.Errorf("%q is not a duration: use a number with a unit, like 30s, 2m or 1h", s)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d < 0 {
		return fmt.Errorf("%q is negative", s)
	}
	*f.d = d
	return nil
}

// randomSeed draws a seed for runs that were given none; it is printed and recorded.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) >> 1
}
