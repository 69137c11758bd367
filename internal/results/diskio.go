package results

import (
	"math"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// DiskIOSection is the disk I/O observer's section under extra.observations
// (docs/result-format.md#disk-io).
const DiskIOSection = "disk-io"

// DiskIO is the I/O of the whole block devices under the server's files (or of every device,
// Scope "all") over the run, from /proc/diskstats: each device's figures over the measured
// window and each second's. A partition's I/O is its disk's: only whole devices are read, so
// nothing is counted twice.
type DiskIO struct {
	// Scope is "server": the devices holding the server's directories (Paths); "all": every whole
	// device that did I/O in the run, the server's directories being unknown or on no device.
	Scope   string     `json:"scope"`
	Paths   []DiskPath `json:"paths,omitempty"`
	Devices []Disk     `json:"devices"`
	// Series is every second of the run, at the engine's seconds; each point's Devices are in
	// the order of Devices.
	Series []DiskSecond `json:"series"`
	// Server is the server's own count of its I/O over the window, beside the devices'; absent
	// where the server has none (SQLite, PostgreSQL before 14) or it could not be read.
	Server *ServerIO `json:"server,omitempty"`
	Notes  []string  `json:"notes,omitempty"`
}

// ServerIO is the server's own I/O counters over the window, read at its edges.
type ServerIO struct {
	Source   string            `json:"source"`
	Seconds  float64           `json:"seconds"`
	Counters []ServerIOCounter `json:"counters"`
}

// ServerIOCounter is one of the server's counters: its difference over the window and that over
// the window's seconds; Unit "bytes" or "" (a count).
type ServerIOCounter struct {
	Name      string  `json:"name"`
	Unit      string  `json:"unit,omitempty"`
	Delta     float64 `json:"delta"`
	PerSecond float64 `json:"per_second"`
}

// DiskPath is one of the server's directories and the whole device under it ("" where its
// filesystem has none: tmpfs, overlayfs, a network filesystem).
type DiskPath struct {
	Role   string `json:"role"`
	Path   string `json:"path"`
	Device string `json:"device,omitempty"`
	// Partition is the partition the directory lies on, folded into Device; FSType and Mount its
	// filesystem.
	Partition string `json:"partition,omitempty"`
	FSType    string `json:"fstype,omitempty"`
	Mount     string `json:"mount,omitempty"`
	Options   string `json:"mount_options,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Disk is one whole device: its figures over the window and the counts they come from.
type Disk struct {
	Name  string   `json:"name"`
	Dev   string   `json:"dev"` // major:minor
	Roles []string `json:"roles,omitempty"`
	// Window is over the measured window, between the readings at its edges; absent when
	// either edge could not be read.
	Window *metrics.DiskRates `json:"window,omitempty"`
	Counts *DiskCounts        `json:"window_counts,omitempty"`
}

// DiskCounts are the window's differences of /proc/diskstats, and when its edges were read.
type DiskCounts struct {
	Seconds     float64 `json:"seconds"`
	ReadIOs     uint64  `json:"read_ios"`
	WriteIOs    uint64  `json:"write_ios"`
	ReadBytes   uint64  `json:"read_bytes"`
	WriteBytes  uint64  `json:"write_bytes"`
	FromUnixNs  int64   `json:"from_unix_ns"`
	UntilUnixNs int64   `json:"until_unix_ns"`
}

// DiskSecond is one second of the run: each device's figures over it.
type DiskSecond struct {
	T       float64             `json:"t"`
	Devices []metrics.DiskRates `json:"devices"`
}

// DiskIOOf reads a document's disk I/O; nil when the run has none.
func DiskIOOf(d *Document) *DiskIO {
	obs, _ := d.Extra["observations"].(map[string]any)
	if r, ok := obs[DiskIOSection].(*DiskIO); ok {
		return r
	}
	var r DiskIO
	if !sectionOf(d, DiskIOSection, &r) {
		return nil
	}
	return &r
}

// SegmentDisk is one device's I/O over a segment's settled seconds: the mean of the seconds'
// figures (latency weighted by the seconds' requests).
type SegmentDisk struct {
	Device     string   `json:"device"`
	ReadsPerS  float64  `json:"r_s"`
	WritesPerS float64  `json:"w_s"`
	ReadMBs    float64  `json:"read_mb_s"`
	WriteMBs   float64  `json:"write_mb_s"`
	AwaitMs    *float64 `json:"await_ms,omitempty"`
	QueueDepth float64  `json:"aqu_sz"`
}

// diskAcc adds up one device's seconds for a segment.
type diskAcc struct {
	n                   int
	r, w, rmb, wmb, aqu float64
	awaitSum, awaitN    float64
}

func (a *diskAcc) add(x metrics.DiskRates) {
	a.n++
	a.r += x.ReadsPerS
	a.w += x.WritesPerS
	a.rmb += x.ReadMBs
	a.wmb += x.WriteMBs
	a.aqu += x.QueueDepth
	if x.AwaitMs != nil {
		reqs := x.ReadsPerS + x.WritesPerS
		a.awaitSum += *x.AwaitMs * reqs
		a.awaitN += reqs
	}
}

func (a *diskAcc) segment(name string) SegmentDisk {
	n := float64(a.n)
	s := SegmentDisk{Device: name, ReadsPerS: round2(a.r / n), WritesPerS: round2(a.w / n),
		ReadMBs: round2(a.rmb / n), WriteMBs: round2(a.wmb / n), QueueDepth: round2(a.aqu / n)}
	if a.awaitN > 0 {
		v := round2(a.awaitSum / a.awaitN)
		s.AwaitMs = &v
	}
	return s
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// diskSeries is the run's disk I/O by second, keyed by T, and the devices' names; nil without
// the section.
func diskSeries(d *Document) (map[float64][]metrics.DiskRates, []string) {
	io := DiskIOOf(d)
	if io == nil || len(io.Series) == 0 {
		return nil, nil
	}
	m := make(map[float64][]metrics.DiskRates, len(io.Series))
	for _, s := range io.Series {
		m[s.T] = s.Devices
	}
	names := make([]string, len(io.Devices))
	for i, dv := range io.Devices {
		names[i] = dv.Name
	}
	return m, names
}
