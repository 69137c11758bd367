package run

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Terminals over pooled connections (Config.Terminals): a terminal is a workload VU that never
// binds a connection; it picks its transaction (the menu), keys, submits, waits for its response
// and thinks. The run's VUs are executors, each with its connection, that take submitted
// terminals from one queue and run their transaction on their connection (workload.Pooled).
// Terminals keying or thinking wait in one heap of due times served by one goroutine: a
// terminal costs its VU's memory and a heap entry, not a goroutine with its stack and timer.

// terminal is one terminal's state; the scheduler and the executors hand it on, so only one of
// them touches it at a time.
type terminal struct {
	vu     workload.VU
	pooled workload.Pooled
	pacer  workload.Pacer
	typ    int
	// due is when the terminal's current wait (thinking, or keying when keying is set) ends;
	// from is when it began; submit when the terminal submitted its transaction (ns since t0).
	due, from, submit time.Duration
	keying            bool
}

type termHeap []*terminal

func (h termHeap) Len() int           { return len(h) }
func (h termHeap) Less(i, j int) bool { return h[i].due < h[j].due }
func (h termHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *termHeap) Push(x any)        { *h = append(*h, x.(*terminal)) }
func (h *termHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

// PoolStats is what a run of terminals over pooled connections measured besides the window's set.
type PoolStats struct {
	Terminals, Connections int
	// AllTerminals, in a part of a run, is the run's terminals in all (Config.AllTerminals).
	AllTerminals int
	// Wait, per type, is the time submitted transactions waited for a connection (in the window).
	Wait []*hdrhistogram.Histogram
	// Menu, Keying and Think, per type, are the time terminals spent drawing the transaction,
	// keying it and thinking after it, as the scheduler measured them (ends in the window); only
	// with keying and thinking.
	Menu, Keying, Think []Mean
}

// Mean is a running mean of durations.
type Mean struct {
	Sum time.Duration
	N   int64
}

func (m *Mean) add(d time.Duration) { m.Sum += d; m.N++ }

// Value is the mean, 0 without samples.
func (m Mean) Value() time.Duration {
	if m.N == 0 {
		return 0
	}
	return m.Sum / time.Duration(m.N)
}

type pool struct {
	e     *Engine
	terms []terminal
	ready chan *terminal // submitted terminals; room for all, so handing one on never blocks
	// lends and monLends are requests for an executor's connection (Lender): the observers' and
	// the monitor's; executors waiting at a window's edge serve the monitor's. gone is closed
	// once the executors have stopped.
	lends, monLends chan *lendReq
	gone            chan struct{}

	mu   sync.Mutex
	due  termHeap // terminals keying or thinking
	wake chan struct{}
	done chan struct{} // the scheduler has returned

	waitMu              []sync.Mutex // per shard of executors: the wait histograms need no global lock
	wait                [][]*hdrhistogram.Histogram
	menu, keying, think []Mean // the scheduler's own
}

// newPool makes the run's terminals; the workload's VUs must be able to share connections.
func (e *Engine) newPool() (*pool, error) {
	n := e.Cfg.Terminals
	p := &pool{e: e, terms: make([]terminal, n), ready: make(chan *terminal, n), wake: make(chan struct{}, 1),
		lends: make(chan *lendReq), monLends: make(chan *lendReq), gone: make(chan struct{}),
		done: make(chan struct{}), menu: make([]Mean, len(e.Types)), keying: make([]Mean, len(e.Types)), think: make([]Mean, len(e.Types))}
	for i := range p.terms {
		v, err := e.NewVU(e.Cfg.terminalID(i))
		if err != nil {
			return nil, err
		}
		pv, ok := v.(workload.Pooled)
		if !ok {
			return nil, &TerminalsError{}
		}
		pc, _ := v.(workload.Pacer)
		p.terms[i] = terminal{vu: v, pooled: pv, pacer: pc}
	}
	shards := min(e.Cfg.VUs, 16)
	p.waitMu = make([]sync.Mutex, shards)
	p.wait = make([][]*hdrhistogram.Histogram, shards)
	for i := range p.wait {
		for range e.Types {
			p.wait[i] = append(p.wait[i], metrics.NewHist())
		}
	}
	return p, nil
}

// TerminalsError is --terminals for a workload whose VUs cannot share connections.
type TerminalsError struct{}

func (*TerminalsError) Error() string {
	return "--terminals: this workload's virtual users cannot share pooled connections; run it with --vu (tpcc can)"
}

// BadInput marks the error as the user's to fix (exit 2).
func (*TerminalsError) BadInput() {}

func (p *pool) paced() bool { return p.e.Cfg.Pace && p.terms[0].pacer != nil }

// start queues every terminal: paced ones think first, for a mean New-Order think time drawn
// from their own stream, so that they do not all key at once.
func (p *pool) start() {
	if !p.paced() {
		for i := range p.terms {
			t := &p.terms[i]
			t.typ = t.vu.Next()
			p.ready <- t
		}
		close(p.done)
		return
	}
	for i := range p.terms {
		t := &p.terms[i]
		t.due = t.pacer.Think(0)
		p.due = append(p.due, t)
	}
	heap.Init(&p.due)
	go p.schedule()
}

// schedule ends the terminals' waits as they fall due: a thinking terminal reads the menu (Next)
// and keys; a keying one submits.
func (p *pool) schedule() {
	defer close(p.done)
	e := p.e
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		now := time.Since(e.t0)
		inWindow := now >= e.start() && now < time.Duration(e.end.Load())
		next := time.Hour
		p.mu.Lock()
		for len(p.due) > 0 {
			t := p.due[0]
			if t.due > now {
				next = t.due - now
				break
			}
			if t.keying {
				heap.Pop(&p.due)
				if inWindow {
					p.keying[t.typ].add(now - t.from)
				}
				t.keying, t.submit = false, t.due
				p.ready <- t
				continue
			}
			if inWindow && t.from > 0 {
				p.think[t.typ].add(now - t.from)
			}
			t.typ = t.vu.Next()
			after := time.Since(e.t0)
			if inWindow {
				p.menu[t.typ].add(after - now)
			}
			t.keying, t.from, t.due = true, after, after+t.pacer.Keying(t.typ)
			heap.Fix(&p.due, 0)
		}
		p.mu.Unlock()
		timer.Reset(next)
		select {
		case <-e.stop:
			return
		case <-p.wake:
		case <-timer.C:
		}
	}
}

