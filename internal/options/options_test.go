package options

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type group struct {
	Dist string `opt:"dist" enum:"uniform,zipf" help:"distribution"`
}

type sample struct {
	Count   int           `opt:"count" short:"c" default:"1" min:"1" help:"a count"`
	Size    int           `opt:"size" min:"1" unset:"0" help:"as prepared when not given"`
	Ratio   float64       `opt:"ratio" min:"0" max:"1"`
	Wait    time.Duration `opt:"wait" min:"1ms"`
	Seed    uint64        `opt:"seed"`
	On      bool          `opt:"on" alias:"enable"`
	VUs     []int         `opt:"vu" min:"1" max:"100"`
	Mode    string        `opt:"mode" enum:"a,b" unset:""`
	Old     string        `opt:"old" hidden:"yes"`
	private int
	group
	Group group // a named group contributes its options too
}

func newSample() *sample {
	return &sample{Wait: time.Second, VUs: []int{4}, group: group{Dist: "uniform"}, Group: group{Dist: "zipf"}}
}

func TestFields(t *testing.T) {
	var names []string
	for _, f := range Fields(newSample()) {
		names = append(names, f.Name+":"+string(f.Kind))
	}
	want := "count:int size:int ratio:float wait:duration seed:uint on:bool vu:int list mode:string old:string dist:string"
	// group is unexported: only the exported Group contributes (its dist).
	if got := strings.Join(names, " "); got != want {
		t.Errorf("fields\n got %s\nwant %s", got, want)
	}
	f, ok := Lookup(newSample(), "enable")
	if !ok || f.Name != "on" {
		t.Errorf("alias lookup: %v %v", f.Name, ok)
	}
	if got := strings.Join(Names(newSample()), ","); got != "count,dist,mode,on,ratio,seed,size,vu,wait" {
		t.Errorf("names %s (hidden ones are left out)", got)
	}
	c, _ := Lookup(newSample(), "count")
	if c.Default != "1" || c.Short != "c" || c.Help != "a count" {
		t.Errorf("count: %+v", c)
	}
	w, _ := Lookup(newSample(), "wait")
	if w.Default != "1s" {
		t.Errorf("wait's default %q: the value the struct was made with", w.Default)
	}
}

func TestSetAndErrors(t *testing.T) {
	for _, c := range []struct {
		name, text, err string
	}{
		{"count", "0", "count 0: need at least 1"},
		{"count", "x", "count x: not a whole number"},
		{"ratio", "1.5", "ratio 1.5: need between 0 and 1"},
		{"ratio", "NaN", "ratio NaN: not a number"},
		{"wait", "0s", "wait 0s: need at least 1ms"},
		{"wait", "10q", "wait 10q: not a duration: use a number with a unit, like 30s, 2m or 1h"},
		{"wait", "-1s", "wait -1s: must not be negative"},
		{"seed", "-1", "seed -1: not a whole number of 0 or more"},
		{"on", "maybe", "on maybe: use true or false"},
		{"vu", "1,0", "vu 1,0: need at least 1"},
		{"vu", "1,200", "vu 1,200: need at most 100"},
		{"vu", "1,,2", `vu 1,,2: "" is not a whole number: give whole numbers separated by commas, like 1,2,4,8`},
		{"mode", "c", "mode c: use a or b"},
		{"dist", "normal", "dist normal: use uniform or zipf"},
	} {
		s := newSample()
		f, _ := Lookup(s, c.name)
		err := f.Set(s, c.text)
		var oe *Error
		if !errors.As(err, &oe) || err.Error() != c.err {
			t.Errorf("%s=%s: %v, want %q", c.name, c.text, err, c.err)
		}
	}
	s := newSample()
	for name, text := range map[string]string{"count": "3", "ratio": "0.5", "wait": "90", "seed": "7", "on": "true",
		"vu": "1, 2,4", "mode": "b", "dist": "uniform"} {
		f, _ := Lookup(s, name)
		if err := f.Set(s, text); err != nil {
			t.Fatalf("%s=%s: %v", name, text, err)
		}
	}
	if s.Count != 3 || s.Ratio != 0.5 || s.Wait != 90*time.Second || s.Seed != 7 || !s.On ||
		!reflect.DeepEqual(s.VUs, []int{1, 2, 4}) || s.Mode != "b" || s.Group.Dist != "uniform" {
		t.Errorf("after Set: %+v", s)
	}
}

// Check skips an option left at its "not given" value, unless the command line gave exactly that
// value: --size 0 is not the absence of --size.
func TestCheckGiven(t *testing.T) {
	s := newSample()
	if err := Check(s, nil); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	f, _ := Lookup(s, "size")
	if err := f.Parse(s, "0"); err != nil {
		t.Fatal(err)
	}
	if err := Check(s, nil); err != nil {
		t.Errorf("size 0 not given: %v", err)
	}
	given := func(n string) bool { return n == "size" }
	if err := Check(s, given); err == nil || err.Error() != "size 0: need at least 1" {
		t.Errorf("size 0 given: %v", err)
	}
	// Parse leaves the check to Check. A zero where the declared default is not zero also means
	// "not given", unless it was given.
	s = newSample()
	c, _ := Lookup(s, "count")
	if err := c.Parse(s, "0"); err != nil {
		t.Fatal(err)
	}
	if err := Check(s, nil); err != nil {
		t.Errorf("count 0 not given: %v", err)
	}
	if err := Check(s, func(n string) bool { return n == "count" }); err == nil {
		t.Error("count 0 given passed Check")
	}
	r, _ := Lookup(s, "ratio")
	if err := r.Parse(s, "2"); err != nil {
		t.Fatal(err)
	}
	if err := Check(s, nil); err == nil || err.Error() != "ratio 2: need between 0 and 1" {
		t.Errorf("ratio 2: %v", err)
	}
}

func TestSetValueFromSpecs(t *testing.T) {
	s := newSample()
	for _, c := range []struct {
		name string
		v    any
		err  string
	}{
		{"count", 2.5, "count 2.5: not a whole number"},
		{"count", "3", "count 3: not a number"},
		{"wait", 1.5, ""},
		{"wait", "2m", ""},
		{"vu", 8, ""},
		{"vu", []int{1, 2}, ""},
		{"vu", "x", "vu x: give whole numbers, like 1,2,4,8"},
		{"on", "yes", "on yes: use true or false"},
	} {
		f, _ := Lookup(s, c.name)
		err := f.SetValue(s, c.v, Format(c.v))
		if (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("%s=%v: %v, want %q", c.name, c.v, err, c.err)
		}
	}
	if s.Wait != 2*time.Minute || !reflect.DeepEqual(s.VUs, []int{1, 2}) {
		t.Errorf("after SetValue: wait %v, vu %v", s.Wait, s.VUs)
	}
}

func TestFormat(t *testing.T) {
	for x, want := range map[any]string{90 * time.Second: "1m30s", 2 * time.Minute: "2m", time.Hour: "1h",
		0.25: "0.25", 7: "7", true: "true"} {
		if got := Format(x); got != want {
			t.Errorf("Format(%v) = %q, want %q", x, got, want)
		}
	}
	if got := Format([]int{1, 2, 4}); got != "1,2,4" {
		t.Errorf("Format list %q", got)
	}
	if d, err := ParseDuration("1.5"); err != nil || d != 1500*time.Millisecond {
		t.Errorf("bare seconds: %v %v", d, err)
	}
}
