package report

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// The fixtures are real result documents: HDR histograms recorded and encoded the way the engine
// does it, summaries computed by the metrics package, profiles summarized by results.Profile.

var tpccTypes = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

var (
	pg = results.Target{Kind: "postgres", Name: "PostgreSQL", Version: "15.18", Address: "127.0.0.1:5432", Database: "cairn",
		Settings: map[string]string{"shared_buffers": "2GB", "max_connections": "300", "synchronous_commit": "on"}}
	maria = results.Target{Kind: "mariadb", Name: "MariaDB", Version: "10.11.6", Address: "127.0.0.1:3306", Database: "cairn",
		Settings: map[string]string{"innodb_buffer_pool_size": "2147483648"}}
	// A host as cairn host records one, with the facts it could not read and its findings: long
	// keys and long values are what a report's layout must hold.
	testHost = &results.Host{Hostname: "bench-1", OS: "Debian GNU/Linux 12 (bookworm)", Kernel: "Linux 6.1.0", Arch: "amd64",
		CPUModel: "AMD EPYC 7B13", Sockets: 1, Cores: 8, Threads: 16, MemoryMiB: 64288, Governor: "unknown", SMT: "on",
		NUMA: []results.NUMANode{{Node: 0, CPUs: "0-7,16-23"}, {Node: 1, CPUs: "8-15,24-31"}}, FreqDriver: "unknown", PState: "none",
		EPP: "unknown", Turbo: "unknown", IdleDriver: "haltpoll", THP: "madvise", THPDefrag: "madvise", Clocksource: "tsc",
		Virtualized: "yes", Pause: &results.Pause{NS: 23.48, TSCTicks: 60.9, Repeats: 9},
		Unknown: map[string]string{
			"cpu_governor":                  "no cpufreq in /sys: virtualized, the hypervisor sets the frequency",
			"energy_performance_preference": "not offered by this frequency driver, or no cpufreq",
			"frequency_driver":              "no cpufreq in /sys: virtualized, the hypervisor sets the frequency",
			"turbo":                         "no intel_pstate/no_turbo or cpufreq/boost in /sys"},
		Findings: []results.Finding{
			{Code: "virtualized", Tier: "advice", Message: "virtualized (the CPU's hypervisor flag): a hypervisor schedules these CPUs, so steal time and other guests can move the figures; cpufreq and binding facts are the guest's view"},
			{Code: "transparent-hugepages-defrag", Tier: "warning", Message: "transparent huge pages are compacted on fault (defrag=always): allocations can stall for milliseconds"}}}
)

// latencies records n log-normal latencies (µs) around median µs, with a slow tail.
func latencies(rng *rand.Rand, n int, median float64) *hdrhistogram.Histogram {
	h := hdrhistogram.New(1, 3_600_000_000, 3)
	for range n {
		v := median * math.Exp(0.5*rng.NormFloat64())
		if rng.IntN(200) == 0 {
			v *= 8 // a lock wait, a checkpoint
		}
		if err := h.RecordValue(int64(math.Max(1, v))); err != nil {
			panic(err)
		}
	}
	return h
}

