package fanout

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// run is one run's shared state: the figures every VU adds its batches to.
type run struct {
	t        target.Target
	members  []target.Target
	servers  []target.Server
	o        *RunSpec
	fan, par int
	dataSeed uint64
	seed     uint64
	rows     int
	emps     int64
	prepared string   // the statement with the dialect's placeholders
	parts    []string // the statement cut at its parameters, for --protocol commented

	mismatches atomic.Int64

	mu      sync.Mutex // the figures below; taken once per batch, not per statement
	vus     []*vu
	shard   []*hdrhistogram.Histogram // physical RT per shard
	last    []int64                   // requests whose last statement was the shard's
	added   []time.Duration           // the time the shard added to the requests' logical RT (vu.added, merged at the end)
	slowest []int64                   // requests whose longest statement was the shard's
	sched   *hdrhistogram.Histogram   // the load generator's scheduling delay per statement
	lag     *hdrhistogram.Histogram   // the last statement's end after the request's median end
	sumPhys *hdrhistogram.Histogram   // per request, the sum of its statements' times
	maxPhys *hdrhistogram.Histogram   // per request, the longest of its statements' times
	logical *hdrhistogram.Histogram   // per request, as the VU timed it (start to end)
}

func newRun(t target.Target, members []target.Target, o *RunSpec, fan, par int, dataSeed, seed uint64, stmt string) *run {
	r := &run{t: t, members: members, servers: target.ServersOf(t), o: o, fan: fan, par: par, dataSeed: dataSeed, seed: seed,
		rows: o.Rows, emps: emps(o.Rows), parts: splitParams(stmt), shard: make([]*hdrhistogram.Histogram, len(members)),
		last: make([]int64, len(members)), added: make([]time.Duration, len(members)), slowest: make([]int64, len(members)), sched: metrics.NewHist(), lag: metrics.NewHist(), sumPhys: metrics.NewHist(),
		maxPhys: metrics.NewHist(), logical: metrics.NewHist()}
	for i := range r.shard {
		r.shard[i] = metrics.NewHist()
	}
	d := t.Dialect()
	var b strings.Builder
	for k, p := range r.parts {
		b.WriteString(p)
		if k < len(params) {
			b.WriteString(d.Placeholder(k + 1))
		}
	}
	r.prepared = b.String()
	return r
}

const batchCap = 1024

type stmtRec struct {
	shard     uint32
	rt, sched uint32 // µs
}

type reqRec struct {
	last, slowest          uint32
	lag, sum, max, logical uint32 // µs
}

// batch is one VU's figures not yet added to the run's.
type batch struct {
	r     *run
	stmts []stmtRec
	reqs  []reqRec
}

func (b *batch) init(r *run) {
	b.r, b.stmts, b.reqs = r, make([]stmtRec, 0, batchCap), make([]reqRec, 0, batchCap/4)
}

func us(d time.Duration) uint32 {
	return uint32(min(max(d.Microseconds(), 1), metrics.MaxMicros))
}

func (b *batch) stmt(shard int, rt, sched time.Duration) {
	if len(b.stmts) == cap(b.stmts) {
		b.flush()
	}
	b.stmts = append(b.stmts, stmtRec{uint32(shard), us(rt), us(sched)})
}

func (b *batch) req(last, slowest int, lag, sum, mx, logical time.Duration) {
	if len(b.reqs) == cap(b.reqs) {
		b.flush()
	}
	b.reqs = append(b.reqs, reqRec{uint32(last), uint32(slowest), us(lag), us(sum), us(mx), us(logical)})
}

func (b *batch) flush() {
	r := b.r
	r.mu.Lock()
	for _, s := range b.stmts {
		r.shard[s.shard].RecordValue(int64(s.rt))
		r.sched.RecordValue(int64(s.sched))
	}
	for _, q := range b.reqs {
		r.last[q.last]++
		r.slowest[q.slowest]++
		r.lag.RecordValue(int64(q.lag))
		r.sumPhys.RecordValue(int64(q.sum))
		r.maxPhys.RecordValue(int64(q.max))
		r.logical.RecordValue(int64(q.logical))
	}
	r.mu.Unlock()
	b.stmts, b.reqs = b.stmts[:0], b.reqs[:0]
}

