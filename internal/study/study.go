// Package study is a tuning experiment in one file: a run spec, the factors it varies (server
// settings, VU counts, client and server CPU bindings), how often and in what order its steps
// run, and the setting changes made live inside each run's window. This file reads and checks
// study files and lays out their steps; plan.go checks them against the server; run.go applies a
// case's settings, makes the live changes and restores every setting, telling the session's
// event bus what it set. The session (internal/session) runs the steps: a study drives no run.
package study

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Study is a parsed study file.
type Study struct {
	Name string
	// Spec is the run spec every step starts from: its VU list is the vu factor, its repeat and
	// pause the study's.
	Spec     *spec.Spec
	Order    string // sequential, interleaved or random
	Settings []Factor
	// Options are the workload's options given a list of values (options.NAME, prepare.NAME):
	// factors whose levels are set as --set sets them; those of the prepare are schemas
	// (options.go).
	Options []Factor
	// ClientCPUs and ServerCPUs are factors of CPU lists; one empty level when not varied.
	ClientCPUs []string
	ServerCPUs []string
	Schedule   []Change
	Restart    string
	Ready      time.Duration // how long a restarted server has to answer
	// Host are the original host's settings cairn does not set (host:), which the plan says this
	// host reproduces or not (HostNotes).
	Host []Assign
	Text []byte // the file as given
}

// Factor is a server setting, or a workload option (options.NAME, prepare.NAME), and the values
// the study gives it.
type Factor struct {
	Name   string
	Values []string
	// Schema: a workload option whose levels are schemas of their own, prepared in turn.
	Schema bool
	typed  []any // a workload option's values as the file typed them (true, 8), for Config
}

// Change is a live change: settings set at a time within each run's window, given as a time
// ("3m") or as a share of the window ("20%", which keeps a schedule's shape when --set changes
// the duration).
type Change struct {
	At   time.Duration
	Frac float64 // > 0: At is this share of the window
	Set  []Assign
	// VUs > 0 changes the load: the VUs running from At on (a run's load schedule, spec's
	// schedule), made by the run's engine.
	VUs int
}

// LoadSchedule is the schedule's load changes as a run spec's schedule (spec.Engine's), its
// times resolved in the window; "" when it changes no load.
func (st *Study) LoadSchedule() string {
	var parts []string
	for _, ch := range st.Schedule {
		if ch.VUs > 0 {
			parts = append(parts, fmt.Sprintf("%dms:vu=%d", ch.At.Milliseconds(), ch.VUs))
		}
	}
	return strings.Join(parts, ",")
}

// Assign is one setting's value.
type Assign struct{ Name, Value string }

// Case is one combination of the factors other than the VU count.
type Case struct {
	Index      int
	Options    []Assign // workload option levels, by path: prepare.partition=true
	Schema     string   // the levels of the schema factors, "" when there are none
	Settings   []Assign
	ClientCPUs string
	ServerCPUs string
}

// Label names the case for people and charts: "innodb_adaptive_hash_index=ON client 0-1".
func (c Case) Label() string {
	var parts []string
	for _, a := range append(append([]Assign(nil), c.Options...), c.Settings...) {
		parts = append(parts, a.Name+"="+a.Value)
	}
	if c.ClientCPUs != "" {
		parts = append(parts, "client-cpus "+c.ClientCPUs)
	}
	if c.ServerCPUs != "" {
		parts = append(parts, "server-cpus "+c.ServerCPUs)
	}
	if len(parts) == 0 {
		return "as found"
	}
	return strings.Join(parts, ", ")
}

// Step is one run of the study: a case at a VU count, the repeat-th time.
type Step struct {
	Case   *Case
	VU     int
	Repeat int
}

// Error is a bad study file; Key is the dotted path of the key at fault.
type Error = spec.Error

func errf(key, format string, a ...any) error {
	return &spec.Error{Key: key, Msg: fmt.Sprintf(format, a...)}
}

var orders = []string{"sequential", "interleaved", "random"}

