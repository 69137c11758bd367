package session

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
	return se.Run(ctx, nil)
}

// Three parts of one TPC-C run on one PostgreSQL database, each its own session as a process
// would be, agree on the window's start through the database, drive disjoint home warehouses,
// and merge into one run: its NOPM, counted once by the database, is the one a single process
// with all the VUs measures at the same time on a database of its own; its histograms are the
// merge of the parts'. A missing part, or a part of another run, is refused.
func TestPartsMergeIntoTheRunOfOneProcess(t *testing.T) {
	db := testutil.PG(t)
	ctx := context.Background()
	const base = "workload: tpcc\ndb: %s\nvu: 6\nrampup: 1s\nduration: 6s\nseed: 11\nobserve: \"off\"\nprogress: 0s\nprepare:\n  warehouses: 6\n"
	t.Cleanup(func() { workload.Cleanup(context.Background(), db, tpcc.Footprint) })
	parts, ls, one := runParts(t, ctx, func(db string) string { return fmt.Sprintf(base, db) }, db)
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
	sameNOPM(t, parts, m, one)
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

// runParts prepares the spec base makes for db, and for a database of the test's own, and runs
// the three parts of base on db at once, each its own session as a process would be, and checks
// they agreed on the window's start. Beside them it runs one process with all the VUs on the other
// database, its window starting at the parts' agreed instant (as the one part of a run, which
// is how a process waits for a start time): the same load at the same time on the same host and
// server, which a busy host slows alike.
func runParts(t *testing.T, ctx context.Context, base func(db string) string, db string) ([]*results.Document, []results.Loaded, *results.Document) {
	t.Helper()
	oneDB := testutil.Databases(t, db, "cairn_test_one")[0]
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i, d := range []string{db, oneDB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := spec.Read([]byte(base(d)))
			if err != nil {
				errs[i] = err
				return
			}
			se, err := Open(ctx, s, "test", nil)
			if err != nil {
				errs[i] = err
				return
			}
			defer se.Close()
			errs[i] = se.prepare(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	run := fmt.Sprintf("test-%d", time.Now().UnixNano())
	parts := make([]*results.Document, 3)
	for i := range parts {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			parts[i], errs[i] = runSpec(t, ctx, base(db)+fmt.Sprintf("part: %d/3\npart-run: %s\n", i+1, run))
		}(i)
	}
	// The first part to arrive writes the agreed start, StartLead ahead.
	_, c := testutil.Open(t, db)
	var startMs int64
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if c.QueryRow(ctx, "SELECT start_ms FROM cairn_part_start WHERE run = $1", run).Scan(&startMs) == nil {
			break
		}
		if time.Now().After(deadline) {
			wg.Wait()
			t.Fatalf("the parts wrote no start in a minute: %v", errors.Join(errs...))
		}
	}
	at := time.UnixMilli(startMs).UTC().Format(time.RFC3339Nano)
	var one *results.Document
	one, errs[3] = runSpec(t, ctx, base(oneDB)+fmt.Sprintf("part: 1/1\npart-run: %s-one\nstart-at: %s\n", run, at))
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
		ls = append(ls, results.Loaded{ID: fmt.Sprint(i + 1), Run: d})
	}
	for i, d := range append(parts, one) {
		// Each one's reading at its window's start comes after the agreed instant, once its VUs
		// have met the edge (at most EdgeWait) and published their counts (at most EdgeWait
		// more), and the monitor has published and read: on a host busy enough to delay those
		// two statements, half a second is allowed for them (1.046 s was seen with the VUs on time).
		if skew := d.Window.Start.Sub(parts[0].Part.StartAt); skew < -50*time.Millisecond || skew > 2*engine.EdgeWait+500*time.Millisecond {
			t.Errorf("run %d of 4 (the 4th the single process's): its window started %s from the agreed start", i+1, skew)
		}
	}
	return parts, ls, one
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
	// The merged series is the parts' on one clock: whole seconds, and the window's edges. Its
	// window's seconds span the window and count the merged run's transactions, exactly.
	var want, got, counted, inWindow int64
	for _, d := range parts {
		for _, s := range d.Series {
			want += s.Txns
		}
	}
	for _, tx := range m.Txns {
		counted += tx.Count
	}
	from, to := -1.0, 0.0
	for i, s := range m.Series {
		got += s.Txns
		edge := s.Window && (i == len(m.Series)-1 || !m.Series[i+1].Window) || !s.Window && i+1 < len(m.Series) && m.Series[i+1].Window
		if s.Window {
			inWindow += s.Txns
			if from < 0 && i > 0 {
				from = m.Series[i-1].T
			}
			to = s.T
		}
		if s.T != math.Trunc(s.T) && !edge || i > 0 && s.T < m.Series[i-1].T {
			t.Errorf("merged series: second %d is at %v, want whole seconds but at the window's edges, in order", i, s.T)
		}
	}
	// A tick a loaded host made late by most of a second shares a second with the next: the
	// seconds are not counted exactly.
	if got != want || len(m.Series) > len(parts[0].Series)+2 {
		t.Errorf("merged series: %d seconds with %d transactions, the parts' %d seconds (part 1) with %d", len(m.Series), got, len(parts[0].Series), want)
	}
	if inWindow != counted || math.Abs(to-from-m.Window.PlannedSeconds) > 0.01 {
		t.Errorf("merged series: the window's seconds count %d transactions over %.3f..%.3f s, the merged run %d over %v s", inWindow, from, to, counted, m.Window.PlannedSeconds)
	}
}

