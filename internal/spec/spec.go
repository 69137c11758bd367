// Package spec is the run spec: one plain value that says everything a run or a profile does —
// workload, database, the engine's settings, the workload's options, an optional prepare — so that
// any front end (the command line, a study, a web request) can make one and any can run it. It is
// read from YAML or JSON, strictly (an unknown key, a wrong type or a bad value is an error naming
// the key), written back as YAML, and stored as the result's config.
package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/textfmt"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Spec is one run or profile.
type Spec struct {
	Workload string
	// DB is the database: a URL, or a shard set's URLs, its ${VAR}s expanded when read from a
	// spec (a flag's stay as given, for target.ParseURL to expand).
	DB string
	// Replica is the replicas of DB's primary (docs/tpcc.md#replicas): their URLs separated by
	// spaces, as DB's shard set, "" for none; ${VAR}s expanded as DB's.
	Replica string
	// Profile says VU is a list of steps (a profile) rather than one count (a run).
	Profile bool
	Engine
	Options any      // the workload's run options (a pointer to its struct)
	Prepare *Prepare // nil: the schema must be there already
	// written is db as the spec gave it, its references unexpanded, while DB still holds what it
	// expanded to (expanded): what the spec writes back.
	written, expanded string
	// replicaWritten and replicaExpanded are the same for Replica.
	replicaWritten, replicaExpanded string
}

// writtenURLs are db's and the replicas' URLs as the spec writes them, every secret a ${VAR}
// reference named over both lists at once (WrittenURLs), and the variables they read.
func (s *Spec) writtenURLs() (db, replicas, vars []string) {
	d := target.SetURLs(s.dbWritten())
	var r []string
	rw := s.Replica
	if s.replicaWritten != "" && s.Replica == s.replicaExpanded {
		rw = s.replicaWritten
	}
	if rw != "" {
		r = target.SetURLs(rw)
	}
	all, vars := WrittenURLs(append(d, r...))
	return all[:len(d)], all[len(d):], vars
}

// dbWritten is db as given: a spec's references kept; a DB set since (a flag) is its own.
func (s *Spec) dbWritten() string {
	if s.written != "" && s.DB == s.expanded {
		return s.written
	}
	return s.DB
}

// Prepare asks a run to prepare the schema first when the database has none.
type Prepare struct {
	Options any // the workload's prepare options
}

// Error is a bad spec: Key is the dotted path of the key at fault ("options.mode").
type Error struct {
	Key string
	Msg string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return "spec: " + e.Msg
	}
	return fmt.Sprintf("spec: %s: %s", e.Key, e.Msg)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *Error) BadInput() {}

func errf(key, format string, a ...any) error {
	return &Error{Key: key, Msg: fmt.Sprintf(format, a...)}
}

// New makes a spec of the workload with every default: a run (profile false) or a profile.
func New(name string, profile bool) (*Spec, error) {
	w, err := workload.Get(name)
	if err != nil {
		return nil, err
	}
	if profile && !w.Info().Profile {
		return nil, errf("vu", "%s runs no profiles: give one VU count", name)
	}
	return &Spec{Workload: name, Profile: profile, Engine: EngineDefaults(w.Info(), profile), Options: w.RunOptions()}, nil
}

// WorkloadOf returns the spec's workload, resolved from the registry by its name: the spec holds
// no live workload, only the name New checked.
func (s *Spec) WorkloadOf() workload.Workload {
	w, err := workload.Get(s.Workload)
	if err != nil {
		panic("spec of an unregistered workload " + s.Workload + ": make specs with New")
	}
	return w
}

// AskPrepare turns on the prepare step, its options starting from the workload's defaults and
// taking any run option of the same name (oltp's tables and table-size).
func (s *Spec) AskPrepare() {
	if s.Prepare != nil {
		return
	}
	p := &Prepare{Options: s.WorkloadOf().PrepareOptions()}
	shared(s.Options, p.Options)
	s.Prepare = p
}

// shared copies the values of the options that from and to both declare.
func shared(from, to any) {
	for _, f := range options.Fields(from) {
		if g, ok := options.Lookup(to, f.Name); ok && g.Kind == f.Kind && !f.IsUnset(from) {
			_ = g.SetValue(to, f.Get(from), "")
		}
	}
}

