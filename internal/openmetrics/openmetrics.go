// Package openmetrics exposes the runs of cairn serve's jobs to Prometheus (the OpenMetrics text
// at /metrics): per transaction type counters and latency histograms, VUs, host and server CPU,
// labelled by job, workload and target. It is fed from the engine's ticks (event.Tick), one call a
// second per job, and costs nothing per transaction. docs/serve.md lists the metrics.
package openmetrics

import (
	"context"
	"net/http"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// KeepFinished is how many finished jobs keep their series (frozen) after Done: a scrape after a
// short job's end still sees its totals, and the series do not grow without bound.
const KeepFinished = 16

// Buckets are the latency histograms' upper bounds, in seconds.
var Buckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Registry is the metrics of every job; one per cairn serve.
type Registry struct {
	reg  *prometheus.Registry
	mu   sync.Mutex
	jobs []*JobMetrics // in the order they were made
}

// New makes a registry with the process's own metrics (Go runtime, process) beside the jobs'.
func New() *Registry {
	r := &Registry{reg: prometheus.NewRegistry()}
	r.reg.MustRegister(collector{r}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}

// Handler serves the metrics: OpenMetrics text to a scraper that asks for it, else Prometheus text.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// JobMetrics is one job's series. It subscribes to the job's events (Handle): every step of a
// profile or study adds to the same series; Done freezes them.
type JobMetrics struct {
	r      *Registry
	labels []string // job_id, workload, target
	mu     sync.Mutex
	done   bool
	types  []*typeMetrics
	byName map[string]*typeMetrics
	// The last second's figures.
	vus                int
	measuring          bool
	hostCPU, serverCPU float64
	hostOK, serverOK   bool
	// connectFails and noService add up the seconds' failed connection attempts and time
	// without service (docs/result-format.md#outage); marks are the stored result's reasons
	// for its mark.
	connectFails int64
	noService    float64
	marks        []string
	// disks are the block devices' I/O over the last second (docs/result-format.md#disk-io).
	disks []metrics.DiskRates
	// steady is the stored run's steady-state judgement and its headline figures' intervals
	// (docs/steady-state.md); nil before the run's document, or for a profile or a study.
	steady    *results.Steady
	intervals []results.FigureInterval
}

// typeMetrics is one transaction type's counters: all is every transaction since the job started
// (rampups, windows and what completed after them), window those the measured windows count.
type typeMetrics struct {
	name        string
	all, window metrics.Counts
	hist        *hdrhistogram.Histogram // latencies of all's transactions; nil once frozen
	buckets     []uint64                // cumulative counts per bound, when frozen
	sum         float64                 // seconds, when frozen
}

// Job starts the series of one job. target is where it runs (host:port or the SQLite file),
// never a URL with a password.
func (r *Registry) Job(id, workload, target string) *JobMetrics {
	j := &JobMetrics{r: r, labels: []string{id, workload, target}, byName: map[string]*typeMetrics{}}
	r.mu.Lock()
	r.jobs = append(r.jobs, j)
	r.mu.Unlock()
	return j
}

// Tick adds one second of the job's run: it takes what it needs of the tick before it returns.
func (j *JobMetrics) Tick(t event.Tick) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done {
		return
	}
	for i, name := range t.Types {
		tm := j.byName[name]
		if tm == nil {
			tm = &typeMetrics{name: name, hist: metrics.NewHist()}
			j.byName[name] = tm
			j.types = append(j.types, tm)
		}
		if t.Set != nil && i < len(t.Set.Counts) {
			tm.all.Add(t.Set.Counts[i])
			tm.hist.Merge(t.Set.Lat[i])
		}
		if i < len(t.Measured) {
			tm.window.Add(t.Measured[i])
		}
	}
	j.vus = t.VUs
	j.measuring = t.Phase == "window"
	if t.Phase == "done" {
		j.vus, j.measuring = 0, false
	}
	j.hostOK = t.Second.CPU != nil
	if j.hostOK {
		j.hostCPU = t.Second.CPU.Busy()
	}
	j.serverCPU, j.serverOK = t.Second.ServerCPU, t.Second.ServerCPUOK
	j.disks = append(j.disks[:0], t.Second.Disks...)
	j.connectFails += t.Second.ConnectFailures
	j.noService += t.Second.NoServiceS
}

// Marked records the reasons (their codes) for the mark of the result the job stored: a result
// that did not measure what was planned.
func (j *JobMetrics) Marked(codes []string) {
	j.mu.Lock()
	j.marks = append([]string(nil), codes...)
	j.mu.Unlock()
}

// Handle is the job's subscriber of its session's events: each second's tick, and the finished
// document's mark. The ticks carry every figure the metrics read, so a progress sample adds
// nothing.
func (j *JobMetrics) Handle(_ context.Context, e event.Event) error {
	switch e := e.(type) {
	case event.Tick:
		j.Tick(e)
	case event.Summary:
		if e.Profile != nil && len(e.Profile.Steps) == 0 {
			return nil // a profile that measured nothing has no mark to tell
		}
		var codes []string
		for _, x := range e.Reasons() {
			codes = append(codes, x.Code)
		}
		j.Marked(codes)
		if d := e.Run; d != nil {
			j.mu.Lock()
			j.steady, j.intervals = d.Steady, append([]results.FigureInterval(nil), d.Result.Intervals...)
			j.mu.Unlock()
		}
	}
	return nil
}

// Done ends the job's series: its counters and histograms stay, frozen, for the KeepFinished
// latest finished jobs; its gauges go.
func (j *JobMetrics) Done() {
	j.mu.Lock()
	if !j.done {
		j.done = true
		for _, tm := range j.types {
			tm.buckets, tm.sum = bucketsOf(tm.hist)
			tm.hist = nil
		}
	}
	j.mu.Unlock()
	r := j.r
	r.mu.Lock()
	defer r.mu.Unlock()
	finished := 0
	for i := len(r.jobs) - 1; i >= 0; i-- {
		if r.jobs[i].isDone() {
			if finished++; finished > KeepFinished {
				r.jobs = append(r.jobs[:i], r.jobs[i+1:]...)
			}
		}
	}
}

func (j *JobMetrics) isDone() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.done
}

