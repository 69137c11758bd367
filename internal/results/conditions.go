package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Conditions are what a run was measured under, flattened to dotted keys and their values: the
// cairn that measured (cairn.*), the database and every setting read (target.*), the host's facts
// (host.*) and the run spec (config.*). What the run measured is not among them (the host's
// PAUSE latency, a workload's own figures under extra), only what was there before it.
func (d *Document) Conditions() map[string]string {
	out := map[string]string{}
	for _, part := range []struct {
		key string
		v   any
	}{{"cairn", d.Cairn}, {"target", d.Target}, {"host", d.Host}, {"config", d.Config}} {
		b, err := json.Marshal(part.v)
		if err != nil {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // a seed is a 63-bit integer
		var v any
		if dec.Decode(&v) == nil {
			flatten(out, part.key, v)
		}
	}
	// The host's PAUSE latency is measured at the run's start, not a fact of the host.
	for k := range out {
		if strings.HasPrefix(k, "host.pause.") {
			delete(out, k)
		}
	}
	return out
}

func flatten(out map[string]string, key string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			flatten(out, key+"."+k, x)
		}
	case []any:
		for i, x := range v {
			flatten(out, fmt.Sprintf("%s.%d", key, i), x)
		}
	case nil:
	default:
		out[key] = fmt.Sprint(v)
	}
}

// ConditionDiff is one condition that differs between two runs; a side that lacks it is "".
type ConditionDiff struct{ Key, A, B string }

// DiffConditions lists the conditions of b that differ from a's, by key.
func DiffConditions(a, b *Document) []ConditionDiff {
	ca, cb := a.Conditions(), b.Conditions()
	var out []ConditionDiff
	for k, v := range ca {
		if cb[k] != v {
			out = append(out, ConditionDiff{k, v, cb[k]})
		}
	}
	for k, v := range cb {
		if _, ok := ca[k]; !ok {
			out = append(out, ConditionDiff{k, "", v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
