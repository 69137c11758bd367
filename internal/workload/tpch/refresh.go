package tpch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpch/dbgen"
	"github.com/cairn-bench/cairn/internal/workload/tpch/queries"
)

// A refresh pair (RF1, then RF2, of one dbgen update set) changes the data in several
// transactions, so a crash can leave it half applied; the set's number must not be used twice,
// since RF1 would insert the same keys again. The meta table's "refresh" record journals the pair
// in flight: {"set": N, "step": "rf1"} is written before RF1 starts, "rf2" once RF1 has committed,
// and the record is removed after RF2 has committed and meta.RefreshSets has become N. Whoever
// finds the record (the start of the next run) repairs the data: a pair still at rf1 is undone
// (set N's new orders and their lines are deleted, whichever of RF1's loads had committed), a pair
// at rf2 is finished (RF2 is idempotent). Then set N is either wholly applied or not at all.

const refreshKey = "refresh"

type pending struct {
	Set  int    `json:"set"`
	Step string `json:"step"` // "rf1" or "rf2"
}

// journal keeps the refresh record and meta.RefreshSets, on a connection of its own.
type journal struct {
	mu   sync.Mutex
	s    *workload.Schema
	c    target.Conn
	meta *Meta
}

func openJournal(ctx context.Context, t target.Target, meta *Meta) (*journal, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	s, err := workload.Inspect(ctx, c, t, Footprint)
	if err != nil {
		c.Close()
		return nil, err
	}
	return &journal{s: s, c: c, meta: meta}, nil
}

func (j *journal) Close() { j.c.Close() }

func (j *journal) pending() (pending, bool) {
	var p pending
	v := j.s.Record(refreshKey)
	if v == "" || json.Unmarshal([]byte(v), &p) != nil || p.Set < 1 {
		return p, false
	}
	return p, true
}

// step records that set n is at step; the write outlives a cancelled run, since what it records
// has already happened or is about to.
func (j *journal) step(ctx context.Context, n int, step string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	js, _ := json.Marshal(pending{Set: n, Step: step})
	return j.s.SetRecord(context.WithoutCancel(ctx), j.c, refreshKey, string(js))
}

// done records set n as applied: RefreshSets first, so that a crash between the two writes leaves
// a record that the next run recognizes as stale.
func (j *journal) done(ctx context.Context, n int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	bg := context.WithoutCancel(ctx)
	j.meta.RefreshSets = n
	if err := j.s.PutMeta(bg, j.c, j.meta); err != nil {
		return err
	}
	return j.s.SetRecord(bg, j.c, refreshKey, "")
}

// Repaired says what repair did to a half-applied refresh pair.
type Repaired struct {
	Set    int
	Undone bool // RF1 was undone; otherwise RF2 was finished
	Rows   int  // rows deleted
}

func (r Repaired) String() string {
	if r.Undone {
		return fmt.Sprintf("update set %d was half applied by an earlier run that did not end (RF1 had started): undid its RF1 (%d rows deleted); the set will be used again", r.Set, r.Rows)
	}
	return fmt.Sprintf("update set %d was half applied by an earlier run that did not end (RF2 had started): finished its RF2 (%d more orders deleted)", r.Set, r.Rows)
}

