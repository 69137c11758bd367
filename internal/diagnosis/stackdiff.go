package diagnosis

import (
	"sort"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
)

// FunctionShift is a server function's self share of the on-CPU samples, in percent, in a
// baseline and in another result.
type FunctionShift struct {
	Name        string
	Base, Other float64
}

// Change is the shift in percentage points.
func (f FunctionShift) Change() float64 { return f.Other - f.Base }

// KernelName is the kernel's entry among the server's functions: every sample taken in the
// kernel, whichever kernel function it was in.
const KernelName = "[kernel]"

// SelfShares are the server functions' self shares (percent of the samples) over the runs that
// recorded an on-CPU profile, each run weighing alike; ok is false when none did. A function's
// share is its stored figure where the profile ranks it, else the samples of the kept stacks it
// ends (a stack left out to bound the document counts for none).
//
// It is the one rule of which functions the diagnosis line, results compare and the report's
// tables name: the server's own functions (its binary's and its libraries'), and the kernel as
// one entry, KernelName, whose share is the profile's kernel figure. Samples in the kernel land
// on the instruction that re-enables interrupts (finish_task_switch after a context switch, in a
// virtual machine without hardware counters), so no kernel function is named as the server's.
// A profile stored before kernel frames were marked has its kernel functions among the rest.
func SelfShares(runs []*results.Document) (shares map[string]float64, ok bool) {
	sts := make([]*results.Stacks, 0, len(runs))
	for _, d := range runs {
		if d != nil {
			sts = append(sts, results.StacksOf(d))
		}
	}
	return StackShares(sts)
}

// StackShares are SelfShares of profiles (a run's, or a live segment's,
// results.SegmentStacks), each weighing alike; nil ones count for none.
func StackShares(sts []*results.Stacks) (shares map[string]float64, ok bool) {
	shares = map[string]float64{}
	n := 0
	for _, st := range sts {
		if st == nil || st.Note != "" || st.Samples == 0 {
			continue
		}
		n++
		self := map[string]float64{}
		for _, f := range st.Folded {
			self[f.Stack[strings.LastIndex(f.Stack, ";")+1:]] += 100 * float64(f.Count) / float64(st.Samples)
		}
		for _, f := range st.Functions {
			self[f.Name] = f.Self
		}
		for name, v := range self {
			if !results.KernelFrame(name) {
				shares[name] += v
			}
		}
		if st.Kernel != nil {
			shares[KernelName] += *st.Kernel
		}
	}
	if n == 0 {
		return nil, false
	}
	for name := range shares {
		shares[name] /= float64(n)
	}
	return shares, true
}

// minShift is the smallest shift worth naming: below it, a difference of a sample or two.
const minShift = 0.1

// FunctionShifts are the functions whose self share rose most from base to other (gained,
// largest first) and fell most (lost, largest fall first), at most n of each.
func FunctionShifts(base, other map[string]float64, n int) (gained, lost []FunctionShift) {
	var all []FunctionShift
	for name, b := range base {
		all = append(all, FunctionShift{Name: name, Base: b, Other: other[name]})
	}
	for name, o := range other {
		if _, ok := base[name]; !ok {
			all = append(all, FunctionShift{Name: name, Other: o})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i].Change(), all[j].Change()
		if a != b {
			return a > b
		}
		return all[i].Name < all[j].Name
	})
	for _, f := range all {
		if len(gained) < n && f.Change() >= minShift {
			gained = append(gained, f)
		}
	}
	for i := len(all) - 1; i >= 0 && len(lost) < n; i-- {
		if all[i].Change() <= -minShift {
			lost = append(lost, all[i])
		}
	}
	return gained, lost
}
