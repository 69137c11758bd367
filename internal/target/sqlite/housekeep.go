package sqlite

import (
	"context"
	"fmt"

	"github.com/cairn-bench/cairn/internal/target"
)

// Housekeeping: a checkpoint is PRAGMA wal_checkpoint(TRUNCATE), which writes the WAL back into
// the database file and empties it; ANALYZE is of the workload's own tables. SQLite keeps no dead
// rows to vacuum (its VACUUM rebuilds the whole file, other tables too) and has no purge.
func (t *lite) Housekeeping(task string) string {
	switch task {
	case target.Vacuum:
		return "it keeps no dead rows to vacuum, and its VACUUM rebuilds the whole file, tables of others too"
	case target.WaitPurge:
		return "it has no purge to wait for (InnoDB's history list is MySQL's and MariaDB's)"
	}
	return ""
}

func (t *lite) Housekeep(ctx context.Context, c target.Conn, task string, tables []string) (string, error) {
	switch task {
	case target.Checkpoint:
		var busy, log, done int64
		if err := c.QueryRow(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &log, &done); err != nil {
			return "", fmt.Errorf("PRAGMA wal_checkpoint(TRUNCATE): %w", err)
		}
		if busy != 0 {
			return fmt.Sprintf("the checkpoint could not finish: another connection held the database (%d of %d WAL frames written back)", done, log), nil
		}
		return "", nil
	case target.Analyze:
		for _, n := range tables {
			l, err := target.QuoteTables([]string{n}, `"`)
			if err != nil {
				return "", err
			}
			if _, err := c.Exec(ctx, "ANALYZE "+l); err != nil {
				return "", fmt.Errorf("ANALYZE %s: %w", l, err)
			}
		}
		return "", nil
	}
	return "", fmt.Errorf("SQLite has no %s", task)
}
