package tpch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload/tpch/dbgen"
	"github.com/cairn-bench/cairn/internal/workload/tpch/queries"
)

// Timing is one timed query or refresh function; the result document carries them as they are.
type Timing = results.Timing

// RunOptions configure a power and/or throughput test.
type RunOptions struct {
	Power, Throughput bool
	Streams           int
	Refresh           bool // throughput test: run the refresh stream (S pairs of RF1, RF2)
	Seed              uint64
	Q11Scaled         bool
	Event             func(Timing, bool) // called when a query starts (false) and ends (true)
}

// Outcome is what a run measured; the spec's metrics are computed only from complete tests.
type Outcome struct {
	SF                float64  `json:"sf"`
	Power             []Timing `json:"-"` // in the result document's timings, with stream 0
	PowerSeconds      float64  `json:"power_seconds,omitempty"`
	Throughput        []Timing `json:"-"`                            // in the result document's timings, with streams 1…
	ThroughputSeconds float64  `json:"throughput_seconds,omitempty"` // Ts: first stream start to last stream end
	Streams           int      `json:"streams,omitempty"`
	RefreshStream     bool     `json:"refresh_stream"`
	RefreshSets       []int    `json:"refresh_sets,omitempty"`
	// Q11Scaled: Q11's FRACTION was 0.0001/SF (clause 2.4.11.3), not the fixed 0.0001.
	Q11Scaled        bool     `json:"q11_scaled"`
	PowerAtSize      *float64 `json:"power_at_size,omitempty"`
	ThroughputAtSize *float64 `json:"throughput_at_size,omitempty"`
	QphH             *float64 `json:"qphh_at_size,omitempty"`
	GeomeanSeconds   *float64 `json:"geomean_s,omitempty"`
	// Adjusted lists the power-test intervals raised to max/1000 (clause 5.4.1.4).
	Adjusted    []string `json:"adjusted,omitempty"`
	Interrupted bool     `json:"interrupted"`
	Failed      int      `json:"failed"`
	// Repaired says what was done, before the run, to a refresh pair an earlier run left half applied.
	Repaired string   `json:"repaired,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// MinStreams is the spec's minimum number of throughput streams for a scale factor (clause 5.3.4).
func MinStreams(sf float64) int {
	for _, s := range []struct {
		sf float64
		n  int
	}{{100000, 11}, {30000, 10}, {10000, 9}, {3000, 8}, {1000, 7}, {300, 6}, {100, 5}, {30, 4}, {10, 3}} {
		if sf >= s.sf {
			return s.n
		}
	}
	return 2
}

// Run runs the power test (RF1, the 22 queries in stream 0's order, RF2, on one connection) and/or
// the throughput test (S query streams at once, each in its own order with its own parameters,
// and with Refresh a refresh stream running S pairs of RF1 and RF2), then computes the metrics.
// A refresh pair that an earlier run left half applied is finished or undone first (Repaired).
// meta.RefreshSets is advanced, and saved, as each pair completes (refresh.go).
func Run(ctx context.Context, t target.Target, meta *Meta, o RunOptions) (*Outcome, error) {
	out := &Outcome{SF: meta.SF, Streams: o.Streams, RefreshStream: o.Refresh, Q11Scaled: o.Q11Scaled}
	j, err := openJournal(ctx, t, meta)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	rep, err := j.repair(ctx, j.c)
	if err != nil {
		return nil, err
	}
	if rep != nil {
		out.Repaired = rep.String()
	}
	// Pairs run one at a time (the power test's, then the refresh stream's), each on the next set;
	// add receives the timings in order, between runs what comes between RF1 and RF2 and says
	// whether RF2 should follow. It reports whether the pair completed.
	pair := func(stream int, c *streamConn, add func(Timing), between func() bool) bool {
		set := meta.RefreshSets + 1
		out.RefreshSets = append(out.RefreshSets, set)
		if err := j.step(ctx, set, "rf1"); err != nil {
			add(Timing{Stream: stream, Name: "RF1", Set: set, Error: err.Error()})
			return false
		}
		r1 := timedThen(stream, "RF1", set, o.Event, func() (int, error) {
			return c.do(ctx, func(c target.Conn) (int, error) { return rf1(ctx, c, meta.SF, set) })
		}, func() error { return j.step(ctx, set, "rf2") })
		add(r1)
		if r1.Error != "" {
			between() // the queries are still timed; the journal says rf1, so RF1 is undone after them
			return false
		}
		if !between() || ctx.Err() != nil {
			return false // RF2 is left to the next run's repair
		}
		r2 := timedThen(stream, "RF2", set, o.Event, func() (int, error) {
			return c.do(ctx, func(c target.Conn) (int, error) { return rf2(ctx, c, meta.SF, set) })
		}, func() error { return j.done(ctx, set) })
		add(r2)
		return r2.Error == ""
	}
	defer func() {
		out.Interrupted = out.Interrupted || ctx.Err() != nil
		// A pair that failed (not one cut short by Ctrl-C, which must stop at once) is repaired now.
		if ctx.Err() == nil {
			if _, ok := j.pending(); ok {
				if _, err := j.repair(ctx, j.c); err != nil {
					out.Notes = append(out.Notes, "a refresh pair is left half applied; the next run repairs it: "+err.Error())
				}
			}
		} else if p, ok := j.pending(); ok {
			out.Notes = append(out.Notes, fmt.Sprintf("update set %d is left half applied by the interruption; the next run finishes or undoes it", p.Set))
		}
	}()
	if o.Event == nil {
		o.Event = func(Timing, bool) {}
	}
	event := o.Event
	d := t.Dialect()
	dbgen.Warm() // RF1 formats rows from the text pool; building it must not count as RF1's time
	if o.Power {
		c, err := newStreamConn(ctx, t)
		if err != nil {
			return out, err
		}
		t0 := time.Now()
		add := func(tm Timing) { out.Power = append(out.Power, tm) }
		pair(0, c, add, func() bool {
			for _, q := range queries.StreamOrder(0) {
				if ctx.Err() != nil {
					return false
				}
				p := queries.RandomParams(q, o.Seed, 0, meta.SF, o.Q11Scaled)
				add(timedQuery(ctx, c, d, 0, q, p, event))
			}
			return true
		})
		out.PowerSeconds = time.Since(t0).Seconds()
		c.Close()
	}
	if o.Throughput && ctx.Err() == nil {
		t0 := time.Now()
		var wg sync.WaitGroup
		res := make([][]Timing, o.Streams+2)
		errs := make([]error, o.Streams+2)
		for s := 1; s <= o.Streams; s++ {
			wg.Add(1)
			go func(s int) {
				defer wg.Done()
				c, err := newStreamConn(ctx, t)
				if err != nil {
					errs[s] = err
					return
				}
				defer c.Close()
				for _, q := range queries.StreamOrder(s) {
					if ctx.Err() != nil {
						return
					}
					p := queries.RandomParams(q, o.Seed, s, meta.SF, o.Q11Scaled)
					res[s] = append(res[s], timedQuery(ctx, c, d, s, q, p, event))
				}
			}(s)
		}
		if o.Refresh {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rs := o.Streams + 1
				c, err := newStreamConn(ctx, t)
				if err != nil {
					errs[rs] = err
					return
				}
				defer c.Close()
				for i := 0; i < o.Streams && ctx.Err() == nil; i++ {
					if !pair(rs, c, func(tm Timing) { res[rs] = append(res[rs], tm) }, func() bool { return true }) {
						break // a pair that did not complete stops the stream: the next must not start over it
					}
				}
			}()
		}
		wg.Wait()
		out.ThroughputSeconds = time.Since(t0).Seconds()
		for _, r := range res {
			out.Throughput = append(out.Throughput, r...)
		}
		if err := errors.Join(errs...); err != nil {
			return out, err
		}
	}
	out.Interrupted = ctx.Err() != nil
	out.metrics(o)
	return out, nil
}

func timed(stream int, name string, set int, event func(Timing, bool), f func() (int, error)) Timing {
	return timedThen(stream, name, set, event, f, nil)
}

// timedThen is timed, with then run after f succeeded and before the end is reported: the refresh
// journal records a committed RF1 before anyone is told of it.
func timedThen(stream int, name string, set int, event func(Timing, bool), f func() (int, error), then func() error) Timing {
	tm := Timing{Stream: stream, Name: name, Set: set}
	event(tm, false)
	t0 := time.Now()
	n, err := f()
	tm.Seconds = time.Since(t0).Seconds()
	tm.Rows = n
	if err == nil && then != nil {
		err = then()
	}
	if err != nil {
		tm.Error = err.Error()
	}
	event(tm, true)
	return tm
}

func timedQuery(ctx context.Context, c *streamConn, dialect target.Dialect, stream, q int, p queries.Params, event func(Timing, bool)) Timing {
	tm := timed(stream, "Q"+strconv.Itoa(q), 0, func(tm Timing, end bool) {
		tm.Params = p.String()
		event(tm, end)
	}, func() (int, error) {
		return c.do(ctx, func(c target.Conn) (int, error) {
			rows, err := queries.Execute(ctx, c, dialect, q, p)
			return len(rows), err
		})
	})
	tm.Params = p.String()
	return tm
}

// streamConn is one stream's connection. A statement that fails because the connection is gone
// (the server restarted) costs that query or refresh function, which is recorded as failed; the
// stream reconnects, with backoff for up to a minute, before the next one.
type streamConn struct {
	t target.Target
	c target.Conn
}

func newStreamConn(ctx context.Context, t target.Target) (*streamConn, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &streamConn{t: t, c: c}, nil
}

func (s *streamConn) do(ctx context.Context, f func(target.Conn) (int, error)) (int, error) {
	if s.c == nil {
		deadline := time.Now().Add(time.Minute)
		for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
			c, err := s.t.Conn(ctx)
			if err == nil {
				s.c = c
				break
			}
			if ctx.Err() != nil || time.Now().After(deadline) {
				return 0, fmt.Errorf("reconnect: %w", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
	}
	n, err := f(s.c)
	if err != nil && s.t.Classify(err) == target.ErrConnection {
		s.c.Close()
		s.c = nil
	}
	return n, err
}

func (s *streamConn) Close() {
	if s.c != nil {
		s.c.Close()
	}
}

// metrics computes the spec's figures from complete, error-free tests only (clause 5.4).
func (out *Outcome) metrics(o RunOptions) {
	for _, tm := range append(append([]Timing(nil), out.Power...), out.Throughput...) {
		if tm.Error != "" {
			out.Failed++
		}
	}
	if out.Interrupted {
		return
	}
	if o.Power && len(out.Power) == queries.Count+2 && failed(out.Power) == 0 {
		// Clause 5.4.1.4: intervals shorter than the longest / 1000 count as the longest / 1000.
		var longest float64
		for _, tm := range out.Power {
			longest = math.Max(longest, tm.Seconds)
		}
		floor := longest / 1000
		var logSum, qLogSum float64
		for _, tm := range out.Power {
			s := tm.Seconds
			if s < floor {
				out.Adjusted = append(out.Adjusted, tm.Name)
				s = floor
			}
			logSum += math.Log(s)
			if strings.HasPrefix(tm.Name, "Q") {
				qLogSum += math.Log(tm.Seconds)
			}
		}
		power := 3600 * out.SF / math.Exp(logSum/float64(queries.Count+2))
		geo := math.Exp(qLogSum / queries.Count)
		out.PowerAtSize, out.GeomeanSeconds = &power, &geo
	}
	if o.Throughput && out.ThroughputSeconds > 0 && failed(out.Throughput) == 0 &&
		countQueries(out.Throughput) == o.Streams*queries.Count {
		tp := float64(o.Streams*queries.Count) * 3600 / out.ThroughputSeconds * out.SF
		out.ThroughputAtSize = &tp
	}
	if out.PowerAtSize != nil && out.ThroughputAtSize != nil {
		q := math.Sqrt(*out.PowerAtSize * *out.ThroughputAtSize)
		out.QphH = &q
	}
}

func failed(ts []Timing) int {
	n := 0
	for _, t := range ts {
		if t.Error != "" {
			n++
		}
	}
	return n
}

func countQueries(ts []Timing) int {
	n := 0
	for _, t := range ts {
		if strings.HasPrefix(t.Name, "Q") {
			n++
		}
	}
	return n
}

// Check is one validation query's outcome.
type Check struct {
	Query      int      `json:"query"`
	Rows       int      `json:"rows"`
	Seconds    float64  `json:"seconds"`
	Mismatches []string `json:"mismatches,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// Validate runs the 22 queries with the validation parameters (clause 2.4.N.4) in order and
// compares every answer with the reference within clause 2.1.3.5's tolerances.
func Validate(ctx context.Context, t target.Target, sf float64, q11Scaled bool, event func(Check)) ([]Check, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var out []Check
	for q := 1; q <= queries.Count && ctx.Err() == nil; q++ {
		ref, err := queries.Reference(q, sf, q11Scaled)
		if err != nil {
			return out, err
		}
		t0 := time.Now()
		rows, err := queries.Execute(ctx, c, t.Dialect(), q, queries.ValidationParams(q, sf, q11Scaled))
		ch := Check{Query: q, Rows: len(rows), Seconds: time.Since(t0).Seconds()}
		if err != nil {
			ch.Error = err.Error()
		} else {
			for _, m := range queries.Compare(q, ref, rows) {
				ch.Mismatches = append(ch.Mismatches, m.String())
			}
		}
		if event != nil {
			event(ch)
		}
		out = append(out, ch)
	}
	return out, ctx.Err()
}

// HasReference reports whether reference answers exist for sf.
func HasReference(sf float64) bool {
	_, err := queries.Reference(1, sf, true)
	return err == nil
}