// engineFields are the engine settings a spec of this workload has, in order.
func (s *Spec) engineFields() []options.Field {
	var out []options.Field
	info := s.WorkloadOf().Info()
	for _, f := range options.Fields(&s.Engine) {
		if !info.Uses(f.Name) {
			continue
		}
		if !s.Profile && ProfileOnly(f.Name) || s.Profile && RunOnly(f.Name) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Check validates what the fields alone cannot: the whole spec's consistency, and the workload
// options' own rules.
func (s *Spec) Check() error {
	if !strings.Contains(s.DB, "${") { // a stored config keeps its references unexpanded
		if _, err := target.ParseURL(s.DB); err != nil {
			return err
		}
	}
	if s.Replica != "" && !s.WorkloadOf().Info().Uses("route") {
		return errf("replica", "%s sends nothing to replicas", s.Workload)
	}
	if s.Replica != "" && s.Part != "" {
		return errf("replica", "the parts of a run (--part) do not take replicas: run it from one process")
	}
	if s.Replica != "" && !strings.Contains(s.Replica, "${") {
		if target.IsSet(s.DB) {
			return errf("replica", "a primary with replicas is one database: --db names a shard set")
		}
		for _, u := range target.SetURLs(s.Replica) {
			if _, err := target.ParseURL(u); err != nil {
				return errf("replica", "%s", trimFlag(err.Error()))
			}
		}
	}
	if s.WorkloadOf().Info().Uses("vu") {
		if len(s.VU) == 0 {
			return errf("vu", "give a VU count")
		}
		if !s.Profile && len(s.VU) != 1 {
			return errf("vu", "a run takes one VU count; a list is a profile")
		}
		// A profile's steps run in rising order, each count once.
		sort.Ints(s.VU)
		for i := 1; i < len(s.VU); i++ {
			if s.VU[i] == s.VU[i-1] {
				return errf("vu", "%d appears twice", s.VU[i])
			}
		}
	}
	if err := s.Parting.Check(); err != nil {
		return err
	}
	if s.Part != "" && s.Profile {
		return errf("part", "a profile runs in one process: --part splits a run")
	}
	if s.RampupUntilSteady > 0 && s.Part != "" {
		return errf("rampup-until-steady", "the parts of a run share one agreed window start, which one part's series cannot move: give a fixed --rampup")
	}
	if s.RampupUntilSteady > 0 && s.RampupUntilSteady < s.Rampup {
		return errf("rampup-until-steady", "the bound is below --rampup (%s), the rampup's least length: give at least that", options.FormatDuration(s.Rampup))
	}
	if s.Schedule != "" {
		if err := s.checkSchedule(); err != nil {
			return err
		}
	}
	if _, err := target.ParseHousekeeping(s.After); err != nil {
		return &options.Error{Name: "after", Value: s.After, Msg: err.Error()}
	}
	if s.Terminals > 0 && s.Profile {
		return errf("terminals", "a profile varies the VUs, each with its connection; run terminals over pooled connections with run")
	}
	if s.Terminals > 0 && s.Rate > 0 {
		return errf("rate", "--rate and --terminals exclude each other: terminals submit when they have keyed (or at once, without --keying-thinking), not on a schedule")
	}
	if s.Connections > 0 && s.Terminals == 0 {
		return errf("connections", "--connections sizes the pool that serves --terminals; give --terminals too (without it, --vu sets the connections)")
	}
	if s.WorkloadOf().Info().Uses("duration") && s.Duration <= 0 {
		return &options.Error{Name: "duration", Msg: "must be positive, like 2m"}
	}
	for key, list := range map[string]string{"client-cpus": s.ClientCPUs, "server-cpus": s.ServerCPUs} {
		if list != "" {
			if _, err := textfmt.ParseCPUList(list); err != nil {
				return &options.Error{Name: key, Value: list, Msg: strings.TrimPrefix(err.Error(), fmt.Sprintf("%q is ", list))}
			}
		}
	}
	if r, ok := s.Options.(interface{ Resolve() }); ok {
		r.Resolve() // defaults that depend on other options
	}
	if v, ok := s.Options.(interface{ Validate(*workload.Engine) error }); ok {
		if err := v.Validate(&s.Engine.Engine); err != nil {
			return err
		}
	}
	if s.Prepare != nil {
		if v, ok := s.Prepare.Options.(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				return err
			}
		}
	}
	return nil
}

// Set changes one field by its dotted path: vu=4, duration=30s, options.mode=sql,
// prepare.warehouses=4. A list for vu makes a profile, one count a run.
func (s *Spec) Set(path, value string) error {
	key, rest, nested := strings.Cut(path, ".")
	switch {
	case nested && key == "options":
		f, ok := options.Lookup(s.Options, rest)
		if !ok {
			return errf(path, "%s has no option %q (its options: %s)", s.Workload, rest, strings.Join(options.Names(s.Options), ", "))
		}
		if err := keyed("options", f.Set(s.Options, value)); err != nil {
			return err
		}
		// An option the prepare shares (oltp's table-size) describes the same data: the prepare
		// makes what the run then expects.
		if s.Prepare != nil {
			if g, ok := options.Lookup(s.Prepare.Options, rest); ok && g.Kind == f.Kind {
				return keyed("prepare", g.Set(s.Prepare.Options, value))
			}
		}
		return nil
	case nested && key == "prepare":
		s.AskPrepare()
		f, ok := options.Lookup(s.Prepare.Options, rest)
		if !ok {
			return errf(path, "%s's prepare has no option %q (its options: %s)", s.Workload, rest, strings.Join(options.Names(s.Prepare.Options), ", "))
		}
		if err := keyed("prepare", f.Set(s.Prepare.Options, value)); err != nil {
			return err
		}
		if g, ok := options.Lookup(s.Options, rest); ok && g.Kind == f.Kind {
			return keyed("options", g.Set(s.Options, value))
		}
		return nil
	case nested:
		return errf(path, "unknown key %q (use workload, db, the engine's settings, options.NAME or prepare.NAME)", key)
	case path == "options":
		return errf(path, "set one option at a time: options.NAME=VALUE (%s's options: %s)", s.Workload, strings.Join(options.Names(s.Options), ", "))
	}
	switch path {
	case "workload":
		return errf(path, "the workload of a spec cannot be changed with --set: write another spec")
	case "db":
		s.DB = value
		return nil
	case "replica":
		s.Replica = value
		return nil
	case "prepare":
		switch value {
		case "true":
			s.AskPrepare()
		case "false":
			s.Prepare = nil
		default:
			return errf(path, "use true or false, or prepare.NAME=VALUE")
		}
		return nil
	}
	f, ok := options.Lookup(&s.Engine, path)
	if !ok || !s.WorkloadOf().Info().Uses(path) {
		return errf(path, "unknown key (accepted: %s)", strings.Join(s.topKeys(), ", "))
	}
	if err := f.Set(&s.Engine, value); err != nil {
		return keyed("", err)
	}
	if path == "vu" {
		s.Profile = strings.Contains(value, ",")
		if s.Profile && !s.WorkloadOf().Info().Profile {
			return errf("vu", "%s runs no profiles: give one VU count", s.Workload)
		}
	}
	return nil
}

func keyed(prefix string, err error) error {
	if oe, ok := err.(*options.Error); ok {
		name := oe.Name
		if prefix != "" {
			name = prefix + "." + name
		}
		if oe.Value == "" || strings.Contains(oe.Msg, oe.Value) {
			return errf(name, "%s", oe.Msg)
		}
		return errf(name, "%s (given %s)", oe.Msg, oe.Value)
	}
	return err
}

func (s *Spec) topKeys() []string {
	keys := []string{"workload", "db"}
	for _, f := range options.Fields(&s.Engine) {
		if s.WorkloadOf().Info().Uses(f.Name) {
			keys = append(keys, f.Name)
		}
	}
	return append(keys, "replica", "options", "prepare")
}

// Read parses a spec in YAML or JSON as the command line does: ${VAR} in any value is replaced by
// the environment variable VAR, which must be set; nothing else in the text is interpreted.
func Read(text []byte) (*Spec, error) { return ReadEnv(text, target.UserEnv) }

// ReadEnv parses a spec, its ${VAR}s expanded as env says (cairn serve's: only a password's).
func ReadEnv(text []byte, env target.Env) (*Spec, error) {
	return read(text, decoder{env: env}, nil)
}

// readLiteral parses a spec without expanding ${VAR}: a stored config keeps its references.
func readLiteral(text []byte) (*Spec, error) {
	return read(text, decoder{literal: true}, nil)
}

// ReadStored parses a spec as a result stored it (a bundle's spec), its ${VAR} references left
// as they are; change edits it before it is checked as a whole, as ReadFile's.
func ReadStored(text []byte, change func(*Spec) error) (*Spec, error) {
	return read(text, decoder{literal: true}, change)
}

// ReadFile reads a spec file. change, when not nil, edits it (--set, --part) before the spec is
// checked as a whole: the file need not be consistent by itself (a part-run without its part,
// which each process gives), only with the changes.
func ReadFile(path string, change func(*Spec) error) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, errf("", "cannot read %s: %v", path, unwrapPath(err))
	}
	return read(b, decoder{env: target.UserEnv}, change)
}