// settingName is what a setting's name may look like before the server is asked about it: the
// names of PostgreSQL, MySQL/MariaDB and SQLite all fit.
var settingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// ReadFile reads a study file.
func ReadFile(path string) (*Study, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return nil, errf("", "cannot read %s: %v", path, err)
	}
	return Read(b)
}

// Read parses a study as the command line does: ${VAR} read from the user's environment.
func Read(text []byte) (*Study, error) { return ReadEnv(text, target.UserEnv) }

// ReadEnv parses a study: a run spec with the study's own keys beside its own, its ${VAR}s
// expanded as env says (cairn serve's: only a password's).
func ReadEnv(text []byte, env target.Env) (*Study, error) {
	doc, err := spec.Document(text, "YAML")
	if err != nil {
		return nil, err
	}
	optFactors, err := takeOptionFactors(doc)
	if err != nil {
		return nil, err
	}
	st := &Study{Order: "sequential", Ready: 60 * time.Second, ClientCPUs: []string{""}, ServerCPUs: []string{""}, Text: text}
	var schedule *yaml.Node
	repeat, pause, after := 0, (*time.Duration)(nil), (*string)(nil)
	extra := func(key string, v *yaml.Node) (bool, error) {
		switch key {
		case "name":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return true, errf(key, "must be a name")
			}
			st.Name = v.Value
		case "order":
			if v.Kind != yaml.ScalarNode || !contains(orders, v.Value) {
				return true, errf(key, "use %s", strings.Join(orders, ", "))
			}
			st.Order = v.Value
		case "settings":
			f, err := readFactors(v)
			if err != nil {
				return true, err
			}
			st.Settings = f
		case "schedule":
			schedule = v
		case "restart":
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
				return true, errf(key, "must be the command that restarts the server")
			}
			st.Restart = v.Value
		case "ready_timeout":
			d, err := duration(key, v)
			if err != nil {
				return true, err
			}
			st.Ready = d
		case "repeat": // a spec of one VU count has no repeat of its own; a study has
			n, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 1000 {
				return true, errf(key, "must be a whole number from 1 to 1000")
			}
			repeat = n
		case "pause":
			d, err := duration(key, v)
			if err != nil {
				return true, err
			}
			pause = &d
		case "after":
			if v.Kind != yaml.ScalarNode {
				return true, errf(key, "must be housekeeping tasks joined by commas, like checkpoint,vacuum")
			}
			if _, err := target.ParseHousekeeping(v.Value); err != nil {
				return true, errf(key, "%v", err)
			}
			after = &v.Value
		case "host":
			h, err := readHost(v)
			if err != nil {
				return true, err
			}
			st.Host = h
		case "client_cpus", "server_cpus":
			l, err := scalars(key, v)
			if err != nil {
				return true, err
			}
			if key == "client_cpus" {
				st.ClientCPUs = l
			} else {
				st.ServerCPUs = l
			}
		default:
			return false, nil
		}
		return true, nil
	}
	s, err := spec.FromNode(doc, env, extra)
	if err != nil {
		return nil, err
	}
	if w, err := workload.Get(s.Workload); err == nil {
		if _, own := w.(workload.Tester); own {
			return nil, errf("workload", "a study runs workloads measured over a window at a VU count; %s runs tests of its own shape", s.Workload)
		}
	}
	st.Spec = s
	s.Profile = true // the VU counts are a factor, a list even when of one
	if st.Name == "" {
		return nil, errf("name", "missing: name the study")
	}
	if schedule != nil {
		if st.Schedule, err = readSchedule(schedule, s.Duration); err != nil {
			return nil, err
		}
		if err := fixedRampup(st); err != nil {
			return nil, err
		}
	}
	if repeat > 0 {
		s.Repeat = repeat
	}
	if pause != nil {
		s.Pause = *pause
	}
	if after != nil {
		s.After = *after
	}
	for _, key := range []string{"client_cpus", "server_cpus"} {
		for _, l := range map[string][]string{"client_cpus": st.ClientCPUs, "server_cpus": st.ServerCPUs}[key] {
			if l == "" {
				continue
			}
			if err := s.Set(strings.ReplaceAll(key, "_", "-"), l); err != nil {
				return nil, err
			}
			if err := s.Check(); err != nil {
				return nil, err
			}
		}
	}
	s.ClientCPUs, s.ServerCPUs = "", ""
	st.Options = optFactors
	if err := st.checkOptionFactors(); err != nil {
		return nil, err
	}
	return st, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func scalars(key string, v *yaml.Node) ([]string, error) {
	if v.Kind == yaml.ScalarNode {
		return []string{v.Value}, nil
	}
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return nil, errf(key, "must be a value or a list of values")
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range v.Content {
		if it.Kind != yaml.ScalarNode {
			return nil, errf(key, "must be a list of values")
		}
		if seen[it.Value] {
			return nil, errf(key, "%s appears twice", it.Value)
		}
		seen[it.Value] = true
		out = append(out, it.Value)
	}
	return out, nil
}

