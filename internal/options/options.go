// Package options reads the declaration of a command's options from its Go struct, so that one
// declaration gives the command-line flags, the run spec's fields, their validation and their
// documentation (docs/spec.md, docs/spec.schema.json). A field is an option when it has an opt tag:
//
//	Warehouses int `opt:"warehouses" short:"w" default:"1" min:"1" help:"number of warehouses"`
//	Mode string    `opt:"mode" enum:"procs,sql" help:"…"`
//
// Tags: opt (the name, used as flag and spec key), short (a one-letter flag), help, enum (the
// values accepted), min and max (for numbers and durations), default (the default shown, for
// fields whose zero value means "not given"; otherwise the struct's value when it was made is the
// default), unset (the value meaning "not given", when zero is a real value), hidden (a flag kept
// for compatibility, not shown), alias (another accepted name), zero (zero:"off": 0 means none,
// beside the values min and max allow).
//
// Kinds: string, bool, int, int64, uint64, float64, time.Duration, []int.
package options

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kind is an option's type.
type Kind string

const (
	String   Kind = "string"
	Bool     Kind = "bool"
	Int      Kind = "int"
	Uint     Kind = "uint"
	Float    Kind = "float"
	Duration Kind = "duration"
	IntList  Kind = "int list"
)

// Field is one declared option.
type Field struct {
	Name    string
	Short   string
	Help    string
	Kind    Kind
	Enum    []string
	Min     *float64
	Max     *float64
	Default string // the default as text ("" when the zero value is the default)
	// Unset is the value that means "not given" (as text), for options whose default depends on
	// others or on what is prepared; such a value is left out of a written spec.
	Unset    string
	HasUnset bool
	Hidden   bool
	Alias    string
	// ZeroOff: 0 is accepted as "none" (a sampler turned off) beside the values min and max
	// allow (tag zero:"off").
	ZeroOff bool
	index   []int
}

// Error is a bad option value; Name is the option's name. The command line words it as a flag
// (--warehouses 0: need at least 1), a spec as a key (options.warehouses: …).
type Error struct {
	Name  string
	Value string // as given, when there was one
	Msg   string
}

func (e *Error) Error() string {
	if e.Value != "" {
		return fmt.Sprintf("%s %s: %s", e.Name, e.Value, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Name, e.Msg)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *Error) BadInput() {}

// Errorf builds an Error for the option name.
func Errorf(name, value, format string, a ...any) error {
	return &Error{Name: name, Value: value, Msg: fmt.Sprintf(format, a...)}
}

var durationType = reflect.TypeOf(time.Duration(0))

// Fields lists the options declared by the struct v points to, in declaration order; embedded
// structs contribute theirs.
func Fields(v any) []Field {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("options: %T is not a pointer to a struct", v))
	}
	return fields(rv.Elem(), nil)
}

