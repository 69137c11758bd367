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
	m     *manager
	r     *running
	lat   *hdrhistogram.Histogram
	types []string // the transaction types the last tick named: the progress samples' p95 index them
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
	case event.Loading:
		type table struct {
			Name string `json:"name"`
			Rows int64  `json:"rows"`
		}
		tables := []table{}
		for _, t := range e.Tables {
			tables = append(tables, table(t))
		}
		v := map[string]any{"elapsed_s": e.Elapsed.Seconds(), "total": e.Total, "rows": e.Rows, "rate": e.Rate(),
			"tables": tables, "loaders": e.Loaders, "done": e.Done}
		if left, ok := e.Left(); ok {
			v["left_s"] = left.Seconds()
		}
		m.publishLocked(r, "loading", v)
	case event.Applied:
		v := map[string]any{"name": e.Name, "value": e.Value, "read_back": e.ReadBack, "live": e.Live}
		if e.Live {
			v["at_s"] = e.At.Seconds() // from the window's start: the chart marks it there
		}
		m.publishLocked(r, "setting", v)
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
		// Each type's transactions of this second, for the per-type lines drawn on demand.
		types := make(map[string]int64, len(t.Types))
		for i, name := range t.Types {
			if i < len(t.Set.Counts) {
				types[name] = t.Set.Counts[i].Count
			}
		}
		v["types"] = types
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
	if len(s.Disks) > 0 {
		v["disks"] = s.Disks
	}
	if s.Sessions != nil {
		v["sessions"] = s.Sessions
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
	ev.types = t.Types
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

// progress is a progress sample as the terminal's progress line has it: the headline and TPM
// over the interval, counted by the server where it counts them (the line's "(server)"), each
// type's p95. It keeps the interval's waits (those its line names, with their share as it shows
// them) for the ticks that follow it.
func (ev *events) progress(p event.Progress) {
	var ws []wait
	for _, w := range p.TopWaits {
		ws = append(ws, wait{Name: w.Name, Share: shownShare(w.Share)})
	}
	ev.m.mu.Lock()
	defer ev.m.mu.Unlock()
	ev.r.waits = ws
	if p.Headline == "" || p.Interval <= 0 {
		return // a workload's own tests (TPC-H's) tell their progress by their queries
	}
	v := map[string]any{
		"elapsed_s":     p.Elapsed.Seconds(),
		"phase":         p.Phase,
		"in_window_s":   p.InWindow.Seconds(),
		"interval_s":    p.Interval.Seconds(),
		"headline_name": p.Headline,
		"tpm":           p.TxnPM,
		"source":        p.Source,
		"tps":           float64(p.Count) / p.Interval.Seconds(),
		"errors":        p.Errors,
		"retries":       p.Retries,
	}
	if p.PerMinute {
		v["headline_pm"] = p.HeadlinePM
	}
	p95 := map[string]float64{}
	for i, x := range p.P95 {
		if i < len(ev.types) {
			p95[ev.types[i]] = x
		}
	}
	v["p95_ms"] = p95
	ev.m.publishLocked(ev.r, "progress", v)
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
