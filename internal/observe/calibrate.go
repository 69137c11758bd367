package observe

import (
	"runtime"
	"sort"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/results"
)

// The calibration (docs/host.md#calibration) measures how fast this host's CPUs do a fixed
// kernel of work: one unit is calibUnitSteps steps of a 64-bit xorshift generator each
// reading, adding to and writing a 16 KiB table (an L1-sized working set: integer arithmetic,
// dependent loads and stores, no allocation, no system call). Its figure is units per second of
// the measuring thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), not of the wall clock, so that a
// neighbour's load that takes the CPU away between slices does not count: what is left is what
// a neighbour changes in the CPU itself (its frequency, a shared cache, an SMT sibling).
const (
	calibUnitSteps  = 1 << 16
	calibTableWords = 1 << 11 // 16 KiB of uint64: inside L1, refilled at once after a context switch
	calibUnitsPer   = 32      // units per timed repetition: about 10 to 30 ms of CPU on a current core
	calibRepeats    = 31      // timed repetitions per thread; the figure is their median
	calibRounds     = 3       // rounds of one thread, and of all threads at once; each figure is their median
	// CalibrationKernel names the kernel, so that figures of different kernels are never set
	// side by side.
	CalibrationKernel = "xorshift64-table16k/1"
)

// calibSink keeps the kernel's result alive, so the compiler cannot drop the work.
var calibSink uint64

// calibUnits runs n units of the kernel on tbl.
func calibUnits(tbl []uint64, n int, x uint64) uint64 {
	const mask = calibTableWords - 1
	var acc uint64
	for u := 0; u < n; u++ {
		for i := 0; i < calibUnitSteps; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			j := x & mask
			tbl[j] += x
			acc ^= tbl[(j*7+1)&mask]
		}
	}
	return acc ^ x
}

func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// calibThread runs the repetitions on the calling goroutine, locked to its thread, and returns
// each repetition's units per CPU-second of the thread; nil when the thread's CPU clock cannot be
// read.
func calibThread(seed uint64) []float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tbl := make([]uint64, calibTableWords)
	for i := range tbl {
		tbl[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	x := seed | 1
	acc := calibUnits(tbl, calibUnitsPer/4, x) // warm the table into the cache, the clock up
	rates := make([]float64, 0, calibRepeats)
	for r := 0; r < calibRepeats; r++ {
		t0 := threadCPU()
		acc ^= calibUnits(tbl, calibUnitsPer, x+uint64(r))
		cpu := threadCPU() - t0
		if cpu <= 0 {
			return nil
		}
		rates = append(rates, calibUnitsPer/cpu.Seconds())
	}
	calibMu.Lock()
	calibSink ^= acc
	calibMu.Unlock()
	return rates
}

var calibMu sync.Mutex

// Calibrate measures the host's single-core speed (one thread) and its all-core speed (one
// thread per CPU, all at once) on the fixed kernel. It takes one to two seconds of every CPU.
func Calibrate() *results.Calibration {
	c := &results.Calibration{Kernel: CalibrationKernel, UnitSteps: calibUnitSteps, Repeats: calibRepeats, Threads: runtime.NumCPU()}
	// Each figure is the median of calibRounds rounds: one round's median still moves with
	// what shares the CPU for its fraction of a second (on a virtual machine, other guests on
	// the host's sibling threads).
	ones := make([]float64, 0, calibRounds)
	for r := 0; r < calibRounds; r++ {
		one := calibThread(uint64(r) + 1)
		if one == nil {
			c.NA = "the thread CPU clock (CLOCK_THREAD_CPUTIME_ID) cannot be read"
			return c
		}
		ones = append(ones, medianOf(one))
	}
	c.SingleCore = round(median(ones), 0)
	c.SingleSpreadPct = round(100*spread(ones), 1)
	sums := make([]float64, 0, calibRounds)
	walls := make([]float64, 0, calibRounds)
	for k := 0; k < calibRounds; k++ {
		per := make([][]float64, c.Threads)
		var wg sync.WaitGroup
		t0 := time.Now()
		for i := range per {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				per[i] = calibThread(uint64(100 + k*c.Threads + i))
			}(i)
		}
		wg.Wait()
		wall := time.Since(t0).Seconds()
		var sum float64
		for _, r := range per {
			sum += medianOf(r)
		}
		sums = append(sums, sum)
		walls = append(walls, float64(c.Threads*calibRepeats*calibUnitsPer)/wall)
	}
	c.AllCore = round(median(sums), 0)
	c.AllSpreadPct = round(100*spread(sums), 1)
	c.AllCoreWall = round(median(walls), 0)
	c.Rounds = calibRounds
	return c
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return median(v)
}

// spread is the range of v (its rounds' figures) over its median: how far the rounds, a
// fraction of a second each, were apart.
func spread(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	m := median(s)
	if m == 0 {
		return 0
	}
	return (s[len(s)-1] - s[0]) / m
}
