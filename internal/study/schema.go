package study

import (
	"encoding/json"

	"github.com/cairn-bench/cairn/internal/spec"
)

// Schema is the JSON Schema of study files: the run spec's (spec.Schema, made from the same
// declarations that read specs) with the study's own keys.
func Schema() []byte {
	var s map[string]any
	if err := json.Unmarshal(spec.Schema(), &s); err != nil {
		panic(err)
	}
	props := s["properties"].(map[string]any)
	// A study repeats and pauses whatever its vu: the spec's rule that only a profile has repeat
	// and pause (its one case with an else) is not a study's.
	var cases []any
	for _, c := range s["allOf"].([]any) {
		if _, profileOnly := c.(map[string]any)["else"]; !profileOnly {
			cases = append(cases, c)
		}
	}
	s["allOf"] = cases
	// A workload option given a list is a factor (options.go): each option that takes one
	// value takes a list of them too.
	for _, c := range cases {
		then, _ := c.(map[string]any)["then"].(map[string]any)
		props, _ := then["properties"].(map[string]any)
		if props == nil {
			continue
		}
		// A study's schedule is its own (live changes), whichever engine settings the workload
		// reads: the run spec's load schedule is not a study's key.
		delete(props, "schedule")
		factors(props["options"])
		if p, ok := props["prepare"].(map[string]any); ok {
			for _, alt := range p["oneOf"].([]any) {
				factors(alt)
			}
		}
	}
	value := map[string]any{"type": []string{"string", "number", "boolean"}}
	values := map[string]any{"oneOf": []any{value, map[string]any{"type": "array", "items": value, "minItems": 1}}}
	cpuLists := map[string]any{"description": "a factor: CPU lists (like 0-3,8), each a level",
		"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1}}}
	props["name"] = map[string]any{"type": "string", "minLength": 1, "description": "the study's name, in its document and report"}
	props["order"] = map[string]any{"enum": orders, "default": "sequential",
		"description": "sequential: each case in turn, VUs rising, repeats at once; interleaved: every case and VU count once per repeat; random: shuffled with the seed"}
	props["repeat"] = map[string]any{"type": "integer", "minimum": 1, "maximum": 1000, "default": 1, "description": "every step this many times"}
	props["settings"] = map[string]any{"type": "object", "additionalProperties": values,
		"description": "factors: server settings and their values; every combination is a case"}
	props["schedule"] = map[string]any{"type": "array", "description": "live changes inside each run's window, in rising order of time",
		"items": map[string]any{"type": "object", "required": []string{"at"}, "additionalProperties": false,
			"anyOf": []any{map[string]any{"required": []string{"set"}}, map[string]any{"required": []string{"vu"}}},
			"properties": map[string]any{
				"at":  map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]*)?(ms|s|m|h))+$|^[0-9]+(\.[0-9]*)?%$`, "description": "a time in the window (3m) or a share of it (20%)"},
				"set": map[string]any{"type": "object", "minProperties": 1, "additionalProperties": value},
				"vu":  map[string]any{"type": "integer", "minimum": 1, "maximum": 100000, "description": "the VUs running from then on (a load change)"}}}}
	props["restart"] = map[string]any{"type": "string", "description": "the shell command that restarts the server, for settings that need a restart"}
	props["ready_timeout"] = map[string]any{"type": "string", "default": "60s", "description": "how long a restarted server has to answer"}
	props["host"] = map[string]any{"type": "object", "minProperties": 1, "additionalProperties": false,
		"description": "the original host's settings cairn does not set: plan and run say whether this host reproduces each",
		"properties": map[string]any{
			"smt":  map[string]any{"type": []string{"string", "integer"}, "enum": []any{"off", "on", 1, 2, 4, 8, "1", "2", "4", "8"}, "description": "threads per core: off, on, 1, 2, 4, 8"},
			"dscr": map[string]any{"type": []string{"string", "integer"}, "description": "POWER's Data Stream Control Register (ppc64, ppc64le only)"}}}
	props["client_cpus"] = cpuLists
	props["server_cpus"] = cpuLists
	s["$id"] = "https://github.com/cairn-bench/cairn/docs/study.schema.json"
	s["title"] = "cairn study"
	s["description"] = "A tuning experiment: a run spec and the factors it varies; docs/studies.md describes every field."
	s["required"] = []string{"name", "workload"}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// factors lets each option of an options object schema that takes one value take a list.
func factors(obj any) {
	o, _ := obj.(map[string]any)
	props, _ := o["properties"].(map[string]any)
	for name, p := range props {
		field := p.(map[string]any)
		if field["type"] == "array" {
			continue // an option that takes a list (a list of lists is no factor)
		}
		props[name] = map[string]any{"description": field["description"],
			"anyOf": []any{field, map[string]any{"type": "array", "items": field, "minItems": 1, "description": "a factor: each value a level (docs/studies.md)"}}}
	}
}
