package options

// Value is one declared option of a struct as a text value: what a command-line flag (it is a
// pflag.Value) or a form field reads and writes, so that a flag, a spec key and their
// documentation are one thing.
type Value struct {
	F Field
	V any // the struct it sets
}

func (o Value) String() string {
	if o.F.IsUnset(o.V) {
		return o.F.Default
	}
	return Format(o.F.Get(o.V))
}

func (o Value) Set(s string) error { return o.F.Parse(o.V, s) }

// Type names the value's kind as flag help shows it.
func (o Value) Type() string {
	switch o.F.Kind {
	case Bool:
		return "bool"
	case Duration:
		return "duration"
	case IntList:
		return "list"
	case String:
		return "string"
	case Float:
		return "float"
	}
	return "int"
}

// IsBoolFlag lets --flag stand for --flag=true.
func (o Value) IsBoolFlag() bool { return o.F.Kind == Bool }

// Valid checks every option of v that given says was set (Check), then v's own rules across
// its options, when it has them.
func Valid(v any, given func(name string) bool) error {
	if err := Check(v, given); err != nil {
		return err
	}
	if c, ok := v.(interface{ Validate() error }); ok {
		return c.Validate()
	}
	return nil
}
