package study

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Plan is a study checked against its server: every setting it touches, as the server has it.
type Plan struct {
	Study    *Study
	Target   string           // "MariaDB 10.11.19 (127.0.0.1:3306/cairn)"
	Settings []target.Setting // as found, in SettingNames' order
	// Servers are the servers (host:port) the settings change on: a shard set's, each once.
	Servers  []string
	byName   map[string]*target.Setting
	restarts bool // some level needs the server restarted
	// SeedDrawn: the study gives no seed and its order is random, so the order printed is that
	// of a seed drawn for the plan, which the run follows only when given it.
	SeedDrawn bool
	// LockNote says how the study lock falls short of the server, when it does.
	LockNote string
	// Host says what the file asks of the host that this one gives or not (HostNotes).
	Host []string
}

// Setting returns what the server said of a setting the study names.
func (p *Plan) Setting(name string) *target.Setting { return p.byName[strings.ToLower(name)] }

// PlanError is a study the server says cannot run as written: the user's to fix (exit 2).
type PlanError struct{ Msg string }

func (e *PlanError) Error() string { return e.Msg }

// BadInput marks the error as the user's to fix (exit 2).
func (e *PlanError) BadInput() {}

func planErr(format string, a ...any) error { return &PlanError{fmt.Sprintf(format, a...)} }

// PendingError is a study refused because another one has settings changed on the server: a
// study still running (PID), or one that crashed and left them.
type PendingError struct {
	Where, What string
	PID         int // of a study still running; 0 when it is gone
}

func (e *PendingError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("a study (cairn pid %d) is running on %s with its settings changed (%s): wait for it to end", e.PID, e.Where, e.What)
	}
	return fmt.Sprintf("a study left settings changed on %s (%s): run 'cairn study restore --db URL' first", e.Where, e.What)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *PendingError) BadInput() {}

// Check asks the server about every setting the study touches and checks every value against
// it, changing nothing: a setting the server lacks, a value it would refuse, a setting that needs
// a restart without a restart command, one changed live that cannot be, and settings an earlier
// study left changed are all refused here.
func Check(ctx context.Context, t target.Target, st *Study) (*Plan, error) {
	version, _ := t.Version(ctx)
	p := &Plan{Study: st, Target: fmt.Sprintf("%s %s (%s)", t.Name(), version, target.Where(t)), byName: map[string]*target.Setting{},
		Host: HostNotes(st)}
	if !t.Dialect().Embedded {
		for _, x := range target.ServersOf(t) {
			p.Servers = append(p.Servers, x.Address)
		}
	}
	if pending, err := target.PendingSettings(t.Address()); err != nil {
		return nil, err
	} else if len(pending) > 0 {
		e := &PendingError{Where: t.Address(), What: pending[0].What}
		if pending[0].Alive() {
			e.PID = pending[0].PID
		}
		return nil, e
	}
	if pending, err := observe.PendingGovernor(); err != nil {
		return nil, err
	} else if len(pending) > 0 {
		return nil, planErr("a study left the %s changed: run 'cairn restore' first", pending[0].What)
	}
	if err := checkNoSchema(ctx, t, st); err != nil {
		return nil, err
	}
	names := st.SettingNames()
	if len(names) == 0 {
		return p, nil
	}
	var c target.Conn
	for _, n := range names {
		if IsHost(n) {
			continue
		}
		if _, ok := t.(target.Configurer); !ok {
			return nil, planErr("%s: cairn cannot change its settings", t.Name())
		}
		var err error
		if c, err = t.Conn(ctx); err != nil {
			return nil, err
		}
		defer c.Close()
		break
	}
	for _, n := range names {
		s, err := configurer(t, n).DescribeSetting(ctx, c, n)
		if err != nil {
			var ue *target.UnknownSettingError
			var np *observe.NotPossibleError
			if errors.As(err, &ue) || errors.As(err, &np) {
				return nil, err
			}
			return nil, fmt.Errorf("reading setting %s: %w", n, err)
		}
		if s.Fixed {
			return nil, planErr("%s cannot be changed on %s while it runs (read-only: only its configuration file and a restart change it)", s.Name, t.Name())
		}
		if s.Restart && st.Restart == "" {
			return nil, planErr("%s takes effect only when %s restarts: give the study a restart command (restart: \"systemctl restart …\")", s.Name, t.Name())
		}
		p.restarts = p.restarts || s.Restart
		p.Settings = append(p.Settings, s)
		p.byName[strings.ToLower(n)] = &p.Settings[len(p.Settings)-1]
	}
	for i := range p.Settings {
		p.byName[strings.ToLower(p.Settings[i].Name)] = &p.Settings[i]
	}
	for _, f := range st.Settings {
		s := p.Setting(f.Name)
		for _, v := range f.Values {
			if why := target.CheckSettingValue(*s, v); why != "" {
				return nil, planErr("settings.%s: %s is %s", f.Name, v, why)
			}
		}
	}
	for i, ch := range st.Schedule {
		for _, a := range ch.Set {
			s := p.Setting(a.Name)
			if s.Restart || s.NewSessions {
				return nil, planErr("schedule[%d]: %s cannot change inside a run: it takes effect only %s", i, s.Name,
					map[bool]string{true: "after a restart", false: "in new sessions"}[s.Restart])
			}
			if why := target.CheckSettingValue(*s, a.Value); why != "" {
				return nil, planErr("schedule[%d].set.%s: %s is %s", i, a.Name, a.Value, why)
			}
		}
	}
	return p, nil
}

