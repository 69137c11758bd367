package results

import (
	"slices"
	"strings"
)

// What explains a live segment, beside its throughput: the waits read at its edges and the
// on-CPU samples taken in it. The observers measure each segment's settled part — from
// SettleSeconds after the change that opens it to the next change (the window's start and end
// for the first and last) — on the study's own instants, so a study without progress lines gets
// them too. docs/result-format.md#segments defines them.

// WaitSegment is the waits of one live segment's settled part (Index as in Segment): for a
// cumulative source (performance_schema) the difference of the readings at its two edges, for a
// sampled one (PostgreSQL) the samples taken between them.
type WaitSegment struct {
	Index int `json:"index"`
	// Seconds is how long the part lasted, between the two readings' midpoints; ReadMs is the
	// longer reading's time from its first statement sent to its last answer: each edge lies
	// somewhere in its reading.
	Seconds float64 `json:"seconds"`
	ReadMs  float64 `json:"read_ms"`
	// Samples are a sampled source's samples in the part.
	Samples int64 `json:"samples,omitempty"`
	// Events are the top events, each with its share of all the part's waits (as Waits.Events).
	Events []WaitEvent `json:"events"`
	// Synch are the synch waits, each with its share of the synch waits alone (as Waits.Synch).
	Synch []WaitEvent `json:"synch"`
}

// StackSegment is the on-CPU profile of one live segment's settled part (Index as in Segment):
// the run's perf samples whose timestamps fall in it, ranked and folded as the run's profile is
// (Stacks), with fewer stacks kept.
type StackSegment struct {
	Index      int             `json:"index"`
	Seconds    float64         `json:"seconds"`
	Samples    int64           `json:"samples"`
	Kernel     *float64        `json:"kernel,omitempty"`
	Functions  []StackFunction `json:"functions"`
	Folded     []FoldedStack   `json:"folded"`
	CutStacks  int             `json:"cut_stacks,omitempty"`
	CutSamples int64           `json:"cut_samples,omitempty"`
}

// Profile is the segment's samples as a profile of their own, for what reads profiles (the
// diagnosis, the flame graphs).
func (s *StackSegment) Profile() *Stacks {
	return &Stacks{Event: "cpu-clock", Seconds: s.Seconds, Samples: s.Samples, Kernel: s.Kernel, Functions: s.Functions,
		Folded: s.Folded, CutStacks: s.CutStacks, CutSamples: s.CutSamples}
}

// SegmentStacks is the on-CPU profile of a run's live segment index; nil when the run has none
// for it (no profile, or a segment with no settled part).
func SegmentStacks(d *Document, index int) *Stacks {
	st := StacksOf(d)
	if st == nil {
		return nil
	}
	for i := range st.Segments {
		if st.Segments[i].Index == index {
			return st.Segments[i].Profile()
		}
	}
	return nil
}

// WaitsOfSegment is the waits read at the edges of run d's live segment index; nil when they
// were not (no waits, or a segment whose edges were not both read).
func WaitsOfSegment(d *Document, index int) *WaitSegment {
	if d.Waits == nil {
		return nil
	}
	for i := range d.Waits.Segments {
		if d.Waits.Segments[i].Index == index {
			return &d.Waits.Segments[i]
		}
	}
	return nil
}

// Synch events a segment keeps, and its top events.
const (
	segmentSynch = 5
	segmentTop   = 3
)

// SynchName is the short name of a synch wait: its last path element
// ("wait/synch/sxlock/innodb/btr_search_latch" → "btr_search_latch").
func SynchName(name string) string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// SynchShares are synch waits' shares of the synch waits alone, in percent, by short name: what
// the shifts between segments and cases are read from.
func SynchShares(evs []WaitEvent) map[string]float64 {
	out := map[string]float64{}
	for _, e := range evs {
		out[SynchName(e.Name)] += 100 * e.Share
	}
	return out
}

// MeanSynch is the synch shares of several runs (or segments), each weighing alike; ok is false
// when none read synch waits.
func MeanSynch(lists [][]WaitEvent) (map[string]float64, bool) {
	out := map[string]float64{}
	n := 0
	for _, l := range lists {
		if l == nil {
			continue
		}
		n++
		for k, v := range SynchShares(l) {
			out[k] += v
		}
	}
	if n == 0 {
		return nil, false
	}
	for k := range out {
		out[k] /= float64(n)
	}
	return out, true
}

// cutSynch is the first n of a ranked synch list, a copy.
func cutSynch(evs []WaitEvent, n int) []WaitEvent {
	return slices.Clone(evs[:min(n, len(evs))])
}
