package study

import (
	"bytes"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/spec"
)

// FileText writes a stored study back as a study file, which 'cairn study plan' plans to the
// steps the study ran: its name first, then the run spec's keys in a spec file's order, then the
// study's own, from its config (Config). The settings are written from its factors, whose order
// (which orders the cases) a stored config's mapping does not keep. A secret of db is never
// written: it stays (or becomes) a ${VAR} reference (spec.WrittenDB), which a comment points to.
func FileText(st *results.Study) ([]byte, error) {
	m, ok := spec.PlainNumbers(st.Config).(map[string]any)
	if !ok || len(m) == 0 {
		return nil, errf("", "none stored")
	}
	var vars []string
	switch db := m["db"].(type) {
	case string:
		m["db"], vars = spec.WrittenDB(db)
	case []any:
		urls := make([]string, len(db))
		for i, u := range db {
			urls[i], _ = u.(string)
		}
		urls, vars = spec.WrittenURLs(urls)
		m["db"] = urls
	}
	order := []string{"name", "workload", "db"}
	for _, f := range options.Fields(&spec.Engine{}) {
		order = append(order, f.Name)
	}
	order = append(append(order, "options", "prepare"), studyKeys...)
	var rest []string
	for k := range m {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	doc := &yaml.Node{Kind: yaml.MappingNode}
	seen := map[string]bool{}
	for _, k := range append(order, rest...) {
		v, ok := m[k]
		if !ok || seen[k] {
			continue
		}
		seen[k] = true
		var n yaml.Node
		if k == "settings" {
			n = settingsNode(st.Factors)
		} else if err := n.Encode(v); err != nil {
			return nil, errf(k, "cannot be written: %v", err)
		}
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &n)
	}
	var b bytes.Buffer
	b.WriteString(spec.SecretsNote(vars, "cairn study plan and run read"))
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, errf("", "cannot be written: %v", err)
	}
	return b.Bytes(), nil
}

// settingsNode is the settings mapping of a study's factors, in their order: the CPU lists are
// factors too, written as client_cpus and server_cpus.
func settingsNode(factors []results.Factor) yaml.Node {
	n := yaml.Node{Kind: yaml.MappingNode}
	for _, f := range factors {
		if f.Name == "client-cpus" || f.Name == "server-cpus" || isOptionPath(f.Name) {
			continue // written as client_cpus, server_cpus, and in options or prepare (config)
		}
		levels := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, l := range f.Levels {
			var v yaml.Node
			_ = v.Encode(l) // a string always encodes
			levels.Content = append(levels.Content, &v)
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f.Name}, levels)
	}
	return n
}
