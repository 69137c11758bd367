package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/profile"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpcc"
)

type profileFlags struct {
	vus    string
	repeat int
	pause  time.Duration
}

func (pf *profileFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&pf.vus, "vu", "1,2,4,8", "VU counts of the steps, comma-separated")
	f.IntVar(&pf.repeat, "repeat", 1, "runs per step; with 2 or more, figures are means with their spread")
	f.Var(durationFlag{&pf.pause}, "pause", "pause between runs, for the server to settle")
}

func newTPCCProfile(stdout, stderr io.Writer) *cobra.Command {
	r := runFlags{rampup: 10 * time.Second, duration: time.Minute, progress: 0}
	r.profile.pause = 10 * time.Second
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Run the workload at each of a list of VU counts; mark the peak, saturation and bottleneck steps",
		Long: `Run TPC-C once per VU count (--repeat N: N times each) on the same prepared schema, pausing
between runs, and print one line per step with the peak, saturation and bottleneck marks that
docs/profiles.md defines. Every step is stored as a run of its own; the profile as a whole gets an
id of its own, which 'cairn results' and 'cairn report' take.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return doTPCCProfile(cmd.Context(), &r, resultsPath(cmd), stdout, stderr)
		},
	}
	r.addCommon(cmd)
	r.profile.add(cmd)
	f := cmd.Flags()
	f.Uint64Var(&r.seed, "seed", 0, "seed of the profile; each run's seed is derived from it (default: random, printed)")
	f.StringVar(&r.jsonPath, "json", "", "write the profile document, with every step's result document, to this file")
	return cmd
}

func (pf *profileFlags) parse() ([]int, error) {
	vus, err := profile.ParseVUs(pf.vus)
	if err != nil {
		return nil, target.Usagef("--vu %v", err)
	}
	if pf.repeat < 1 {
		return nil, target.Usagef("--repeat %d: need at least 1", pf.repeat)
	}
	return vus, nil
}

func doTPCCProfile(ctx context.Context, r *runFlags, storePath string, stdout, stderr io.Writer) error {
	vus, err := r.profile.parse()
	if err != nil {
		return err
	}
	r.vu = vus[0]
	if err := r.validate(); err != nil {
		return err
	}
	if r.db == "" {
		r.db = target.DefaultDB()
	}
	s, err := openSession(ctx, storePath, r.noStore, r.db, "tpcc")
	if err != nil {
		return err
	}
	defer s.Close()
	store, t := s.store, s.t
	if r.seed == 0 {
		r.seed = randomSeed()
	}
	p := newProfileDoc(ctx, t, "tpcc", tpcc.TxnNames[tpcc.TxNewOrder], r.tpccConfig(0))
	fmt.Fprintf(stdout, "profiling TPC-C on %s (%s): VUs %s, %d run(s) each, rampup %s, window %s, pause %s, seed %d\n",
		t.Name(), target.Where(t), joinInts(vus), r.profile.repeat, r.rampup, r.duration, r.profile.pause, r.seed)
	step := func(ctx context.Context, vu int, seed uint64) (*results.Document, error) {
		return r.runOnce(ctx, t, vu, seed, stderr)
	}
	return doProfile(ctx, t, p, profile.Options{VUs: vus, Repeat: r.profile.repeat, Pause: r.profile.pause, Seed: r.seed},
		step, store, r.jsonPath, stdout, stderr)
}

// doProfile runs any workload's profile, storing each step as it completes, so that a profile
// stopped by Ctrl-C or a failure keeps every step it measured.
func doProfile(ctx context.Context, t target.Target, p *results.Profile, o profile.Options, step profile.StepFunc, store *results.Store,
	jsonPath string, stdout, stderr io.Writer) error {
	// The largest step is checked before the first: a profile must not fail an hour in.
	if err := run.CheckCapacity(ctx, t, slices.Max(o.VUs)); err != nil {
		return err
	}
	bg := context.WithoutCancel(ctx)
	hooks := profile.Hooks{
		Begin: func(p *results.Profile) error {
			if store == nil {
				return nil
			}
			return store.BeginProfile(bg, p)
		},
		StepStart: func(i, n, vu, rep int) {
			fmt.Fprintf(stderr, "run %d/%d: %s", i+1, n, plural(vu, "VU"))
			if o.Repeat > 1 {
				fmt.Fprintf(stderr, " (repeat %d/%d)", rep+1, o.Repeat)
			}
			fmt.Fprintln(stderr)
		},
		StepDone: func(p *results.Profile, d *results.Document, i int) error {
			if p.Target.Settings == nil {
				p.Target.Settings = d.Target.Settings
			}
			if store != nil {
				if err := store.SaveRun(bg, d, i); err != nil {
					return err
				}
				if err := store.UpdateProfile(bg, p); err != nil {
					return err
				}
			}
			fmt.Fprintln(stdout, stepLine(d))
			return nil
		},
	}
	err := profile.Run(ctx, p, o, step, hooks)
	if store != nil && p.ID != "" {
		if uerr := store.UpdateProfile(bg, p); uerr != nil && err == nil {
			err = uerr
		}
	}
	if len(p.Steps) > 0 {
		printProfile(stdout, p)
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

func stepLine(d *results.Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s:", plural(d.VU, "VU"))
	if name, v, ok := d.Headline(); ok {
		fmt.Fprintf(&b, " %s %s", thousands(v), name)
	} else {
		b.WriteString(" nothing measured")
	}
	if d.Result.TPM != nil {
		fmt.Fprintf(&b, ", TPM %s", thousands(float64(*d.Result.TPM)))
	}
	if m := d.Main(); m != nil && m.Count > 0 {
		fmt.Fprintf(&b, ", %s p95 %s ms", d.MainTxn, ms(m.LatencyMs.P95))
	}
	fmt.Fprintf(&b, ", %d errors", d.TotalErrors())
	if d.ID != "" {
		fmt.Fprintf(&b, " (result %s)", d.ID)
	}
	return b.String()
}

// printProfile prints the step table and the marks.
func printProfile(w io.Writer, p *results.Profile) {
	name := p.Headline
	if name == "" {
		name = "NOPM"
	}
	fmt.Fprintf(w, "\n%s profile on %s %s", workloadName(p.Workload), p.Target.Name, p.Target.Version)
	if p.Repeat > 1 {
		fmt.Fprintf(w, " · %d runs per step: mean ± sample standard deviation", p.Repeat)
	}
	if p.Interrupted {
		fmt.Fprint(w, " · INTERRUPTED: the steps below are all that ran")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	main := p.MainTxn
	fmt.Fprintf(tw, "VUs\t%s\tTPM\t%s p50\tp95\tp99 ms\terrors\tCPU µs/txn\tmarks\t\n", name, main)
	for _, st := range p.Steps {
		s := st.Summary
		if s.Headline.N == 0 {
			fmt.Fprintf(tw, "%d\t-\t-\t-\t-\t-\t%d\t-\tnothing measured\t\n", st.VU, s.Errors)
			continue
		}
		var marks []string
		if st.VU == p.Marks.Peak {
			marks = append(marks, "peak")
		}
		if st.VU == p.Marks.Saturation {
			marks = append(marks, "saturation")
		}
		if st.VU == p.Marks.Bottleneck {
			marks = append(marks, "bottleneck")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%.0f\t%s\t\n", st.VU, statText(s.Headline), statText(s.TPM),
			statMs(s.P50ms), statMs(s.P95ms), statMs(s.P99ms), s.Errors, s.CPUusPerTxn.Mean, strings.Join(marks, ","))
	}
	tw.Flush()
	fmt.Fprintln(w)
	m := p.Marks
	if peak := p.StepAt(m.Peak); peak != nil {
		fmt.Fprintf(w, "peak: %s, %s %s\n", plural(m.Peak, "VU"), thousands(peak.Summary.Headline.Mean), name)
	}
	if m.Saturation > 0 {
		a, b := p.StepAt(m.Saturation), p.Next(m.Saturation)
		fmt.Fprintf(w, "saturation: %s (going to %d VUs raised %s by %+.1f%% while %s p95 rose %+.1f%%)\n", plural(m.Saturation, "VU"), b.VU, name,
			pct(a.Summary.Headline.Mean, b.Summary.Headline.Mean), main, pct(a.Summary.P95ms.Mean, b.Summary.P95ms.Mean))
	} else if len(p.Steps) > 1 {
		fmt.Fprintf(w, "saturation: not reached (no step raised %s by less than %.0f%% while p95 rose more than %.0f%%)\n", name,
			100*results.SaturationGain, 100*results.SaturationLatency)
	}
	if m.Bottleneck > 0 {
		b := p.StepAt(m.Bottleneck)
		a := p.Prev(m.Bottleneck)
		fmt.Fprintf(w, "bottleneck: %s (%s p95 grew most per added VU: %+.2f ms per VU from %s)\n", plural(m.Bottleneck, "VU"), main,
			(b.Summary.P95ms.Mean-a.Summary.P95ms.Mean)/float64(b.VU-a.VU), plural(a.VU, "VU"))
	}
}

func statText(s results.Stat) string {
	if s.N == 0 {
		return "-"
	}
	t := thousands(s.Mean)
	if s.N > 1 && s.Mean != 0 {
		t += fmt.Sprintf(" ±%.1f%%", 100*s.SD/s.Mean)
	}
	return t
}

func statMs(s results.Stat) string {
	if s.N == 0 {
		return "-"
	}
	return ms(s.Mean)
}

func pct(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return 100 * (b - a) / a
}

func thousands(v float64) string {
	return humanize.Comma(int64(math.Round(v)))
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

func workloadName(w string) string {
	if n := map[string]string{"tpcc": "TPC-C", "oltp": "sysbench-style OLTP", "tpcb": "pgbench-style TPC-B"}[w]; n != "" {
		return n
	}
	return w
}

// session is what a run or a profile keeps open: the results store (nil with --no-store) and
// the target.
type session struct {
	store *results.Store
	t     target.Target
}

func (s *session) Close() {
	if s.store != nil {
		s.store.Close()
	}
	s.t.Close()
}

// openSession opens the store first, so that a bad --results fails before minutes of measuring,
// then the database, which must already hold the workload's schema (workload names the prepare
// command to suggest).
func openSession(ctx context.Context, storePath string, noStore bool, db, workload string) (*session, error) {
	store, err := openStore(ctx, storePath, noStore)
	if err != nil {
		return nil, err
	}
	t, err := openExisting(ctx, db, workload)
	if err != nil {
		if store != nil {
			store.Close()
		}
		return nil, err
	}
	return &session{store: store, t: t}, nil
}

// newProfileDoc starts the document of a profile of workload on t.
func newProfileDoc(ctx context.Context, t target.Target, workload, mainTxn string, cfg any) *results.Profile {
	version, _ := t.Version(ctx)
	return &results.Profile{Workload: workload, MainTxn: mainTxn, Cairn: results.Cairn{Version: Version},
		Target: results.Target{Kind: t.Kind(), Name: t.Name(), Version: version, Address: t.Address(), Database: t.Database()},
		Config: cfg}
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
			if s.State == workload.StateNone {
				fmt.Fprintf(stdout, "%s holds no %s schema: nothing to drop\n", s.Where, f.Title)
			} else {
				fmt.Fprintf(stdout, "dropped the %s schema at %s: %s and its meta table %s\n", f.Title, s.Where, describeObjects(s.Objects), f.MetaTable())
			}
			for _, g := range s.Others {
				if g.Owner != nil {
					fmt.Fprintf(stdout, "left alone: %s's %s\n", g.Owner.Title, workload.Words(g.Objects))
				} else {
					fmt.Fprintf(stdout, "left alone: %s, which cairn did not create\n", workload.Words(g.Objects))
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "database URL (default $CAIRN_DB, else sqlite://cairn.db)")
	return cmd
}

// describeObjects counts objects by kind: "9 tables and 5 routines".
func describeObjects(objs []workload.Object) string {
	var tables, routines int
	for _, o := range objs {
		if o.Kind == workload.KindRoutine {
			routines++
		} else {
			tables++
		}
	}
	s := plural(tables, "table")
	if routines > 0 {
		s += " and " + plural(routines, "routine")
	}
	return s
}
