package cli

import (
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/spec"
)

// newSpecRun is 'cairn run --spec FILE': any workload's run or profile from its run spec (YAML
// or JSON, as --print-spec writes it), with fields changed by --set PATH=VALUE.
func newSpecRun(stdout, stderr io.Writer) *cobra.Command {
	var file, part, bundle, db string
	var sets []string
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --spec FILE [--set PATH=VALUE]… [--part I/N] | run --bundle FILE --db URL",
		Short: "Run or profile any workload from a run spec (YAML or JSON; docs/spec.md), or run a bundle's runs again",
		Long: `Run the run or profile a spec describes: a spec with one VU count is a run, one with a list of
VU counts a profile. --set changes a field by its dotted path (vu=4, duration=30s, options.mode=sql,
prepare.warehouses=4) and may be repeated; --part I/N is --set part=I/N, for the parts of one
run that share one spec (docs/scale.md). The changes apply before the spec is checked as a whole.
${VAR} in the spec's values is read from the environment. docs/spec.md describes every field.

  cairn tpcc run --db URL --vu 2 --duration 10s --seed 7 --print-spec > s.yaml
  cairn run --spec s.yaml
  cairn run --spec s.yaml --set vu=4 --set options.mode=sql

--bundle FILE runs each run of a bundle ('cairn results bundle') again on the database --db
names: its spec and seed, and, where that database holds no schema, the same data prepared
as the run's prepare recorded it (seed and sizes). Each result records the bundle it ran
from; 'cairn results compare' then lists what differs in the conditions (docs/results-store.md).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case bundle != "" && file != "":
				return usagef("give --spec FILE or --bundle FILE, not both")
			case bundle != "" && db == "":
				return usagef("--bundle needs --db URL: the database to run the bundle's runs on (a bundle holds no password)")
			case bundle == "" && db != "":
				return usagef("--db goes with --bundle: a spec names its own db (change it with --set db=URL)")
			case bundle != "" && part != "":
				return usagef("--part splits a spec's run between load generators: run a bundle whole")
			case bundle != "":
				return runBundle(cmd, bundle, db, sets, f, stdout, stderr)
			}
			if file == "" {
				return usagef("cairn run needs --spec FILE (or use 'cairn WORKLOAD run' with flags)")
			}
			// The changes apply before the spec is checked as a whole: a spec shared by the parts
			// of a run names its part-run, and each process gives its own part.
			s, err := spec.ReadFile(file, func(s *spec.Spec) error {
				if err := applySets(sets, s.Set, "vu=4 or options.mode=sql"); err != nil {
					return err
				}
				if part == "" {
					return nil
				}
				if err := s.Set("part", part); err != nil {
					var se *spec.Error
					if errors.As(err, &se) {
						return usagef("--part %s: %s", part, se.Msg)
					}
					return err
				}
				return nil
			})
			if err != nil {
				return err
			}
			if f.printSpec {
				_, err := stdout.Write(session.SpecText(s))
				return err
			}
			return execute(cmd.Context(), s, resultsPath(cmd), f, stdout, stderr)
		}}
	fs := cmd.Flags()
	fs.StringVar(&file, "spec", "", "the run spec: a YAML or JSON file")
	fs.StringVar(&bundle, "bundle", "", "run each run of this bundle ('cairn results bundle') again, on --db")
	fs.StringVar(&db, "db", "", "with --bundle: the database to run on (a URL; ${VAR} in it is read from the environment)")
	fs.StringArrayVar(&sets, "set", nil, "change a field of the spec: PATH=VALUE (repeatable)")
	fs.StringVar(&part, "part", "", "I/N: run the I-th of N shares of the spec's VUs, as --set part=I/N (docs/scale.md)")
	fs.StringVar(&f.json, "json", "", "write the result (or profile) document to this file")
	fs.BoolVar(&f.noStore, "no-store", false, "do not record the result in the results store")
	fs.BoolVar(&f.printSpec, "print-spec", false, "print the spec, with the --set changes, and exit without connecting")
	return cmd
}

// applySets applies each --set PATH=VALUE with set; a bad one is a usage error naming it (example
// shows the form).
func applySets(sets []string, set func(path, value string) error, example string) error {
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usagef("--set %q: give PATH=VALUE, like %s", kv, example)
		}
		if err := set(k, v); err != nil {
			var se *spec.Error
			if errors.As(err, &se) {
				return usagef("--set %s: %s", kv, se.Msg)
			}
			return err
		}
	}
	return nil
}

// runBundle runs each run of a bundle again on db, in the bundle's order; the first that fails
// ends it.
func runBundle(cmd *cobra.Command, file, db string, sets []string, f runFlags, stdout, stderr io.Writer) error {
	reruns, err := session.Reruns(file, db, func(s *spec.Spec) error {
		return applySets(sets, s.Set, "vu=4 or duration=30s")
	})
	if err != nil {
		return err
	}
	var specs io.Writer
	if f.printSpec {
		specs = stdout
	}
	return session.ExecuteReruns(cmd.Context(), reruns, specs, func() session.Options { return jobOptions(resultsPath(cmd), f, stdout, stderr) })
}
