package study

import (
	"context"
	"os"

	"github.com/cairn-bench/cairn/internal/target"
)

// Preview checks a study against its server and returns its plan, changing nothing: an SQLite
// file it had to create is removed, and it waits for no lock but refuses while another study
// holds the server's (whose changed settings it would read as found).
func Preview(ctx context.Context, st *Study) (*Plan, error) {
	if path := target.MissingFile(st.Spec.DB); path != "" {
		defer os.Remove(path)
	}
	t, err := target.Open(ctx, st.Spec.DB)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	note := ""
	lock, err := Lock(ctx, t, st, func(l string) { note = l })
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	drawn := st.Order == "random" && st.DrawSeed()
	p, err := Check(ctx, t, st)
	if err != nil {
		return nil, err
	}
	p.SeedDrawn, p.LockNote = drawn, note
	return p, nil
}
