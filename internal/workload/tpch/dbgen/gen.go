package dbgen

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// Tables lists the eight tables in dbgen's order.
var Tables = []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// unitsAtSF1 is each table's number of generation units at scale factor 1: rows, except partsupp
// (parts, four rows each) and lineitem (orders, one to seven lines each). Region and nation do not
// scale.
var unitsAtSF1 = map[string]int64{
	"region": 5, "nation": 25, "supplier": 10_000, "customer": 150_000, "part": 200_000,
	"partsupp": 200_000, "orders": 1_500_000, "lineitem": 1_500_000,
}

// Known reports whether name is a TPC-H table.
func Known(name string) bool { _, ok := unitsAtSF1[name]; return ok }

// Units is the number of generation units of table at scale factor sf.
func Units(table string, sf float64) int64 {
	base := unitsAtSF1[table]
	if table == "region" || table == "nation" {
		return base
	}
	return rowsFor(base, sf)
}

// Rows is the number of rows table has at sf, or -1 for lineitem, whose count is known only after
// generating it.
func Rows(table string, sf float64) int64 {
	switch table {
	case "lineitem":
		return -1
	case "partsupp":
		return Units(table, sf) * suppliersPerPart
	}
	return Units(table, sf)
}

// PartRange is the range of units part (1-based) of parts covers, as dbgen's -C/-S split them:
// equal ranges, the last one taking the remainder.
func PartRange(table string, sf float64, part, parts int) (start, count int64) {
	total := Units(table, sf)
	per := total / int64(parts)
	start = per * int64(part-1)
	count = per
	if part == parts {
		count += total % int64(parts)
	}
	return start, count
}

// newUnitGen returns a generator positioned at unit start (0-based).
func newUnitGen(table string, sf float64, start int64) unitGen {
	d, pool := loadDists(), textPool()
	switch table {
	case "region":
		g := &regionGen{d: d.regions, comment: newRandomText(1500869201, 72, 1), pool: pool}
		g.comment.r.advanceRows(start)
		return g
	case "nation":
		g := &nationGen{d: d.nations, comment: newRandomText(606179079, 72, 1), pool: pool}
		g.comment.r.advanceRows(start)
		return g
	case "supplier":
		g := newSupplierGen(d, pool)
		g.advance(start)
		return g
	case "customer":
		g := newCustomerGen(d, pool)
		g.advance(start)
		return g
	case "part":
		g := newPartGen(d, pool)
		g.advance(start)
		return g
	case "partsupp":
		g := newPartsuppGen(sf, pool)
		g.advance(start)
		return g
	case "orders":
		g := newOrdersGen(sf, d, pool)
		g.advance(start)
		return g
	case "lineitem":
		g := newLineitemGen(sf, d, pool)
		g.advance(start)
		return g
	}
	panic("dbgen: unknown table " + table)
}

// AppendUnits formats units [start, start+count) of table as .tbl lines (each ending "|\n") and
// returns the buffer and the number of rows.
func AppendUnits(b []byte, table string, sf float64, start, count int64) ([]byte, int64) {
	g := newUnitGen(table, sf, start)
	var rows int64
	for u := start + 1; u <= start+count; u++ {
		var n int
		b, n = g.appendUnit(b, u)
		rows += int64(n)
	}
	return b, rows
}

// Chunk is one piece of a table's output, in order.
type Chunk struct {
	Buf  []byte
	Rows int64
}

// Options tune Generate.
type Options struct {
	Workers    int // goroutines formatting chunks; 0 = GOMAXPROCS
	ChunkUnits int64
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<20); return &b }}

// Release returns a chunk's buffer for reuse once the consumer is done with it.
func (c Chunk) Release() {
	b := c.Buf[:0]
	bufPool.Put(&b)
}

func chunkUnits(table string) int64 {
	switch table {
	case "lineitem", "partsupp":
		return 4096
	}
	return 16384
}

// Generate produces units [start, start+count) of table in chunks formatted in parallel and hands
// them to emit in order, one at a time. emit owns the chunk until it calls Release (or drops it).
func Generate(ctx context.Context, table string, sf float64, start, count int64, opt Options, emit func(Chunk) error) error {
	if !Known(table) {
		return fmt.Errorf("unknown TPC-H table %q", table)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	per := opt.ChunkUnits
	if per <= 0 {
		per = chunkUnits(table)
	}
	textPool()
	type job struct {
		start, count int64
		out          chan Chunk
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job)
	order := make(chan chan Chunk, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				bp := bufPool.Get().(*[]byte)
				b, rows := AppendUnits((*bp)[:0], table, sf, j.start, j.count)
				j.out <- Chunk{Buf: b, Rows: rows}
			}
		}()
	}
	go func() {
		defer close(order)
		defer close(jobs)
		for s := start; s < start+count; s += per {
			j := job{start: s, count: min(per, start+count-s), out: make(chan Chunk, 1)}
			select {
			case order <- j.out:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				j.out <- Chunk{} // the consumer is waiting on it; it sees ctx's error and skips it
				return
			}
		}
	}()
	var err error
	for out := range order {
		c := <-out
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			err = emit(c)
		}
		if err != nil {
			cancel()
		}
	}
	wg.Wait()
	return err
}
