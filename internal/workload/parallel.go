package workload

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/cairn-bench/cairn/internal/target"
)

// Parallel runs jobs 0..n-1 on k connections of t (prepare's loaders), each connection set up
// once by setup (if not nil) before its first job. Jobs are handed out in order from a shared
// counter, so a slow job does not hold the others back; the first error cancels the rest, and it,
// not the cancellations it caused, is returned.
func Parallel(ctx context.Context, t target.Target, k, n int, setup func(ctx context.Context, c target.Conn) error, job func(ctx context.Context, c target.Conn, i int) error) error {
	if k < 1 {
		k = 1
	}
	k = min(k, n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, k)
	for l := 0; l < k; l++ {
		wg.Add(1)
		go func(l int) {
			defer wg.Done()
			c, err := t.Conn(ctx)
			if err != nil {
				errs[l] = err
				cancel()
				return
			}
			defer c.Close()
			ctx := withLoader(ctx, l) // a Tally counts the connection's rows as loader l's
			if setup != nil {
				if err := setup(ctx, c); err != nil {
					errs[l] = err
					cancel()
					return
				}
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := job(ctx, c, i); err != nil {
					errs[l] = err
					cancel()
					return
				}
			}
		}(l)
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil && !errors.Is(e, context.Canceled) {
			return e
		}
	}
	if ctx.Err() != nil {
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
	}
	return nil
}

// loadAttempts bounds the attempts at one load job.
const loadAttempts = 4

// RetryLoad runs load, and runs it again (up to four attempts in all) while it fails with an
// error that t classes as retryable. InnoDB can choose one of two LOAD DATA statements that fill
// neighbouring key ranges of one table as a deadlock victim, and a prepare must not die of that.
// load must be atomic, as target.Conn.BulkLoad is, so that a failed attempt leaves no rows
// behind, and must take back what it added to a progress count.
func RetryLoad(ctx context.Context, t target.Target, load func() error) error {
	for attempt := 1; ; attempt++ {
		err := load()
		if err == nil || attempt == loadAttempts || ctx.Err() != nil || t.Classify(err) != target.ErrRetryable {
			return err
		}
	}
}

// BulkLoad runs c.BulkLoad of the rows gen writes under RetryLoad, counting them into rows (for
// a progress display; nil counts nothing), and into the table's and the loader's counts of the
// context's Tally, taking a failed attempt's rows back from the counts.
func BulkLoad(ctx context.Context, t target.Target, c target.Conn, table string, columns []string, rows *atomic.Int64, gen func(w target.RowWriter) error) (int64, error) {
	var n int64
	counts := []*atomic.Int64{rows}
	if tl := tallyOf(ctx); tl != nil {
		counts = append(counts, tl.table(table))
		if l, ok := ctx.Value(loaderKey{}).(int); ok {
			counts = append(counts, tl.loader(l))
		}
	}
	err := RetryLoad(ctx, t, func() error {
		cw := &countingWriter{counts: counts}
		var err error
		n, err = c.BulkLoad(ctx, table, columns, func(w target.RowWriter) error {
			cw.RowWriter = w
			err := gen(cw)
			cw.flush()
			return err
		})
		if err != nil {
			for _, c := range cw.counts {
				if c != nil {
					c.Add(-cw.added)
				}
			}
		}
		return err
	})
	return n, err
}

// countingWriter counts rows into its counts (nil ones count nothing), in steps of 1024 so that
// loaders do not contend on them.
type countingWriter struct {
	target.RowWriter
	counts         []*atomic.Int64
	pending, added int64
}

func (c *countingWriter) EndRow() error {
	if c.pending++; c.pending == 1024 {
		c.flush()
	}
	return c.RowWriter.EndRow()
}

func (c *countingWriter) flush() {
	if c.pending > 0 {
		for _, n := range c.counts {
			if n != nil {
				n.Add(c.pending)
			}
		}
		c.added += c.pending
	}
	c.pending = 0
}
