package results

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// OwnFigure is one of a workload's own figures in a run's result, written after the common ones
// under its key (TPC-H's power, throughput, qphh and geomean_s: docs/result-format.md#result).
// results knows no workload's figures: the workload sets them, and what draws one asks for it
// by its key (Result.OwnValue).
type OwnFigure struct {
	Key   string
	Value float64
}

// OwnValue is the workload's own figure key of the result; nil without it.
func (r *Result) OwnValue(key string) *float64 {
	for _, f := range r.Own {
		if f.Key == key {
			v := f.Value
			return &v
		}
	}
	return nil
}

// MarshalJSON writes the common figures, then the workload's own in their order.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	b, err := json.Marshal(plain(r))
	if err != nil || len(r.Own) == 0 {
		return b, err
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, f := range r.Own {
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads the common figures, and as the workload's own, in their order, every
// other key with a number.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = Result(p)
	r.Own = nil
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return err
	}
	common := commonKeys()
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if common[strings.ToLower(key)] {
			continue
		}
		var v float64
		if json.Unmarshal(raw, &v) == nil {
			r.Own = append(r.Own, OwnFigure{Key: key, Value: v})
		}
	}
	return nil
}

// commonKeys are the keys of Result's own fields, lower-cased (encoding/json matches keys to
// fields regardless of case).
var commonKeys = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeOf(Result{})
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[strings.ToLower(name)] = true
		}
	}
	return m
})
