package serve

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/sink"
	"github.com/cairn-bench/cairn/internal/workload"
)

type runTick = event.Tick

// events is a running job's side of the sink and of its engine: it turns what happens into the
// job's server-sent events and log.
type events struct {
	m   *manager
	r   *running
	mu  sync.Mutex // the log's partial line: Out and Err write from the run's goroutines
	lat *hdrhistogram.Histogram
	// marked, when set, is told the codes of the finished result's mark (the job's metrics).
	marked func(codes []string)
}

// Event is the sink's subscriber: steps, settings and the stored result's id become events;
// the lines the terminal would print come through lines().
func (ev *events) Event(e sink.Event) {
	m, r := ev.m, ev.r
	m.mu.Lock()
	defer m.mu.Unlock()
	switch e.Kind {
	case sink.StepBegun:
		m.publishLocked(r, "step", map[string]any{"i": e.I, "n": e.N, "vu": e.VU, "repeat": e.Repeat, "case": e.Case})
	case sink.Applied:
		m.publishLocked(r, "setting", map[string]any{"name": e.Name, "value": e.Value, "read_back": e.ReadBack, "live": e.Live})
	case sink.Opened:
		// Recorded at once: a service killed before the end leaves the record naming the
		// profile or study it had stored so far.
		r.ResultID = e.ID
		m.saveLocked()
	case sink.Stored:
		r.ResultID = e.ID
	case sink.NotStored:
		r.ResultID = ""
	case sink.Summary:
		var rs []results.Reason
		switch {
		case e.Run != nil:
			rs = e.Run.NotAsPlanned
		case e.Profile != nil:
			rs = e.Profile.Reasons()
		case e.Study != nil:
			for _, d := range e.Study.Runs() {
				for _, x := range d.NotAsPlanned {
					if !slices.ContainsFunc(rs, func(y results.Reason) bool { return y.Code == x.Code }) {
						rs = append(rs, x)
					}
				}
			}
		}
		r.NotAsPlanned = rs
		if ev.marked != nil {
			var codes []string
			for _, x := range rs {
				codes = append(codes, x.Code)
			}
			ev.marked(codes)
		}
	}
}

// lines is a writer whose every line goes to the job's log.
func (ev *events) lines() io.Writer { return &lineWriter{ev: ev} }

type lineWriter struct {
	ev  *events
	buf []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.ev.mu.Lock()
	w.buf = append(w.buf, p...)
	var lines []string
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(bytes.TrimRight(w.buf[:i], "\r")))
		w.buf = w.buf[i+1:]
	}
	w.ev.mu.Unlock()
	if len(lines) > 0 {
		m := w.ev.m
		m.mu.Lock()
		for _, l := range lines {
			m.logLocked(w.ev.r, l)
		}
		m.mu.Unlock()
	}
	return len(p), nil
}

// tick is one second of an engine run as the tick event says it; what was not measured is left
// out. It runs on the engine's monitor goroutine once a second, not per transaction.
func (ev *events) tick(t event.Tick) {
	s := t.Second
	v := map[string]any{
		"elapsed_s":   t.Elapsed.Seconds(),
		"phase":       t.Phase,
		"in_window_s": t.InWindow.Seconds(),
		"tps":         float64(s.Txns),
		"errors":      s.Errors,
	}
	if t.Set != nil && len(t.Set.Lat) > 0 {
		if ev.lat == nil {
			ev.lat = hdrhistogram.New(t.Set.Lat[0].LowestTrackableValue(), t.Set.Lat[0].HighestTrackableValue(), int(t.Set.Lat[0].SignificantFigures()))
		}
		ev.lat.Reset()
		for _, h := range t.Set.Lat {
			ev.lat.Merge(h)
		}
		if ev.lat.TotalCount() > 0 {
			v["p50_ms"] = float64(ev.lat.ValueAtQuantile(50)) / 1000
			v["p95_ms"] = float64(ev.lat.ValueAtQuantile(95)) / 1000
			v["p99_ms"] = float64(ev.lat.ValueAtQuantile(99)) / 1000
		}
		v["retries"] = t.Set.Total().Retries
	} else if s.P95ms > 0 {
		v["p95_ms"] = s.P95ms
	}
	if t.VUs > 0 {
		v["vus"] = t.VUs
	}
	if s.CPU != nil {
		v["host_cpu"] = s.CPU.Busy()
	}
	if s.ServerCPUOK {
		v["server_cpu"] = s.ServerCPU
	}
	if len(s.Cores) > 0 {
		cores := make([]float64, len(s.Cores))
		for i, c := range s.Cores {
			cores[i] = c.Busy()
		}
		v["cores"] = cores
	}
	m := ev.m
	m.mu.Lock()
	if w := ev.r.waits; w != nil {
		v["waits"] = w
	}
	m.publishLocked(ev.r, "tick", v)
	m.mu.Unlock()
}

// wait is one of the top wait events of the last progress interval.
type wait struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
}

var waitPart = regexp.MustCompile(`([^\s,]+) ([0-9.]+)%`)

// progress keeps the waits of a progress interval (its line names the top ones, with their share)
// for the ticks that follow it.
func (ev *events) progress(p workload.Progress) {
	var ws []wait
	for _, m := range waitPart.FindAllStringSubmatch(p.Waits, -1) {
		if f, err := strconv.ParseFloat(m[2], 64); err == nil {
			ws = append(ws, wait{Name: m[1], Share: f / 100})
		}
	}
	ev.m.mu.Lock()
	ev.r.waits = ws
	ev.m.mu.Unlock()
}
