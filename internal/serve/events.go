package serve

import (
	"context"
	"strconv"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/session"
)

// events is a running job's subscriber of its session's bus: it turns what happens into the
// job's server-sent events and log, the log in the words the terminal shows (session.Words).
type events struct {
	m   *manager
	r   *running
	lat *hdrhistogram.Histogram
}

// Handle: steps, settings, a workload's timed queries and the stored result's id become events,
// each second a tick; what the terminal would print goes to the log, a line at a time.
func (ev *events) Handle(_ context.Context, e event.Event) error {
	switch e := e.(type) {
	case event.Tick:
		ev.tick(e)
	case event.Progress:
		ev.progress(e)
	}
	m, r := ev.m, ev.r
	m.mu.Lock()
	defer m.mu.Unlock()
	switch e := e.(type) {
	case event.StepBegun:
		m.publishLocked(r, "step", map[string]any{"i": e.I, "n": e.N, "vu": e.VU, "repeat": e.Repeat, "case": e.Case})
	case event.QueryDone:
		tm := e.Timing
		q := map[string]any{"stream": tm.Stream, "stream_name": e.Who, "name": tm.Name, "seconds": tm.Seconds, "rows": tm.Rows}
		if tm.Set > 0 {
			q["set"] = tm.Set
		}
		if tm.Error != "" {
			q["error"] = tm.Error
		}
		m.publishLocked(r, "query", q)
	case event.Applied:
		m.publishLocked(r, "setting", map[string]any{"name": e.Name, "value": e.Value, "read_back": e.ReadBack, "live": e.Live})
	case event.Opened:
		// Recorded at once: a service killed before the end leaves the record naming the
		// profile or study it had stored so far.
		r.ResultID = e.ID
		m.saveLocked()
	case event.Stored:
		r.ResultID = e.ID
	case event.NotStored:
		r.ResultID = ""
	case event.Summary:
		if e.Profile == nil || len(e.Profile.Steps) > 0 {
			r.NotAsPlanned = e.Reasons()
		}
	}
	if text, _ := session.Words(e); text != "" {
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			m.logLocked(r, strings.TrimRight(line, "\r"))
		}
	}
	return nil
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

// progress keeps the waits of a progress interval (those its line names, with their share as it
// shows them) for the ticks that follow it.
func (ev *events) progress(p event.Progress) {
	var ws []wait
	for _, w := range p.TopWaits {
		ws = append(ws, wait{Name: w.Name, Share: shownShare(w.Share)})
	}
	ev.m.mu.Lock()
	ev.r.waits = ws
	ev.m.mu.Unlock()
}

// shownShare is a share as the progress line shows it (results.TopWaits): a whole percent from
// 10%, a tenth below.
func shownShare(s float64) float64 {
	prec := 1
	if s >= 0.1 {
		prec = 0
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(100*s, 'f', prec, 64), 64)
	return f / 100
}
