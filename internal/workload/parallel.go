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
