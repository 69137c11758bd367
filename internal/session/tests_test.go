package session

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload/tpch"
)

// TestTPCHObservedLikeAVURun: TPC-H's power and throughput tests with --observe stacks runs inside the session's
// observers like an engine run: its document carries the per-second series with per-core CPU,
// the server's waits, the running threads and the server's stacks, measured over the test's
// span; the bus hears a QueryDone for each of their 72 timings and a tick a second whose counts
// add up to them.
func TestTPCHObservedLikeAVURun(t *testing.T) {
	stacks := true
	if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
		stacks = false // the other sections are still checked
	}
	for _, tc := range []struct {
		name string
		url  func(testing.TB) string
	}{{"postgres", testutil.PG}, {"mysql", testutil.MySQL}} {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.url(t)
			ctx := context.Background()
			tg, err := target.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			if _, err := tpch.Cleanup(ctx, tg); err != nil {
				t.Fatal(err)
			}
			defer func() { _, _ = tpch.Cleanup(context.Background(), tg) }()
			if _, err := tpch.Prepare(ctx, tg, tpch.PrepareOptions{SF: 0.01, Loaders: 2}); err != nil {
				t.Fatal(err)
			}
			s, err := spec.New("tpch", false)
			if err != nil {
				t.Fatal(err)
			}
			s.DB = url
			// Both tests: SF 0.01's power test alone can be over before perf, started on a busy
			// host, takes its first samples.
			for k, v := range map[string]string{"seed": "3", "observe": "stacks", "stacks-hz": "999"} {
				if err := s.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			var done []event.QueryDone
			var ticked, tickErrs int64
			var ticks int
			se := &Session{Spec: s, W: s.WorkloadOf(), T: tg, Version: "test"}
			d, err := se.Run(ctx, event.New(event.Func(func(_ context.Context, e event.Event) error {
				mu.Lock()
				defer mu.Unlock()
				switch e := e.(type) {
				case event.QueryDone:
					done = append(done, e)
				case event.Tick:
					ticks++
					ticked, tickErrs = e.Txns, e.Errors
				}
				return nil
			})))
			if err != nil {
				t.Fatal(err)
			}
			// The power test's 24 timings, then 2 streams × 22 queries and 2 refresh pairs.
			if len(done) != 72 || done[0].Who != "power" || done[0].Timing.Name != "RF1" || done[23].Who != "power" || done[23].Timing.Name != "RF2" {
				t.Fatalf("QueryDone events: %d, want 72, the first 24 from RF1 to RF2 of the power stream: %+v", len(done), done)
			}
			if ticks == 0 || ticked+tickErrs != 72 {
				t.Errorf("%d ticks counted %d timings and %d errors, want 72 in all", ticks, ticked, tickErrs)
			}
			if d.Result.Headline == nil || d.Result.Headline.Name != "QphH" || d.Result.Headline.Value <= 0 {
				t.Errorf("headline %+v, want QphH > 0", d.Result.Headline)
			}
			if len(d.Series) != ticks {
				t.Errorf("series of %d seconds, %d ticks", len(d.Series), ticks)
			}
			var inSeries int64
			for _, sec := range d.Series {
				inSeries += sec.Txns
			}
			if inSeries != int64(len(d.Timings)) {
				t.Errorf("the series counts %d timings, the document has %d", inSeries, len(d.Timings))
			}
			host, cores, ok := d.WindowCPU()
			if !ok || len(cores) == 0 || host.Busy() <= 0 {
				t.Errorf("no per-core CPU over the window: ok %v, %d cores, host busy %.1f%%", ok, len(cores), host.Busy())
			}
			if d.Server == nil || d.Server.CPUSeconds <= 0 {
				t.Errorf("no server CPU: %+v", d.Server)
			}
			if d.Host == nil {
				t.Error("no host facts")
			}
			if d.Client.CPUSeconds <= 0 {
				t.Errorf("client CPU %g s", d.Client.CPUSeconds)
			}
			if d.Waits == nil || len(d.Waits.Events) == 0 {
				t.Errorf("no waits: %+v", d.Waits)
			}
			if r := results.RunningOf(d); r == nil || len(r.Series) == 0 {
				t.Errorf("no running threads: %+v", r)
			}
			if !stacks {
				t.Log("perf or root missing: stacks not checked")
				return
			}
			st := results.StacksOf(d)
			if st == nil || st.Samples <= 0 || len(st.Functions) == 0 || len(st.Folded) == 0 {
				t.Fatalf("no stacks of the server over the test: %+v", st)
			}
			var folded int64
			for _, f := range st.Folded {
				folded += f.Count
			}
			if folded+st.CutSamples != st.Samples {
				t.Errorf("folded stacks count %d samples (+%d cut), the section %d", folded, st.CutSamples, st.Samples)
			}
		})
	}
}