func read(text []byte, dec decoder, change func(*Spec) error) (*Spec, error) {
	doc, err := Document(text, "YAML or JSON")
	if err != nil {
		return nil, err
	}
	s, err := dec.fromNode(doc, nil)
	if err != nil {
		return nil, err
	}
	if change != nil {
		if err := change(s); err != nil {
			return nil, err
		}
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// Document parses text that must hold one YAML (or JSON) document and returns its top node. A
// second document is refused rather than ignored: a file of several specs would otherwise run
// its first silently. what names the format in the message.
func Document(text []byte, what string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, errf("", "empty")
	} else if err != nil {
		return nil, errf("", "not %s: %s", what, yamlMsg(err))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, errf("", "empty")
	}
	for {
		var next yaml.Node
		switch err := dec.Decode(&next); {
		case errors.Is(err, io.EOF):
			return doc.Content[0], nil
		case err != nil:
			return nil, errf("", "not %s: %s", what, yamlMsg(err))
		}
		if len(next.Content) > 0 && next.Content[0].Tag != "!!null" { // a trailing --- with nothing after it
			return nil, errf("", "holds more than one YAML document (another begins at line %d): give one per file", next.Line)
		}
	}
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func yamlMsg(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// decoder reads specs: env says which ${VAR} it expands and where; literal leaves every one as
// it is (a stored config keeps its references).
type decoder struct {
	literal bool
	env     target.Env
}

// expand replaces ${VAR} in a scalar's text.
func (d decoder) expand(key, text string) (string, error) {
	if d.literal {
		return text, nil
	}
	out, err := d.env.Expand(text)
	if err != nil {
		return "", errf(key, "%s", err.Error())
	}
	return out, nil
}

// FromNode reads a spec from a YAML mapping, its ${VAR}s expanded as env says, and checks it;
// extra, when not nil, is offered the keys a spec does not know (a study's own keys), and returns
// false for those it does not know either.
func FromNode(n *yaml.Node, env target.Env, extra func(key string, v *yaml.Node) (bool, error)) (*Spec, error) {
	s, err := decoder{env: env}.fromNode(n, extra)
	if err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

func (dec decoder) fromNode(n *yaml.Node, extra func(key string, v *yaml.Node) (bool, error)) (*Spec, error) {
	if n.Kind != yaml.MappingNode {
		return nil, errf("", "must be a mapping of keys to values")
	}
	fields := map[string]*yaml.Node{}
	var order []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if _, dup := fields[k]; dup {
			return nil, errf(k, "given twice")
		}
		fields[k] = n.Content[i+1]
		if k != "prepare" {
			order = append(order, k)
		}
	}
	// The prepare takes the run's options of the same name (AskPrepare): they must be read first,
	// wherever the file puts them.
	if _, ok := fields["prepare"]; ok {
		order = append(order, "prepare")
	}
	if dec.env.SecretsOnly {
		// A front end that expands only secrets refuses a reference anywhere else, the study's
		// own keys (which no one expands) too, before anything reads it.
		for _, k := range order {
			if _, err := dec.expand(k, k); err != nil {
				return nil, err
			}
			if k != "db" {
				if err := dec.refuseRefs(k, fields[k]); err != nil {
					return nil, err
				}
			}
		}
	}
	wn, ok := fields["workload"]
	if !ok {
		return nil, errf("workload", "missing: name the workload (%s)", strings.Join(names(), ", "))
	}
	if wn.Kind != yaml.ScalarNode {
		return nil, errf("workload", "must be a name")
	}
	vu := fields["vu"]
	profile := vu != nil && vu.Kind == yaml.SequenceNode
	s, err := New(wn.Value, profile)
	if err != nil {
		if ue, ok := err.(*workload.UnknownError); ok {
			return nil, errf("workload", "unknown workload %q (use %s)", ue.Name, strings.Join(ue.Known, ", "))
		}
		return nil, err
	}
	for _, k := range order {
		v := fields[k]
		switch k {
		case "workload":
		case "db":
			if err := dec.decodeDB(s, k, v); err != nil {
				return nil, err
			}
		case "replica":
			urls, written, err := dec.decodeURLs(k, v)
			if err != nil {
				return nil, err
			}
			s.Replica, s.replicaWritten, s.replicaExpanded = urls, written, urls
		case "options":
			if err := dec.decodeOptions(k, v, s.Options); err != nil {
				return nil, err
			}
		case "prepare":
			if err := dec.decodePrepare(s, v); err != nil {
				return nil, err
			}
		default:
			f, ok := options.Lookup(&s.Engine, k)
			// A study (extra) runs profiles whatever its vu, and its schedule is its own.
			if ok && s.WorkloadOf().Info().Uses(k) && (s.Profile || !ProfileOnly(k)) && !((s.Profile || extra != nil) && RunOnly(k)) {
				if k == "schedule" && v.Kind == yaml.SequenceNode {
					text, err := scheduleText(v)
					if err != nil {
						return nil, err
					}
					v = &yaml.Node{Kind: yaml.ScalarNode, Value: text}
				}
				if err := dec.decodeField(k, v, f, &s.Engine); err != nil {
					return nil, err
				}
				continue
			}
			if extra != nil {
				if used, err := extra(k, v); err != nil || used {
					if err != nil {
						return nil, err
					}
					continue
				}
			}
			if ok && !s.WorkloadOf().Info().Uses(k) {
				return nil, errf(k, "%s does not use it", s.Workload)
			}
			if ok && RunOnly(k) {
				return nil, errf(k, "a profile runs each step at its VU count: a load schedule is a run's (vu: one count)")
			}
			if ok {
				return nil, errf(k, "only a profile (vu: a list) has it")
			}
			return nil, errf(k, "unknown key (accepted: %s)", strings.Join(s.topKeys(), ", "))
		}
	}
	if s.DB == "" {
		s.DB = target.DefaultDB()
	}
	return s, nil
}

// refuseRefs reads every scalar of a value (its mapping keys too) as the env would expand it,
// for the keys a spec does not expand itself (a study's): an env that expands only secrets
// refuses a reference there, naming the key that holds it.
func (dec decoder) refuseRefs(key string, v *yaml.Node) error {
	switch v.Kind {
	case yaml.ScalarNode:
		_, err := dec.expand(key, v.Value)
		return err
	case yaml.SequenceNode:
		for i, it := range v.Content {
			if err := dec.refuseRefs(fmt.Sprintf("%s[%d]", key, i), it); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			k := key + "." + v.Content[i].Value
			if _, err := dec.expand(key, v.Content[i].Value); err != nil {
				return err
			}
			if err := dec.refuseRefs(k, v.Content[i+1]); err != nil {
				return err
			}
		}
	}
	return nil
}

func names() []string {
	var n []string
	for _, w := range workload.All() {
		n = append(n, w.Info().Name)
	}
	return n
}

func (dec decoder) decodePrepare(s *Spec, v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		switch v.Value {
		case "true":
			s.AskPrepare()
		case "false":
			s.Prepare = nil
		default:
			return errf("prepare", "use true, false or a mapping of prepare options")
		}
		return nil
	}
	s.AskPrepare()
	return dec.decodeOptions("prepare", v, s.Prepare.Options)
}

// decodeOptions reads a mapping of option names into opts.
func (dec decoder) decodeOptions(prefix string, v *yaml.Node, opts any) error {
	if v.Kind != yaml.MappingNode {
		return errf(prefix, "must be a mapping of option names to values")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i].Value
		key := prefix + "." + k
		if seen[k] {
			return errf(key, "given twice")
		}
		seen[k] = true
		f, ok := options.Lookup(opts, k)
		if !ok {
			return errf(key, "unknown option (accepted: %s)", strings.Join(options.Names(opts), ", "))
		}
		if err := dec.decodeField(key, v.Content[i+1], f, opts); err != nil {
			return err
		}
	}
	return nil
}

// decodeField reads one value, from its text, as a flag would be read.
func (dec decoder) decodeField(key string, v *yaml.Node, f options.Field, dst any) error {
	rename := func(err error) error {
		if oe, ok := err.(*options.Error); ok {
			if oe.Value == "" || strings.Contains(oe.Msg, oe.Value) {
				return errf(key, "%s", oe.Msg)
			}
			return errf(key, "%s (given %s)", oe.Msg, oe.Value)
		}
		return err
	}
	if v.Kind == yaml.SequenceNode {
		if f.Kind != options.IntList {
			return errf(key, "must be a single value, not a list")
		}
		var parts []string
		for _, it := range v.Content {
			if it.Kind != yaml.ScalarNode || quoted(it) {
				return errf(key, "must be a list of whole numbers")
			}
			t, err := dec.expand(key, it.Value)
			if err != nil {
				return err
			}
			parts = append(parts, t)
		}
		if len(parts) == 0 {
			return errf(key, "the list is empty")
		}
		return rename(f.Set(dst, strings.Join(parts, ",")))
	}
	if v.Kind != yaml.ScalarNode {
		return errf(key, "must be a single value")
	}
	// A number or a boolean in quotes is a string, which the schema refuses too: a spec means
	// the same to cairn and to any validator.
	if quoted(v) {
		switch f.Kind {
		case options.Int, options.Uint, options.Float, options.IntList:
			return errf(key, "must be a number, not a quoted string (write %s)", v.Value)
		case options.Bool:
			return errf(key, "must be true or false, not a quoted string")
		}
	}
	t, err := dec.expand(key, v.Value)
	if err != nil {
		return err
	}
	if v.Tag == "!!null" {
		return errf(key, "has no value")
	}
	return rename(f.Set(dst, t))
}

// quoted says a scalar is a string by its quotes or its tag, whatever its text.
func quoted(v *yaml.Node) bool {
	return v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 || (v.Tag == "!!str" && v.Style&yaml.TaggedStyle != 0)
}

// Node returns the spec as a YAML mapping, in a fixed order: workload, db, the engine's settings,
// the options, the prepare step. Every option is written, defaults too, so that a spec means the
// same to a later cairn whose defaults differ; options whose zero value means "not given" are
// left out when zero. Every secret of db is a ${VAR} reference (WrittenDB).
func (s *Spec) Node() *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
	}
	add("workload", scalar(s.Workload))
	db, replicas, _ := s.writtenURLs()
	add("db", urlsNode(db))
	if len(replicas) > 0 {
		add("replica", urlsNode(replicas))
	}
	for _, f := range s.engineFields() {
		if f.Name == "vu" && !s.Profile && len(s.VU) == 1 {
			add("vu", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(s.VU[0])})
			continue
		}
		if f.HasUnset && f.IsUnset(&s.Engine) {
			continue // not given (no CPU binding)
		}
		add(f.Name, fieldNode(f, &s.Engine))
	}
	add("options", optionsNode(s.Options))
	if s.Prepare != nil {
		add("prepare", optionsNode(s.Prepare.Options))
	}
	return m
}