func encode(t testing.TB, h *hdrhistogram.Histogram) string {
	t.Helper()
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testRun builds a 30-second TPC-C-like run with a 5-second rampup at vu virtual users; speed
// scales throughput and divides latency, so steps and targets differ visibly.
func testRun(t testing.TB, id string, tg results.Target, vu int, speed float64, seed uint64) *results.Document {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	d := &results.Document{Format: results.FormatVersion, Kind: results.KindRun, ID: id, Workload: "tpcc", MainTxn: "new_order",
		StartedAt: time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC).Add(time.Duration(seed) * time.Minute),
		Target:    tg, Host: testHost, VU: vu, Mode: "sql", Seed: seed,
		Cairn: results.Cairn{Version: "0.4.0", Go: "go1.26.8"},
		Txns:  map[string]*results.Txn{}, TxnOrder: tpccTypes, Errors: map[string]int64{}, Histograms: map[string]string{},
		Config:      map[string]any{"db": "postgres://cairn:xxxxx@127.0.0.1:5432/cairn", "vu": vu, "duration_seconds": 25, "rampup_seconds": 5},
		Notes:       []string{"fixture built by the report tests"},
		Window:      results.Window{Seconds: 25, PlannedSeconds: 25, RampupSeconds: 5},
		Client:      results.Client{CPUSeconds: 3.2, CPUusPerTxn: 41.5, Cores: 16},
		Interrupted: false,
	}
	// Throughput saturates with VUs; latency grows past the knee.
	tps := speed * 400 * float64(vu) / (1 + 0.15*float64(vu))
	lat := 1000 * float64(vu) / speed / (1 + 0.05*float64(vu))
	mix := []float64{0.45, 0.43, 0.04, 0.04, 0.04}
	medians := []float64{lat, 0.6 * lat, 0.4 * lat, 2 * lat, 1.5 * lat}
	var total int64
	for i, name := range tpccTypes {
		n := int(tps * 25 * mix[i])
		h := latencies(rng, max(n, 50), medians[i])
		d.Txns[name] = &results.Txn{Count: h.TotalCount(), LatencyMs: metrics.Summarize(h), PerMinute: float64(h.TotalCount()) / 25 * 60}
		d.Histograms[name] = encode(t, h)
		total += h.TotalCount()
	}
	for _, name := range tpccTypes {
		d.Txns[name].Percentage = 100 * float64(d.Txns[name].Count) / float64(total)
	}
	nopm := int64(float64(d.Txns["new_order"].Count) / 25 * 60)
	tpm := int64(float64(total) / 25 * 60 * 1.02)
	d.Result = results.Result{NOPM: &nopm, TPM: &tpm, TPMSource: "pg_stat_database"}
	for s := 1; s <= 30; s++ {
		ramp := math.Min(1, float64(s)/5)
		txns := int64(tps * ramp * (0.95 + 0.1*rng.Float64()))
		busy := math.Min(95, 40*ramp*speed+10*rng.Float64())
		cores := []metrics.CPUShare{{busy * 0.6, busy * 0.3, 1, busy * 0.1, 0, 99 - busy}, {busy * 0.5, busy * 0.4, 0, busy * 0.1, 0, 100 - busy}}
		host := metrics.CPUShare{busy * 0.55, busy * 0.35, 0.5, busy * 0.1, 0, 99.5 - busy}
		d.Series = append(d.Series, metrics.Second{T: float64(s) + 0.002*float64(rng.IntN(3)), Window: s > 5, Txns: txns,
			Headline: txns * 45 / 100, P95ms: lat / 1000 * 1.8 * (0.9 + 0.2*rng.Float64()), CPU: &host, Cores: cores})
	}
	lock := math.Min(0.8, 0.05*float64(vu))
	d.Waits = &results.Waits{Source: "pg_stat_activity (fixture)", Sampled: true, IntervalMs: 100, Samples: 1000,
		Events: []results.WaitEvent{{Name: "CPU", Class: "CPU", Samples: int64(1000 * (1 - lock) * 0.7), Share: (1 - lock) * 0.7},
			{Name: "Lock:transactionid", Class: "Lock", Samples: int64(1000 * lock), Share: lock},
			{Name: "IO:WALSync", Class: "IO", Samples: int64(1000 * (1 - lock) * 0.3), Share: (1 - lock) * 0.3}}}
	d.Server = &results.Server{Where: "local", PID: 4242, Process: "postgres", FoundBy: "listening socket 127.0.0.1:5432",
		CPUSeconds: 11.3, CPUusPerTxn: 146.5}
	// The engine's last tick is cut short when the window ends.
	d.Series = append(d.Series, metrics.Second{T: 30.04, Window: true, Txns: 3, Headline: 1, P95ms: 2})
	return d
}

// testProfile builds a profile at 1, 2 and 4 VUs with repeat runs per step.
func testProfile(t testing.TB, id string, tg results.Target, speed float64, repeat int, seed uint64) *results.Profile {
	t.Helper()
	p := &results.Profile{Format: results.FormatVersion, Kind: results.KindProfile, ID: id, Workload: "tpcc", MainTxn: "new_order",
		StartedAt: time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC), Target: tg, Host: testHost, VUs: []int{1, 2, 4},
		Repeat: repeat, Headline: "NOPM", Config: map[string]any{"vus": []int{1, 2, 4}, "repeat": repeat},
		Cairn: results.Cairn{Version: "0.4.0", Go: "go1.26.8"}}
	for i, vu := range p.VUs {
		st := &results.Step{VU: vu}
		for r := range repeat {
			// Repeats differ a little, as real ones do.
			d := testRun(t, "", tg, vu, speed*(1+0.03*float64(r)), seed+uint64(10*i+r))
			d.ProfileID = id
			st.Runs = append(st.Runs, d)
		}
		p.Steps = append(p.Steps, st)
	}
	p.Summarize()
	return p
}

