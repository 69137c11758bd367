package testutil

import (
	"context"
	"fmt"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// HoldLocks holds a write lock on table in the MySQL/MariaDB database db for hold in every 2×hold
// until stop is closed: a shard slowed on purpose, whose statements wait out part of each hold.
func HoldLocks(db, table string, hold time.Duration, stop <-chan struct{}) error {
	ctx := context.Background()
	tg, err := target.Open(ctx, db)
	if err != nil {
		return err
	}
	defer tg.Close()
	c, err := tg.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		select {
		case <-stop:
			return nil
		case <-time.After(hold):
		}
		if _, err := c.Exec(ctx, "LOCK TABLES "+table+" WRITE"); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		time.Sleep(hold)
		if _, err := c.Exec(ctx, "UNLOCK TABLES"); err != nil {
			return fmt.Errorf("unlock: %w", err)
		}
	}
}
