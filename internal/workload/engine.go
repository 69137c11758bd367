package workload

import (
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/target"
)

// Engine is the part of a run spec that is the same for every workload (a workload says which of
// them it uses in Info.Engine, and their defaults where its own differ): the engine's settings,
// then the groups of the packages that read them (observation, binding, connecting), each
// declared once where it is read.
type Engine struct {
	VU           []int         `opt:"vu" min:"1" max:"100000" help:"virtual users, each a goroutine with its own connection (a profile: the VU count of each step, like 1,2,4,8)"`
	Terminals    int           `opt:"terminals" min:"0" max:"1000000" help:"terminals (clients that key, think and submit), served by a pool of --connections; 0: one per VU, each with its own connection"`
	Connections  int           `opt:"connections" min:"0" max:"100000" help:"with --terminals: the pool's connections, one VU (executor) each, in place of --vu (0: one per terminal)"`
	Rampup       time.Duration `opt:"rampup" help:"time before the measured window, excluded from every figure"`
	Duration     time.Duration `opt:"duration" min:"1ms" help:"length of the measured window"`
	Rate         float64       `opt:"rate" min:"0" help:"open loop: R transactions per second in total, latency from the intended start (0: closed loop)"`
	LatencyLimit time.Duration `opt:"latency-limit" help:"count transactions slower than this as late; with a rate, skip those already later when due"`
	MaxRetries   int           `opt:"max-retries" min:"0" help:"retries of a transaction after a deadlock or serialization failure"`
	MaxOutage    time.Duration `opt:"max-outage" help:"stop the run when the database gives no service for longer than this, its window cut short and marked (0: never)"`
	Progress     time.Duration `opt:"progress" help:"interval of the live progress lines (0: none)"`
	Seed         uint64        `opt:"seed" help:"seed of the run's random inputs; each profile step's is derived from it (0: random, printed and stored)"`
	Repeat       int           `opt:"repeat" min:"1" help:"profile: runs per step; with 2 or more, figures are means with their spread"`
	Pause        time.Duration `opt:"pause" help:"profile: pause between runs, for the server to settle"`
	observe.Observation
	observe.Binding
	target.Connecting
	Parting
}

// DefaultMaxOutage is --max-outage's default: longer than a server's restart or a replica's
// promotion takes, so that a run measures through them, and short enough that a database that is
// gone does not hold a run of an hour for the rest of its window.
const DefaultMaxOutage = 2 * time.Minute

// EngineDefaults are the engine settings' defaults for a run (profile false) or a profile, with
// the workload's own defaults applied.
func EngineDefaults(info Info, profile bool) Engine {
	e := Engine{VU: []int{4}, Rampup: 10 * time.Second, Duration: time.Minute, MaxRetries: 10, MaxOutage: DefaultMaxOutage,
		Progress: 5 * time.Second, Repeat: 1, Pause: 10 * time.Second,
		Observation: observe.Observation{Observe: "on", WaitSample: 100 * time.Millisecond, RunningSample: 50 * time.Millisecond, StacksHz: 99, Waits: "read"},
		Connecting:  target.Connecting{ConnectTimeout: target.DefaultConnectTimeout}}
	cmd := "run"
	if profile {
		e.VU, e.Progress, cmd = []int{1, 2, 4, 8}, 0, "profile"
	}
	for k, v := range info.Defaults {
		name := k
		if c, n, ok := strings.Cut(k, "."); ok {
			if c != cmd {
				continue
			}
			name = n
		}
		if f, ok := options.Lookup(&e, name); ok {
			if err := f.Set(&e, v); err != nil {
				panic("workload " + info.Name + ": bad default " + k + "=" + v + ": " + err.Error())
			}
		}
	}
	return e
}

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
