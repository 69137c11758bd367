package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// newWorkload builds one workload's command set from its registration: prepare, run, profile
// (when it profiles), check (when it has one), cleanup, and any commands of its own.
func newWorkload(w workload.Workload, stdout, stderr io.Writer) *cobra.Command {
	info := w.Info()
	cmd := &cobra.Command{Use: info.Name, Short: info.Short, Long: info.Long, Args: cobra.ArbitraryArgs, RunE: group}
	if tl, ok := w.(workload.Tooler); ok {
		for _, t := range tl.Tools() {
			cmd.AddCommand(newTool(t, stdout, stderr))
		}
	}
	cmd.AddCommand(newPrepare(w, stdout, stderr), newRunCmd(w, false, stdout, stderr))
	if info.Profile {
		cmd.AddCommand(newRunCmd(w, true, stdout, stderr))
	}
	if info.Uses("rate") {
		cmd.AddCommand(newSearch(w, stdout, stderr))
	}
	if c, ok := w.(workload.Checker); ok {
		cmd.AddCommand(newCheck(w, c, stdout))
	}
	cmd.AddCommand(newCleanup(stdout, info.Footprint))
	return cmd
}

// dbFlag adds --db, and --connect-timeout unless the command binds it itself (a run's spec holds
// it): the command's connections are then made within that timeout.
func dbFlag(cmd *cobra.Command, db *string, long, connecting bool) {
	help := "database URL (default $CAIRN_DB, else sqlite://cairn.db)"
	if long {
		help = "database URL: sqlite://FILE, postgres://user:pass@host:port/db, mysql://user:pass@host:port/db (default $CAIRN_DB, else sqlite://cairn.db)"
	}
	cmd.Flags().Var(target.DBList{P: db}, "db", help+"; more than once, or h1:port,h2:port/db_{0..7}: a shard set")
	if connecting {
		connectFlag(cmd)
	}
}

// connectFlag adds --connect-timeout: the command's connections are made within it.
func connectFlag(cmd *cobra.Command) {
	c := &target.Connecting{ConnectTimeout: target.DefaultConnectTimeout}
	bind(cmd.Flags(), c, nil, nil, nil)
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := options.Check(c, givenFlag(cmd)); err != nil {
			return err
		}
		cmd.SetContext(target.WithConnectTimeout(cmd.Context(), c.ConnectTimeout))
		return run(cmd, args)
	}
}

func newPrepare(w workload.Workload, stdout, stderr io.Writer) *cobra.Command {
	info := w.Info()
	var db string
	opts := w.PrepareOptions()
	cmd := &cobra.Command{Use: "prepare", Short: info.Help["prepare"], Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := options.Valid(opts, givenFlag(cmd)); err != nil {
				return err
			}
			return session.Prepare(cmd.Context(), w, db, opts, session.Options{Version: Version, Subscribers: printer(stdout, stderr),
				Preparing: &terminalPreparing{out: stdout, err: stderr}})
		}}
	dbFlag(cmd, &db, true, true)
	bind(cmd.Flags(), opts, nil, nil, nil)
	return cmd
}

// terminalPreparing shows prepare's lines on stdout and its load progress on stderr.
type terminalPreparing struct {
	out, err io.Writer
	bar      *progress
}

func (p *terminalPreparing) Say(format string, a ...any) { fmt.Fprintf(p.out, format+"\n", a...) }

func (p *terminalPreparing) Load(total int64, rows *atomic.Int64) {
	p.Loaded()
	p.bar = newProgress(p.err, total, "loading")
	p.bar.start(rows)
}

func (p *terminalPreparing) Loaded() {
	if p.bar != nil {
		p.bar.finish()
		p.bar = nil
	}
}

// runFlags are what run and profile read besides the spec.
type runFlags struct {
	json      string
	noStore   bool
	printSpec bool
	prepare   bool
}

func newRunCmd(w workload.Workload, profile bool, stdout, stderr io.Writer) *cobra.Command {
	name := "run"
	if profile {
		name = "profile"
	}
	return runCommand(w, name, profile, nil, nil, stdout, stderr)
}

