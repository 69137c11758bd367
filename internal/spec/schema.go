package spec

import (
	"encoding/json"
	"strconv"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Schema is the JSON Schema of run specs, made from the same declarations that make the flags and
// read the specs (package options), so that it cannot drift from what cairn accepts. Every
// registered workload adds the schema of its options and of its prepare's.
func Schema() []byte {
	engine := &Engine{}
	props := map[string]any{
		"workload": map[string]any{"description": "the workload to run", "enum": names()},
		"db": map[string]any{"description": "database URL: sqlite://FILE, postgres://user@host:port/db, mysql://user@host:port/db; ${VAR} reads the environment (the password: ${CAIRN_PASSWORD}); a list of URLs, or mysql://user@h1:3306,h2:3307/shard_{0..7}, is a shard set (docs/fanout.md)",
			"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1}}},
		"replica": map[string]any{"description": "the replicas of db's primary, which serve the same database by the server's replication: a URL or a list; --route says what they take (docs/tpcc.md#replicas)",
			"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1}}},
		"options": map[string]any{"type": "object", "description": "the workload's options (below, per workload)"},
		"prepare": map[string]any{"description": "prepare the schema first when the database has none: true, or the prepare options",
			"oneOf": []any{map[string]any{"type": "boolean"}, map[string]any{"type": "object"}}},
	}
	for _, f := range options.Fields(engine) {
		p := fieldSchema(f)
		delete(p, "default") // the engine's defaults differ by workload and by run or profile (docs/spec.md)
		if f.Name == "vu" {
			p = map[string]any{"description": f.Help, "oneOf": []any{
				map[string]any{"type": "integer", "minimum": 1, "description": "a run"},
				map[string]any{"type": "array", "items": map[string]any{"type": "integer", "minimum": 1}, "minItems": 1, "description": "a profile"}}}
		}
		if f.Name == "schedule" {
			p = map[string]any{"description": f.Help, "oneOf": []any{
				map[string]any{"type": "string", "description": "as the flag: 30%:vu=16,60%:vu=4"},
				map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "object", "required": []string{"at"},
					"anyOf":                []any{map[string]any{"required": []string{"vu"}}, map[string]any{"required": []string{"rate"}}},
					"additionalProperties": false, "properties": map[string]any{
						"at":   map[string]any{"type": "string", "description": "a time from the window's start (30s) or a share of the window (30%)"},
						"vu":   map[string]any{"type": "integer", "minimum": 1, "description": "the VUs that run from then on"},
						"rate": map[string]any{"type": "number", "exclusiveMinimum": 0, "description": "with rate: the open loop's total rate from then on"}}}}}}
		}
		props[f.Name] = p
	}
	// repeat, pause and after are a profile's (vu: a list): a run, whose vu is a number or left
	// out, has none of them; schedule is a run's.
	cases := []any{map[string]any{
		"if":   map[string]any{"required": []string{"vu"}, "properties": map[string]any{"vu": map[string]any{"type": "array"}}},
		"then": map[string]any{"properties": map[string]any{"schedule": false}},
		"else": map[string]any{"properties": map[string]any{"repeat": false, "pause": false, "after": false}}}}
	for _, w := range workload.All() {
		info := w.Info()
		then := map[string]any{
			"options": objectSchema(w.RunOptions()),
			"prepare": map[string]any{"oneOf": []any{map[string]any{"type": "boolean"}, objectSchema(w.PrepareOptions())}},
		}
		for _, f := range options.Fields(engine) {
			if !info.Uses(f.Name) {
				then[f.Name] = false // the workload does not read it
			}
		}
		cases = append(cases, map[string]any{
			"if":   map[string]any{"properties": map[string]any{"workload": map[string]any{"const": info.Name}}},
			"then": map[string]any{"properties": then}})
	}
	s := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  "https://github.com/cairn-bench/cairn/docs/spec.schema.json",
		"title":                "cairn run spec",
		"description":          "One run (vu: a number) or profile (vu: a list) of a workload; docs/spec.md describes every field.",
		"type":                 "object",
		"required":             []string{"workload"},
		"properties":           props,
		"additionalProperties": false,
		"allOf":                cases,
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// objectSchema is the schema of an options struct: every option, and no other key.
func objectSchema(v any) map[string]any {
	props := map[string]any{}
	for _, f := range options.Fields(v) {
		props[f.Name] = fieldSchema(f)
		if f.Alias != "" {
			props[f.Alias] = fieldSchema(f)
		}
	}
	return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
}

// durationPattern is what options.ParseDuration takes as text: a Go duration, or seconds.
const durationPattern = `^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$|^[0-9]+(\.[0-9]*)?$`

func fieldSchema(f options.Field) map[string]any {
	p := map[string]any{"description": f.Help}
	if f.Default != "" && !f.HasUnset {
		p["default"] = defaultValue(f)
	}
	num := func(t string) {
		p["type"] = t
		if f.Min != nil {
			p["minimum"] = *f.Min
		}
		if f.Max != nil {
			p["maximum"] = *f.Max
		}
	}
	switch f.Kind {
	case options.String:
		p["type"] = "string"
		if len(f.Enum) > 0 {
			p["enum"] = f.Enum
		}
	case options.Bool:
		p["type"] = "boolean"
	case options.Int, options.Uint:
		num("integer")
		if f.Kind == options.Uint {
			p["minimum"] = 0
		}
	case options.Float:
		num("number")
	case options.Duration:
		p["type"] = []string{"string", "number"}
		p["pattern"] = durationPattern
	case options.IntList:
		p["type"] = "array"
		p["items"] = map[string]any{"type": "integer"}
	}
	return p
}

// defaultValue is a field's default in its JSON type.
func defaultValue(f options.Field) any {
	switch f.Kind {
	case options.Bool:
		return f.Default == "true"
	case options.Int, options.Uint:
		if n, err := strconv.ParseInt(f.Default, 10, 64); err == nil {
			return n
		}
	case options.Float:
		if n, err := strconv.ParseFloat(f.Default, 64); err == nil {
			return n
		}
	case options.IntList:
		if l, err := options.ParseIntList(f.Default); err == nil {
			return l
		}
	}
	return f.Default
}
