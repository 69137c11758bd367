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
type Shard struct {
	mu     sync.Mutex
	tick   *Set
	window *Set
}

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
		r.shards = append(r.shards, &Shard{tick: NewSet(types, service), window: NewSet(types, service)})
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

func record(s *Set, x *Sample) {
	c := &s.Counts[x.Type]
	if x.Skipped {
		c.Skipped++
		return
	}
	c.Retries += x.Retries
	if x.Late {
		c.Late++
	}
	if x.Failed {
		c.Errors++
		s.ErrMsg[x.ErrKey]++
		return
	}
	c.Count++
	if x.RolledBack {
		c.Rollbacks++
	}
	s.Lat[x.Type].RecordValue(clamp(x.LatencyUs))
	if s.Svc != nil {
		s.Svc[x.Type].RecordValue(clamp(x.ServiceUs))
	}
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
	record(sh.tick, x)
	if x.InWindow {
		record(sh.window, x)
	}
	sh.mu.Unlock()
}

// DrainTick merges every shard's tick set into into and resets them.
func (r *Recorder) DrainTick(into *Set) {
	for _, sh := range r.shards {
		sh.mu.Lock()
		into.Merge(sh.tick)
		sh.tick.Reset()
		sh.mu.Unlock()
	}
}

// Window merges every shard's window set.
func (r *Recorder) Window() *Set {
	out := NewSet(r.n, r.svc)
	for _, sh := range r.shards {
		sh.mu.Lock()
		out.Merge(sh.window)
		sh.mu.Unlock()
	}
	return out
}

// StmtSet is one VU's statement latencies in the measured window. It has no lock: only its VU
// writes it, and the engine reads it after the VUs have stopped.
type StmtSet struct {
	Lat    []*hdrhistogram.Histogram
	Counts []int64
}

// NewStmtSet makes an empty set for n statement types.
func NewStmtSet(n int) *StmtSet {
	s := &StmtSet{Lat: make([]*hdrhistogram.Histogram, n), Counts: make([]int64, n)}
	for i := range s.Lat {
		s.Lat[i] = NewHist()
	}
	return s
}

// Record adds one statement of type i that took us microseconds.
func (s *StmtSet) Record(i int, us int64) {
	s.Counts[i]++
	s.Lat[i].RecordValue(clamp(us))
}

// Merge adds o into s.
func (s *StmtSet) Merge(o *StmtSet) {
	for i := range s.Lat {
		s.Lat[i].Merge(o.Lat[i])
		s.Counts[i] += o.Counts[i]
	}
}