func fields(sv reflect.Value, prefix []int) []Field {
	var out []Field
	st := sv.Type()
	for i := 0; i < st.NumField(); i++ {
		sf := st.Field(i)
		idx := append(append([]int(nil), prefix...), i)
		name, ok := sf.Tag.Lookup("opt")
		if !ok {
			// A struct without a name of its own contributes its options (embedded, or a group
			// such as oltp's key distribution).
			if sf.Type.Kind() == reflect.Struct && sf.Type != durationType && sf.IsExported() {
				out = append(out, fields(sv.Field(i), idx)...)
			}
			continue
		}
		f := Field{Name: name, Short: sf.Tag.Get("short"), Help: sf.Tag.Get("help"), Alias: sf.Tag.Get("alias"),
			Hidden: sf.Tag.Get("hidden") != "", index: idx}
		switch {
		case sf.Type == durationType:
			f.Kind = Duration
		case sf.Type.Kind() == reflect.String:
			f.Kind = String
		case sf.Type.Kind() == reflect.Bool:
			f.Kind = Bool
		case sf.Type.Kind() == reflect.Int || sf.Type.Kind() == reflect.Int64:
			f.Kind = Int
		case sf.Type.Kind() == reflect.Uint64:
			f.Kind = Uint
		case sf.Type.Kind() == reflect.Float64:
			f.Kind = Float
		case sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Int:
			f.Kind = IntList
		default:
			panic(fmt.Sprintf("options: field %s has type %s, which options do not support", sf.Name, sf.Type))
		}
		if e := sf.Tag.Get("enum"); e != "" {
			f.Enum = strings.Split(e, ",")
		}
		for _, b := range []struct {
			tag string
			dst **float64
		}{{"min", &f.Min}, {"max", &f.Max}} {
			if t := sf.Tag.Get(b.tag); t != "" {
				var v float64
				if f.Kind == Duration {
					d, err := time.ParseDuration(t)
					if err != nil {
						panic(fmt.Sprintf("options: %s: bad %s %q", name, b.tag, t))
					}
					v = float64(d)
				} else if p, err := strconv.ParseFloat(t, 64); err == nil {
					v = p
				} else {
					panic(fmt.Sprintf("options: %s: bad %s %q", name, b.tag, t))
				}
				*b.dst = &v
			}
		}
		f.ZeroOff = sf.Tag.Get("zero") == "off"
		f.Unset, f.HasUnset = sf.Tag.Lookup("unset")
		f.Default = sf.Tag.Get("default")
		if f.Default == "" {
			f.Default = Format(sv.Field(i).Interface())
		}
		out = append(out, f)
	}
	return out
}

// Lookup finds a field by name or alias.
func Lookup(v any, name string) (Field, bool) {
	for _, f := range Fields(v) {
		if f.Name == name || f.Alias != "" && f.Alias == name {
			return f, true
		}
	}
	return Field{}, false
}

// Names lists the names of v's options, sorted, for messages that say what is accepted.
func Names(v any) []string {
	var n []string
	for _, f := range Fields(v) {
		if !f.Hidden {
			n = append(n, f.Name)
		}
	}
	sort.Strings(n)
	return n
}

func (f Field) value(v any) reflect.Value {
	return reflect.ValueOf(v).Elem().FieldByIndex(f.index)
}

// Get returns the option's current value.
func (f Field) Get(v any) any { return f.value(v).Interface() }

// IsZero reports whether the option holds its type's zero value.
func (f Field) IsZero(v any) bool { return f.value(v).IsZero() }

// IsUnset reports whether the option holds the value that means "not given": its unset value, or
// zero when its shown default differs from zero.
func (f Field) IsUnset(v any) bool {
	cur := Format(f.Get(v))
	if f.HasUnset {
		return cur == f.Unset
	}
	return f.IsZero(v) && f.Default != cur
}

// Format writes a value as text, the way flags and specs write it.
func Format(x any) string {
	switch t := x.(type) {
	case time.Duration:
		return FormatDuration(t)
	case []int:
		s := make([]string, len(t))
		for i, n := range t {
			s[i] = strconv.Itoa(n)
		}
		return strings.Join(s, ",")
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case string:
		return t
	}
	return fmt.Sprint(x)
}

// FormatDuration writes 30s, 2m, 1h30m rather than Go's 1m0s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ParseDuration takes a Go duration (30s, 2m, 1h30m) or a bare number of seconds.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err == nil {
		return d, nil
	}
	if durationText.MatchString(s) {
		return 0, errTooLong // a duration time.ParseDuration could not hold
	}
	secs, nerr := strconv.ParseFloat(s, 64)
	if nerr != nil || math.IsNaN(secs) || math.IsInf(secs, 0) {
		return 0, fmt.Errorf("not a duration: use a number with a unit, like 30s, 2m or 1h")
	}
	return seconds(secs)
}