// bucketsOf counts h's values at or below each bound (an HDR bucket counts where its highest
// equivalent value falls: within 0.1%), and their sum in seconds.
func bucketsOf(h *hdrhistogram.Histogram) ([]uint64, float64) {
	out := make([]uint64, len(Buckets))
	if h == nil || h.TotalCount() == 0 {
		return out, 0
	}
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := float64(b.To) / 1e6
		for i := len(Buckets) - 1; i >= 0 && v <= Buckets[i]; i-- {
			out[i] += uint64(b.Count)
		}
	}
	return out, h.Mean() * float64(h.TotalCount()) / 1e6
}

var (
	jobLabels  = []string{"job_id", "workload", "target"}
	typeLabels = []string{"job_id", "workload", "target", "type"}

	descRunning   = prometheus.NewDesc("cairn_job_running", "1 while the job runs, 0 once it has ended.", jobLabels, nil)
	descMeasuring = prometheus.NewDesc("cairn_job_measuring", "1 while the job's run is in its measured window.", jobLabels, nil)
	descVUs       = prometheus.NewDesc("cairn_vus", "Virtual users of the job's current run.", jobLabels, nil)
	descHostCPU   = prometheus.NewDesc("cairn_host_cpu_percent", "The host's busy CPU over the last second, percent of all its CPUs.", jobLabels, nil)
	descServerCPU = prometheus.NewDesc("cairn_server_cpu_percent", "The database server's processes' CPU over the last second, percent of one CPU (a local server only).", jobLabels, nil)

	descTxns      = prometheus.NewDesc("cairn_transactions_total", "Transactions completed since the job started: rampup, measured window and what completed after it, every step.", typeLabels, nil)
	descErrors    = prometheus.NewDesc("cairn_errors_total", "Transactions failed since the job started.", typeLabels, nil)
	descRetries   = prometheus.NewDesc("cairn_retries_total", "Extra attempts since the job started.", typeLabels, nil)
	descRollbacks = prometheus.NewDesc("cairn_rollbacks_total", "Of the completed transactions, those the workload rolled back on purpose.", typeLabels, nil)
	descWinTxns   = prometheus.NewDesc("cairn_window_transactions_total", "Transactions the measured windows count (the stored result's per-type count, summed over the job's runs).", typeLabels, nil)
	descWinErrors = prometheus.NewDesc("cairn_window_errors_total", "Failed transactions the measured windows count.", typeLabels, nil)
	descWinRetry  = prometheus.NewDesc("cairn_window_retries_total", "Extra attempts the measured windows count.", typeLabels, nil)
	descLatency   = prometheus.NewDesc("cairn_transaction_duration_seconds", "Latency of the completed transactions since the job started (from the intended start under a rate).", typeLabels, nil)

	diskLabels    = append(append([]string(nil), jobLabels...), "device")
	descDiskReads = prometheus.NewDesc("cairn_disk_reads_per_second", "Read requests a whole block device under the server's files completed over the last second (/proc/diskstats; partitions counted in their disk).", diskLabels, nil)
	descDiskWrite = prometheus.NewDesc("cairn_disk_writes_per_second", "Write requests the device completed over the last second.", diskLabels, nil)
	descDiskRB    = prometheus.NewDesc("cairn_disk_read_bytes_per_second", "Bytes the device read over the last second.", diskLabels, nil)
	descDiskWB    = prometheus.NewDesc("cairn_disk_written_bytes_per_second", "Bytes the device wrote over the last second.", diskLabels, nil)
	descDiskAwait = prometheus.NewDesc("cairn_disk_await_seconds", "Mean time of the device's read and write requests completed over the last second, queueing included (absent when none completed).", diskLabels, nil)
	descDiskQueue = prometheus.NewDesc("cairn_disk_queue_depth", "The device's mean number of requests in flight over the last second (iostat's aqu-sz).", diskLabels, nil)

	descConnFails  = prometheus.NewDesc("cairn_connect_failures_total", "Failed attempts to open a connection again, after one was lost, since the job started.", jobLabels, nil)
	descNoService  = prometheus.NewDesc("cairn_no_service_seconds_total", "Time the database gave no service (from a connection lost to its next answer) since the job started.", jobLabels, nil)
	seriesLabels   = append(append([]string(nil), jobLabels...), "series")
	descSteady     = prometheus.NewDesc("cairn_steady", "1 when the job's stored run was steady: its warm-up ended before the window and neither throughput nor p95 drifts in it (docs/steady-state.md).", jobLabels, nil)
	descSteadyFrom = prometheus.NewDesc("cairn_steady_from_seconds", "Where the stored run's warm-up ended (MSER), in seconds since its start.", jobLabels, nil)
	descShortBy    = prometheus.NewDesc("cairn_rampup_short_by_seconds", "How far the stored run's warm-up reached into its measured window; 0 when the rampup covered it.", jobLabels, nil)
	descTrend      = prometheus.NewDesc("cairn_window_trend_percent_per_minute", "The stored run's window's linear drift, percent of the mean per minute.", seriesLabels, nil)
	descTrendLo    = prometheus.NewDesc("cairn_window_trend_low_percent_per_minute", "Lower end of the 95% interval of the window's drift.", seriesLabels, nil)
	descTrendHi    = prometheus.NewDesc("cairn_window_trend_high_percent_per_minute", "Upper end of the 95% interval of the window's drift.", seriesLabels, nil)
	descInterval   = prometheus.NewDesc("cairn_headline_interval_ratio", "Half-width of the 95% interval of the stored run's headline figure, relative to it (0.018 for ±1.8%).", append(append([]string(nil), jobLabels...), "figure"), nil)
	descNotPlanned = prometheus.NewDesc("cairn_not_as_planned", "1 for each reason the job's stored result did not measure what was planned (cut_short, over_plan, late_ticks, outage, part_missing, step_failed, client_bound).", append(append([]string(nil), jobLabels...), "reason"), nil)
)

