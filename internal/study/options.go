package study

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// A workload option is a factor when the file gives a list where the option takes one value:
// options: {tables: [1, 8]} or prepare: {partition: [true, false]}. Each level is the study's
// spec with --set PATH=VALUE (Spec.Set), so an option the prepare shares with the run (oltp's
// tables) changes both, as --set does. A factor of the prepare's options is a factor of the
// schema: each level is a schema of its own, prepared by the study, which therefore varies it
// slowest (its levels are blocks of cases, each prepared once where the order allows) and
// starts only on a database without the workload's schema, so that every schema it drops is one
// it prepared.

// takeOptionFactors finds the lists under the document's options and prepare mappings, for
// options that take one value, and puts each list's first value in its place so that the spec
// reads as one of its cases would.
func takeOptionFactors(doc *yaml.Node) ([]Factor, error) {
	if doc.Kind != yaml.MappingNode {
		return nil, nil
	}
	var w workload.Workload
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "workload" {
			w, _ = workload.Get(doc.Content[i+1].Value)
		}
	}
	if w == nil {
		return nil, nil // the spec says what is wrong with it
	}
	var out []Factor
	for i := 0; i+1 < len(doc.Content); i += 2 {
		key, m := doc.Content[i].Value, doc.Content[i+1]
		var opts any
		switch key {
		case "options":
			opts = w.RunOptions()
		case "prepare":
			opts = w.PrepareOptions()
		}
		if opts == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(m.Content); j += 2 {
			name, v := m.Content[j].Value, m.Content[j+1]
			f, ok := options.Lookup(opts, name)
			if !ok || f.Kind == options.IntList || v.Kind != yaml.SequenceNode {
				continue // not a factor: the spec reads (or refuses) it
			}
			path := key + "." + name
			vals, err := scalars(path, v)
			if err != nil {
				return nil, err
			}
			var typed []any // as the file types them, for the stored config
			if err := v.Decode(&typed); err != nil {
				return nil, errf(path, "must be a list of values")
			}
			m.Content[j+1] = v.Content[0]
			out = append(out, Factor{Name: path, Values: vals, Schema: key == "prepare", typed: typed})
		}
	}
	return out, nil
}

// checkOptionFactors checks every level of the workload option factors as --set would take it,
// and marks the run options the prepare shares as factors of the schema.
func (st *Study) checkOptionFactors() error {
	s := st.Spec
	seen := map[string]string{}
	var prep any
	if s.Prepare != nil {
		prep = s.Prepare.Options
	} else {
		prep = s.WorkloadOf().PrepareOptions()
	}
	for i := range st.Options {
		f := &st.Options[i]
		key, name, _ := strings.Cut(f.Name, ".")
		if key == "options" {
			g, shared := options.Lookup(prep, name)
			rf, _ := options.Lookup(s.Options, name)
			f.Schema = shared && g.Kind == rf.Kind
		}
		if f.Schema {
			if other, twice := seen[name]; twice {
				return errf(f.Name, "%s names the same option of the schema: give the factor once", other)
			}
			seen[name] = f.Name
			if s.Prepare == nil {
				return errf(f.Name, "its levels are schemas of their own, which the study prepares in turn: give the study prepare: true (or prepare options)")
			}
		}
		for _, v := range f.Values {
			c := s.Clone()
			if err := c.Set(f.Name, v); err != nil {
				return err
			}
			if err := c.Check(); err != nil {
				return err
			}
		}
	}
	return nil
}

// SchemaFactors are the workload option factors whose levels are schemas of their own.
func (st *Study) SchemaFactors() []Factor {
	var out []Factor
	for _, f := range st.Options {
		if f.Schema {
			out = append(out, f)
		}
	}
	return out
}

// optionFactor returns the index of the factor a --set path names, or of one the prepare shares
// with it; -1 for none.
func (st *Study) optionFactor(path string) int {
	key, name, ok := strings.Cut(path, ".")
	if !ok || key != "options" && key != "prepare" {
		return -1
	}
	for i, f := range st.Options {
		if f.Name == path {
			return i
		}
		if _, n, _ := strings.Cut(f.Name, "."); n == name && f.Schema {
			return i
		}
	}
	return -1
}

// CaseSpec is the spec a case's runs start from: the study's, with the case's workload option
// levels set as --set sets them, and the prepare's data seed the study's where the file gives
// none, so that every schema a study prepares holds the same data.
func (st *Study) CaseSpec(c *Case) (*spec.Spec, error) {
	s := st.Spec.Clone()
	for _, a := range c.Options {
		if err := s.Set(a.Name, a.Value); err != nil {
			return nil, err
		}
	}
	if s.Prepare != nil && st.Spec.Seed != 0 {
		if f, ok := options.Lookup(s.Prepare.Options, "seed"); ok && f.Kind == options.Uint && f.Get(s.Prepare.Options) == uint64(0) {
			if err := f.Set(s.Prepare.Options, fmt.Sprint(st.Spec.Seed)); err != nil {
				return nil, err
			}
		}
	}
	return s, s.Check()
}