func optionsNode(opts any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range options.Fields(opts) {
		if f.Hidden || f.IsUnset(opts) {
			continue // not given: what is prepared, or another option, decides
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f.Name}, fieldNode(f, opts))
	}
	return m
}

func fieldNode(f options.Field, v any) *yaml.Node {
	x := f.Get(v)
	if l, ok := x.([]int); ok {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, n := range l {
			seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(n)})
		}
		return seq
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: options.Format(x)}
	switch f.Kind {
	case options.String:
		n.Tag = "!!str"
		if yaml11Word[strings.ToLower(n.Value)] {
			// YAML 1.1 readers (PyYAML, most schema validators' loaders) take a bare on, off,
			// yes or no for a boolean: quoted, observe: "on" is a string to every reader.
			n.Style = yaml.DoubleQuotedStyle
		}
	case options.Duration:
		n.Tag = "!!str"
	case options.Bool:
		n.Tag = "!!bool"
	case options.Float:
		// untagged: 0 reads back as a number either way, and 500 stays 500
	default:
		n.Tag = "!!int"
	}
	return n
}

// yaml11Word are the plain scalars that YAML 1.1 reads as booleans or null (YAML 1.2, and
// go.yaml.in/yaml/v3, read most of them as strings).
var yaml11Word = map[string]bool{"y": true, "yes": true, "n": true, "no": true, "true": true, "false": true,
	"on": true, "off": true, "null": true, "~": true, "": true}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// YAML writes the spec as YAML.
