package workload

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
)

// PresentTables runs a dialect's "tables_present" query (one table name per row) and returns the
// names in lower case, sorted: prepare, run and cleanup use it to tell a missing, partial or
// complete schema apart.
func PresentTables(ctx context.Context, c target.Conn, query string) ([]string, error) {
	rows, err := c.Query(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var present []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		present = append(present, strings.ToLower(n))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Strings(present)
	return present, nil
}

// ExecAll runs a statement and drains any result set it returns (MySQL's ANALYZE TABLE returns
// rows, which Exec would leave unread).
func ExecAll(ctx context.Context, c target.Conn, q string) error {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}
