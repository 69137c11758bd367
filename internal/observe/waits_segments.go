package observe

import (
	"math"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// waitSnap is one server's waits as they stand at an instant: a cumulative source's counters as
// read, a sampled source's counts of samples since the window started.
type waitSnap struct {
	events  map[string]target.Wait
	samples int64
}

// snapshot reads the waits as they stand now; nil events when the read failed.
func (r *waitReader) snapshot() waitSnap {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.src.Sampled() {
		return waitSnap{events: r.readAll()}
	}
	m := make(map[string]target.Wait, len(r.window))
	for name, e := range r.window {
		m[name] = target.Wait{Name: name, Class: e.Class, Count: e.Count}
	}
	return waitSnap{events: m, samples: r.samples}
}

// waitSeg is one live segment's settled part: the readings at its two edges, one per server,
// each with when it began and when it was done (a read on a loaded server takes a while).
type waitSeg struct {
	planned    float64 // the planned instant of the changes that open it
	start, end []waitSnap
	from, to   span
}

// span is when a reading began and when it was done.
type span struct{ begun, done time.Time }

func (s span) mid() time.Time { return s.begun.Add(s.done.Sub(s.begun) / 2) }

// liveWaits reads the waits at the edges of each live segment's settled part: at the window's
// start, at each change (the end of a segment), SettleSeconds after the last change planned for
// one instant (the start of the next), and at the window's end.
type liveWaits struct {
	mu     sync.Mutex
	open   bool // the window is open
	segs   []*waitSeg
	settle *time.Timer
	reads  sync.WaitGroup
}

func (o *waitsObserver) snapshots() []waitSnap {
	out := make([]waitSnap, len(o.readers))
	var wg sync.WaitGroup
	for i, r := range o.readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = r.snapshot()
		}()
	}
	wg.Wait()
	return out
}

// edgeSnaps are the readings the window's edge just took: a cumulative source's, or a sampled
// source's counts so far (none at the start).
func (o *waitsObserver) edgeSnaps(start bool) []waitSnap {
	out := make([]waitSnap, len(o.readers))
	for i, r := range o.readers {
		if !r.src.Sampled() {
			r.mu.Lock()
			out[i].events = r.end
			if start {
				out[i].events = r.start
			}
			r.mu.Unlock()
			continue
		}
		out[i] = r.snapshot()
	}
	return out
}

// liveWindow opens the first segment at the window's start, or closes the last at its end, with
// the readings the edge took over read.
func (o *waitsObserver) liveWindow(start bool, read span) {
	l := &o.live
	if start {
		snap := o.edgeSnaps(true)
		l.mu.Lock()
		l.open = true
		l.segs = []*waitSeg{{start: snap, from: read}}
		l.mu.Unlock()
		return
	}
	l.mu.Lock()
	if !l.open {
		l.mu.Unlock()
		return
	}
	l.open = false
	l.stopSettle()
	last := l.segs[len(l.segs)-1]
	l.mu.Unlock()
	l.reads.Wait()
	if len(l.segs) == 1 {
		return // no live change: the window's own waits say it all
	}
	snap := o.edgeSnaps(false)
	l.mu.Lock()
	last.end, last.to = snap, read
	l.mu.Unlock()
}

// Change ends the current segment now and opens the next, whose settled part starts
// results.SettleSeconds after the last change planned for its instant.
func (o *waitsObserver) Change(planned float64) {
	l := &o.live
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.open {
		return
	}
	cur := l.segs[len(l.segs)-1]
	if len(l.segs) == 1 || cur.planned != planned {
		prev := cur
		cur = &waitSeg{planned: planned}
		l.segs = append(l.segs, cur)
		l.reads.Add(1)
		go func() {
			defer l.reads.Done()
			begun := time.Now()
			snap := o.snapshots()
			l.mu.Lock()
			prev.end, prev.to = snap, span{begun, time.Now()}
			l.mu.Unlock()
		}()
	}
	l.stopSettle()
	l.reads.Add(1)
	l.settle = time.AfterFunc(time.Duration(results.SettleSeconds*float64(time.Second)), func() {
		defer l.reads.Done()
		l.mu.Lock()
		open := l.open && l.segs[len(l.segs)-1] == cur
		l.mu.Unlock()
		if !open {
			return
		}
		begun := time.Now()
		snap := o.snapshots()
		l.mu.Lock()
		if l.open && l.segs[len(l.segs)-1] == cur {
			cur.start, cur.from = snap, span{begun, time.Now()}
		}
		l.mu.Unlock()
	})
}

// stopSettle stops a settle reading not yet begun (l.mu held).
func (l *liveWaits) stopSettle() {
	if l.settle != nil && l.settle.Stop() {
		l.reads.Done()
	}
	l.settle = nil
}

// liveSegments are the waits of each segment both of whose edges were read, the first reading
// done before the second began: readings that overlapped (a loaded server answering late) would
// not difference.
func (o *waitsObserver) liveSegments(sampled bool) []results.WaitSegment {
	l := &o.live
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []results.WaitSegment
	for i, s := range l.segs {
		if s.start == nil || s.end == nil || !s.to.begun.After(s.from.done) {
			continue
		}
		var ms []map[string]*results.WaitEvent
		var samples int64
		for k := range o.readers {
			if s.start[k].events == nil || s.end[k].events == nil {
				continue
			}
			ms = append(ms, diff(s.start[k].events, s.end[k].events))
			samples += s.end[k].samples - s.start[k].samples
		}
		if len(ms) == 0 {
			continue
		}
		evs := shares(merge(ms), samples, sampled)
		synch := results.GroupAlone(evs, results.WaitSynch)
		ws := results.WaitSegment{Index: i + 1, Seconds: math.Round(s.to.mid().Sub(s.from.mid()).Seconds()*1000) / 1000,
			ReadMs: math.Round(max(s.from.done.Sub(s.from.begun), s.to.done.Sub(s.to.begun)).Seconds() * 1000),
			Events: evs[:min(5, len(evs))], Synch: synch[:min(10, len(synch))]}
		if ws.Synch == nil {
			ws.Synch = []results.WaitEvent{}
		}
		if sampled {
			ws.Samples = samples
		}
		out = append(out, ws)
	}
	return out
}
