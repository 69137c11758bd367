package run

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

// shards is a composite target as a shard set will be one: its VUs run on its first member, and
// its readings are the sums of every member's.
type shards struct {
	target.Target
	members []target.Target
	conns   []target.Conn
}

func (s *shards) Snapshot(ctx context.Context, _ target.Conn, headlineSQL string) (target.Reading, error) {
	var sum target.Reading
	for i, m := range s.members {
		if s.conns[i] == nil {
			c, err := m.Conn(ctx)
			if err != nil {
				return sum, err
			}
			s.conns[i] = c
		}
		r, err := target.Snapshot(ctx, m, s.conns[i], headlineSQL)
		if err != nil {
			return sum, err
		}
		sum.Headline += r.Headline
		sum.Counter += r.Counter
		sum.Start += r.Start
	}
	return sum, nil
}

// idle is a VU whose one transaction type is SELECT 1.
type idle struct{ c target.Conn }

func (v *idle) Bind(_ context.Context, c target.Conn) error { v.c = c; return nil }
func (v *idle) Next() int                                   { return 0 }
func (v *idle) Do(ctx context.Context) (bool, error) {
	var one int
	return false, v.c.QueryRow(ctx, "SELECT 1").Scan(&one)
}

// The window's snapshots are the target's readings: a composite target's are the sums of its
// members', not one member's statement.
func TestSnapshotsAreTheTargets(t *testing.T) {
	ctx := context.Background()
	s := &shards{}
	for range 3 {
		tg, err := target.Open(ctx, testutil.SQLite(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		s.members = append(s.members, tg)
	}
	s.Target, s.conns = s.members[0], make([]target.Conn, len(s.members))
	t.Cleanup(func() {
		for _, c := range s.conns {
			if c != nil {
				c.Close()
			}
		}
	})
	e := &Engine{Cfg: Config{VUs: 1, Duration: 300 * time.Millisecond, Seed: 1}, Target: s, Types: []string{"t"}, Headline: 0,
		HeadlineSQL: "(SELECT 7)", NewVU: func(int) (workload.VU, error) { return &idle{}, nil }}
	out, err := e.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Start.OK || !out.End.OK || out.Start.Headline != 21 || out.End.Headline != 21 {
		t.Errorf("the snapshots of three shards reading 7 each: start %+v, end %+v; want 21", out.Start, out.End)
	}
}
