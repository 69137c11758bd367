package spec

import (
	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/target"
)

// decodeDB reads db: one URL, or a list of them (a shard set), each with its ${VAR}s expanded. A
// URL naming a variable that is not set is kept as written, as --set db= keeps it: opening it
// says which variable is missing, and a study given --set db=… does not need the file's.
func (d decoder) decodeDB(key string, v *yaml.Node) (string, error) {
	switch v.Kind {
	case yaml.ScalarNode:
		if u, err := d.expandURL(key, v.Value); err == nil {
			return u, nil
		}
		return v.Value, nil
	case yaml.SequenceNode:
		if len(v.Content) == 0 {
			return "", errf(key, "an empty list: give one URL or several")
		}
		urls := make([]string, len(v.Content))
		for i, n := range v.Content {
			if n.Kind != yaml.ScalarNode {
				return "", errf(key, "item %d must be a URL", i+1)
			}
			u, err := d.expandURL(key, n.Value)
			if err != nil {
				u = n.Value
			}
			urls[i] = u
		}
		return target.JoinSet(urls), nil
	}
	return "", errf(key, "must be a URL or a list of URLs")
}

// dbNode writes db as it was given: one URL, or the list of a shard set; passwords as
// ${CAIRN_PASSWORD}.
func dbNode(db string) *yaml.Node {
	urls := target.SetURLs(db)
	if len(urls) == 1 {
		return scalar(PasswordRef(db))
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, u := range urls {
		seq.Content = append(seq.Content, scalar(PasswordRef(u)))
	}
	return seq
}