func duration(key string, v *yaml.Node) (time.Duration, error) {
	if v.Kind != yaml.ScalarNode {
		return 0, errf(key, "must be a duration, like 30s")
	}
	d, err := time.ParseDuration(v.Value)
	if err != nil || d <= 0 {
		return 0, errf(key, "must be a positive duration, like 30s (given %s)", v.Value)
	}
	return d, nil
}

func readFactors(v *yaml.Node) ([]Factor, error) {
	if v.Kind != yaml.MappingNode {
		return nil, errf("settings", "must be a mapping of setting names to a value or a list of values")
	}
	var out []Factor
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		name := v.Content[i].Value
		key := "settings." + name
		if !settingName.MatchString(name) {
			return nil, errf(key, "not a setting name")
		}
		if seen[strings.ToLower(name)] {
			return nil, errf(key, "given twice")
		}
		seen[strings.ToLower(name)] = true
		vals, err := scalars(key, v.Content[i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, Factor{Name: name, Values: vals})
	}
	return out, nil
}

func readSchedule(v *yaml.Node, window time.Duration) ([]Change, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, errf("schedule", "must be a list of {at: TIME, set: {SETTING: VALUE}} or {at: TIME, vu: N}")
	}
	var out []Change
	for i, it := range v.Content {
		key := fmt.Sprintf("schedule[%d]", i)
		if it.Kind != yaml.MappingNode {
			return nil, errf(key, "must be {at: TIME, set: {SETTING: VALUE}} or {at: TIME, vu: N}")
		}
		var ch Change
		var hasAt bool
		for j := 0; j+1 < len(it.Content); j += 2 {
			k, val := it.Content[j].Value, it.Content[j+1]
			switch k {
			case "at":
				if pct, ok := strings.CutSuffix(val.Value, "%"); ok && val.Kind == yaml.ScalarNode {
					f, err := strconv.ParseFloat(pct, 64)
					if err != nil || f <= 0 || f >= 100 {
						return nil, errf(key+".at", "a share of the window must be between 0%% and 100%%, like 20%%")
					}
					ch.Frac, hasAt = f/100, true
					continue
				}
				d, err := time.ParseDuration(val.Value)
				if val.Kind != yaml.ScalarNode || err != nil {
					return nil, errf(key+".at", "must be a time within the window, like 3m, or a share of it, like 20%%")
				}
				ch.At, hasAt = d, true
			case "set":
				if val.Kind != yaml.MappingNode || len(val.Content) == 0 {
					return nil, errf(key+".set", "must be a mapping of setting names to values")
				}
				for n := 0; n+1 < len(val.Content); n += 2 {
					name, value := val.Content[n].Value, val.Content[n+1]
					if !settingName.MatchString(name) {
						return nil, errf(key+".set."+name, "not a setting name")
					}
					if value.Kind != yaml.ScalarNode {
						return nil, errf(key+".set."+name, "must be one value")
					}
					ch.Set = append(ch.Set, Assign{Name: name, Value: value.Value})
				}
			case "vu":
				n, err := strconv.Atoi(val.Value)
				if val.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 100000 {
					return nil, errf(key+".vu", "must be a whole number from 1 to 100000: the VUs running from then on")
				}
				ch.VUs = n
			default:
				return nil, errf(key+"."+k, "unknown key (accepted: at, set, vu)")
			}
		}
		if !hasAt || len(ch.Set) == 0 && ch.VUs == 0 {
			return nil, errf(key, "needs at, and set or vu")
		}
		out = append(out, ch)
	}
	return out, resolve(out, window)
}

