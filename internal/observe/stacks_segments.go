package observe

import (
	"sync"

	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/results"
)

// segmentFolded bounds the stacks each live segment's profile keeps: a run of five segments
// keeps as many again as its whole window's.
const segmentFolded = 500

// monoNow is CLOCK_MONOTONIC in seconds: the clock perf record -k CLOCK_MONOTONIC stamps its
// samples with.
func monoNow() float64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return float64(ts.Sec) + float64(ts.Nsec)/1e9
}

// liveStacks keeps the instants, on perf's clock, of the window's edges and of each live change,
// to cut the run's samples into the live segments' settled parts.
type liveStacks struct {
	mu         sync.Mutex
	start, end float64
	changes    []liveChange
}

type liveChange struct{ planned, t float64 }

func (l *liveStacks) window(start bool) {
	t := monoNow()
	l.mu.Lock()
	defer l.mu.Unlock()
	if start {
		l.start = t
	} else {
		l.end = t
	}
}

// Change records a live change made now (observe.Changer).
func (o *stacks) Change(planned float64) {
	t := monoNow()
	l := &o.live
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.start > 0 && l.end == 0 {
		l.changes = append(l.changes, liveChange{planned, t})
	}
}

// stackSpan is one segment's settled part on perf's clock: [from, to).
type stackSpan struct {
	index    int
	from, to float64
}

// spans are the segments' settled parts: the first from the window's start to the first change,
// each next from results.SettleSeconds after the last change planned for its instant to the
// next change, the last to the window's end; a part that settling leaves empty is left out.
// None for a run without live changes.
func (l *liveStacks) spans() []stackSpan {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.changes) == 0 || l.start == 0 || l.end == 0 {
		return nil
	}
	var out []stackSpan
	from, index := l.start, 1
	for i := 0; i < len(l.changes); {
		j := i
		for j+1 < len(l.changes) && l.changes[j+1].planned == l.changes[i].planned {
			j++
		}
		if to := l.changes[i].t; to > from {
			out = append(out, stackSpan{index, from, to})
		}
		from, index, i = l.changes[j].t+results.SettleSeconds, index+1, j+1
	}
	if l.end > from {
		out = append(out, stackSpan{index, from, l.end})
	}
	return out
}

// spanOf is the span holding t, -1 when none does.
func spanOf(spans []stackSpan, t float64) int {
	for k, s := range spans {
		if t >= s.from && t < s.to {
			return k
		}
	}
	return -1
}

// segmentStacks ranks each span's samples as the run's are ranked.
func segmentStacks(spans []stackSpan, folded []map[string]int64) []results.StackSegment {
	var out []results.StackSegment
	for k, sp := range spans {
		var st results.Stacks
		if len(folded[k]) > 0 {
			fillStacks(&st, folded[k], segmentFolded)
		}
		out = append(out, results.StackSegment{Index: sp.index, Seconds: roundTo(sp.to-sp.from, 2), Samples: st.Samples, Kernel: st.Kernel,
			Functions: st.Functions, Folded: st.Folded, CutStacks: st.CutStacks, CutSamples: st.CutSamples})
	}
	return out
}
