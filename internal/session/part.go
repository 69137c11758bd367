package session

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// StartLead is how far ahead of the first part's arrival the parts' window starts (after their
// rampup) when no --start-at is given: the time the other parts have to arrive and connect.
const StartLead = 10 * time.Second

// partTable is where the parts of a run agree on its start; the last part to finish drops it.
const partTable = "cairn_part_start"

// partRunName is the name the parts of a run share: --part-run, else one drawn from the spec
// without its part number, so that parts given the same spec agree without being told.
func partRunName(s *spec.Spec) string {
	if s.PartRun != "" {
		return s.PartRun
	}
	c := s.Config()
	delete(c, "part")
	b, _ := json.Marshal(c)
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("spec-%016x", h.Sum64())
}

// part is a part's share of a run, as the session sets it up.
type part struct {
	workload.Part
	run     string
	startAt time.Time
	agreed  bool // through the database: this part must say it finished
}

// partOf sets cfg to the part's share of the run — its VU ids, its share of the rate, the
// window's agreed start — or returns nil when the spec runs whole.
func (se *Session) partOf(ctx context.Context, def *workload.Run, s *spec.Spec, cfg *run.Config) (*part, error) {
	p, err := workload.ParsePart(s.Part)
	if err != nil || p.N == 0 {
		return nil, err
	}
	// The shares are of the terminals, when there are (each part with its share of the
	// connections to serve them), else of the VUs.
	n := cfg.VUs
	if cfg.Terminals > 0 {
		n = cfg.Terminals
	}
	ids, err := p.IDs(n)
	if def.PartIDs != nil {
		ids, err = def.PartIDs(n, p)
	}
	if err != nil {
		return nil, err
	}
	pt := &part{Part: p, run: se.partRun}
	if cfg.Terminals > 0 {
		conns, err := p.IDs(cfg.VUs)
		if err != nil {
			return nil, options.Errorf("connections", fmt.Sprint(cfg.VUs), "%d parts need at least %d connections in all, one for each part's terminals", p.N, p.N)
		}
		cfg.AllTerminals, cfg.Terminals, cfg.TerminalIDs, cfg.VUs = cfg.Terminals, len(ids), ids, len(conns)
	} else {
		if cfg.Rate > 0 {
			cfg.Rate *= float64(len(ids)) / float64(cfg.VUs)
		}
		cfg.VUs, cfg.IDs = len(ids), ids
	}
	pt.startAt, _ = workload.ParseStartAt(s.StartAt)
	if pt.startAt.IsZero() {
		if pt.startAt, err = agreeStart(ctx, se.T, pt, cfg.Rampup, cfg.Duration); err != nil {
			return nil, fmt.Errorf("agree on the run's start through the database: %w", err)
		}
		pt.agreed = true
	}
	cfg.StartAt = pt.startAt
	return pt, nil
}

func ph(t target.Target, n int) string {
	if t.Dialect().Dollar {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}

// agreeStart returns the window start of the run named pt.run: the one the first part to arrive
// wrote, StartLead and the rampup after it arrived, or, if none is written (or only a finished
// run's of that name), this part's own.
func agreeStart(ctx context.Context, t target.Target, pt *part, rampup, window time.Duration) (time.Time, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return time.Time{}, err
	}
	defer c.Close()
	var last error
	for range 5 {
		// Two parts creating it at once: one of them fails, and tries again.
		if _, err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+partTable+
			" (run VARCHAR(120) PRIMARY KEY, start_ms BIGINT NOT NULL, ends_ms BIGINT NOT NULL, parts INT NOT NULL, done INT NOT NULL)"); err != nil {
			last = err
			time.Sleep(100 * time.Millisecond)
			continue
		}
		now := time.Now()
		var start, ends int64
		err := c.QueryRow(ctx, "SELECT start_ms, ends_ms FROM "+partTable+" WHERE run = "+ph(t, 1), pt.run).Scan(&start, &ends)
		if err == nil && ends > now.UnixMilli() {
			return time.UnixMilli(start), nil
		}
		if err == nil {
			// A run of this name that ended (or whose part died): this is a new one.
			if _, err := c.Exec(ctx, "DELETE FROM "+partTable+" WHERE run = "+ph(t, 1)+" AND start_ms = "+ph(t, 2), pt.run, start); err != nil {
				return time.Time{}, err
			}
		}
		at := now.Add(StartLead + rampup).Truncate(time.Millisecond)
		// A part may finish well after the window (the grace for stuck VUs): its row stays for it.
		ends = at.Add(window + 2*time.Minute).UnixMilli()
		if _, err := c.Exec(ctx, "INSERT INTO "+partTable+" (run, start_ms, ends_ms, parts, done) VALUES ("+
			ph(t, 1)+", "+ph(t, 2)+", "+ph(t, 3)+", "+ph(t, 4)+", 0)", pt.run, at.UnixMilli(), ends, pt.N); err != nil {
			last = err // another part wrote it first: read theirs
			continue
		}
		return at, nil
	}
	return time.Time{}, last
}

// done says the part finished; the last part of the run deletes its row, and the table with it
// when no other run's is left.
func (pt *part) done(ctx context.Context, t target.Target) error {
	if pt == nil || !pt.agreed {
		return nil
	}
	c, err := t.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	// The update holds the row until the commit, so exactly one part sees every part done.
	if err := c.Begin(ctx, false); err != nil {
		return err
	}
	where := " WHERE run = " + ph(t, 1) + " AND start_ms = " + ph(t, 2)
	var done, parts int64
	_, err = c.Exec(ctx, "UPDATE "+partTable+" SET done = done + 1"+where, pt.run, pt.startAt.UnixMilli())
	if err == nil {
		err = c.QueryRow(ctx, "SELECT done, parts FROM "+partTable+where, pt.run, pt.startAt.UnixMilli()).Scan(&done, &parts)
	}
	if err == nil && done >= parts {
		_, err = c.Exec(ctx, "DELETE FROM "+partTable+where, pt.run, pt.startAt.UnixMilli())
	}
	if err != nil {
		_ = c.Rollback(ctx)
		return err
	}
	if err := c.Commit(ctx); err != nil || done < parts {
		return err
	}
	var left int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM "+partTable).Scan(&left); err != nil {
		return err
	}
	if left == 0 {
		_, err = c.Exec(ctx, "DROP TABLE IF EXISTS "+partTable)
	}
	return err
}

// mark records the part's share in its document: which part of which run, the agreed start, and
// the database's counters at its window's edges, which a merge reads once for all parts.
func (pt *part) mark(d *results.Document, out *run.Outcome) {
	p := &results.Part{I: pt.I, N: pt.N, Run: pt.run, StartAt: pt.startAt.UTC(), OwnTxns: out.OwnTxns, Restarted: out.Restarted}
	if out.Start.OK && out.End.OK {
		p.Start = &results.Edge{At: out.Start.At.UTC(), Headline: out.Start.Headline, Counter: out.Start.Counter, NoCounter: out.Start.NoCounter}
		p.End = &results.Edge{At: out.End.At.UTC(), Headline: out.End.Headline, Counter: out.End.Counter, NoCounter: out.End.NoCounter}
	}
	d.Part = p
	d.Notes = append(d.Notes, fmt.Sprintf("part %d/%d of run %q: its figures are its share's; 'cairn results merge' makes the run's", pt.I, pt.N, pt.run))
	// A part alone is not the run the spec describes: the other parts' VUs are missing from it.
	d.Mark(results.PartMissing, fmt.Sprintf("part %d/%d of run %q, the other parts' VUs not in it: 'cairn results merge' makes the run of its parts", pt.I, pt.N, pt.run))
}
