package observe

import (
	"context"

	"math"
	"sort"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// CPUSampler turns /proc/stat's cumulative per-CPU times into each interval's shares.
type CPUSampler struct {
	fs   procfs.FS
	prev procfs.Stat
	ok   bool
}

// NewCPUSampler takes the first reading; nil where /proc/stat cannot be read.
func NewCPUSampler() *CPUSampler {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil
	}
	s := &CPUSampler{fs: fs}
	s.prev, err = fs.Stat()
	s.ok = err == nil
	if !s.ok {
		return nil
	}
	return s
}

// Sample returns the host's and each CPU's shares since the previous sample (cpu0 first).
func (s *CPUSampler) Sample() (*metrics.CPUShare, []metrics.CPUShare) {
	cur, err := s.fs.Stat()
	if err != nil {
		return nil, nil
	}
	prev := s.prev
	s.prev = cur
	host := share(prev.CPUTotal, cur.CPUTotal)
	ids := make([]int64, 0, len(cur.CPU))
	for id := range cur.CPU {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	cores := make([]metrics.CPUShare, 0, len(ids))
	for _, id := range ids {
		cores = append(cores, share(prev.CPU[id], cur.CPU[id]))
	}
	return &host, cores
}

// BusyOf is how busy the CPUs in set were since the previous sample, by any process, as a
// fraction (all but idle and iowait), with how many CPUs the host has; ok false where /proc/stat
// could not be read or set names none of them.
func (s *CPUSampler) BusyOf(set unix.CPUSet) (busy float64, host int, ok bool) {
	cur, err := s.fs.Stat()
	if err != nil {
		return 0, 0, false
	}
	prev := s.prev
	s.prev = cur
	n := 0
	for id, b := range cur.CPU {
		a, seen := prev.CPU[id]
		if !seen || !set.IsSet(int(id)) {
			continue
		}
		sh := share(a, b)
		busy += 100 - sh[2] - sh[5]
		n++
	}
	if n == 0 {
		return 0, 0, false
	}
	return busy / float64(n) / 100, len(cur.CPU), true
}

// share is the interval between two readings in percent: user, system, iowait, irq, steal, idle.
// Guest time is already in user and nice, so it is not added again.
func share(a, b procfs.CPUStat) metrics.CPUShare {
	d := [6]float64{
		b.User - a.User + b.Nice - a.Nice,
		b.System - a.System,
		b.Iowait - a.Iowait,
		b.IRQ - a.IRQ + b.SoftIRQ - a.SoftIRQ,
		b.Steal - a.Steal,
		b.Idle - a.Idle,
	}
	total := 0.0
	for i, v := range d {
		d[i] = math.Max(v, 0) // a CPU going offline resets its counters
		total += d[i]
	}
	var out metrics.CPUShare
	if total <= 0 {
		return out
	}
	for i, v := range d {
		out[i] = math.Round(1000*v/total) / 10
	}
	return out
}

// cpuObserver adds each second's per-core CPU to the time series.
type cpuObserver struct {
	Base
	s *CPUSampler
}

func (o cpuObserver) Tick(sec *metrics.Second) { sec.CPU, sec.Cores = o.s.Sample() }

func init() {
	Register(Kind{Name: "cpu", Order: 20, Start: func(_ context.Context, env *Env) (Observer, error) {
		if env.Off() {
			return nil, nil
		}
		if s := NewCPUSampler(); s != nil {
			return cpuObserver{s: s}, nil
		}
		return nil, nil
	}})
}
