package results

import (
	"encoding/json"
	"math"
	"time"
)

// Profile is a performance profile: the same workload run at a rising number of virtual users,
// each step possibly repeated. docs/profiles.md defines every field.
type Profile struct {
	Format      int       `json:"format"`
	Kind        string    `json:"kind"` // "profile"
	ID          string    `json:"id,omitempty"`
	Cairn       Cairn     `json:"cairn"`
	Workload    string    `json:"workload"`
	MainTxn     string    `json:"main_transaction"`
	StartedAt   time.Time `json:"started_at"`
	Interrupted bool      `json:"interrupted"`
	// NotAsPlanned is the profile's own mark (a step that failed, mark.go); Reasons adds its
	// runs' and its interruption.
	NotAsPlanned []Reason `json:"not_as_planned,omitempty"`
	Target       Target   `json:"target"`
	Host         *Host    `json:"host,omitempty"`
	VUs          []int    `json:"vus"`
	Repeat       int      `json:"repeat"`
	PauseSec     float64  `json:"pause_seconds"`
	Config       any      `json:"config"`
	Headline     string   `json:"headline"` // the name of the figure steps are ranked by (HeadlineName)
	Steps        []*Step  `json:"steps"`
	Marks        Marks    `json:"marks"`
	// Search, when set, makes the profile a capacity search: its steps are rates (search.go).
	Search *Search `json:"search,omitempty"`
}

// Step is one VU count of a profile: its runs and what they add up to.
type Step struct {
	VU int `json:"vu"`
	// Rate is the open-loop rate the step asked for (a search's step); 0: closed loop.
	Rate    float64     `json:"rate,omitempty"`
	Runs    []*Document `json:"runs"`
	Summary StepSummary `json:"summary"`
}

// StepSummary condenses a step's runs. With one run, every Stat has n=1 and sd=0.
type StepSummary struct {
	Headline    Stat  `json:"headline"`
	TPM         Stat  `json:"tpm"`
	P50ms       Stat  `json:"main_p50_ms"`
	P95ms       Stat  `json:"main_p95_ms"`
	P99ms       Stat  `json:"main_p99_ms"`
	Errors      int64 `json:"errors"`
	CPUusPerTxn Stat  `json:"client_cpu_us_per_txn"`
}

// Stat is the mean and spread of one figure over a step's repeated runs.
type Stat struct {
	N      int       `json:"n"`
	Mean   float64   `json:"mean"`
	SD     float64   `json:"sd"` // sample standard deviation (n-1); 0 when n < 2
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Values []float64 `json:"values"`
}

// Marks are the verdicts on a profile, each a VU count (0 = none). docs/profiles.md gives the rules.
type Marks struct {
	Peak       int `json:"peak_vu"`
	Saturation int `json:"saturation_vu,omitempty"`
	Bottleneck int `json:"bottleneck_vu,omitempty"`
}

// Thresholds of the saturation rule: the first step after which adding VUs raises throughput by
// less than SaturationGain while p95 latency rises by more than SaturationLatency.
const (
	SaturationGain    = 0.05
	SaturationLatency = 0.20
)

// NewStat summarizes values.
func NewStat(values []float64) Stat {
	s := Stat{N: len(values), Values: values}
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = math.Inf(1), math.Inf(-1)
	for _, v := range values {
		s.Mean += v
		s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
	}
	s.Mean /= float64(s.N)
	if s.N > 1 {
		var ss float64
		for _, v := range values {
			ss += (v - s.Mean) * (v - s.Mean)
		}
		s.SD = math.Sqrt(ss / float64(s.N-1))
	}
	return s
}

// HeadlineName is the name of the figure the profile ranks its steps by: its own record, else its
// runs' (a profile stored before it kept one); "" when no run measured one.
func (p *Profile) HeadlineName() string {
	if p.Headline != "" {
		return p.Headline
	}
	if h := p.runHeadline(); h != nil {
		return h.Name
	}
	return ""
}

// HeadlineUnit is the unit of the figure the profile ranks its steps by, as its runs say; "" when
// none does.
func (p *Profile) HeadlineUnit() string {
	if h := p.runHeadline(); h != nil && h.Name == p.HeadlineName() {
		return h.Unit
	}
	return ""
}

func (p *Profile) runHeadline() *Headline {
	for _, st := range p.Steps {
		for _, d := range st.Runs {
			if d == nil {
				continue
			}
			if h := d.HeadlineFigure(); h != nil {
				return h
			}
		}
	}
	return nil
}

