package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/cairn-bench/cairn/internal/options"
)

// optValue is a pflag.Value over one declared option: the flags of every workload come from its
// option structs (package options), so a flag, a spec key and its documentation are one thing.
type optValue struct {
	f options.Field
	v any
}

func (o optValue) String() string {
	if o.f.IsUnset(o.v) {
		return o.f.Default
	}
	return options.Format(o.f.Get(o.v))
}

func (o optValue) Set(s string) error { return o.f.Parse(o.v, s) }

func (o optValue) Type() string {
	switch o.f.Kind {
	case options.Bool:
		return "bool"
	case options.Duration:
		return "duration"
	case options.IntList:
		return "list"
	case options.String:
		return "string"
	case options.Float:
		return "float"
	}
	return "int"
}

// IsBoolFlag lets --flag stand for --flag=true.
func (o optValue) IsBoolFlag() bool { return o.f.Kind == options.Bool }

// bind adds a flag for every option of v; skip leaves some out, shorts adds one-letter forms.
func bind(fs *pflag.FlagSet, v any, skip func(name string) bool, shorts map[string]string, help map[string]string) {
	for _, f := range options.Fields(v) {
		if skip != nil && skip(f.Name) {
			continue
		}
		short := f.Short
		if s, ok := shorts[f.Name]; ok {
			short = s
		}
		text := f.Help
		if h, ok := help[f.Name]; ok {
			text = h
		}
		val := optValue{f, v}
		fl := fs.VarPF(val, f.Name, short, text)
		if f.Kind == options.Bool {
			fl.NoOptDefVal = "true"
		}
		if f.Hidden {
			fl.Hidden = true
		}
		if f.Alias != "" {
			a := fs.VarPF(val, f.Alias, "", text)
			a.Hidden = true
			if f.Kind == options.Bool {
				a.NoOptDefVal = "true"
			}
		}
	}
}

// flagged words an option error as the flag it came from: "--vu 0: need at least 1".
func flagged(err error) error {
	if oe, ok := err.(*options.Error); ok && !strings.Contains(oe.Name, ".") {
		return &usageError{"--" + oe.Error()}
	}
	return err
}
