package cli

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/workload"
)

// searchSets are the run flags search has not: it sets each step's rate itself, runs one VU
// count once per step, and is not a part of a larger run.
var searchSets = map[string]bool{"rate": true, "schedule": true, "repeat": true, "terminals": true, "connections": true, "part": true, "part-run": true, "start-at": true}

// newSearch is a workload's search command: the highest open-loop rate at which the server holds
// a latency target (docs/search.md). Its steps take run's flags (VUs, rampup, window, the
// workload's options); its own say what to hold and how far to look.
func newSearch(w workload.Workload, stdout, stderr io.Writer) *cobra.Command {
	var p95, p99 string
	so := session.SearchOptions{MaxSteps: 8, Precision: 0.1}
	exec := func(cmd *cobra.Command, s *spec.Spec, f runFlags) error {
		if err := so.Hold(p95, p99); err != nil {
			return err
		}
		return session.ExecuteSearch(cmd.Context(), s, so, jobOptions(resultsPath(cmd), f, stdout, stderr))
	}
	cmd := runCommand(w, "search", false, func(s *spec.Spec) {
		// A search runs several steps: its defaults are a step's, not a full run's.
		s.Rampup, s.Duration, s.Pause, s.Progress = 5*time.Second, 20*time.Second, 5*time.Second, 0
	}, exec, stdout, stderr)
	cmd.Short = "Find the highest open-loop rate at which the p95 (or p99) of the main transaction, or of each type given, stays within its target, by steps narrowed by bisection"
	fs := cmd.Flags()
	fs.StringVar(&p95, "p95", "", "latency target: the main transaction's 95th percentile must not exceed it, like 50ms; or one per transaction type, like new_order=50ms,payment=80ms")
	fs.StringVar(&p99, "p99", "", "latency target: the main transaction's 99th percentile must not exceed it; or one per transaction type, as --p95")
	fs.Float64Var(&so.StartRate, "start-rate", 0, "first rate tried, transactions per second (0: half the throughput of a closed-loop probe run first)")
	fs.IntVar(&so.MaxSteps, "max-steps", so.MaxSteps, "most rate steps to run (the probe not counted)")
	fs.Float64Var(&so.Precision, "precision", so.Precision, "stop when the lowest rate that missed is within this fraction above the highest that held")
	return cmd
}
