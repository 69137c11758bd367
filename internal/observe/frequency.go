package observe

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
)

// Where the counters and /proc/cpuinfo are read; tests point them at copies.
var (
	devCPURoot  = "/dev/cpu"
	procCPUInfo = "/proc/cpuinfo"
)

// The x86 MSRs turbostat reads.
const (
	msrTSC   = 0x10
	msrMPERF = 0xE7
	msrAPERF = 0xE8
)

type counters struct{ tsc, mperf, aperf uint64 }

type frequency struct {
	Base
	cpus   []int
	msr    bool
	note   string
	t0     time.Time
	start  map[int]counters
	mhz0   map[int]float64
	result *results.Frequency
}

func init() {
	Register(Kind{Name: results.FrequencySection, Order: 30, Start: startFrequency})
}

func startFrequency(context.Context, *Env) (Observer, error) {
	o := &frequency{cpus: onlineCPUs()}
	if len(o.cpus) == 0 {
		return nil, nil
	}
	if _, err := readMSRs(o.cpus[0]); err == nil {
		o.msr = true
	} else {
		o.note = fmt.Sprintf("APERF/MPERF not readable on this host (%v; they need root and the msr module): cpu MHz of /proc/cpuinfo instead, the mean of its readings at the window's start and end, the frequency the kernel last saw, not the effective one", err)
	}
	return o, nil
}

// onlineCPUs are the CPUs /sys lists as cpuN, in order.
func onlineCPUs() []int {
	var out []int
	for _, d := range cpuDirs() {
		if n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "cpu")); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func readMSRs(cpu int) (counters, error) {
	f, err := os.Open(filepath.Join(devCPURoot, strconv.Itoa(cpu), "msr"))
	if err != nil {
		return counters{}, err
	}
	defer f.Close()
	var c counters
	for _, r := range []struct {
		reg uint32
		v   *uint64
	}{{msrTSC, &c.tsc}, {msrMPERF, &c.mperf}, {msrAPERF, &c.aperf}} {
		var b [8]byte
		if _, err := f.ReadAt(b[:], int64(r.reg)); err != nil {
			return counters{}, err
		}
		*r.v = binary.LittleEndian.Uint64(b[:])
	}
	return c, nil
}

// cpuinfoMHz is each processor's "cpu MHz" line.
func cpuinfoMHz() map[int]float64 {
	f, err := os.Open(procCPUInfo)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[int]float64{}
	cpu := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			cpu, _ = strconv.Atoi(strings.TrimSpace(v))
		case "cpu MHz":
			if mhz, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && cpu >= 0 {
				out[cpu] = mhz
			}
		}
	}
	return out
}

func (o *frequency) Window(start bool) {
	if start {
		o.t0 = time.Now()
		if o.msr {
			o.start = map[int]counters{}
			for _, c := range o.cpus {
				if v, err := readMSRs(c); err == nil {
					o.start[c] = v
				}
			}
		} else {
			o.mhz0 = cpuinfoMHz()
		}
		return
	}
	if o.t0.IsZero() || o.result != nil {
		return
	}
	secs := time.Since(o.t0).Seconds()
	f := &results.Frequency{Seconds: roundTo(secs, 2), Note: o.note, Cores: []results.CoreFrequency{}}
	if o.msr {
		f.Source = "APERF/MPERF"
		end := map[int]counters{}
		for _, c := range o.cpus {
			if v, err := readMSRs(c); err == nil {
				end[c] = v
			}
		}
		f.Cores = effective(o.cpus, o.start, end, secs)
		for _, c := range f.Cores {
			f.AvgMHz += c.AvgMHz / float64(len(f.Cores))
			f.BzyMHz += c.BzyMHz / float64(len(f.Cores))
		}
		f.AvgMHz, f.BzyMHz = roundTo(f.AvgMHz, 1), roundTo(f.BzyMHz, 1)
	} else {
		f.Source = "/proc/cpuinfo"
		end := cpuinfoMHz()
		for _, c := range o.cpus {
			a, ok1 := o.mhz0[c]
			b, ok2 := end[c]
			if ok1 && ok2 {
				f.Cores = append(f.Cores, results.CoreFrequency{CPU: c, MHz: roundTo((a+b)/2, 1)})
				f.MHz += (a + b) / 2
			}
		}
		if len(f.Cores) > 0 {
			f.MHz = roundTo(f.MHz/float64(len(f.Cores)), 1)
		} else {
			f.Note = "the CPU frequency is not readable on this host (no APERF/MPERF, no cpu MHz in /proc/cpuinfo)"
		}
	}
	o.result = f
}

// effective is turbostat's arithmetic on two readings secs apart: Avg_MHz is APERF's cycles
// over the wall time, Bzy_MHz the TSC's rate scaled by APERF/MPERF (the cycles over the time not
// idle), Busy% MPERF's part of the TSC's ticks.
func effective(cpus []int, a, b map[int]counters, secs float64) []results.CoreFrequency {
	out := []results.CoreFrequency{}
	for _, c := range cpus {
		x, ok1 := a[c]
		y, ok2 := b[c]
		dt, dm, da := float64(y.tsc-x.tsc), float64(y.mperf-x.mperf), float64(y.aperf-x.aperf)
		if !ok1 || !ok2 || secs <= 0 || dt <= 0 {
			continue
		}
		cf := results.CoreFrequency{CPU: c, AvgMHz: roundTo(da/secs/1e6, 1), Busy: roundTo(100*dm/dt, 2)}
		if dm > 0 {
			cf.BzyMHz = roundTo(dt/secs/1e6*da/dm, 1)
		}
		out = append(out, cf)
	}
	return out
}

func (o *frequency) Section() any {
	if o.result == nil {
		return nil
	}
	return o.result
}