// The section's types are the results package's (results.Fanout), so that studies and reports
// read them without the workload.
type (
	Extra         = results.Fanout
	Group         = results.FanoutGroup
	ShortBoard    = results.ShortBoard
	SlowRequest   = results.SlowRequest
	SlowStatement = results.SlowStatement
)

type slowEntry struct {
	seq     int64
	at      time.Duration
	logical time.Duration
	st      []stmtState
	shards  []int
}

// slowLog is one VU's slowest requests: n slots filled by copy, no allocation once full.
type slowLog struct {
	n       int
	entries []slowEntry
}

func (l *slowLog) init(n, fan int) {
	l.n = n
	l.entries = make([]slowEntry, 0, n)
	_ = fan
}

func (l *slowLog) offer(v *vu, logical time.Duration) {
	if l.n == 0 {
		return
	}
	var e *slowEntry
	if len(l.entries) < l.n {
		l.entries = append(l.entries, slowEntry{st: make([]stmtState, len(v.st))})
		e = &l.entries[len(l.entries)-1]
	} else {
		lo := 0
		for i := range l.entries {
			if l.entries[i].logical < l.entries[lo].logical {
				lo = i
			}
		}
		if logical <= l.entries[lo].logical {
			return
		}
		e = &l.entries[lo]
	}
	e.seq, e.at, e.logical, e.shards = v.seq, v.reqStart, logical, v.shards
	copy(e.st, v.st)
}

// finish closes the VUs' connections and adds extra.fanout to the document.
func (r *run) finish(d *results.Document) {
	r.mu.Lock()
	vus := r.vus
	r.mu.Unlock()
	var slow []SlowRequest
	for _, v := range vus {
		for _, w := range v.wake {
			close(w)
		}
		v.closeConns()
		v.batch.flush()
		for k, a := range v.added {
			r.added[v.shards[k]] += a
		}
		for _, e := range v.slow.entries {
			sr := SlowRequest{ID: string(appendID(nil, v.id, e.seq)), AtS: round3(e.at.Seconds()), RTMs: ms(e.logical)}
			var lastEnd time.Duration
			for i, s := range e.st {
				sr.Statements = append(sr.Statements, SlowStatement{Shard: e.shards[i], Where: target.Where(r.members[e.shards[i]]),
					StartMs: ms(s.start - e.at), RTMs: ms(s.end - s.start), SchedMs: ms(s.sched)})
				if s.end >= lastEnd {
					lastEnd, sr.Last = s.end, e.shards[i]
				}
			}
			slow = append(slow, sr)
		}
	}
	sort.Slice(slow, func(i, j int) bool { return slow[i].RTMs > slow[j].RTMs })
	if len(slow) > r.o.SlowLog {
		slow = slow[:r.o.SlowLog]
	}
	secs := d.Window.ClientSeconds
	perSec := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return math.Round(float64(n)/secs*10) / 10
	}
	x := Extra{Shards: len(r.members), Servers: len(r.servers), Fanout: r.fan, Parallelism: r.par, Protocol: r.o.Protocol, Rows: r.rows,
		DataSeed: r.dataSeed, Requests: r.logical.TotalCount(), Slow: slow, Mismatches: r.mismatches.Load()}
	x.RequestsPerSec = perSec(x.Requests)
	if m := d.Main(); m != nil {
		x.LogicalMs = m.LatencyMs
	}
	var addedAll time.Duration
	for _, a := range r.added {
		addedAll += a
	}
	all := metrics.NewHist()
	for i, h := range r.shard {
		all.Merge(h)
		x.PerShard = append(x.PerShard, r.group(target.Where(r.members[i]), 1, h, r.last[i], r.slowest[i], r.added[i], addedAll, x.Requests, perSec))
	}
	x.Statements, x.StatementsPerSec, x.PhysicalMs, x.SchedMs = all.TotalCount(), perSec(all.TotalCount()), metrics.Summarize(all), metrics.Summarize(r.sched)
	for _, s := range r.servers {
		h, last, slowest, added := metrics.NewHist(), int64(0), int64(0), time.Duration(0)
		for _, i := range s.Members {
			h.Merge(r.shard[i])
			last += r.last[i]
			slowest += r.slowest[i]
			added += r.added[i]
		}
		x.PerServer = append(x.PerServer, r.group(s.Address, len(s.Members), h, last, slowest, added, addedAll, x.Requests, perSec))
	}
	x.ShortBoard = ShortBoard{LagMs: metrics.Summarize(r.lag), RequestMs: metrics.Summarize(r.logical),
		SumPhysicalMs: metrics.Summarize(r.sumPhys), MaxPhysicalMs: metrics.Summarize(r.maxPhys)}
	if d.Extra == nil {
		d.Extra = map[string]any{}
	}
	d.Extra["fanout"] = x
	if x.Mismatches > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%d requests got a combined sum other than their shards' prepared data gives (counted as errors)", x.Mismatches))
	}
	if x.SchedMs.P99 > x.PhysicalMs.P50 && x.Statements > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("cairn's own scheduling delay per statement reached %.3f ms at p99, above the median statement's %.3f ms: the load generator may be a short board itself (give it more CPUs or fewer VUs)", x.SchedMs.P99, x.PhysicalMs.P50))
	}
}