// testStudy is a study of two cases (a setting on and off), each a profile whose runs carry a
// live change at 2 s into their window.
func testStudy(t testing.TB, id string, tg results.Target) *results.Study {
	t.Helper()
	st := &results.Study{Format: results.FormatVersion, Kind: results.KindStudy, ID: id, Name: "ahi", Workload: "tpcc",
		MainTxn: "new_order", StartedAt: time.Date(2026, 3, 15, 11, 0, 0, 0, time.UTC), Target: tg, Host: testHost,
		Order: "interleaved", VUs: []int{1, 2, 4}, Repeat: 2, Headline: "NOPM", Restored: true,
		Factors:  []results.Factor{{Name: "innodb_adaptive_hash_index", Levels: []string{"ON", "OFF"}}},
		Original: []results.SettingValue{{Name: "innodb_adaptive_hash_index", Value: "OFF"}, {Name: "innodb_spin_wait_delay", Value: "4"}},
		Schedule: []results.ScheduledSet{{AtSec: 5, Set: []results.SettingValue{{Name: "innodb_spin_wait_delay", Value: "12"}}},
			{AtSec: 7.5, Set: []results.SettingValue{{Name: "innodb_spin_wait_delay", Value: "24"}}},
			{AtSec: 10, Set: []results.SettingValue{{Name: "innodb_spin_wait_delay", Value: "48"}}},
			{AtSec: 12.5, Set: []results.SettingValue{{Name: "innodb_spin_wait_delay", Value: "96"}}}},
		Config: map[string]any{"name": "ahi"}, Cairn: results.Cairn{Version: "0.4.0", Go: "go1.26.8"}}
	for i, level := range []string{"ON", "OFF"} {
		p := testProfile(t, "", tg, 1-0.2*float64(i), 2, uint64(40+i))
		for _, step := range p.Steps {
			for _, d := range step.Runs {
				d.ProfileID = id
				d.Study = &results.StudyRef{Case: i}
				// Changes close together, as spin-wait-delay-live.yaml makes them in a short
				// window: their labels are wider than the space between them.
				for k, v := range []string{"12", "24", "48", "96"} {
					at := 5 + 2.5*float64(k)
					d.Changes = append(d.Changes, results.SettingChange{AtSec: at + 0.004, T: at + 5.004, Planned: at,
						Name: "innodb_spin_wait_delay", Value: v, ReadBack: v})
				}
			}
		}
		st.Cases = append(st.Cases, &results.StudyCase{Label: "innodb_adaptive_hash_index=" + level,
			Levels: []results.SettingValue{{Name: "innodb_adaptive_hash_index", Value: level}}, Profile: p})
	}
	st.Summarize()
	return st
}

// testCaseStudy is a study without live changes of four cases: two settings crossed, and cairn
// bound to one CPU list in every case (a factor of one level, which every case shares).
func testCaseStudy(t testing.TB, id string, tg results.Target) *results.Study {
	t.Helper()
	st := &results.Study{Format: results.FormatVersion, Kind: results.KindStudy, ID: id, Name: "ahi-spin-delay", Workload: "tpcc",
		MainTxn: "new_order", StartedAt: time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC), Target: tg, Host: testHost,
		Order: "interleaved", VUs: []int{1, 2, 4}, Repeat: 1, Headline: "NOPM", Restored: true,
		Factors: []results.Factor{{Name: "innodb_adaptive_hash_index", Levels: []string{"ON", "OFF"}},
			{Name: "innodb_spin_wait_delay", Levels: []string{"12", "96"}}, {Name: "client-cpus", Levels: []string{"0-1"}}},
		Config: map[string]any{"name": "ahi-spin-delay"}, Cairn: results.Cairn{Version: "0.4.0", Go: "go1.26.8"}}
	ended := st.StartedAt.Add(time.Hour)
	st.EndedAt = &ended
	topo := &results.CPUTopology{CPUs: "0-1", Cores: 2, Siblings: "16-17", Packages: []int{0}, Nodes: []int{0}}
	i := 0
	for _, ahi := range []string{"ON", "OFF"} {
		for _, delay := range []string{"12", "96"} {
			p := testProfile(t, "", tg, 1-0.1*float64(i), 1, uint64(60+i))
			for _, step := range p.Steps {
				for _, d := range step.Runs {
					d.ProfileID = id
					d.Study = &results.StudyRef{Case: i}
				}
			}
			levels := []results.SettingValue{{Name: "innodb_adaptive_hash_index", Value: ahi}, {Name: "innodb_spin_wait_delay", Value: delay},
				{Name: "client-cpus", Value: "0-1"}}
			st.Cases = append(st.Cases, &results.StudyCase{
				Label:  "innodb_adaptive_hash_index=" + ahi + ", innodb_spin_wait_delay=" + delay + ", client-cpus 0-1",
				Levels: levels, ClientCPUs: "0-1", ClientTopology: topo, Profile: p})
			i++
		}
	}
	st.Summarize()
	return st
}
