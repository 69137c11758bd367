package spec

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/workload"
)

// ProfileOnly reports whether an engine setting is a profile's alone (vu: a list): a run has
// neither repeat nor pause.
func ProfileOnly(name string) bool { return name == "repeat" || name == "pause" || name == "after" }

// RunOnly reports whether an engine setting is a run's alone (vu: one count): a profile's steps
// each run at their VU count.
func RunOnly(name string) bool { return name == "schedule" }

// Edit changes keys of a spec's text, as a form's fields do, and leaves the rest of it as it was:
// keys it does not know (a study's), comments, order. set maps a dotted path (db, vu,
// options.mode, prepare.warehouses, prepare) to its new value as a field holds it, or to nil to
// take the key out (back to its default); each value is written in the type the option is
// declared with (vu 1,2,4 a list, a count a number, a duration as text), or as text when the
// spec's workload does not declare it. prepare "true" asks for a prepare with its defaults, and
// keeps the prepare options already given.
func Edit(text []byte, set map[string]*string) ([]byte, error) {
	doc, root, err := parseDoc(text)
	if err != nil {
		return nil, err
	}
	// workload first: the others are typed by its declarations
	if v, ok := set["workload"]; ok {
		setPath(root, []string{"workload"}, v, options.String)
	}
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	sort.Strings(paths) // the keys it adds, in the same order whatever the map's
	for _, path := range paths {
		v := set[path]
		if path == "workload" {
			continue
		}
		parts := strings.Split(path, ".")
		if len(parts) > 2 || parts[0] == "" {
			return nil, errf(path, "the form edits top-level keys and those of options and prepare")
		}
		if path == "prepare" && v != nil {
			if p := get(root, "prepare"); p != nil && p.Kind == yaml.MappingNode {
				continue // prepare options given: the prepare is asked for already
			}
			if *v != "true" && *v != "false" {
				return nil, errf(path, "use true or false")
			}
		}
		if len(parts) == 2 && parts[0] == "prepare" {
			if p := get(root, "prepare"); p != nil && p.Kind == yaml.ScalarNode {
				del(root, "prepare") // prepare: true becomes prepare: {option: value}
			}
		}
		setPath(root, parts, v, kindOf(root, parts))
	}
	// an options or prepare map left empty says nothing: prepare with no options is prepare: true
	if o := get(root, "options"); o != nil && o.Kind == yaml.MappingNode && len(o.Content) == 0 {
		del(root, "options")
	}
	if p := get(root, "prepare"); p != nil && p.Kind == yaml.MappingNode && len(p.Content) == 0 {
		*p = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("write the spec: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write the spec: %w", err)
	}
	return b.Bytes(), nil
}

// Values reads the keys a form shows from a spec's text, each as a field holds it: top-level
// scalars and lists (a list as 1,2,4), and options.* and prepare.* (prepare itself "true" when
// asked for). Keys it cannot show as one value (a study's settings) are left to the text.
func Values(text []byte) (map[string]string, error) {
	_, root, err := parseDoc(text)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i].Value, root.Content[i+1]
		if s, ok := scalarText(v); ok {
			out[k] = s
			continue
		}
		if v.Kind == yaml.MappingNode && (k == "options" || k == "prepare") {
			if k == "prepare" {
				out[k] = "true"
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				if s, ok := scalarText(v.Content[j+1]); ok {
					out[k+"."+v.Content[j].Value] = s
				}
			}
		}
	}
	return out, nil
}

// scalarText is a scalar's text, or a list of scalars' joined by commas.
func scalarText(n *yaml.Node) (string, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "", true
		}
		return n.Value, true
	case yaml.SequenceNode:
		var l []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return "", false
			}
			l = append(l, c.Value)
		}
		return strings.Join(l, ","), true
	}
	return "", false
}

// parseDoc reads a spec's text as a YAML document whose root is a mapping (an empty text is an
// empty one).
func parseDoc(text []byte) (*yaml.Node, *yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, nil, &Error{Msg: "not YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, nil, &Error{Msg: "a spec is a mapping of keys (workload:, db:, …)"}
	}
	return &doc, root, nil
}

func get(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func del(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			// the comment above the key is the next one's, or the map's own (the spec's first lines)
			if c := m.Content[i].HeadComment; c != "" && i+2 < len(m.Content) {
				next := m.Content[i+2]
				next.HeadComment = strings.TrimSpace(c + "\n" + next.HeadComment)
			}
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// kindOf is the declared kind of the option a path names, for the spec's workload; String when
// it declares none.
func kindOf(root *yaml.Node, parts []string) options.Kind {
	var w workload.Workload
	if n := get(root, "workload"); n != nil {
		w, _ = workload.Get(n.Value)
	}
	if len(parts) == 1 {
		if parts[0] == "prepare" {
			return options.Bool
		}
		if f, ok := options.Lookup(&Engine{}, parts[0]); ok {
			return f.Kind
		}
		return options.String
	}
	if w == nil {
		return options.String
	}
	var v any
	switch parts[0] {
	case "options":
		v = w.RunOptions()
	case "prepare":
		v = w.PrepareOptions()
	default:
		return options.String
	}
	if f, ok := options.Lookup(v, parts[1]); ok {
		return f.Kind
	}
	return options.String
}

// setPath sets or (v nil) takes out the key at parts, making the map above it when missing.
func setPath(root *yaml.Node, parts []string, v *string, k options.Kind) {
	m := root
	for _, p := range parts[:len(parts)-1] {
		c := get(m, p)
		if c == nil || c.Kind != yaml.MappingNode {
			if v == nil {
				return
			}
			del(m, p)
			c = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p}, c)
		}
		m = c
	}
	key := parts[len(parts)-1]
	if v == nil || strings.TrimSpace(*v) == "" {
		del(m, key)
		return
	}
	n := valueNode(strings.TrimSpace(*v), k)
	if old := get(m, key); old != nil {
		// keep the comments that stood beside the old value
		n.HeadComment, n.LineComment, n.FootComment = old.HeadComment, old.LineComment, old.FootComment
		*old = *n
		return
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, n)
}

// valueNode writes a field's text in its option's type; text that is not of the type stays text,
// for validation to name.
func valueNode(s string, k options.Kind) *yaml.Node {
	str := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch k {
	case options.Int, options.Uint:
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: s}
		}
	case options.Float:
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
		}
	case options.Bool:
		if b, err := strconv.ParseBool(s); err == nil {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
		}
	case options.IntList:
		l, err := options.ParseIntList(s)
		if err != nil {
			return str
		}
		if len(l) == 1 && !strings.Contains(s, ",") {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(l[0])}
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, n := range l {
			seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(n)})
		}
		return seq
	}
	return str
}
