package workload

import (
	"context"
	"fmt"

	"github.com/cairn-bench/cairn/internal/target"
)

// Cleanup drops what f's record says its prepare created in db's database, and nothing else, and
// says what it dropped and what it left alone; it creates no SQLite file that is not there.
func Cleanup(ctx context.Context, db string, f Footprint) ([]string, error) {
	if path := target.MissingFile(db); path != "" {
		return []string{fmt.Sprintf("no database file %s: nothing to drop", path)}, nil
	}
	t, err := target.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	members := target.MembersOf(t)
	var lines []string
	for _, m := range members { // a shard set: each shard's own record
		s, err := CleanupSchema(ctx, m, f)
		if err != nil {
			return nil, err
		}
		for _, l := range s.CleanupReport(f) {
			if len(members) > 1 {
				l = target.Where(m) + ": " + l
			}
			lines = append(lines, l)
		}
	}
	return lines, nil
}