// repair finishes or undoes the pair in flight, if any; it reports what it did (nil: nothing).
func (j *journal) repair(ctx context.Context, c target.Conn) (*Repaired, error) {
	p, ok := j.pending()
	if !ok {
		return nil, nil
	}
	if p.Set <= j.meta.RefreshSets { // done, but the record outlived it
		return nil, j.s.SetRecord(ctx, j.c, refreshKey, "")
	}
	r := &Repaired{Set: p.Set}
	var err error
	switch p.Step {
	case "rf2":
		if r.Rows, err = rf2(ctx, c, j.meta.SF, p.Set); err != nil {
			return nil, fmt.Errorf("finish the half-applied update set %d: %w", p.Set, err)
		}
		if err := j.done(ctx, p.Set); err != nil {
			return nil, err
		}
	default:
		r.Undone = true
		if r.Rows, err = undoRF1(ctx, c, j.meta.SF, p.Set); err != nil {
			return nil, fmt.Errorf("undo the half-applied update set %d: %w", p.Set, err)
		}
		if err := j.s.SetRecord(ctx, j.c, refreshKey, ""); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Repair finishes or undoes a refresh pair that an earlier run left half applied (killed, or
// stopped between RF1 and RF2), so that every update set is applied wholly or not at all; meta
// is updated. It returns what it did, or nil when there was nothing to do.
func Repair(ctx context.Context, t target.Target, meta *Meta) (*Repaired, error) {
	j, err := openJournal(ctx, t, meta)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	return j.repair(ctx, j.c)
}

// newOrderKeys are the order keys update set n inserts.
func newOrderKeys(sf float64, n int) []int64 {
	b, _ := dbgen.AppendRefresh(nil, "orders", sf, n)
	var keys []int64
	for line := range bytes.Lines(b) {
		i := bytes.IndexByte(line, '|')
		if k, err := strconv.ParseInt(string(line[:i]), 10, 64); err == nil {
			keys = append(keys, k)
		}
	}
	return keys
}

// undoRF1 deletes update set n's new orders and their lines: what RF1 of set n inserted, if it did.
func undoRF1(ctx context.Context, c target.Conn, sf float64, n int) (int, error) {
	return deleteOrders(ctx, c, newOrderKeys(sf, n), fmt.Sprintf("undo RF1 (update set %d)", n))
}

// rf1 is the first refresh function: insert update set n's new orders and their lines (dbgen's
// orders.tbl.uN and lineitem.tbl.uN), through the target's bulk path.
func rf1(ctx context.Context, c target.Conn, sf float64, n int) (int, error) {
	total := 0
	for _, table := range []string{"orders", "lineitem"} {
		b, _ := dbgen.AppendRefresh(nil, table, sf, n)
		loaded, err := c.BulkLoad(ctx, table, queries.Columns(table), func(w target.RowWriter) error {
			for line := range bytes.Lines(b) {
				for f := range bytes.SplitSeq(line[:len(line)-2], []byte{'|'}) {
					w.Str(f)
				}
				if err := w.EndRow(); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("RF1 (update set %d) into %s: %w", n, table, err)
		}
		total += int(loaded)
	}
	return total, nil
}

// rf2 is the second refresh function: delete update set n's old orders (dbgen's delete.N) and
// their lines, in transactions of 500 orders. Deleting what is gone already deletes nothing, so a
// repeated RF2 finishes an interrupted one.
func rf2(ctx context.Context, c target.Conn, sf float64, n int) (int, error) {
	return deleteOrders(ctx, c, dbgen.DeleteKeys(sf, n), fmt.Sprintf("RF2 (update set %d)", n))
}

// deleteOrders deletes the orders of keys and their lines, in transactions of 500 orders.
func deleteOrders(ctx context.Context, c target.Conn, keys []int64, what string) (int, error) {
	total := 0
	for len(keys) > 0 {
		k := keys[:min(500, len(keys))]
		keys = keys[len(k):]
		var in strings.Builder
		for i, v := range k {
			if i > 0 {
				in.WriteByte(',')
			}
			in.WriteString(strconv.FormatInt(v, 10))
		}
		if err := c.Begin(ctx, false); err != nil {
			return total, err
		}
		if _, err := c.Exec(ctx, "DELETE FROM lineitem WHERE l_orderkey IN ("+in.String()+")"); err != nil {
			c.Rollback(ctx)
			return total, fmt.Errorf("%s: %w", what, err)
		}
		m, err := c.Exec(ctx, "DELETE FROM orders WHERE o_orderkey IN ("+in.String()+")")
		if err != nil {
			c.Rollback(ctx)
			return total, fmt.Errorf("%s: %w", what, err)
		}
		if err := c.Commit(ctx); err != nil {
			return total, err
		}
		total += int(m)
	}
	return total, nil
}