// IsHost says whether a setting is the host's (host.cpu_governor) rather than the server's.
func IsHost(name string) bool { return strings.HasPrefix(name, "host.") }

// configurer is what sets the setting: the host for host.*, else the target.
func configurer(t target.Target, name string) target.Configurer {
	if IsHost(name) {
		return observe.Host{}
	}
	return t.(target.Configurer)
}

// Print writes the plan: the settings as found and as studied, the steps in order, the time.
func (p *Plan) Print(w io.Writer) {
	st := p.Study
	s := st.Spec
	fmt.Fprintf(w, "study %s: %s on %s\n", st.Name, s.Workload, p.Target)
	if p.LockNote != "" {
		fmt.Fprintln(w, "note: "+p.LockNote)
	}
	if len(p.Settings) > 0 {
		fmt.Fprintln(w, "settings (as found → as studied):")
		width := 0
		for _, x := range p.Settings {
			width = max(width, len(x.Name))
		}
		for _, x := range p.Settings {
			var studied, live []string
			for _, f := range st.Settings {
				if strings.EqualFold(f.Name, x.Name) {
					studied = append(studied, strings.Join(f.Values, ", "))
				}
			}
			for _, ch := range st.Schedule {
				for _, a := range ch.Set {
					if strings.EqualFold(a.Name, x.Name) {
						live = append(live, fmt.Sprintf("%s at %s", a.Value, options.FormatDuration(ch.At)))
					}
				}
			}
			if len(live) > 0 {
				studied = append(studied, "live: "+strings.Join(live, ", "))
			}
			kind := "dynamic"
			switch {
			case x.Restart:
				kind = "needs a restart"
			case x.NewSessions:
				kind = "new sessions only"
			}
			fmt.Fprintf(w, "  %-*s  %s (%s; %s) → %s\n", width, x.Name, x.Value, describeType(x), kind, strings.Join(studied, "; "))
		}
		server := false
		for _, x := range p.Settings {
			server = server || !IsHost(x.Name)
		}
		switch {
		case !server:
		case len(p.Servers) == 1:
			fmt.Fprintf(w, "  changed and restored on the server at %s\n", p.Servers[0])
		case len(p.Servers) > 1:
			fmt.Fprintf(w, "  changed and restored on each of %d servers: %s\n", len(p.Servers), strings.Join(p.Servers, ", "))
		}
	}
	p.printOptions(w)
	steps := st.Steps()
	fmt.Fprintf(w, "%s × %s × %s = %s, order %s; each %s rampup + %s window, %s pause between\n",
		textfmt.Plural(len(st.Cases()), "case"), textfmt.Plural(len(s.VU), "VU count"), textfmt.Plural(s.Repeat, "repeat"), textfmt.Plural(len(steps), "run"), st.Order,
		options.FormatDuration(s.Rampup), options.FormatDuration(s.Duration), options.FormatDuration(s.Pause))
	// The labels' column is as wide as the longest, so that a long case's label moves no column.
	width := 0
	for _, step := range steps {
		width = max(width, utf8.RuneCountInString(step.Case.Label()))
	}
	last := ""
	for i, step := range steps {
		prep := ""
		if sc := step.Case.Schema; sc != "" && sc != last {
			prep = ", after a prepare"
		}
		last = step.Case.Schema
		fmt.Fprintf(w, "  %3d  %-*s %s, run %d%s\n", i+1, width, step.Case.Label(), textfmt.Plural(step.VU, "VU"), step.Repeat+1, prep)
	}
	for _, l := range cpuLists(st) {
		fmt.Fprintf(w, "%s %s\n", l[0], observe.DescribeCPUs(l[1]))
	}
	for _, n := range p.Host {
		fmt.Fprintln(w, n)
	}
	switch {
	case st.Order == "random" && p.SeedDrawn:
		fmt.Fprintf(w, "the study gives no seed: this order is seed %d's, drawn for this plan; '--set seed=%d' runs it (without a seed the run draws another, and prints it)\n", s.Seed, s.Seed)
	case st.Order == "random":
		fmt.Fprintf(w, "the order is seed %d's: the run follows it\n", s.Seed)
	}
	var more []string
	switch n := st.Prepares(); {
	case n > 0:
		more = append(more, textfmt.Plural(n, "prepare")+prepareSize(st))
	case s.Prepare != nil:
		more = append(more, "a prepare when the schema is missing")
	}
	if p.restarts {
		more = append(more, "server restarts")
	}
	extra := ""
	if len(more) > 0 {
		extra = " (plus " + strings.Join(more, " and ") + ")"
	}
	fmt.Fprintf(w, "total: %s%s\n", options.FormatDuration(st.Duration()), extra)
}

