package postgres

import (
	"context"
	"fmt"

	"github.com/cairn-bench/cairn/internal/target"
)

// Housekeeping: CHECKPOINT (the server's, for every database: it has no other), VACUUM (ANALYZE)
// and ANALYZE of the workload's own tables. PostgreSQL has no purge to wait for: VACUUM does
// that work.
func (t *pg) Housekeeping(task string) string {
	if task == target.WaitPurge {
		return "it has no purge to wait for (VACUUM removes dead rows): use --after vacuum"
	}
	return ""
}

func (t *pg) Housekeep(ctx context.Context, c target.Conn, task string, tables []string) (string, error) {
	var q string
	switch task {
	case target.Checkpoint:
		q = "CHECKPOINT"
	case target.Vacuum, target.Analyze:
		if len(tables) == 0 {
			return "no tables of the workload's to " + task, nil
		}
		l, err := target.QuoteTables(tables, `"`)
		if err != nil {
			return "", err
		}
		q = "ANALYZE " + l
		if task == target.Vacuum {
			q = "VACUUM (ANALYZE) " + l
		}
	default:
		return "", fmt.Errorf("PostgreSQL has no %s", task)
	}
	if _, err := c.Exec(ctx, q); err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	return "", nil
}
