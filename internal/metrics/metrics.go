// Package metrics holds latency histograms and counters. VUs record into sharded recorders (a shard
// has its own lock, so there is no global lock per record); the engine merges shards on a tick.
package metrics

import (
	"math"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: microsecond resolution, up to one hour, 3 significant digits.
const (
	MinMicros = 1
	MaxMicros = 3_600_000_000
	SigFigs   = 3
)

// NewHist returns an empty latency histogram in microseconds.
func NewHist() *hdrhistogram.Histogram { return hdrhistogram.New(MinMicros, MaxMicros, SigFigs) }

// Latency is a summary of a histogram in milliseconds.
type Latency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// Summarize converts a microsecond histogram to millisecond percentiles. Values are the HDR
// histogram's (highest equivalent value of the percentile's bucket), so they are exact to 3 digits.
func Summarize(h *hdrhistogram.Histogram) Latency {
	if h == nil || h.TotalCount() == 0 {
		return Latency{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Latency{
		Mean: math.Round(h.Mean()) / 1000,
		P50:  ms(h.ValueAtQuantile(50)),
		P90:  ms(h.ValueAtQuantile(90)),
		P95:  ms(h.ValueAtQuantile(95)),
		P99:  ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)),
		Max:  ms(h.Max()),
	}
}

// Counts are per-transaction-type counters.
type Counts struct {
	Count     int64 // completed (committed or rolled back as the workload asked)
	Rollbacks int64 // of Count, the workload's own rollbacks
	Errors    int64 // failed after retries, or not retryable
	Retries   int64 // extra attempts
	Late      int64 // of Count, those whose latency exceeded the latency limit
	Skipped   int64 // open loop with a latency limit: not started, already later than the limit
}

func (c *Counts) Add(o Counts) {
	c.Count += o.Count
	c.Rollbacks += o.Rollbacks
	c.Errors += o.Errors
	c.Retries += o.Retries
	c.Late += o.Late
	c.Skipped += o.Skipped
}

// Set is the histograms and counters of one span of time, per transaction type.
type Set struct {
	Lat    []*hdrhistogram.Histogram // latency: from intended start (open loop) or start to end
	Svc    []*hdrhistogram.Histogram // service time, open loop only (nil otherwise)
	Counts []Counts
	ErrMsg map[string]int64 // error class and first words of the message -> count
}

// NewSet makes an empty set for n transaction types.
func NewSet(n int, service bool) *Set {
	s := &Set{Lat: make([]*hdrhistogram.Histogram, n), Counts: make([]Counts, n), ErrMsg: map[string]int64{}}
	for i := range s.Lat {
		s.Lat[i] = NewHist()
	}
	if service {
		s.Svc = make([]*hdrhistogram.Histogram, n)
		for i := range s.Svc {
			s.Svc[i] = NewHist()
		}
	}
	return s
}

// Merge adds o into s.
func (s *Set) Merge(o *Set) {
	for i := range s.Lat {
		s.Lat[i].Merge(o.Lat[i])
		if s.Svc != nil && o.Svc != nil {
			s.Svc[i].Merge(o.Svc[i])
		}
		s.Counts[i].Add(o.Counts[i])
	}
	for k, v := range o.ErrMsg {
		s.ErrMsg[k] += v
	}
}

// Reset empties s for reuse.
func (s *Set) Reset() {
	for i := range s.Lat {
		s.Lat[i].Reset()
		if s.Svc != nil {
			s.Svc[i].Reset()
		}
		s.Counts[i] = Counts{}
	}
	clear(s.ErrMsg)
}

// Total sums the counts over all types.
func (s *Set) Total() Counts {
	var t Counts
	for _, c := range s.Counts {
		t.Add(c)
	}
	return t
}

// Shard is one lock and two sets: the current tick (for progress and the time series) and the
// measured window.
//
// A plain sample (it succeeded on its first attempt) only goes into pend, and reaches the sets'
// counters and histograms in a batch, when pend is full or the shard is read. Between two
// transactions of one VU the server, the kernel and the other VUs run on the same cores and evict
// the VU's data from the caches, so every structure a record touches costs a cache miss: a
// histogram's counts alone span about 180 KB, and recording each value as it came cost about
// 130 ns per histogram, three per point select. A batch of similar samples touches the same few
// cache lines one after another, and the hot path touches only the shard and the next slot of pend.
type Shard struct {
	mu     sync.Mutex
	tick   *Set
	window *Set
	pend   []pending
	// dirty says tick holds samples since the last DrainTick (a full batch, a rare sample).
	dirty bool
}

// pending is a plain sample not yet in the sets.
type pending struct {
	lat, svc uint32 // microseconds, clamped to MaxMicros (which fits)
	typ      uint16
	window   bool
	rolled   bool // rolled back as the workload asked
	late     bool
}

// pendCap is the batch size: large enough to spread a batch's misses over many samples, small
// enough (4 KB of pending) to stay in cache while it fills.
const pendCap = 256

// Recorder is a fixed number of shards; VU i records into shard i mod len.
type Recorder struct {
	shards []*Shard
	n      int
	svc    bool
}

// NewRecorder makes a recorder for n transaction types with the given number of shards.
func NewRecorder(types, shards int, service bool) *Recorder {
	r := &Recorder{n: types, svc: service}
	for i := 0; i < shards; i++ {
		r.shards = append(r.shards, &Shard{tick: NewSet(types, service), window: NewSet(types, service),
			pend: make([]pending, 0, pendCap)})
	}
	return r
}

// Shard returns the shard for VU id.
func (r *Recorder) Shard(id int) *Shard { return r.shards[id%len(r.shards)] }

// Sample is one finished transaction.
type Sample struct {
	Type       int
	LatencyUs  int64
	ServiceUs  int64
	Retries    int64
	RolledBack bool
	Failed     bool
	ErrKey     string
	InWindow   bool
	Late       bool
	Skipped    bool
}

// count adds x to s's counters and reports whether its latency belongs in the histograms.
func count(s *Set, x *Sample) bool {
	c := &s.Counts[x.Type]
	if x.Skipped {
		c.Skipped++
		return false
	}
	c.Retries += x.Retries
	if x.Late {
		c.Late++
	}
	if x.Failed {
		c.Errors++
		s.ErrMsg[x.ErrKey]++
		return false
	}
	c.Count++
	if x.RolledBack {
		c.Rollbacks++
	}
	return true
}

func clamp(us int64) int64 {
	if us < MinMicros {
		return MinMicros
	}
	if us > MaxMicros {
		return MaxMicros
	}
	return us
}

// Record adds one sample to the shard.
func (sh *Shard) Record(x *Sample) {
	sh.mu.Lock()
	if x.Skipped || x.Failed || x.Retries != 0 || x.Type > math.MaxUint16 {
		// Rare: count it now, after the samples before it.
		sh.flush()
		sh.tick.addSample(x)
		sh.dirty = true
		if x.InWindow {
			sh.window.addSample(x)
		}
	} else {
		sh.pend = append(sh.pend, pending{lat: uint32(clamp(x.LatencyUs)), svc: uint32(clamp(x.ServiceUs)),
			typ: uint16(x.Type), window: x.InWindow, rolled: x.RolledBack, late: x.Late})
		if len(sh.pend) == cap(sh.pend) {
			sh.flush()
		}
	}
	sh.mu.Unlock()
}

// flush moves the pending samples into the sets; the caller holds mu.
func (sh *Shard) flush() {
	if len(sh.pend) > 0 {
		sh.dirty = true
	}
	for _, p := range sh.pend {
		sh.tick.add(&p)
		if p.window {
			sh.window.add(&p)
		}
	}
	sh.pend = sh.pend[:0]
}

// Add counts x and records its latency if it has one, at once.
func (s *Set) Add(x *Sample) { s.addSample(x) }

// addSample counts x and records its latency if it has one, at once.
func (s *Set) addSample(x *Sample) {
	if count(s, x) {
		s.record(x.Type, clamp(x.LatencyUs), clamp(x.ServiceUs))
	}
}

// add counts a plain sample and records its latency.
func (s *Set) add(p *pending) {
	c := &s.Counts[p.typ]
	c.Count++
	if p.rolled {
		c.Rollbacks++
	}
	if p.late {
		c.Late++
	}
	s.record(int(p.typ), int64(p.lat), int64(p.svc))
}

// record adds a latency and, in open loop, a service time to the histograms of type typ.
func (s *Set) record(typ int, lat, svc int64) {
	s.Lat[typ].RecordValue(lat)
	if s.Svc != nil {
		s.Svc[typ].RecordValue(svc)
	}
}

// DrainTick moves every shard's samples of the tick into into. The pending samples go straight
// there, and a shard's tick set is merged and reset only when samples reached it since the last
// tick (a full batch, a rare sample): a tick costs its second's samples, not a pass over every
// shard's histograms (about 180 KB each), which at 40 VUs took the clock 4-14 ms of CPU each
// second, and a second or more on a host whose run queue held hundreds of the servers' threads.
func (r *Recorder) DrainTick(into *Set) {
	for _, sh := range r.shards {
		sh.mu.Lock()
		for i := range sh.pend {
			p := &sh.pend[i]
			into.add(p)
			if p.window {
				sh.window.add(p)
			}
		}
		sh.pend = sh.pend[:0]
		if sh.dirty {
			into.Merge(sh.tick)
			sh.tick.Reset()
			sh.dirty = false
		}
		sh.mu.Unlock()
	}
}

// WindowCounts sets into (one per type) to the counts of the measured window so far, over every
// shard: a reading once a tick, so the tick's subscribers can tell the window's transactions apart
// without a cost per transaction. The pending samples are counted where they are, not flushed:
// a flush would put them in the shard's tick set and make DrainTick merge it.
func (r *Recorder) WindowCounts(into []Counts) {
	clear(into)
	for _, sh := range r.shards {
		sh.mu.Lock()
		for i, c := range sh.window.Counts {
			into[i].Add(c)
		}
		for i := range sh.pend {
			if p := &sh.pend[i]; p.window {
				c := &into[p.typ]
				c.Count++
				if p.rolled {
					c.Rollbacks++
				}
				if p.late {
					c.Late++
				}
			}
		}
		sh.mu.Unlock()
	}
}

// Window merges every shard's window set.
func (r *Recorder) Window() *Set {
	out := NewSet(r.n, r.svc)
	for _, sh := range r.shards {
		sh.mu.Lock()
		sh.flush()
		out.Merge(sh.window)
		sh.mu.Unlock()
	}
	return out
}

// StmtSet is one VU's statement latencies in the measured window. It has no lock: only its VU
// writes it, and the engine reads it after the VUs have stopped. Latencies reach the histograms in
// batches, as in Shard.
type StmtSet struct {
	Lat    []*hdrhistogram.Histogram
	Counts []int64
	pend   []stmtPending
}

type stmtPending struct {
	lat uint32
	i   uint32
}

// NewStmtSet makes an empty set for n statement types.
func NewStmtSet(n int) *StmtSet {
	s := &StmtSet{Lat: make([]*hdrhistogram.Histogram, n), Counts: make([]int64, n), pend: make([]stmtPending, 0, pendCap)}
	for i := range s.Lat {
		s.Lat[i] = NewHist()
	}
	return s
}

// Record adds one statement of type i that took us microseconds.
func (s *StmtSet) Record(i int, us int64) {
	s.pend = append(s.pend, stmtPending{lat: uint32(clamp(us)), i: uint32(i)})
	if len(s.pend) == cap(s.pend) {
		s.Flush()
	}
}

// Flush moves the pending statements into Counts and Lat. Read them only after it.
func (s *StmtSet) Flush() {
	for _, p := range s.pend {
		s.Counts[p.i]++
		s.Lat[p.i].RecordValue(int64(p.lat))
	}
	s.pend = s.pend[:0]
}

// Merge adds o into s (flushing both first).
func (s *StmtSet) Merge(o *StmtSet) {
	s.Flush()
	o.Flush()
	for i := range s.Lat {
		s.Lat[i].Merge(o.Lat[i])
		s.Counts[i] += o.Counts[i]
	}
}

// Second is one point of the per-second time series of the window and rampup.
type Second struct {
	T        float64 `json:"t"` // seconds since the start of the run
	Window   bool    `json:"window"`
	Txns     int64   `json:"txns"`
	Headline int64   `json:"headline_txns"` // transactions of the headline type (TPC-C: New-Order)
	Errors   int64   `json:"errors"`
	P95ms    float64 `json:"p95_ms"` // over all types
	// HeadlineP95ms is the 95th percentile of the headline type's latency this second (TPC-C:
	// New-Order), when the headline counts one type and it completed in the second.
	HeadlineP95ms float64 `json:"headline_p95_ms,omitempty"`
	// CPU is the host's CPU over this second, Cores each CPU's (cpu0 first), from /proc/stat;
	// absent with --observe off or where /proc/stat cannot be read.
	CPU   *CPUShare  `json:"cpu,omitempty"`
	Cores []CPUShare `json:"cores,omitempty"`
	// ServerCPU is the server's processes' CPU over this second, in percent of one CPU, when
	// ServerCPUOK (a local server whose process is known); live figures only, not stored.
	ServerCPU   float64 `json:"-"`
	ServerCPUOK bool    `json:"-"`
	// ConnectFailures are the failed attempts to open a connection again in this second;
	// NoServiceS how much of it the database gave no service, in seconds (docs/result-format.md#outage).
	ConnectFailures int64   `json:"connect_failures,omitempty"`
	NoServiceS      float64 `json:"no_service_s,omitempty"`
	// Disks are the block devices' I/O over this second, as the disk I/O observer read them
	// (docs/result-format.md#disk-io); live figures only: the document keeps them in its
	// disk-io section.
	Disks []DiskRates `json:"-"`
	// Sessions are the session history's second (docs/waits.md#session-history): the average
	// active sessions in each wait class over the second's samples, as the waits observer
	// counted them; live figures only: the document keeps them in waits.history.
	Sessions map[string]float64 `json:"-"`
}

// DiskRates is one whole block device's I/O over an interval, as iostat -x computes it from two
// readings of /proc/diskstats: docs/result-format.md#disk-io defines each field.
type DiskRates struct {
	Device     string  `json:"device,omitempty"`
	ReadsPerS  float64 `json:"r_s"`
	WritesPerS float64 `json:"w_s"`
	ReadMBs    float64 `json:"read_mb_s"`
	WriteMBs   float64 `json:"write_mb_s"`
	// AwaitMs, ReadAwaitMs and WriteAwaitMs are the mean time of the requests completed in the
	// interval, queueing included; absent when none completed.
	AwaitMs      *float64 `json:"await_ms,omitempty"`
	ReadAwaitMs  *float64 `json:"r_await_ms,omitempty"`
	WriteAwaitMs *float64 `json:"w_await_ms,omitempty"`
	QueueDepth   float64  `json:"aqu_sz"`
	UtilPct      float64  `json:"util_pct"`
	FlushesPerS  float64  `json:"f_s,omitempty"`
}

// CPUShare is how a CPU (or the host, over all of them) spent an interval, in percent of it:
// user (nice and guest included), system, iowait, irq (softirq included), steal, idle.
type CPUShare [6]float64

// Busy is the share of the interval not idle and not waiting for I/O, at most 100: the kernel
// updates /proc/stat's fields one by one, so a reading's parts can add up to a little more than
// the interval they were read over.
func (c CPUShare) Busy() float64 { return min(100, c[0]+c[1]+c[3]+c[4]) }