func (s *Spec) YAML() []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(s.Node()); err != nil {
		panic(err) // a node tree of scalars always encodes
	}
	return b.Bytes()
}

// Config is the spec as the result document stores it: the same keys and values as its YAML,
// every secret a ${VAR} reference.
func (s *Spec) Config() map[string]any {
	var out map[string]any
	if err := s.Node().Decode(&out); err != nil {
		panic(err)
	}
	return out
}

// FromConfig reads a spec back from a stored result's config, leaving ${VAR} references as
// they are.
func FromConfig(config any) (*Spec, error) {
	if config == nil {
		return nil, errf("", "none stored")
	}
	b, err := yaml.Marshal(PlainNumbers(config))
	if err != nil {
		return nil, errf("", "unreadable config: %v", err)
	}
	return readLiteral(b)
}

// PlainNumbers turns the json.Numbers of a stored config (read exactly, a seed is 63 bits) into
// Go numbers, which YAML writes as numbers: a json.Number is a string to YAML, written quoted,
// and a quoted number is refused.
func PlainNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = PlainNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = PlainNumbers(e)
		}
		return out
	}
	return v
}

// WrittenDB is a db value as a spec writes it, and the variables its secrets are then read from.
// A secret given as a ${VAR} reference stays as given; one written literally becomes a reference:
// ${CAIRN_PASSWORD} for the URL's password (the userinfo's or ?password=), ${CAIRN_<NAME>} for
// another secret parameter (?sslpassword=: ${CAIRN_SSLPASSWORD}), numbered _2, _3, … when the
// URLs of a shard set hold different ones, so that distinct secrets stay distinct and the spec
// runs the same when the variables hold them.
func WrittenDB(db string) (string, []string) {
	urls, vars := WrittenURLs(target.SetURLs(db))
	return target.JoinSet(urls), vars
}