// resolve places the schedule in a window of the given length: shares become times, and every
// time must fall inside the window, in rising order.
func resolve(sched []Change, window time.Duration) error {
	for i := range sched {
		ch := &sched[i]
		key := fmt.Sprintf("schedule[%d].at", i)
		if ch.Frac > 0 {
			ch.At = time.Duration(ch.Frac * float64(window)).Round(time.Millisecond)
		}
		if ch.At <= 0 || ch.At >= window {
			return errf(key, "%s is outside the measured window (0 to %s): a live change must fall inside it", options.FormatDuration(ch.At), options.FormatDuration(window))
		}
		if i > 0 && ch.At <= sched[i-1].At {
			return errf(key, "the schedule must be in rising order of time")
		}
	}
	return nil
}

// Set changes one key by its dotted path, as 'cairn run --set' does a run spec's, and the study's
// own: repeat, pause, order. The schedule is placed again in the window it now has.
func (st *Study) Set(path, value string) error {
	s := st.Spec
	switch path {
	case "repeat":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > 1000 {
			return errf(path, "must be a whole number from 1 to 1000")
		}
		s.Repeat = n
		return nil
	case "pause":
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			return errf(path, "must be a duration, like 10s")
		}
		s.Pause = d
		return nil
	case "after":
		if _, err := target.ParseHousekeeping(value); err != nil {
			return errf(path, "%v", err)
		}
		s.After = value
		return nil
	case "order":
		if !contains(orders, value) {
			return errf(path, "use %s", strings.Join(orders, ", "))
		}
		st.Order = value
		return nil
	case "vu":
		if err := s.Set(path, value); err != nil {
			return err
		}
		s.Profile = true // a study's VU counts are a factor: one count is a list of one
		return nil
	case "name", "settings", "schedule", "restart", "client_cpus", "server_cpus":
		return errf(path, "edit the study file to change it")
	}
	if i := st.optionFactor(path); i >= 0 {
		// One value for a factor: the factor gives way to it, as a list of one would.
		st.Options = slices.Delete(st.Options, i, i+1)
	}
	if err := s.Set(path, value); err != nil {
		return err
	}
	if err := s.Check(); err != nil {
		return err
	}
	if err := st.checkOptionFactors(); err != nil {
		return err
	}
	if err := fixedRampup(st); err != nil {
		return err
	}
	return resolve(st.Schedule, s.Duration)
}

// fixedRampup refuses a rampup until steady beside a schedule of live changes: the changes'
// times on the run's clock count a fixed rampup before the window.
func fixedRampup(st *Study) error {
	if len(st.Schedule) > 0 && st.Spec.RampupUntilSteady > 0 {
		return errf("schedule", "a schedule of live changes needs a fixed rampup: drop rampup-until-steady")
	}
	return nil
}

// Cases are every combination of the workload options' values, the settings' values and the
// CPU lists, in the order the file lists them (the last factor varies fastest), the schema's
// factors first: they vary slowest, so that each schema's cases come together.
func (st *Study) Cases() []*Case {
	cases := []*Case{{}}
	var opts []Factor
	for _, f := range st.Options {
		if f.Schema {
			opts = append(opts, f)
		}
	}
	for _, f := range st.Options {
		if !f.Schema {
			opts = append(opts, f)
		}
	}
	for _, f := range opts {
		var next []*Case
		for _, c := range cases {
			for _, v := range f.Values {
				next = append(next, &Case{Options: append(append([]Assign(nil), c.Options...), Assign{f.Name, v})})
			}
		}
		cases = next
	}
	for _, f := range st.Settings {
		var next []*Case
		for _, c := range cases {
			for _, v := range f.Values {
				n := &Case{Options: c.Options, Settings: append(append([]Assign(nil), c.Settings...), Assign{f.Name, v})}
				next = append(next, n)
			}
		}
		cases = next
	}
	var out []*Case
	for _, c := range cases {
		for _, cl := range st.ClientCPUs {
			for _, sv := range st.ServerCPUs {
				out = append(out, &Case{Index: len(out), Options: c.Options, Schema: schemaKey(c.Options, opts), Settings: c.Settings, ClientCPUs: cl, ServerCPUs: sv})
			}
		}
	}
	return out
}

