package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/workload"
)

// compileSchema compiles one of docs/*.schema.json with an independent validator.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.NewCompiler().Compile(filepath.Join("..", "..", "docs", name))
	if err != nil {
		t.Fatalf("compile docs/%s: %v", name, err)
	}
	return s
}

// instance reads YAML (or JSON) as the validator's instance. It also refuses a plain scalar that
// YAML 1.1 readers (PyYAML and the loaders of most schema tools) take for a boolean while YAML
// 1.2 reads a string: such a file means different things to different readers.
func instance(t *testing.T, text []byte) (any, []string) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal(text, &n); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	var ambiguous []string
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && n.Style == 0 && n.Tag == "!!str" {
			switch strings.ToLower(n.Value) {
			case "y", "yes", "n", "no", "on", "off":
				ambiguous = append(ambiguous, n.Value)
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&n)
	var v any
	if err := n.Decode(&v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst, ambiguous
}

// TestShippedSpecsMatchTheSchemas validates, with an independent JSON Schema validator, every
// study shipped in studies/ and studies/ci/ against docs/study.schema.json, and the web UI's
// examples (docs/examples) and every workload's --print-spec (a run and a profile) against
// docs/spec.schema.json.
func TestShippedSpecsMatchTheSchemas(t *testing.T) {
	specSchema, studySchema := compileSchema(t, "spec.schema.json"), compileSchema(t, "study.schema.json")
	check := func(name string, sch *jsonschema.Schema, text []byte) {
		t.Helper()
		inst, ambiguous := instance(t, text)
		if len(ambiguous) > 0 {
			t.Errorf("%s: %q read as booleans by YAML 1.1 and as strings by YAML 1.2: quote them", name, ambiguous)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s does not match its schema: %v", name, err)
		}
	}
	files, _ := filepath.Glob("../../studies/*.yaml")
	ci, _ := filepath.Glob("../../studies/ci/*.yaml")
	files = append(files, ci...)
	if len(files) < 10 {
		t.Fatalf("found %d study files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if yaml.Unmarshal(b, &doc) == nil && len(doc.Content) == 0 {
			continue // comments only: a study that waits for a workload not built yet
		}
		check(f, studySchema, b)
	}
	// the web UI's examples (cairn serve's New job page)
	examples, _ := filepath.Glob("../../docs/examples/*.yaml")
	if len(examples) < 3 {
		t.Fatalf("found %d examples in docs/examples", len(examples))
	}
	for _, f := range examples {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(f, specSchema, b)
	}
	for _, w := range workload.All() {
		info := w.Info()
		cmds := [][]string{{info.Name, "run", "--print-spec"}}
		if info.Profile {
			cmds = append(cmds, []string{info.Name, "profile", "--vu", "1,2", "--repeat", "2", "--print-spec"})
		}
		for _, args := range cmds {
			code, out, stderr := cairn(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			check(strings.Join(args, " "), specSchema, []byte(out))
		}
	}
}

// TestSpecAndSchemaAgree: cairn and docs/spec.schema.json accept and refuse the same specs, on
// the cases where they once disagreed.
func TestSpecAndSchemaAgree(t *testing.T) {
	sch := compileSchema(t, "spec.schema.json")
	cases := []struct {
		text string
		ok   bool
	}{
		{"workload: tpcc\nvu: 2\n", true},
		{"workload: tpcc\nvu: \"2\"\n", false},                            // a number in quotes is a string
		{`{"workload": "tpcc", "vu": "2"}`, false},                        // in JSON too
		{"workload: tpcc\nvu: [\"1\", 2]\n", false},                       // and in a list
		{"workload: tpcc\nvu: 2\nrepeat: 2\n", false},                     // repeat is a profile's
		{"workload: tpcc\nrepeat: 2\n", false},                            // no vu: a run
		{"workload: tpcc\nvu: 2\npause: 1s\n", false},                     // so is pause
		{"workload: tpcc\nvu: [1, 2]\nrepeat: 2\n", true},                 // a profile repeats
		{"workload: tpcc\nobserve: \"on\"\n", true},                       // observe is a word
		{"workload: tpcc\nobserve: \"off\"\n", true},                      //
		{"workload: tpcc\nduration: \"30s\"\n", true},                     // a duration is text
		{"workload: tpcc\nduration: 30\n", true},                          // or seconds
		{"workload: tpcc\noptions: {keying-thinking: \"true\"}\n", false}, // a boolean in quotes
		{"workload: tpcc\noptions: {keying-thinking: true}\n", true},
	}
	for _, c := range cases {
		_, err := spec.Read([]byte(c.text))
		inst, _ := instance(t, []byte(c.text))
		verr := sch.Validate(inst)
		if (err == nil) != c.ok {
			t.Errorf("cairn on %q: %v, want ok=%v", c.text, err, c.ok)
		}
		if (verr == nil) != c.ok {
			t.Errorf("the schema on %q: %v, want ok=%v", c.text, verr, c.ok)
		}
	}

	// --set options= names what to write instead of calling options an unknown key.
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	os.WriteFile(f, []byte("workload: tpcc\nvu: 2\n"), 0o644)
	code, _, stderr := cairn(t, "run", "--spec", f, "--set", "options=", "--print-spec")
	if code != ExitUsage || !strings.Contains(stderr, "options.NAME=VALUE") || strings.Contains(stderr, "unknown key") {
		t.Errorf("--set options=: exit %d, %q", code, stderr)
	}
	oneCleanLine(t, stderr)
}