// sameNOPM checks a merged run's NOPM, counted once by the database, against the parts' clients'
// count and against the one process's run beside them.
func sameNOPM(t *testing.T, parts []*results.Document, m *results.Document, one *results.Document) {
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
	// Against the one process with all the VUs that ran at the same time: the same load under the
	// same conditions gives the same NOPM, but for chance. New-Orders come one by one, so two
	// counts of N of them differ by about √N, more where they come in bursts, as the per-second
	// counts of each window show (their variance over their mean, at least 1): four times that is
	// allowed.
	single := one.Result.Headline.Value
	nm, fm := merged*m.Window.Seconds/60, dispersion(m.Series)
	ns, fs := single*one.Window.Seconds/60, dispersion(one.Series)
	chance := 4 * math.Sqrt(fm*nm+fs*ns) / (m.Window.Seconds / 60)
	t.Logf("NOPM: merged parts %.0f, one process at the same time %.0f (New-Orders %.0f and %.0f, dispersion %.1f and %.1f: %.0f NOPM allowed)", merged, single, nm, ns, fm, fs, chance)
	if math.Abs(merged-single) > chance {
		t.Errorf("merged NOPM %.0f, one process's at the same time %.0f: more apart than the %.0f chance accounts for", merged, single, chance)
	}
}

// dispersion is the variance of a window's per-second headline counts over their mean, at least 1
// (as a Poisson count's): the window's whole seconds only, not its first and last, which a part
// of its run's clock can cut short.
func dispersion(ss []metrics.Second) float64 {
	var xs []float64
	prev := 0.0
	for i, s := range ss {
		if dt := s.T - prev; s.Window && i > 0 && ss[i-1].Window && i < len(ss)-1 && ss[i+1].Window && math.Abs(dt-1) < 0.1 {
			xs = append(xs, float64(s.Headline))
		}
		prev = s.T
	}
	if len(xs) < 2 {
		return 1
	}
	var mean, v float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	v /= float64(len(xs) - 1)
	if mean <= 0 {
		return 1
	}
	return max(1, v/mean)
}

// Three parts of a run of 60 TPC-C terminals over 6 pooled connections (no keying and thinking,
// so that a short window has transactions), on one PostgreSQL database: each part runs the
// terminals of its 2 of the 6 warehouses over its 2 connections, and the merge is one run of 60
// terminals over 6 connections whose NOPM is that of a single process running at the same time,
// with the histograms, the waits for a connection and the time series of the parts together,
// and TPC-C's own figures.
func TestTerminalPartsMerge(t *testing.T) {
	db := testutil.PG(t)
	ctx := context.Background()
	base := func(db string) string {
		return fmt.Sprintf("workload: tpcc\ndb: %s\nterminals: 60\nconnections: 6\nrampup: 1s\nduration: 6s\nseed: 11\nprogress: 0s\nprepare:\n  warehouses: 6\n", db)
	}
	t.Cleanup(func() { workload.Cleanup(context.Background(), db, tpcc.Footprint) })
	parts, ls, one := runParts(t, ctx, base, db)
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
	sameNOPM(t, parts, m, one)
}