// Summarize fills each step's summary from its runs and the profile's marks from the summaries.
// Runs that measured nothing (interrupted during rampup) are left out of the figures.
func (p *Profile) Summarize() {
	for _, st := range p.Steps {
		var h, tpm, p50, p95, p99, cpu []float64
		st.Summary.Errors = 0
		for _, d := range st.Runs {
			name, v, ok := d.Headline()
			if !ok {
				continue
			}
			if p.Headline == "" {
				p.Headline = name
			}
			if p.MainTxn == "" {
				p.MainTxn = d.MainTxn
			}
			h = append(h, v)
			if d.Result.TPM != nil {
				tpm = append(tpm, float64(*d.Result.TPM))
			}
			if m := d.Main(); m != nil {
				p50, p95, p99 = append(p50, m.LatencyMs.P50), append(p95, m.LatencyMs.P95), append(p99, m.LatencyMs.P99)
			}
			cpu = append(cpu, d.Client.CPUusPerTxn)
			st.Summary.Errors += d.TotalErrors()
		}
		st.Summary.Headline, st.Summary.TPM = NewStat(h), NewStat(tpm)
		st.Summary.P50ms, st.Summary.P95ms, st.Summary.P99ms = NewStat(p50), NewStat(p95), NewStat(p99)
		st.Summary.CPUusPerTxn = NewStat(cpu)
	}
	p.Marks = FindMarks(p.points())
}

func (p *Profile) points() []Point {
	var pts []Point
	for _, st := range p.Steps {
		if st.Summary.Headline.N == 0 {
			continue
		}
		pts = append(pts, Point{VU: st.VU, Throughput: st.Summary.Headline.Mean, P95: st.Summary.P95ms.Mean})
	}
	return pts
}

// Point is one step as the marks see it: mean throughput and mean p95 of the main transaction.
type Point struct {
	VU         int
	Throughput float64
	P95        float64
}

// FindMarks applies the rules of docs/profiles.md to steps in ascending VU order:
//   - peak: the step of highest throughput;
//   - saturation: the first step i such that step i+1 raises throughput by less than 5% while its
//     p95 rises by more than 20%;
//   - bottleneck: the step whose p95 grew most per VU added since the previous step (latency growth,
//     not throughput, is where a bottleneck shows: "response time grows most"). Only steps whose p95
//     grew count; a profile whose latency never rises has no bottleneck mark.
func FindMarks(pts []Point) Marks {
	var m Marks
	best := math.Inf(-1)
	for _, p := range pts {
		if p.Throughput > best {
			best, m.Peak = p.Throughput, p.VU
		}
	}
	for i := 0; i+1 < len(pts) && m.Saturation == 0; i++ {
		a, b := pts[i], pts[i+1]
		if a.Throughput <= 0 || a.P95 <= 0 {
			continue
		}
		if b.Throughput < a.Throughput*(1+SaturationGain) && b.P95 > a.P95*(1+SaturationLatency) {
			m.Saturation = a.VU
		}
	}
	steepest := 0.0
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if b.VU <= a.VU {
			continue
		}
		if slope := (b.P95 - a.P95) / float64(b.VU-a.VU); slope > steepest {
			steepest, m.Bottleneck = slope, b.VU
		}
	}
	return m
}

// StepAt returns the step of vu virtual users, or nil.
func (p *Profile) StepAt(vu int) *Step {
	for _, st := range p.Steps {
		if st.VU == vu {
			return st
		}
	}
	return nil
}

// Next returns the measured step after the one of vu VUs, or nil.
func (p *Profile) Next(vu int) *Step {
	for _, st := range p.Steps {
		if st.VU > vu && st.Summary.Headline.N > 0 {
			return st
		}
	}
	return nil
}

// Prev returns the measured step before the one of vu VUs, or nil.
func (p *Profile) Prev(vu int) *Step {
	var prev *Step
	for _, st := range p.Steps {
		if st.VU >= vu {
			break
		}
		if st.Summary.Headline.N > 0 {
			prev = st
		}
	}
	return prev
}

// GetConfig is the profile's config, or nil for no profile.
func (p *Profile) GetConfig() any {
	if p == nil {
		return nil
	}
	return p.Config
}

// UnmarshalJSON reads a profile, its config with exact numbers.
func (p *Profile) UnmarshalJSON(b []byte) error {
	type plain Profile
	var aux struct {
		*plain
		Config json.RawMessage `json:"config"`
	}
	aux.plain = (*plain)(p)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	p.Config = decodeConfig(aux.Config)
	return nil
}
