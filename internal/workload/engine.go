package workload

import (
	"time"
)

// Engine is the engine's own settings, the part of a run spec's engine settings a workload reads
// (its options' Validate, its Summarizer) and the engine runs by (run.ConfigOf). A workload says
// which of the spec's engine settings it uses in Info.Engine, and their defaults where its own
// differ; the spec (spec.Engine) adds the groups of the packages that read the others
// (observation, binding, connecting, parting), each declared once where it is read.
type Engine struct {
	VU                []int         `opt:"vu" min:"1" max:"100000" help:"virtual users, each a goroutine with its own connection (a profile: the VU count of each step, like 1,2,4,8)"`
	Terminals         int           `opt:"terminals" min:"0" max:"1000000" help:"terminals (clients that key, think and submit), served by a pool of --connections; 0: one per VU, each with its own connection"`
	Connections       int           `opt:"connections" min:"0" max:"100000" help:"with --terminals: the pool's connections, one VU (executor) each, in place of --vu (0: one per terminal)"`
	Rampup            time.Duration `opt:"rampup" help:"time before the measured window, excluded from every figure"`
	RampupUntilSteady time.Duration `opt:"rampup-until-steady" help:"MAX: extend the rampup past --rampup until the headline's throughput is judged steady (MSER, once a second), at most MAX (0: a fixed rampup)"`
	Duration          time.Duration `opt:"duration" min:"1ms" help:"length of the measured window"`
	Rate              float64       `opt:"rate" min:"0" help:"open loop: R transactions per second in total, latency from the intended start (0: closed loop)"`
	LatencyLimit      time.Duration `opt:"latency-limit" help:"count transactions slower than this as late; with a rate, skip those already later when due"`
	MaxRetries        int           `opt:"max-retries" min:"0" help:"retries of a transaction after a deadlock or serialization failure"`
	MaxOutage         time.Duration `opt:"max-outage" help:"stop the run when the database gives no service for longer than this, its window cut short and marked (0: never)"`
	Progress          time.Duration `opt:"progress" help:"interval of the live progress lines (0: none)"`
	Seed              uint64        `opt:"seed" help:"seed of the run's random inputs; each profile step's is derived from it (0: random, printed and stored)"`
	Repeat            int           `opt:"repeat" min:"1" help:"profile: runs per step; with 2 or more, figures are means with their spread"`
	Pause             time.Duration `opt:"pause" help:"profile: pause between runs, for the server to settle"`
	After             string        `opt:"after" help:"profile: housekeeping on the database between runs, timed apart: checkpoint, vacuum, analyze, wait-purge, or several joined by commas (docs/cli.md#housekeeping-between-runs)"`
}

// DefaultMaxOutage is --max-outage's default: longer than a server's restart or a replica's
// promotion takes, so that a run measures through them, and short enough that a database that is
// gone does not hold a run of an hour for the rest of its window.
const DefaultMaxOutage = 2 * time.Minute

// Uses reports whether the workload reads the engine setting name.
func (info Info) Uses(name string) bool {
	if name == "seed" || name == "connect-timeout" || info.Engine == nil {
		return true
	}
	for _, n := range info.Engine {
		if n == name {
			return true
		}
	}
	return false
}