// WrittenURLs is WrittenDB of a shard set's list of URLs.
func WrittenURLs(urls []string) ([]string, []string) {
	// References keep their names, which literals' names then avoid.
	taken := map[string]bool{}
	for _, u := range urls {
		target.ReplaceSecrets(u, func(_, v string) string {
			if n, ok := refName(v); ok {
				taken[n] = true
			}
			return v
		})
	}
	named := map[string]string{} // base name and literal → its variable
	var vars []string
	seen := map[string]bool{}
	use := func(n string) {
		if !seen[n] {
			seen[n] = true
			vars = append(vars, n)
		}
	}
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = target.ReplaceSecrets(u, func(param, v string) string {
			if n, ok := refName(v); ok {
				use(n)
				return v
			}
			if v == "" {
				return v
			}
			base := "CAIRN_PASSWORD"
			if param != "" && !strings.EqualFold(param, "password") {
				base = "CAIRN_" + strings.ToUpper(nonWord.ReplaceAllString(param, "_"))
			}
			n, ok := named[base+"\x00"+v]
			for k := 1; !ok; k++ {
				n = base
				if k > 1 {
					n = fmt.Sprintf("%s_%d", base, k)
				}
				if !taken[n] {
					taken[n], ok = true, true
					named[base+"\x00"+v] = n
				}
			}
			use(n)
			return "${" + n + "}"
		})
	}
	sort.Strings(vars)
	return out, vars
}

