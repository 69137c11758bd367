package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
)

// Housekeeping. InnoDB has no checkpoint statement, its page cleaner need not write an idle
// server's dirty pages back (MariaDB 10.11's does not, with innodb_max_dirty_pages_pct_lwm 0),
// and cairn changes no setting to make it: a checkpoint is FLUSH TABLES … FOR EXPORT of the
// workload's own tables, which writes their dirty pages to their files, then UNLOCK TABLES. The
// buffer pool's dirty pages before and after are noted. wait-purge waits until the purge has
// brought the history list (INNODB_METRICS trx_rseg_history_len) down to purgeBound. ANALYZE
// TABLE is of the workload's own tables. InnoDB has no VACUUM: its purge does that work.
const purgeBound = 1000

func (t *mysqlTarget) Housekeeping(task string) string {
	if task == target.Vacuum {
		return "InnoDB has no VACUUM (its purge removes old row versions): use --after wait-purge"
	}
	return ""
}

func (t *mysqlTarget) Housekeep(ctx context.Context, c target.Conn, task string, tables []string) (string, error) {
	switch task {
	case target.Checkpoint:
		return t.flushTables(ctx, c, tables)
	case target.WaitPurge:
		return target.WaitBelow(ctx, "history list length", purgeBound, func(ctx context.Context) (int64, error) {
			var n, on int64
			err := c.QueryRow(ctx, "SELECT `COUNT`, ENABLED FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'").Scan(&n, &on)
			if err == nil && on == 0 {
				err = fmt.Errorf("the server's trx_rseg_history_len metric is off (innodb_monitor_enable turns it on)")
			}
			return n, err
		})
	case target.Analyze:
		if len(tables) == 0 {
			return "no tables of the workload's to analyze", nil
		}
		l, err := target.QuoteTables(tables, "`")
		if err != nil {
			return "", err
		}
		q := "ANALYZE TABLE " + l
		rows, err := c.Query(ctx, q)
		if err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
		defer rows.Close()
		var bad []string
		for rows.Next() {
			var tbl, op, kind, msg string
			if err := rows.Scan(&tbl, &op, &kind, &msg); err != nil {
				return "", fmt.Errorf("%s: %w", q, err)
			}
			if strings.EqualFold(kind, "error") {
				bad = append(bad, tbl+": "+msg)
			}
		}
		if err := rows.Err(); err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
		if len(bad) > 0 {
			return "", fmt.Errorf("%s: %s", q, strings.Join(bad, "; "))
		}
		return "", nil
	}
	return "", fmt.Errorf("%s has no %s", t.Name(), task)
}

// status reads global status variables by name (SHOW GLOBAL STATUS: MySQL's and MariaDB's alike).
func status(ctx context.Context, c target.Conn, names ...string) (map[string]int64, error) {
	q := "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + strings.Join(names, "','") + "')"
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var n, v string
		if err := rows.Scan(&n, &v); err != nil {
			return nil, err
		}
		out[n], _ = strconv.ParseInt(v, 10, 64)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("the server has no status variable %s", n)
		}
	}
	return out, nil
}

// flushTables writes the tables' dirty pages to their files (FLUSH TABLES … FOR EXPORT, which
// holds a read lock on them until UNLOCK TABLES on the same connection).
func (t *mysqlTarget) flushTables(ctx context.Context, c target.Conn, tables []string) (string, error) {
	if len(tables) == 0 {
		return "no tables of the workload's to flush", nil
	}
	l, err := target.QuoteTables(tables, "`")
	if err != nil {
		return "", err
	}
	const dirty, data = "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_data"
	before, err := status(ctx, c, dirty, data)
	if err != nil {
		return "", err
	}
	q := "FLUSH TABLES " + l + " FOR EXPORT"
	if _, err := c.Exec(ctx, q); err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	if _, err := c.Exec(context.WithoutCancel(ctx), "UNLOCK TABLES"); err != nil {
		return "", fmt.Errorf("UNLOCK TABLES after %s: %w", q, err)
	}
	after, err := status(ctx, c, dirty, data)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("buffer pool dirty pages %d before, %d after, of %d", before[dirty], after[dirty], after[data]), nil
}
