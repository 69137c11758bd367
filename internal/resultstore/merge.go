package resultstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
)

// MergeAt merges the parts args names — ids of the store at path, or result documents written
// with --json (an argument ending in .json) — and stores the merged run, which it returns with its
// id set.
func MergeAt(ctx context.Context, path string, args []string) (*results.Document, error) {
	var ids []string
	for _, a := range args {
		if !strings.HasSuffix(a, ".json") {
			ids = append(ids, a)
		}
	}
	var stored []results.Loaded
	if len(ids) > 0 {
		var err error
		if stored, err = Read(ctx, path, ids); err != nil {
			return nil, err
		}
	}
	var ls []results.Loaded
	for _, a := range args {
		if !strings.HasSuffix(a, ".json") {
			l := stored[0]
			stored = stored[1:]
			l.ID = a
			ls = append(ls, l)
			continue
		}
		b, err := os.ReadFile(a)
		if err != nil {
			return nil, &results.MergeError{Msg: fmt.Sprintf("read part %s: %v", a, errors.Unwrap(err))}
		}
		d := &results.Document{}
		if err := json.Unmarshal(b, d); err != nil {
			return nil, &results.MergeError{Msg: fmt.Sprintf("%s is not a result document: %v", a, err)}
		}
		ls = append(ls, results.Loaded{ID: a, Run: d})
	}
	d, err := results.Merge(ls)
	if err != nil {
		return nil, err
	}
	s, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := s.SaveRun(ctx, d, 0); err != nil {
		return nil, err
	}
	return d, nil
}
