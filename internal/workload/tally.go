package workload

import (
	"context"
	"sync"
	"sync/atomic"
)

// Tally counts a load's rows per table and per loader (one of Parallel's connections), beside
// the total its loaders add to, for a live display of the load (cairn serve's build progress).
// It rides the prepare's context (WithTally), so that the workloads' loads, which add to their
// total through BulkLoad, count into it without knowing who reads it; a load with no tally in
// its context counts only its total.
type Tally struct {
	mu      sync.Mutex
	tables  map[string]*atomic.Int64
	order   []string
	loaders []*atomic.Int64
}

// TableRows is one table's rows loaded so far.
type TableRows struct {
	Name string
	Rows int64
}

type tallyKey struct{}
type loaderKey struct{}

// WithTally makes a context whose loads count into t.
func WithTally(ctx context.Context, t *Tally) context.Context {
	return context.WithValue(ctx, tallyKey{}, t)
}

func tallyOf(ctx context.Context) *Tally {
	t, _ := ctx.Value(tallyKey{}).(*Tally)
	return t
}

// withLoader marks a context as loader l's (Parallel's connection l).
func withLoader(ctx context.Context, l int) context.Context {
	return context.WithValue(ctx, loaderKey{}, l)
}

func (t *Tally) table(name string) *atomic.Int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tables == nil {
		t.tables = map[string]*atomic.Int64{}
	}
	c := t.tables[name]
	if c == nil {
		c = new(atomic.Int64)
		t.tables[name] = c
		t.order = append(t.order, name)
	}
	return c
}

func (t *Tally) loader(l int) *atomic.Int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.loaders) <= l {
		t.loaders = append(t.loaders, new(atomic.Int64))
	}
	return t.loaders[l]
}

// Tables are the rows loaded so far per table, in the order the load began them.
func (t *Tally) Tables() []TableRows {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]TableRows, len(t.order))
	for i, n := range t.order {
		out[i] = TableRows{Name: n, Rows: t.tables[n].Load()}
	}
	return out
}

// Loaders are the rows loaded so far per loader, loader 0 first.
func (t *Tally) Loaders() []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]int64, len(t.loaders))
	for i, c := range t.loaders {
		out[i] = c.Load()
	}
	return out
}