// requeue hands a terminal whose transaction ended at end back: to think, or straight to the queue.
func (p *pool) requeue(t *terminal, end time.Duration) {
	if !p.paced() {
		t.typ = t.vu.Next()
		t.submit = time.Since(p.e.t0)
		p.ready <- t
		return
	}
	t.from, t.due = end, end+t.pacer.Think(t.typ)
	p.mu.Lock()
	first := len(p.due) == 0 || t.due < p.due[0].due
	heap.Push(&p.due, t)
	p.mu.Unlock()
	if first {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// serve is one executor: it runs submitted terminals' transactions on its connection, and meets
// the window's edges between them.
func (p *pool) serve(ctx context.Context, v *vuState) {
	e := p.e
	cfg := e.Cfg
	ws := v.id % len(p.wait)
	var s metrics.Sample
	for !e.stopped() {
		if v.conn == nil && !e.reconnect(ctx, v) {
			return
		}
		// cairn's own statements (the monitor's readings, the observers' samples) go before the
		// terminals waiting: the select below picks at random among what is ready.
		if p.lendFirst(v) {
			continue
		}
		var t *terminal
		select {
		case <-e.stop:
			return
		case <-v.poke:
			e.meet(ctx, v)
			continue
		case r := <-p.monLends:
			p.lend(v, r)
			continue
		case r := <-p.lends:
			p.lend(v, r)
			continue
		case t = <-p.ready:
		}
		start := time.Since(e.t0)
		t.pooled.UseConn(v.vu)
		v.busy.Store(int64(start) + 1)
		rolledBack, retries, class, err := e.attempt(ctx, t.vu)
		end := time.Since(e.t0)
		v.busy.Store(0)
		v.held.Store(v.completed(end))
		we := time.Duration(e.end.Load())
		s = metrics.Sample{Type: t.typ, LatencyUs: int64((end - t.submit) / time.Microsecond),
			ServiceUs: int64((end - start) / time.Microsecond), Retries: retries, RolledBack: rolledBack,
			InWindow: end >= e.start() && end < we, Late: cfg.LatencyLimit > 0 && end-t.submit > cfg.LatencyLimit}
		if err != nil {
			s.Failed = true
			s.ErrKey = errKey(class, err, retries)
		}
		v.shard.Record(&s)
		e.service(class, err, end)
		if s.InWindow {
			p.waitMu[ws].Lock()
			p.wait[ws][t.typ].RecordValue(max(int64((start-t.submit)/time.Microsecond), metrics.MinMicros))
			p.waitMu[ws].Unlock()
		}
		if end >= we && t.submit < we {
			e.recordAfter(&s)
		}
		p.requeue(t, end)
		if err != nil {
			if class == target.ErrConnection {
				v.conn.Close()
				v.conn = nil
				continue
			}
			if !e.sleep(ctx, v, time.Millisecond) {
				return
			}
		}
	}
}

// lendFirst lends v's connection if a request is waiting, and reports whether it did.
func (p *pool) lendFirst(v *vuState) bool {
	var r *lendReq
	select {
	case r = <-p.monLends:
	case r = <-p.lends:
	default:
		return false
	}
	p.lend(v, r)
	return true
}

// stats is what the pool measured; call it once the scheduler has returned.
func (p *pool) stats() *PoolStats {
	st := &PoolStats{Terminals: len(p.terms), Connections: p.e.Cfg.VUs, AllTerminals: p.e.Cfg.AllTerminals, Wait: p.wait[0]}
	for _, w := range p.wait[1:] {
		for i, h := range w {
			st.Wait[i].Merge(h)
		}
	}
	if p.paced() {
		st.Menu, st.Keying, st.Think = p.menu, p.keying, p.think
	}
	return st
}