// Steps lays out the runs in the study's order. sequential: each case in turn, its VU counts
// rising, each repeated at once; interleaved: every case and VU count once per round, so that
// repeats are spread over the study's time and drift touches every level alike; random: the
// sequential steps shuffled with the spec's seed.
func (st *Study) Steps() []Step {
	cases := st.Cases()
	if blocks := schemaBlocks(cases); len(blocks) > 1 {
		return st.blockSteps(blocks)
	}
	vus := st.Spec.VU
	repeat := st.Spec.Repeat
	var out []Step
	switch st.Order {
	case "interleaved":
		for r := 0; r < repeat; r++ {
			for _, c := range cases {
				for _, vu := range vus {
					out = append(out, Step{Case: c, VU: vu, Repeat: r})
				}
			}
		}
	default:
		for _, c := range cases {
			for _, vu := range vus {
				for r := 0; r < repeat; r++ {
					out = append(out, Step{Case: c, VU: vu, Repeat: r})
				}
			}
		}
		if st.Order == "random" {
			rng := rand.New(rand.NewPCG(st.Spec.Seed, 0x5ca1ab1e))
			rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		}
	}
	return out
}

// DrawSeed gives the study a random seed when it has none (the run's streams, and a random
// order, come from it); it says whether it drew one.
func (st *Study) DrawSeed() bool {
	if st.Spec.Seed != 0 {
		return false
	}
	st.Spec.Seed = workload.RandomSeed()
	return true
}

// Duration is how long the steps take: each run's rampup (a rampup until steady at its bound)
// and window, and the pauses between them (a prepare and server restarts come on top).
func (st *Study) Duration() time.Duration {
	n := len(st.Steps())
	s := st.Spec
	d := time.Duration(n) * (max(s.Rampup, s.RampupUntilSteady) + s.Duration)
	if n > 1 {
		d += time.Duration(n-1) * s.Pause
	}
	return d
}

// SettingNames lists every setting the study touches, factors and live changes, each once, in
// the order they first appear.
func (st *Study) SettingNames() []string {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[strings.ToLower(n)] {
			seen[strings.ToLower(n)] = true
			out = append(out, n)
		}
	}
	for _, f := range st.Settings {
		add(f.Name)
	}
	for _, ch := range st.Schedule {
		for _, a := range ch.Set {
			add(a.Name)
		}
	}
	return out
}

// studyKeys are the keys a study file has beyond its run spec's.
var studyKeys = []string{"name", "order", "repeat", "pause", "after", "settings", "schedule", "restart", "ready_timeout", "client_cpus", "server_cpus", "host"}

// Config is the study as its document stores it: the run spec's keys with every default (its
// password a ${CAIRN_PASSWORD} reference), and the study's own keys as the file gives them.
func (st *Study) Config() map[string]any {
	cfg := st.Spec.Config()
	var raw map[string]any
	if yaml.Unmarshal(st.Text, &raw) == nil {
		for _, k := range studyKeys {
			if v, ok := raw[k]; ok {
				cfg[k] = v
			}
		}
	}
	// As the study ran, --set included.
	cfg["repeat"], cfg["pause"], cfg["order"] = st.Spec.Repeat, options.FormatDuration(st.Spec.Pause), st.Order
	if st.Spec.After != "" {
		cfg["after"] = st.Spec.After
	}
	// A workload option factor is its list of levels, where the spec has one of them.
	for _, f := range st.Options {
		key, name, _ := strings.Cut(f.Name, ".")
		if m, ok := cfg[key].(map[string]any); ok {
			m[name] = f.typed
		}
		if m, ok := cfg["prepare"].(map[string]any); ok && f.Schema && key == "options" {
			m[name] = f.typed // the prepare's, which the run's option sets
		}
	}
	return cfg
}