// schemaKey names a case's schema: its levels of the schema factors ("" when none).
func schemaKey(opts []Assign, factors []Factor) string {
	var parts []string
	for _, a := range opts {
		for _, f := range factors {
			if f.Name == a.Name && f.Schema {
				parts = append(parts, a.Name+"="+a.Value)
			}
		}
	}
	return strings.Join(parts, ", ")
}

// schemaBlocks groups the cases by schema, in order (the schema factors vary slowest, so each
// schema's cases are together).
func schemaBlocks(cases []*Case) [][]*Case {
	var out [][]*Case
	for i, c := range cases {
		if i == 0 || c.Schema != cases[i-1].Schema {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], c)
	}
	return out
}

// blockSteps lays out steps when the schema is a factor: the schema's levels are blocks, each
// prepared once where the order allows. sequential: each block in turn (one prepare per level).
// interleaved: every case and VU count once per round, the blocks in turn, their order reversed
// every other round (A B, B A, A B: one prepare fewer per round than starting again at A, and
// drift still reaches each level alike). random: the blocks in a random order, the steps within
// each shuffled (a split-plot order: the schema, hard to change, is randomized as a whole).
func (st *Study) blockSteps(blocks [][]*Case) []Step {
	vus, repeat := st.Spec.VU, st.Spec.Repeat
	var out []Step
	seq := func(cases []*Case) []Step {
		var o []Step
		for _, c := range cases {
			for _, vu := range vus {
				for r := 0; r < repeat; r++ {
					o = append(o, Step{Case: c, VU: vu, Repeat: r})
				}
			}
		}
		return o
	}
	switch st.Order {
	case "interleaved":
		for r := 0; r < repeat; r++ {
			order := slices.Clone(blocks)
			if r%2 == 1 {
				slices.Reverse(order)
			}
			for _, b := range order {
				for _, c := range b {
					for _, vu := range vus {
						out = append(out, Step{Case: c, VU: vu, Repeat: r})
					}
				}
			}
		}
	case "random":
		rng := rand.New(rand.NewPCG(st.Spec.Seed, 0x5ca1ab1e))
		order := slices.Clone(blocks)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, b := range order {
			o := seq(b)
			rng.Shuffle(len(o), func(i, j int) { o[i], o[j] = o[j], o[i] })
			out = append(out, o...)
		}
	default:
		for _, b := range blocks {
			out = append(out, seq(b)...)
		}
	}
	return out
}

// Prepares counts the schemas the study prepares in its order: one at each step whose schema is
// not the previous step's. 0 when the schema is not a factor.
func (st *Study) Prepares() int {
	n, last := 0, ""
	for _, s := range st.Steps() {
		if s.Case.Schema != "" && s.Case.Schema != last {
			n++
		}
		last = s.Case.Schema
	}
	return n
}

// PrepareRows is about how many rows each of the study's schemas loads, by schema, in the
// cases' order; nil when the workload does not say.
func (st *Study) PrepareRows() []int64 {
	sz, ok := st.Spec.WorkloadOf().(workload.PrepareSizer)
	if !ok {
		return nil
	}
	var out []int64
	for _, b := range schemaBlocks(st.Cases()) {
		s, err := st.CaseSpec(b[0])
		if err != nil || s.Prepare == nil {
			return nil
		}
		out = append(out, sz.PrepareRows(s.Prepare.Options))
	}
	return out
}

// checkNoSchema refuses a study whose schema is a factor on a database that holds the
// workload's schema already: the study drops each schema it prepared, and only those.
func checkNoSchema(ctx context.Context, t target.Target, st *Study) error {
	sf := st.SchemaFactors()
	if len(sf) == 0 {
		return nil
	}
	fp := st.Spec.WorkloadOf().Info().Footprint
	var names []string
	for _, f := range sf {
		names = append(names, f.Name)
	}
	for _, m := range target.MembersOf(t) {
		c, err := m.Conn(ctx)
		if err != nil {
			return err
		}
		s, err := workload.Inspect(ctx, c, m, fp)
		c.Close()
		if err != nil {
			return err
		}
		if s.State != workload.StateNone {
			return planErr("%s holds a %s schema: a study whose schema is a factor (%s) prepares each level's schema and drops it after, and drops none it did not prepare: run 'cairn %s cleanup --db URL' first, or give the study another database",
				s.Where, fp.Title, strings.Join(names, ", "), fp.Name)
		}
	}
	return nil
}

// isOptionPath says whether a factor's name is a workload option's path.
func isOptionPath(name string) bool {
	return strings.HasPrefix(name, "options.") || strings.HasPrefix(name, "prepare.")
}
