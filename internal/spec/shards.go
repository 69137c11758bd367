package spec

import (
	"errors"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/target"
)

// decodeDB reads db: one URL, or a list of them (a shard set), each with its ${VAR}s expanded as
// the decoder's env says, into s.DB; the text as written, references and all, is kept for the
// spec to write back. The command line keeps a URL naming a variable that is not set as written,
// as --set db= keeps it: opening it says which variable is missing, and a study given --set db=…
// does not need the file's. A front end that expands only secrets refuses it at once.
func (d decoder) decodeDB(s *Spec, key string, v *yaml.Node) error {
	urls, written, err := d.decodeURLs(key, v)
	if err != nil {
		return err
	}
	s.DB = urls
	s.written, s.expanded = written, urls
	return nil
}

// decodeURLs reads a URL or a list of them (db, replica): the URLs with their ${VAR}s expanded,
// and as written, each joined into one value.
func (d decoder) decodeURLs(key string, v *yaml.Node) (string, string, error) {
	var written []string
	switch v.Kind {
	case yaml.ScalarNode:
		written = []string{v.Value}
	case yaml.SequenceNode:
		if len(v.Content) == 0 {
			return "", "", errf(key, "an empty list: give one URL or several")
		}
		for i, n := range v.Content {
			if n.Kind != yaml.ScalarNode {
				return "", "", errf(key, "item %d must be a URL", i+1)
			}
			written = append(written, n.Value)
		}
	default:
		return "", "", errf(key, "must be a URL or a list of URLs")
	}
	urls := make([]string, len(written))
	for i, w := range written {
		urls[i] = w
		if d.literal {
			continue
		}
		u, err := d.env.ExpandURL(w)
		if err != nil {
			if d.env.SecretsOnly {
				var ue *target.URLError
				if errors.As(err, &ue) {
					return "", "", errf(key, "%s", trimFlag(ue.Msg))
				}
				return "", "", err
			}
			continue
		}
		urls[i] = u
	}
	return target.JoinSet(urls), target.JoinSet(written), nil
}

// trimFlag words a --db message for a spec's db key.
func trimFlag(msg string) string {
	for _, p := range []string{"--db: ", "--db "} {
		if len(msg) > len(p) && msg[:len(p)] == p {
			return msg[len(p):]
		}
	}
	return msg
}

// urlsNode writes db or replica as given: one URL, or a list (a shard set, the replicas), the
// URLs as writtenURLs made them.
func urlsNode(urls []string) *yaml.Node {
	if len(urls) == 1 {
		return scalar(urls[0])
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, u := range urls {
		seq.Content = append(seq.Content, scalar(u))
	}
	return seq
}
