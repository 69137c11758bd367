package openmetrics

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

// scrape reads the handler as Prometheus does and parses it with the Prometheus text parser.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

// perType is a family's value per transaction type, of the job's series only.
func perType(fams map[string]*dto.MetricFamily, name, job string) map[string]float64 {
	out := map[string]float64{}
	f := fams[name]
	if f == nil {
		return out
	}
	for _, m := range f.Metric {
		l := map[string]string{}
		for _, p := range m.Label {
			l[p.GetName()] = p.GetValue()
		}
		if l["job_id"] != job {
			continue
		}
		key := l["type"] + l["series"] + l["figure"]
		switch {
		case m.Counter != nil:
			out[key] = m.Counter.GetValue()
		case m.Gauge != nil:
			out[key] = m.Gauge.GetValue()
		case m.Histogram != nil:
			out[key] = float64(m.Histogram.GetSampleCount())
		}
	}
	return out
}

// TestMetricsAgreeWithTheStoredResult runs a short oltp run with a job's series subscribed to its
// ticks, stores its document, and compares the scraped counters with it. Two spans are compared,
// each exactly: cairn_transactions_total counts every transaction the engine's ticks drained
// (rampup, window and what completed after it before the last tick), which is what the stored
// time series sums second by second; cairn_window_transactions_total counts those of the measured
// window, the document's per-type counts, less at most one per VU (a VU that ends a transaction
// in the window records it after the last tick, and only the document has it).
func TestMetricsAgreeWithTheStoredResult(t *testing.T) {
	for _, tc := range []struct{ name, db string }{{"sqlite", ""}, {"postgres", "postgres"}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db := testutil.SQLite(t)
			if tc.db == "postgres" {
				db = testutil.PG(t)
			}
			s, err := spec.New("oltp", false)
			if err != nil {
				t.Fatal(err)
			}
			s.DB = db
			for k, v := range map[string]string{"options.tables": "1", "options.table-size": "1000", "vu": "2", "rampup": "1s",
				"duration": "11s", "progress": "0s", "seed": "1"} {
				if err := s.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			s.AskPrepare()
			se, err := session.Open(ctx, s, "test", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer se.Close()
			if tc.db != "" {
				defer func() {
					if _, err := workload.Cleanup(ctx, db, se.W.Info().Footprint); err != nil {
						t.Errorf("cleanup: %v", err)
					}
				}()
			}
			where := target.Where(se.T)
			reg := New()
			jm := reg.Job("j1", "oltp", where)
			var live map[string]*dto.MetricFamily
			ticks := 0
			d, err := se.Run(ctx, event.New(jm, event.Func(func(_ context.Context, e event.Event) error {
				if _, ok := e.(event.Tick); ok {
					if ticks++; ticks == 2 {
						live = scrape(t, reg.Handler())
					}
				}
				return nil
			})))
			if err != nil {
				t.Fatal(err)
			}
			st, err := resultstore.Open(ctx, filepath.Join(t.TempDir(), "results.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.SaveRun(ctx, d, 0); err != nil {
				t.Fatal(err)
			}
			back, _, err := st.Get(ctx, d.ID)
			if err != nil {
				t.Fatal(err)
			}

			if v := perType(live, "cairn_vus", "j1")[""]; v != 2 {
				t.Errorf("cairn_vus while running = %v, want 2", v)
			}
			if v := perType(live, "cairn_job_running", "j1")[""]; v != 1 {
				t.Errorf("cairn_job_running while running = %v, want 1", v)
			}
			// The CPU gauges stand where the run measured them: the host's from /proc/stat, the
			// server's where its process is local and known (not SQLite's, which is cairn's own).
			_, host := live["cairn_host_cpu_percent"]
			_, server := live["cairn_server_cpu_percent"]
			if measured := len(back.Series) > 0 && back.Series[0].CPU != nil; host != measured {
				t.Errorf("cairn_host_cpu_percent served: %v; the run measured the host's CPU: %v", host, measured)
			}
			if local := back.Server != nil && back.Server.Where == "local" && back.Server.PID > 0; server != local {
				t.Errorf("cairn_server_cpu_percent served: %v; the server is a local process cairn found: %v", server, local)
			}
			// The disk gauges are the second's figures of each device under the database's files,
			// as the stored disk I/O has them for that second (the second tick's).
			if io := results.DiskIOOf(back); io == nil || len(io.Devices) == 0 || len(io.Series) < 2 {
				t.Errorf("no disk I/O stored: %+v", io)
			} else {
				got := map[string]float64{}
				for _, m := range live["cairn_disk_writes_per_second"].GetMetric() {
					for _, l := range m.Label {
						if l.GetName() == "device" {
							got[l.GetValue()] = m.Gauge.GetValue()
						}
					}
				}
				want := map[string]float64{}
				for i, dv := range io.Devices {
					want[dv.Name] = io.Series[1].Devices[i].WritesPerS
				}
				if !maps.Equal(got, want) {
					t.Errorf("cairn_disk_writes_per_second at the second tick %v, the stored second %v", got, want)
				}
			}
			// The run's end, as session.Execute publishes it to the job's subscribers.
			if err := jm.Handle(ctx, event.Summary{What: results.KindRun, Run: d}); err != nil {
				t.Fatal(err)
			}
			fams := scrape(t, reg.Handler())
			all := perType(fams, "cairn_transactions_total", "j1")
			win := perType(fams, "cairn_window_transactions_total", "j1")
			winErr := perType(fams, "cairn_window_errors_total", "j1")
			hist := perType(fams, "cairn_transaction_duration_seconds", "j1")

			// The series counts as the window does at its edges (result-format.md#timeseries): its
			// window seconds are the stored result's transactions, exactly, and its seconds before
			// the window what ended before it. cairn_transactions_total counts every transaction the
			// ticks read: those, and what ended after the window's end before the last tick.
			var seriesBefore, seriesWindow, sumAll, sumWin, stored, missing float64
			for _, sec := range back.Series {
				if sec.Window {
					seriesWindow += float64(sec.Txns)
				} else {
					seriesBefore += float64(sec.Txns)
				}
			}
			for _, name := range back.TxnOrder {
				tx := back.Txns[name]
				sumAll += all[name]
				sumWin += win[name]
				stored += float64(tx.Count)
				if all[name] < win[name] || hist[name] != all[name] {
					t.Errorf("%s: %v transactions in all, %v in the window, %v in the latency histogram", name, all[name], win[name], hist[name])
				}
				gap := float64(tx.Count) - win[name]
				if gap < 0 || winErr[name] != float64(tx.Errors) {
					t.Errorf("%s: the window counter has %v transactions and %v errors, the stored result %d and %d",
						name, win[name], winErr[name], tx.Count, tx.Errors)
				}
				missing += gap
			}
			if len(back.TxnOrder) == 0 || sumAll == 0 || seriesWindow != stored || sumAll < seriesBefore+sumWin {
				t.Errorf("cairn_transactions_total sums to %v over %v, the window counters to %v; the stored time series has %v before the window and %v in it, the stored result %v",
					sumAll, back.TxnOrder, sumWin, seriesBefore, seriesWindow, stored)
			}
			if missing > float64(back.VU) {
				t.Errorf("the window counters lack %v of the stored result's transactions, more than one per VU (%d)", missing, back.VU)
			}

			// Labels: the job, the workload and the target's place, never its URL.
			for name, f := range fams {
				if !strings.HasPrefix(name, "cairn_") {
					continue
				}
				for _, m := range f.Metric {
					for _, l := range m.Label {
						if l.GetName() == "target" && (l.GetValue() != where || strings.Contains(l.GetValue(), "cairn:")) {
							t.Errorf("%s: target label %q, want %q", name, l.GetValue(), where)
						}
					}
				}
			}

			// The stored run's steady state and its headline's interval, as the document has them
			// (docs/steady-state.md): the window's 11 points are enough to judge.
			sd := back.Steady
			if sd == nil || len(back.Result.Intervals) == 0 {
				t.Fatalf("the stored run has no steady section or intervals (%d points in its series)", len(back.Series))
			}
			for name, want := range map[string]float64{"cairn_steady": b2f(sd.Steady), "cairn_steady_from_seconds": sd.FromSeconds,
				"cairn_rampup_short_by_seconds": sd.ShortBySeconds} {
				if v, ok := perType(fams, name, "j1")[""]; !ok || v != want {
					t.Errorf("%s = %v (served: %v), the stored result has %v", name, v, ok, want)
				}
			}
			if v := perType(fams, "cairn_window_trend_percent_per_minute", "j1"); v["throughput"] != sd.Throughput.TrendPctPerMin {
				t.Errorf("cairn_window_trend_percent_per_minute = %v, the stored result's throughput trend %v", v, sd.Throughput.TrendPctPerMin)
			}
			for _, iv := range back.Result.Intervals {
				if v := perType(fams, "cairn_headline_interval_ratio", "j1")[iv.Figure]; v != iv.Rel {
					t.Errorf("cairn_headline_interval_ratio{figure=%q} = %v, the stored result's %v", iv.Figure, v, iv.Rel)
				}
			}

			// Done freezes the series: the counters stay, the job is no longer running.
			jm.Done()
			after := scrape(t, reg.Handler())
			if v := perType(after, "cairn_job_running", "j1")[""]; v != 0 {
				t.Errorf("cairn_job_running after Done = %v, want 0", v)
			}
			if _, ok := after["cairn_vus"]; ok {
				t.Errorf("cairn_vus still reported after Done")
			}
			for name, v := range perType(after, "cairn_transaction_duration_seconds", "j1") {
				if v != all[name] {
					t.Errorf("%s: frozen histogram counts %v, the counter %v", name, v, all[name])
				}
			}
		})
	}
}

// TestFinishedJobsAreBounded: only the KeepFinished latest finished jobs keep their series.
func TestFinishedJobsAreBounded(t *testing.T) {
	reg := New()
	for i := range KeepFinished + 3 {
		reg.Job(string(rune('a'+i)), "oltp", "x.db").Done()
	}
	reg.Job("live", "oltp", "x.db")
	fams := scrape(t, reg.Handler())
	if n := len(fams["cairn_job_running"].GetMetric()); n != KeepFinished+1 {
		t.Errorf("%d jobs reported, want the %d latest finished and the running one", n, KeepFinished)
	}
	if _, ok := perType(fams, "cairn_job_running", "a")[""]; ok {
		t.Errorf("the oldest finished job is still reported")
	}
}
