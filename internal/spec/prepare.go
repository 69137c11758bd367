package spec

import (
	"fmt"
	"reflect"

	"github.com/cairn-bench/cairn/internal/options"
)

// PrepareWith asks the run to prepare its schema first, with the options of given (the
// workload's prepare options) that given says were set, and the run's seed.
func (s *Spec) PrepareWith(opts any, given func(name string) bool) {
	s.AskPrepare()
	for _, f := range options.Fields(opts) {
		if g, ok := options.Lookup(s.Prepare.Options, f.Name); ok && given(f.Name) {
			_ = g.Parse(s.Prepare.Options, options.Format(f.Get(opts)))
		}
	}
	if g, ok := options.Lookup(s.Prepare.Options, "seed"); ok && s.Seed != 0 {
		_ = g.Parse(s.Prepare.Options, fmt.Sprint(s.Seed))
	}
}

// CheckGiven checks a spec made from options given one by one (a command line's flags): each
// option given, then the spec as a whole (Check).
func (s *Spec) CheckGiven(given func(name string) bool) error {
	sets := []any{&s.Engine, s.Options}
	if s.Prepare != nil {
		sets = append(sets, s.Prepare.Options)
	}
	for _, v := range sets {
		if err := options.Check(v, given); err != nil {
			return err
		}
	}
	return s.Check()
}

// Clone copies the spec, its option structs included, so that a study's case can change its own
// copy (Set) without touching the study's spec.
func (s *Spec) Clone() *Spec {
	c := *s
	c.VU = append([]int(nil), s.VU...)
	c.Options = cloneStruct(s.Options)
	if s.Prepare != nil {
		c.Prepare = &Prepare{Options: cloneStruct(s.Prepare.Options)}
	}
	return &c
}

// cloneStruct copies what a pointer to an options struct points to; options hold values (a list
// option is replaced whole by Set, never changed in place).
func cloneStruct(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return v
	}
	c := reflect.New(rv.Elem().Type())
	c.Elem().Set(rv.Elem())
	return c.Interface()
}
