package workload

import (
	"context"

	"github.com/cairn-bench/cairn/internal/target"
)

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
