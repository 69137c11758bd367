package session

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// housekeeping does --after's tasks between two runs of a profile, a search or a study
// (docs/cli.md#housekeeping-between-runs), outside every window: on each database of the
// target (each shard), on the workload's own tables as its meta record names them, each task
// timed and told as a line; the records go into the next run's document.
type housekeeping struct {
	tasks []string
	fp    workload.Footprint
	bus   *event.Bus
}

// newHousekeeping reads the spec's --after list and refuses what t's database cannot do; nil
// when the list is empty.
func newHousekeeping(list string, t target.Target, fp workload.Footprint, bus *event.Bus) (*housekeeping, error) {
	tasks, err := target.ParseHousekeeping(list)
	if err != nil || len(tasks) == 0 {
		return nil, err
	}
	if err := target.CheckHousekeeping(t, tasks); err != nil {
		return nil, err
	}
	return &housekeeping{tasks: tasks, fp: fp, bus: bus}, nil
}

// do does the tasks on t; after names the run they follow, for the lines ("run 2").
func (h *housekeeping) do(ctx context.Context, t target.Target, after string) ([]results.Housekeeping, error) {
	if h == nil {
		return nil, nil
	}
	var out []results.Housekeeping
	for _, m := range target.MembersOf(t) {
		recs, err := h.member(ctx, m, after)
		out = append(out, recs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func (h *housekeeping) member(ctx context.Context, m target.Target, after string) ([]results.Housekeeping, error) {
	where := target.Where(m)
	c, err := m.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("housekeeping on %s: %w", where, err)
	}
	defer c.Close()
	s, err := workload.Inspect(ctx, c, m, h.fp)
	if err != nil {
		return nil, fmt.Errorf("housekeeping on %s: read the %s schema's tables: %w", where, h.fp.Title, err)
	}
	var tables []string
	for _, o := range s.Objects {
		if o.Kind == workload.KindTable && o.Name != h.fp.MetaTable() && !slices.Contains(s.Missing, o.Name) {
			tables = append(tables, o.Name)
		}
	}
	hk := m.(target.Housekeeper) // CheckHousekeeping saw to it
	var out []results.Housekeeping
	for _, task := range h.tasks {
		t0 := time.Now()
		note, err := hk.Housekeep(ctx, c, task, tables)
		if err != nil {
			return out, fmt.Errorf("housekeeping on %s after %s: %s: %w", where, after, task, err)
		}
		r := results.Housekeeping{Task: task, Database: where, Seconds: roundUs(time.Since(t0).Seconds()), Note: note}
		out = append(out, r)
		line := fmt.Sprintf("after %s: %s on %s took %.3f s", after, task, where, r.Seconds)
		if note != "" {
			line += " (" + note + ")"
		}
		h.bus.Publish(ctx, event.Note{Line: line})
	}
	return out, nil
}

func roundUs(s float64) float64 { return float64(int64(s*1e6+0.5)) / 1e6 }