// collector reads every job's series at a scrape.
type collector struct{ r *Registry }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRunning, descMeasuring, descVUs, descHostCPU, descServerCPU,
		descTxns, descErrors, descRetries, descRollbacks, descWinTxns, descWinErrors, descWinRetry, descLatency,
		descConnFails, descNoService, descNotPlanned, descSteady, descSteadyFrom, descShortBy, descTrend, descTrendLo, descTrendHi, descInterval,
		descDiskReads, descDiskWrite, descDiskRB, descDiskWB, descDiskAwait, descDiskQueue} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	c.r.mu.Lock()
	jobs := append([]*JobMetrics(nil), c.r.jobs...)
	c.r.mu.Unlock()
	for _, j := range jobs {
		j.collect(ch)
	}
}

func (j *JobMetrics) collect(ch chan<- prometheus.Metric) {
	j.mu.Lock()
	defer j.mu.Unlock()
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, j.labels...)
	}
	gauge(descRunning, b2f(!j.done))
	if !j.done {
		gauge(descMeasuring, b2f(j.measuring))
		gauge(descVUs, float64(j.vus))
		if j.hostOK {
			gauge(descHostCPU, j.hostCPU)
		}
		if j.serverOK {
			gauge(descServerCPU, j.serverCPU)
		}
		for _, d := range j.disks {
			l := append(append([]string(nil), j.labels...), d.Device)
			dg := func(desc *prometheus.Desc, v float64) {
				ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, l...)
			}
			dg(descDiskReads, d.ReadsPerS)
			dg(descDiskWrite, d.WritesPerS)
			dg(descDiskRB, d.ReadMBs*1e6)
			dg(descDiskWB, d.WriteMBs*1e6)
			if d.AwaitMs != nil {
				dg(descDiskAwait, *d.AwaitMs/1000)
			}
			dg(descDiskQueue, d.QueueDepth)
		}
	}
	ch <- prometheus.MustNewConstMetric(descConnFails, prometheus.CounterValue, float64(j.connectFails), j.labels...)
	ch <- prometheus.MustNewConstMetric(descNoService, prometheus.CounterValue, j.noService, j.labels...)
	for _, m := range j.marks {
		ch <- prometheus.MustNewConstMetric(descNotPlanned, prometheus.GaugeValue, 1, append(append([]string(nil), j.labels...), m)...)
	}
	if st := j.steady; st != nil {
		gauge(descSteady, b2f(st.Steady))
		gauge(descSteadyFrom, st.FromSeconds)
		gauge(descShortBy, st.ShortBySeconds)
		series := []*results.SteadySeries{&st.Throughput}
		if st.P95 != nil {
			series = append(series, st.P95)
		}
		for i, ss := range series {
			l := append(append([]string(nil), j.labels...), []string{"throughput", "p95"}[i])
			for d, v := range map[*prometheus.Desc]float64{descTrend: ss.TrendPctPerMin, descTrendLo: ss.TrendLo, descTrendHi: ss.TrendHi} {
				ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, l...)
			}
		}
	}
	for _, iv := range j.intervals {
		ch <- prometheus.MustNewConstMetric(descInterval, prometheus.GaugeValue, iv.Rel, append(append([]string(nil), j.labels...), iv.Figure)...)
	}
	for _, tm := range j.types {
		l := append(append([]string(nil), j.labels...), tm.name)
		counter := func(d *prometheus.Desc, v int64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), l...)
		}
		counter(descTxns, tm.all.Count)
		counter(descErrors, tm.all.Errors)
		counter(descRetries, tm.all.Retries)
		counter(descRollbacks, tm.all.Rollbacks)
		counter(descWinTxns, tm.window.Count)
		counter(descWinErrors, tm.window.Errors)
		counter(descWinRetry, tm.window.Retries)
		buckets, sum := tm.buckets, tm.sum
		if tm.hist != nil {
			buckets, sum = bucketsOf(tm.hist)
		}
		m := make(map[float64]uint64, len(Buckets))
		for i, b := range Buckets {
			m[b] = buckets[i]
		}
		ch <- prometheus.MustNewConstHistogram(descLatency, uint64(tm.all.Count), sum, m, l...)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