var (
	nonWord = regexp.MustCompile(`[^A-Za-z0-9_]`)
	oneRef  = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)
)

// refName is the variable a text that is one ${VAR} reference names.
func refName(v string) (string, bool) {
	m := oneRef.FindStringSubmatch(v)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// SecretsNote is the comment a written spec or study starts with when its db has secrets: which
// variables they are read from by reads (the command that runs it and its verb: "cairn run --spec
// reads"); "" when it has none.
func SecretsNote(vars []string, reads string) string {
	if len(vars) == 0 {
		return ""
	}
	refs := make([]string, len(vars))
	for i, v := range vars {
		refs[i] = "$" + v
	}
	if len(vars) == 1 {
		return fmt.Sprintf("# db's password is not written here: %s it from %s\n", reads, refs[0])
	}
	return fmt.Sprintf("# db's passwords are not written here: %s them from %s\n", reads, options.JoinAnd(refs))
}

// SecretVars are the variables the spec's db secrets are read from, as it is written.
func (s *Spec) SecretVars() []string {
	_, _, vars := s.writtenURLs()
	return vars
}

// scheduleText reads a spec's schedule given as a list, [{at: 30%, vu: 16}, …], as the flag's
// text, 30%:vu=16,…: one form is stored and written back.
func scheduleText(v *yaml.Node) (string, error) {
	var parts []string
	for i, it := range v.Content {
		key := fmt.Sprintf("schedule[%d]", i)
		if it.Kind != yaml.MappingNode {
			return "", errf(key, "must be {at: TIME, vu: N} or {at: TIME, rate: R}")
		}
		var at, vu, rate string
		for j := 0; j+1 < len(it.Content); j += 2 {
			k, val := it.Content[j].Value, it.Content[j+1]
			if val.Kind != yaml.ScalarNode {
				return "", errf(key+"."+k, "must be one value")
			}
			switch k {
			case "at":
				at = val.Value
			case "vu":
				vu = val.Value
			case "rate":
				rate = val.Value
			default:
				return "", errf(key+"."+k, "unknown key (accepted: at, vu, rate)")
			}
		}
		if at == "" || vu == "" && rate == "" {
			return "", errf(key, "needs at, and vu or rate")
		}
		p := at
		if vu != "" {
			p += ":vu=" + vu
		}
		if rate != "" {
			p += ":rate=" + rate
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "", errf("schedule", "must be a list of {at: TIME, vu: N} or {at: TIME, rate: R}")
	}
	return strings.Join(parts, ","), nil
}

// checkSchedule checks a load schedule against the rest of the spec: what it cannot combine
// with is refused, each with what to do.
func (s *Spec) checkSchedule() error {
	if s.Profile {
		return errf("schedule", "a profile runs each step at its VU count: a load schedule is a run's (one VU count)")
	}
	steps, err := workload.ParseSchedule(s.Schedule, s.Duration)
	if err != nil {
		return err
	}
	for _, st := range steps {
		if st.Rate > 0 && s.Rate == 0 {
			return errf("schedule", "a rate step changes an open loop's rate: give --rate (the rate the run starts at)")
		}
	}
	switch {
	case s.Terminals > 0:
		return errf("schedule", "a load schedule changes the VUs, each with its connection: it does not combine with --terminals")
	case s.Part != "":
		return errf("schedule", "a load schedule runs in one process: it does not combine with --part")
	}
	return nil
}