func describeType(s target.Setting) string {
	switch {
	case s.Type == "enum" && len(s.Enum) > 0:
		return "one of " + strings.Join(s.Enum, ", ")
	case (s.Type == "integer" || s.Type == "real") && s.Min != "" && s.Max != "":
		t := s.Type + " " + s.Min + " to " + s.Max
		if s.Unit != "" {
			t += " " + s.Unit
		}
		return t
	}
	return s.Type
}

// cpuLists are the study's CPU lists, each once, as option and list: what each covers on this
// host (cores, SMT siblings, NUMA nodes) is printed beside the plan, since a list alone does not
// say it.
func cpuLists(st *Study) [][2]string {
	var out [][2]string
	for _, f := range []struct {
		name  string
		lists []string
	}{{"client-cpus", st.ClientCPUs}, {"server-cpus", st.ServerCPUs}} {
		for _, l := range f.lists {
			if l != "" && !slices.Contains(out, [2]string{f.name, l}) {
				out = append(out, [2]string{f.name, l})
			}
		}
	}
	return out
}

// cpuTopology is what a case's CPU list covers on this host; nil where the list does not parse.
func cpuTopology(list string) *results.CPUTopology {
	cpus, err := textfmt.ParseCPUList(list)
	if err != nil {
		return nil
	}
	return observe.Topology(cpus)
}

// printOptions writes the workload option factors, and for a schema factor how many schemas the
// study prepares and drops.
func (p *Plan) printOptions(w io.Writer) {
	st := p.Study
	if len(st.Options) == 0 {
		return
	}
	fmt.Fprintln(w, "workload options (as studied):")
	width := 0
	for _, f := range st.Options {
		width = max(width, len(f.Name))
	}
	for _, f := range st.Options {
		kind := "the run's option"
		if f.Schema {
			kind = "the schema: each level prepared"
		}
		fmt.Fprintf(w, "  %-*s  → %s (%s)\n", width, f.Name, strings.Join(f.Values, ", "), kind)
	}
	if n := st.Prepares(); n > 0 {
		blocks := len(schemaBlocks(st.Cases()))
		how := "once per schema"
		if n > blocks {
			how = fmt.Sprintf("%s, so some more than once in this order", textfmt.Plural(blocks, "schema"))
		}
		fmt.Fprintf(w, "  %s (%s)%s; the study drops each schema it prepared when the next is due and at its end, also on an error or Ctrl-C\n",
			textfmt.Plural(n, "prepare"), how, prepareSize(st))
	}
}

// prepareSize says about how many rows each of the study's schemas loads: ", each about 5.0M
// rows", "" where the workload does not say.
func prepareSize(st *Study) string {
	rows := st.PrepareRows()
	if len(rows) == 0 {
		return ""
	}
	lo, hi := slices.Min(rows), slices.Max(rows)
	if lo == hi {
		return ", each about " + rowCount(lo) + " rows"
	}
	return ", each about " + rowCount(lo) + " to " + rowCount(hi) + " rows"
}

// rowCount words a row count roughly: 2.5M, 800k, 950.
func rowCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
