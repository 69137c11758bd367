package results

// Search is a capacity search (docs/search.md): the highest open-loop rate at which the server
// held a latency target, found by steps at chosen rates. It rides a profile document: each
// step is a run at one rate (Step.Rate; the closed-loop probe, when one ran, is the step of rate
// 0), and Search says what the steps found.
type Search struct {
	// Targets are the latencies a step must hold, every one of them.
	Targets []SearchTarget `json:"targets"`
	// Precision is the relative width at which bisection stops (0.1: the failing rate within
	// 10% above the holding one); MaxSteps the most rate steps it runs.
	Precision float64 `json:"precision"`
	MaxSteps  int     `json:"max_steps"`
	// StartRate is the first rate tried; ProbeTPS the closed-loop probe's throughput it was
	// derived from (0 when --start-rate gave it).
	StartRate float64 `json:"start_rate"`
	ProbeTPS  float64 `json:"probe_tps,omitempty"`
	// Points are the rate steps in the order they ran.
	Points []SearchPoint `json:"points"`
	// Found: some step held. Rate is the answer: the highest rate asked that held; Lo and Hi
	// its interval: Lo = Rate, Hi the lowest rate asked above it that did not hold (0 when none
	// above it failed: the capacity is at least Rate, how far above unknown).
	Found bool    `json:"found"`
	Rate  float64 `json:"rate"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// Achieved is the throughput measured at Rate with the half-width of its 95% interval
	// (docs/steady-state.md).
	Achieved     float64 `json:"achieved"`
	AchievedHalf float64 `json:"achieved_half"`
	// Bound is the target that bound the answer: the one furthest over its latency at Hi
	// (SearchTarget.Name); "" when Hi missed no latency target (it fell short of its rate, or
	// drifted) or there is no Hi.
	Bound string `json:"bound,omitempty"`
}

// SearchTarget is one latency a search holds: the Percentile ("p95" or "p99") of transaction
// type Txn must not exceed TargetMs.
type SearchTarget struct {
	Txn        string  `json:"transaction"`
	Percentile string  `json:"percentile"`
	TargetMs   float64 `json:"target_ms"`
}

// Name is the target as the summary and SearchPoint.Bound name it: "new_order p95".
func (t SearchTarget) Name() string { return t.Txn + " " + t.Percentile }

// SearchPoint is one rate step: the rate asked, the throughput achieved, the percentiles
// measured, the steady-state verdict, and whether the step held (with why not).
type SearchPoint struct {
	Rate     float64 `json:"rate"`
	Achieved float64 `json:"achieved"`
	// LatencyMs is each target's percentile in the step, in the order of Search.Targets; Bound
	// the target nearest its latency or furthest over it (the highest latency over target).
	LatencyMs []float64 `json:"latency_ms"`
	Bound     string    `json:"bound,omitempty"`
	Steady    bool      `json:"steady"`
	Held      bool      `json:"held"`
	Why       string    `json:"why,omitempty"`
	// Again: the step is a second run at the rate of the step before, which missed (docs/search.md).
	Again bool `json:"again,omitempty"`
	// Run is the step's run: its index in the profile's steps.
	Run int `json:"run"`
}
