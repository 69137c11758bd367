package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	engine "github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpcc"
)

func runSpec(t *testing.T, ctx context.Context, text string) (*results.Document, error) {
	t.Helper()
	s, err := spec.Read([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	se, err := Open(ctx, s, "test", nil)
	if err != nil {
		return nil, err
	}
	defer se.Close()
	return se.Run(ctx, Hooks{})
}

// Three parts of one TPC-C run on one PostgreSQL database, each its own session as a process
// would be, agree on the window's start through the database, drive disjoint home warehouses,
// and merge into one run: its NOPM, counted once by the database, is the one a single process
// with all the VUs measures over a window as long, within the run-to-run spread; its histograms
// are the merge of the parts'. A missing part, or a part of another run, is refused.
func TestPartsMergeIntoTheRunOfOneProcess(t *testing.T) {
	db := testutil.PG(t)
	ctx := context.Background()
	const base = "workload: tpcc\ndb: %s\nvu: 6\nrampup: 1s\nduration: 6s\nseed: 11\nobserve: \"off\"\nprogress: 0s\nprepare:\n  warehouses: 6\n"
	t.Cleanup(func() { workload.Cleanup(context.Background(), db, tpcc.Footprint) })
	// The single process's runs come before and after the parts' (the first prepares the schema).
	single := make([]float64, 2)
	one := func(i int) {
		d, err := runSpec(t, ctx, fmt.Sprintf(base, db))
		if err != nil {
			t.Fatal(err)
		}
		single[i] = d.Result.Headline.Value
		t.Logf("single %d: NOPM %.0f, new_order %.0f/min by the client, window %.3f s", i, single[i], d.Txns["new_order"].PerMinute, d.Window.Seconds)
	}
	one(0)
	parts, ls := runParts(t, ctx, fmt.Sprintf(base, db))
	for i, d := range parts {
		if d.VU != 2 {
			t.Fatalf("part %d: vu %d, want 2", i+1, d.VU)
		}
	}
	m, err := results.Merge(ls)
	if err != nil {
		t.Fatal(err)
	}
	checkMerged(t, parts, m)
	if m.VU != 6 || len(m.Part.Parts) != 3 || m.Result.Headline == nil || m.Result.Headline.Source != "server" {
		t.Fatalf("merged: vu %d, parts %+v, headline %+v", m.VU, m.Part.Parts, m.Result.Headline)
	}
	one(1)
	sameNOPM(t, parts, m, single)
	var me *results.MergeError
	if _, err := results.Merge(ls[:2]); !errors.As(err, &me) || !strings.Contains(err.Error(), "part 3/3 is not among the results") {
		t.Errorf("merge without part 3: %v", err)
	}
	other := *parts[2]
	op := *other.Part
	op.Run = "another"
	other.Part = &op
	if _, err := results.Merge([]results.Loaded{ls[0], ls[1], {ID: "9", Run: &other}}); !errors.As(err, &me) || !strings.Contains(err.Error(), "of run") {
		t.Errorf("merge with a part of another run: %v", err)
	}
}

// runParts runs the three parts of the spec base at once, each its own session as a process
// would be, and checks they agreed on the window's start.
func runParts(t *testing.T, ctx context.Context, base string) ([]*results.Document, []results.Loaded) {
	t.Helper()
	run := fmt.Sprintf("test-%d", time.Now().UnixNano())
	parts := make([]*results.Document, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range parts {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			parts[i], errs[i] = runSpec(t, ctx, base+fmt.Sprintf("part: %d/3\npart-run: %s\n", i+1, run))
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	var ls []results.Loaded
	for i, d := range parts {
		if d.Part == nil || d.Part.I != i+1 || d.Part.N != 3 || d.Part.Run != run || d.Part.Start == nil {
			t.Fatalf("part %d: part %+v", i+1, d.Part)
		}
		if !d.Part.StartAt.Equal(parts[0].Part.StartAt) {
			t.Errorf("part %d starts at %s, part 1 at %s", i+1, d.Part.StartAt, parts[0].Part.StartAt)
		}
		// Each part's reading at its window's start comes after the agreed instant, once its VUs
		// have met the edge: at most EdgeWait (and the reading) later, however busy the host.
		if skew := d.Window.Start.Sub(d.Part.StartAt); skew < -50*time.Millisecond || skew > engine.EdgeWait {
			t.Errorf("part %d's window started %s from the agreed start", i+1, skew)
		}
		ls = append(ls, results.Loaded{ID: fmt.Sprint(i + 1), Run: d})
	}
	return parts, ls
}

// checkMerged checks a merge against its parts: each type's count the sum of theirs, its
// latency and service-time histograms (and the terminals' waits for a connection) the merge of
// theirs, and the time series' transactions theirs, on one clock.
func checkMerged(t *testing.T, parts []*results.Document, m *results.Document) {
	t.Helper()
	hist := func(what string, get func(*results.Document) map[string]string, summary func(name string) metrics.Latency) {
		for _, name := range m.TxnOrder {
			want := metrics.NewHist()
			for _, d := range parts {
				h, err := results.DecodeHist(get(d)[name])
				if err != nil {
					t.Fatalf("%s %s: %v", what, name, err)
				}
				want.Merge(h)
			}
			got, err := results.DecodeHist(get(m)[name])
			if err != nil {
				t.Fatalf("merged %s %s: %v", what, name, err)
			}
			if !got.Equals(want) || summary(name) != metrics.Summarize(want) {
				t.Errorf("%s: merged %s histogram (%d values) is not the parts' (%d values)", name, what, got.TotalCount(), want.TotalCount())
			}
		}
	}
	hist("latency", func(d *results.Document) map[string]string { return d.Histograms }, func(n string) metrics.Latency { return m.Txns[n].LatencyMs })
	if parts[0].ServiceHistograms != nil {
		hist("service-time", func(d *results.Document) map[string]string { return d.ServiceHistograms }, func(n string) metrics.Latency { return *m.Txns[n].ServiceMs })
	}
	if parts[0].Terminals != nil {
		hist("connection-wait", func(d *results.Document) map[string]string { return d.Terminals.Histograms }, func(n string) metrics.Latency { return m.Terminals.Txns[n].WaitMs })
	}
	for _, name := range m.TxnOrder {
		var count int64
		for _, d := range parts {
			count += d.Txns[name].Count
		}
		if m.Txns[name].Count != count {
			t.Errorf("%s: merged count %d, the parts' %d", name, m.Txns[name].Count, count)
		}
	}
	var want, got, window int64
	for _, d := range parts {
		for _, s := range d.Series {
			want += s.Txns
		}
	}
	for i, s := range m.Series {
		got += s.Txns
		if s.Window {
			window++
		}
		if s.T != math.Trunc(s.T) || i > 0 && s.T <= m.Series[i-1].T {
			t.Errorf("merged series: second %d is at %v, want whole seconds in order", i, s.T)
		}
	}
	// A tick a loaded host made late by most of a second shares a second with the next: the
	// seconds are not counted exactly.
	if got != want || len(m.Series) > len(parts[0].Series)+2 {
		t.Errorf("merged series: %d seconds with %d transactions, the parts' %d seconds (part 1) with %d", len(m.Series), got, len(parts[0].Series), want)
	}
	if plan := int64(m.Window.PlannedSeconds); window < 1 || window > plan+2 {
		t.Errorf("merged series: %d seconds in the window of %d s", window, plan)
	}
}

// sameNOPM checks a merged run's NOPM, counted once by the database, against the parts' clients'
// count and against the single process's runs.
func sameNOPM(t *testing.T, parts []*results.Document, m *results.Document, single []float64) {
	t.Helper()
	merged := m.Result.Headline.Value
	t.Logf("merged: NOPM %.0f, new_order %.0f/min by the clients, window %.3f s", merged, m.Txns["new_order"].PerMinute, m.Window.Seconds)
	// The database's count over the common window (the earliest reading at a part's window start
	// to the latest at a part's end) is the New-Orders the parts' clients counted committed in
	// their windows, which start at the agreed instant and last the planned time, but for those
	// committed between the agreed edges and the database's readings of them (at the clients' own
	// rate, for as long as the readings came after the edges: a busy host makes them late) and one
	// in flight per connection at each edge.
	var start, end *results.Edge
	for _, d := range parts {
		if start == nil || d.Part.Start.At.Before(start.At) {
			start = d.Part.Start
		}
		if end == nil || d.Part.End.At.After(end.At) {
			end = d.Part.End
		}
	}
	agreed := parts[0].Part.StartAt
	planned := time.Duration(m.Window.PlannedSeconds * float64(time.Second))
	abs := func(d time.Duration) time.Duration { return max(d, -d) }
	off := abs(start.At.Sub(agreed)) + abs(end.At.Sub(agreed.Add(planned)))
	nt := m.Txns["new_order"]
	client := nt.Count - nt.Rollbacks
	db := end.Headline - start.Headline
	tol := float64(client)/m.Window.ClientSeconds*off.Seconds() + 2*float64(m.VU)
	if math.Abs(float64(db-client)) > tol {
		t.Errorf("the database counted %d New-Orders over the common window, the parts' clients %d: more apart than the %.0f the edges' %v off the agreed window can account for", db, client, tol, off)
	}
	if want := math.Floor(float64(db) / (end.At.Sub(start.At).Seconds() / 60)); math.Abs(merged-want) > 1 {
		t.Errorf("merged NOPM %.0f, the database's count over the common window makes %.0f", merged, want)
	}
	// Against one process with all the VUs, run before and after the parts: the same load gives
	// the same NOPM within the run-to-run spread. On a shared host the spread between runs made
	// at different times is the host's (two short single runs differ by up to a half when other
	// work comes and goes), so the band is at least half their mean: it still tells the run's
	// NOPM from a part's (a third) or the parts' summed (three times).
	lo, hi := min(single[0], single[1]), max(single[0], single[1])
	spread := max(hi-lo, 0.5*(lo+hi)/2)
	t.Logf("NOPM: merged parts %.0f, single process %.0f and %.0f", merged, single[0], single[1])
	if math.Abs(merged-(lo+hi)/2) > spread {
		t.Errorf("merged NOPM %.0f is outside the single runs' %.0f..%.0f by more than their spread %.0f", merged, lo, hi, spread)
	}
}

// Three parts of a run of 60 TPC-C terminals over 6 pooled connections (no keying and thinking,
// so that a short window has transactions), on one PostgreSQL database: each part runs the
// terminals of its 2 of the 6 warehouses over its 2 connections, and the merge is one run of 60
// terminals over 6 connections whose NOPM is a single process's, within the spread, with the
// histograms, the waits for a connection and the time series of the parts together, and TPC-C's
// own figures.
func TestTerminalPartsMerge(t *testing.T) {
	db := testutil.PG(t)
	ctx := context.Background()
	base := fmt.Sprintf("workload: tpcc\ndb: %s\nterminals: 60\nconnections: 6\nrampup: 1s\nduration: 6s\nseed: 11\nprogress: 0s\nprepare:\n  warehouses: 6\n", db)
	t.Cleanup(func() { workload.Cleanup(context.Background(), db, tpcc.Footprint) })
	single := make([]float64, 2)
	one := func(i int) {
		d, err := runSpec(t, ctx, base)
		if err != nil {
			t.Fatal(err)
		}
		single[i] = d.Result.Headline.Value
		t.Logf("single %d: NOPM %.0f, window %.3f s", i, single[i], d.Window.Seconds)
	}
	one(0)
	parts, ls := runParts(t, ctx, base)
	for i, d := range parts {
		if tm := d.Terminals; d.VU != 2 || tm == nil || tm.Terminals != 20 || tm.Of != 60 || tm.Connections != 2 {
			t.Fatalf("part %d: vu %d, terminals %+v; want 20 of 60 terminals over 2 connections", i+1, d.VU, tm)
		}
	}
	m, err := results.Merge(ls)
	if err != nil {
		t.Fatal(err)
	}
	checkMerged(t, parts, m)
	if tm := m.Terminals; m.VU != 6 || tm == nil || tm.Terminals != 60 || tm.Of != 0 || tm.Connections != 6 {
		t.Fatalf("merged: vu %d, terminals %+v; want 60 terminals over 6 connections", m.VU, tm)
	}
	if x, ok := m.Extra["tpcc"].(tpcc.Extra); !ok || x.Warehouses != 6 {
		t.Errorf("merged extra.tpcc %#v, want the parts' (6 warehouses)", m.Extra["tpcc"])
	}
	one(1)
	sameNOPM(t, parts, m, single)
}
