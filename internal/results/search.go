package results

// Search is a capacity search (docs/search.md): the highest open-loop rate at which the server
// held a latency target, found by steps at chosen rates. It rides a profile document: each
// step is a run at one rate (Step.Rate; the closed-loop probe, when one ran, is the step of rate
// 0), and Search says what the steps found.
type Search struct {
	// Percentile is "p95" or "p99"; TargetMs the latency the percentile of Txn (the workload's
	// main transaction) must not exceed.
	Percentile string  `json:"percentile"`
	TargetMs   float64 `json:"target_ms"`
	Txn        string  `json:"transaction"`
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
}

// SearchPoint is one rate step: the rate asked, the throughput achieved, the percentile
// measured, the steady-state verdict, and whether the step held (with why not).
type SearchPoint struct {
	Rate      float64 `json:"rate"`
	Achieved  float64 `json:"achieved"`
	LatencyMs float64 `json:"latency_ms"`
	Steady    bool    `json:"steady"`
	Held      bool    `json:"held"`
	Why       string  `json:"why,omitempty"`
	// Run is the step's run: its index in the profile's steps.
	Run int `json:"run"`
}