// durationText is the form time.ParseDuration reads; text of this form it refuses is too large.
var durationText = regexp.MustCompile(`^[-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

// errTooLong is a duration beyond what cairn holds (time.Duration: 2562047h47m16s, 292 years).
var errTooLong = fmt.Errorf("too large: the longest duration is %s", FormatDuration(time.Duration(math.MaxInt64).Truncate(time.Second)))

// seconds is a number of seconds as a duration, refused when it is too large to hold.
func seconds(secs float64) (time.Duration, error) {
	ns := secs * float64(time.Second)
	if ns >= math.MaxInt64 || ns <= math.MinInt64 {
		return 0, errTooLong
	}
	return time.Duration(ns), nil
}

// ParseIntList takes comma-separated integers: 1,2,4,8.
func ParseIntList(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number: give whole numbers separated by commas, like 1,2,4,8", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// Set parses text into the option and checks it.
func (f Field) Set(v any, text string) error { return f.set(v, text, true) }

// Parse parses text into the option without checking its range or values: a command line checks
// every option once they are all parsed (Check), to word the error as a flag.
func (f Field) Parse(v any, text string) error { return f.set(v, text, false) }

func (f Field) set(v any, text string, check bool) error {
	var x any
	switch f.Kind {
	case String:
		x = text
	case Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return &Error{Name: f.Name, Value: text, Msg: "use true or false"}
		}
		x = b
	case Int:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return &Error{Name: f.Name, Value: text, Msg: "not a whole number"}
		}
		x = n
	case Uint:
		n, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return &Error{Name: f.Name, Value: text, Msg: "not a whole number of 0 or more"}
		}
		x = n
	case Float:
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return &Error{Name: f.Name, Value: text, Msg: "not a number"}
		}
		x = n
	case Duration:
		d, err := ParseDuration(text)
		if err != nil {
			return &Error{Name: f.Name, Value: text, Msg: err.Error()}
		}
		x = d
	case IntList:
		l, err := ParseIntList(text)
		if err != nil {
			return &Error{Name: f.Name, Value: text, Msg: err.Error()}
		}
		x = l
	}
	if !check {
		f.store(v, x)
		return nil
	}
	return f.SetValue(v, x, text)
}

// store puts a parsed value in place unchecked.
func (f Field) store(v any, x any) {
	dst := f.value(v)
	switch t := x.(type) {
	case string:
		dst.SetString(t)
	case bool:
		dst.SetBool(t)
	case int64:
		dst.SetInt(t)
	case uint64:
		dst.SetUint(t)
	case float64:
		dst.SetFloat(t)
	case time.Duration:
		dst.SetInt(int64(t))
	case []int:
		dst.Set(reflect.ValueOf(t))
	}
}

// Check checks every option's value against its declaration (range, values), skipping those that
// hold their "not given" value unless given says that value was given (--tables 0 on a command
// line is not the absence of --tables). given may be nil.
func Check(v any, given func(name string) bool) error {
	for _, f := range Fields(v) {
		if f.IsUnset(v) && (given == nil || !given(f.Name) && (f.Alias == "" || !given(f.Alias))) {
			continue
		}
		cur := f.Get(v)
		if err := f.SetValue(v, cur, Format(cur)); err != nil {
			return err
		}
	}
	return nil
}

// SetValue stores a decoded value (from a spec: string, bool, int, float, []int, duration) and
// checks it; shown is how to quote the value in an error.
func (f Field) SetValue(v any, x any, shown string) error {
	dst := f.value(v)
	bad := func(msg string) error { return &Error{Name: f.Name, Value: shown, Msg: msg} }
	switch f.Kind {
	case String:
		s, ok := x.(string)
		if !ok {
			return bad("not a string")
		}
		if len(f.Enum) > 0 && !contains(f.Enum, s) && !(s == "" && f.Default == "") {
			return bad("use " + JoinOr(f.Enum))
		}
		dst.SetString(s)
	case Bool:
		b, ok := x.(bool)
		if !ok {
			return bad("use true or false")
		}
		dst.SetBool(b)
	case Int, Uint, Float:
		n, ok := toFloat(x)
		if !ok {
			return bad("not a number")
		}
		if err := f.inRange(n, shown); err != nil {
			return err
		}
		switch f.Kind {
		case Int:
			if n != math.Trunc(n) {
				return bad("not a whole number")
			}
			dst.SetInt(int64(n))
		case Uint:
			if n != math.Trunc(n) || n < 0 {
				return bad("not a whole number of 0 or more")
			}
			if u, ok := x.(uint64); ok {
				dst.SetUint(u)
			} else {
				dst.SetUint(uint64(n))
			}
		default:
			dst.SetFloat(n)
		}
	case Duration:
		var d time.Duration
		switch t := x.(type) {
		case time.Duration:
			d = t
		case string:
			p, err := ParseDuration(t)
			if err != nil {
				return bad(err.Error())
			}
			d = p
		default:
			n, ok := toFloat(x)
			if !ok {
				return bad("not a duration: use a number with a unit, like 30s, 2m or 1h")
			}
			p, err := seconds(n)
			if err != nil {
				return bad(err.Error())
			}
			d = p
		}
		if d < 0 {
			return bad("must not be negative")
		}
		if err := f.inRange(float64(d), shown); err != nil {
			return err
		}
		dst.SetInt(int64(d))
	case IntList:
		l, ok := x.([]int)
		if !ok {
			if n, isNum := toFloat(x); isNum && n == math.Trunc(n) {
				l = []int{int(n)}
			} else {
				return bad("give whole numbers, like 1,2,4,8")
			}
		}
		for _, n := range l {
			if err := f.inRange(float64(n), shown); err != nil {
				return err
			}
		}
		dst.Set(reflect.ValueOf(append([]int(nil), l...)))
	}
	return nil
}

func (f Field) inRange(n float64, shown string) error {
	show := func(b float64) string {
		if f.Kind == Duration {
			return FormatDuration(time.Duration(b))
		}
		return strconv.FormatFloat(b, 'g', -1, 64)
	}
	// A count from 1 is worded by its floor alone ("need at least 1"), whatever its ceiling.
	countFrom1 := f.Min != nil && *f.Min == 1 && f.Kind != Duration
	if f.ZeroOff && n == 0 {
		return nil
	}
	switch {
	case f.ZeroOff && f.Min != nil && f.Max != nil && (n < *f.Min || n > *f.Max):
		return &Error{Name: f.Name, Value: shown, Msg: fmt.Sprintf("need %s (none) or between %s and %s", show(0), show(*f.Min), show(*f.Max))}
	case f.Min != nil && n < *f.Min && countFrom1:
		return &Error{Name: f.Name, Value: shown, Msg: "need at least 1"}
	case f.Min != nil && f.Max != nil && (n < *f.Min || n > *f.Max) && !countFrom1:
		return &Error{Name: f.Name, Value: shown, Msg: fmt.Sprintf("need between %s and %s", show(*f.Min), show(*f.Max))}
	case f.Min != nil && n < *f.Min:
		return &Error{Name: f.Name, Value: shown, Msg: "need at least " + show(*f.Min)}
	case f.Max != nil && n > *f.Max:
		return &Error{Name: f.Name, Value: shown, Msg: "need at most " + show(*f.Max)}
	}
	return nil
}

func toFloat(x any) (float64, bool) {
	switch t := x.(type) {
	case int:
		return float64(t), true
	case int64:
		return float64(t), true
	case uint64:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// JoinOr lists words as "a, b or c".
func JoinOr(w []string) string { return join(w, " or ") }

// JoinAnd lists words as "a, b and c".
func JoinAnd(w []string) string { return join(w, " and ") }

func join(w []string, last string) string {
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + last + w[len(w)-1]
}