// runCommand is a command that runs a spec made from its flags: run, profile, or search (whose
// defaults adjust sets its spec's own defaults before its flags are bound, and whose exec runs the
// checked spec in place of execute; its own flags the caller binds).
func runCommand(w workload.Workload, name string, profile bool, adjust func(*spec.Spec), exec func(cmd *cobra.Command, s *spec.Spec, f runFlags) error, stdout, stderr io.Writer) *cobra.Command {
	info := w.Info()
	s, err := spec.New(info.Name, profile)
	if err != nil {
		panic(err) // registered workloads make valid specs
	}
	if adjust != nil {
		adjust(s)
	}
	var f runFlags
	prep := w.PrepareOptions()
	cmd := &cobra.Command{Use: name, Short: info.Help[name], Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if s.DB == "" {
				s.DB = target.DefaultDB()
			}
			if f.prepare {
				// Prepare's own flags were bound to prep; the shared ones came through the run's.
				s.PrepareWith(prep, func(n string) bool {
					fl := cmd.Flags().Lookup(n) // every prepare option has a flag, its own or the run's
					ov, ok := fl.Value.(options.Value)
					return ok && fl.Changed && ov.V == prep
				})
			}
			if err := checkSpec(cmd, s); err != nil {
				return err
			}
			if f.printSpec {
				_, err := stdout.Write(session.SpecText(s))
				return err
			}
			if exec != nil {
				return exec(cmd, s, f)
			}
			return execute(cmd.Context(), s, resultsPath(cmd), f, stdout, stderr)
		}}
	fs := cmd.Flags()
	dbFlag(cmd, &s.DB, false, false)
	fs.Var(target.DBList{P: &s.Replica}, "replica", "a replica of --db's primary, more than once for several: --route says what it takes (docs/tpcc.md#replicas)")
	bind(fs, &s.Engine, func(n string) bool {
		return !info.Uses(n) || !profile && exec == nil && spec.ProfileOnly(n) || profile && spec.RunOnly(n) || exec != nil && searchSets[n]
	}, info.Shorthands, nil)
	bind(fs, s.Options, nil, nil, nil)
	fs.BoolVar(&f.prepare, "prepare", false, "prepare the schema first if the database has none (with prepare's flags)")
	bind(fs, prep, func(n string) bool { return fs.Lookup(n) != nil }, nil, nil)
	doc := "write the result document to this file"
	if profile {
		doc = "write the profile document, with every step's result document, to this file"
	}
	fs.StringVar(&f.json, "json", "", doc)
	fs.BoolVar(&f.noStore, "no-store", false, "do not record the result in the results store")
	if exec == nil {
		fs.BoolVar(&f.printSpec, "print-spec", false, "print the run spec as YAML and exit, without connecting ('cairn run --spec FILE' runs it)")
	}
	return cmd
}

// checkSpec checks the options of a spec made from flags, and the spec as a whole.
func checkSpec(cmd *cobra.Command, s *spec.Spec) error {
	err := s.CheckGiven(givenFlag(cmd))
	var se *spec.Error
	if errors.As(err, &se) && se.Key != "" && !strings.Contains(se.Key, ".") {
		return usagef("--%s: %s", se.Key, se.Msg)
	}
	return err
}

// givenFlag reports whether the option's flag was on the command line.
func givenFlag(cmd *cobra.Command) func(name string) bool {
	return func(name string) bool { return cmd.Flags().Changed(name) }
}

func newCheck(w workload.Workload, c workload.Checker, stdout io.Writer) *cobra.Command {
	info := w.Info()
	var db string
	opts := c.CheckOptions()
	cmd := &cobra.Command{Use: "check", Short: info.Help["check"], Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return session.Check(cmd.Context(), w, db, opts, session.Options{Subscribers: printer(stdout, stdout)})
		}}
	dbFlag(cmd, &db, false, true)
	bind(cmd.Flags(), opts, nil, nil, nil)
	return cmd
}

func newTool(t workload.Tool, stdout, stderr io.Writer) *cobra.Command {
	opts := t.Options()
	cmd := &cobra.Command{Use: t.Name, Short: t.Short, Long: t.Long, Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := options.Valid(opts, givenFlag(cmd)); err != nil {
				return err
			}
			p := &terminalPreparing{out: stdout, err: stderr}
			err := t.Run(workload.WithVersion(cmd.Context(), Version), opts, p)
			p.Loaded()
			if err != nil && cmd.Context().Err() != nil {
				return errInterrupted
			}
			return err
		}}
	bind(cmd.Flags(), opts, nil, nil, nil)
	return cmd
}