func (r *run) group(name string, shards int, h *hdrhistogram.Histogram, last, slowest int64, added, addedAll time.Duration, reqs int64, perSec func(int64) float64) Group {
	g := Group{Name: name, Shards: shards, Statements: h.TotalCount(), PerSec: perSec(h.TotalCount()), RTMs: metrics.Summarize(h), Last: last, Slowest: slowest,
		AddedMs: ms(added)}
	if reqs > 0 {
		g.LastPct = math.Round(1000*float64(last)/float64(reqs)) / 10
		g.SlowestPct = math.Round(1000*float64(slowest)/float64(reqs)) / 10
		g.AddedMeanMs = round4(float64(added) / float64(time.Millisecond) / float64(reqs))
	}
	if addedAll > 0 {
		g.AddedPct = math.Round(1000*float64(added)/float64(addedAll)) / 10
	}
	return g
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }
func round3(v float64) float64   { return math.Round(v*1000) / 1000 }
func round4(v float64) float64   { return math.Round(v*10000) / 10000 }

// ExtraOf reads extra.fanout from a document, new or stored.
func ExtraOf(d *results.Document) (*Extra, bool) { return results.FanoutOf(d) }

// Summary prints the fan-out's figures after the common summary.
func (fanout) Summary(w io.Writer, d *results.Document, _ *workload.Engine, _ any) {
	x, ok := ExtraOf(d)
	if !ok {
		return
	}
	lat := func(l metrics.Latency) string {
		return fmt.Sprintf("mean %.3f  p50 %.3f  p90 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  max %.3f ms", l.Mean, l.P50, l.P90, l.P95, l.P99, l.P999, l.Max)
	}
	fmt.Fprintf(w, "\nfan-out: %d statements per request over %s on %s, at most %d in flight, %s\n", x.Fanout,
		workload.Plural(x.Shards, "shard"), workload.Plural(x.Servers, "server"), x.Parallelism, x.Protocol)
	fmt.Fprintf(w, "  logical:  %9.1f requests/s    %s\n", x.RequestsPerSec, lat(x.LogicalMs))
	fmt.Fprintf(w, "  physical: %9.1f statements/s  %s\n", x.StatementsPerSec, lat(x.PhysicalMs))
	fmt.Fprintf(w, "  cairn's scheduling delay per statement: %s\n", lat(x.SchedMs))
	fmt.Fprintf(w, "  per request: logical %.3f ms mean, p99 %.3f; sum of its statements %.3f mean, p99 %.3f; longest statement %.3f mean, p99 %.3f\n",
		x.ShortBoard.RequestMs.Mean, x.ShortBoard.RequestMs.P99, x.ShortBoard.SumPhysicalMs.Mean, x.ShortBoard.SumPhysicalMs.P99,
		x.ShortBoard.MaxPhysicalMs.Mean, x.ShortBoard.MaxPhysicalMs.P99)
	fmt.Fprintf(w, "  short board: the last statement ends %.3f ms after the request's median one (mean; p99 %.3f, max %.3f)\n",
		x.ShortBoard.LagMs.Mean, x.ShortBoard.LagMs.P99, x.ShortBoard.LagMs.Max)
	table := func(title string, gs []Group, limit int) {
		fmt.Fprintf(w, "\n%-36s %6s %11s %8s %8s %9s %12s %6s %9s %7s %9s %7s\n", title, "shards", "stmts/s", "mean ms", "p99 ms", "max ms",
			"added ms/req", "%", "last", "%", "slowest", "%")
		for i, g := range gs {
			if i == limit {
				fmt.Fprintf(w, "  … %d more (extra.fanout.per_shard)\n", len(gs)-limit)
				break
			}
			fmt.Fprintf(w, "%-36s %6d %11.1f %8.3f %8.3f %9.3f %12.4f %5.1f%% %9d %6.1f%% %9d %6.1f%%\n", g.Name, g.Shards, g.PerSec, g.RTMs.Mean, g.RTMs.P99, g.RTMs.Max,
				g.AddedMeanMs, g.AddedPct, g.Last, g.LastPct, g.Slowest, g.SlowestPct)
		}
	}
	fmt.Fprintf(w, "  added: the time a shard's statement, ending last, added to its requests (its end minus the next-latest's), per request of the window\n")
	table("per server, most time added first", results.RankByAdded(x.PerServer), -1)
	if r := results.RunningOf(d); r != nil && len(r.PerServer) > 0 {
		fmt.Fprintf(w, "\nrunning threads per server (sampled every %d ms; a surge shows in max and p99):\n", r.IntervalMs)
		for _, s := range r.PerServer {
			fmt.Fprintf(w, "  %-34s max %4.0f  p99 %4.0f  mean %6.2f\n", s.Server, s.Max, s.P99, s.Mean)
		}
	}
	table("shards, most time added first", results.RankByAdded(x.PerShard), 10)
	if len(x.Slow) > 0 {
		fmt.Fprintf(w, "\nslowest requests (id as sent in /* cairn-req=ID */; each statement: shard, start after the request's, time):\n")
		for _, s := range x.Slow {
			var slowest []SlowStatement
			slowest = append(slowest, s.Statements...)
			sort.Slice(slowest, func(i, j int) bool { return slowest[i].StartMs+slowest[i].RTMs > slowest[j].StartMs+slowest[j].RTMs })
			var parts []string
			for _, st := range slowest[:min(3, len(slowest))] {
				parts = append(parts, fmt.Sprintf("shard %d %s +%.3f %.3f ms", st.Shard, st.Where, st.StartMs, st.RTMs))
			}
			fmt.Fprintf(w, "  %-12s at %8.3f s  %9.3f ms  last: %s\n", s.ID, s.AtS, s.RTMs, strings.Join(parts, "; "))
		}
	}
}

// Replaces: the fan-out's figures follow the common summary.
func (fanout) Replaces() bool { return false }

func init() {
	fig := func(name string, higher bool, pick func(x *Extra) float64) {
		results.RegisterFigure(results.Figure{Name: name, HigherBetter: higher, Of: func(d *results.Document) (float64, bool) {
			x, ok := ExtraOf(d)
			if !ok || x.Statements == 0 {
				return 0, false
			}
			return pick(x), true
		}})
	}
	fig("physical statements/s", true, func(x *Extra) float64 { return x.StatementsPerSec })
	fig("physical p50 ms", false, func(x *Extra) float64 { return x.PhysicalMs.P50 })
	fig("physical p99 ms", false, func(x *Extra) float64 { return x.PhysicalMs.P99 })
	fig("short board lag p99 ms", false, func(x *Extra) float64 { return x.ShortBoard.LagMs.P99 })
	fig("cairn sched delay p99 ms", false, func(x *Extra) float64 { return x.SchedMs.P99 })
}
