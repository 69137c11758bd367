package spec

import (
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Engine is the part of a run spec that is the same for every workload: the engine's own
// settings (workload.Engine, which workloads read), then the groups of the packages that read the
// others (observation, binding, connecting, parting), each declared once where it is read. It is
// plain data: what runs the spec hands each package its group.
type Engine struct {
	workload.Engine
	observe.Observation
	observe.Binding
	target.Connecting
	target.Routing
	workload.Parting
}

// EngineDefaults are the engine settings' defaults for a run (profile false) or a profile, with
// the workload's own defaults applied.
func EngineDefaults(info workload.Info, profile bool) Engine {
	e := Engine{Engine: workload.Engine{VU: []int{4}, Rampup: 10 * time.Second, Duration: time.Minute, MaxRetries: 10, MaxOutage: workload.DefaultMaxOutage,
		Progress: 5 * time.Second, Repeat: 1, Pause: 10 * time.Second},
		Observation: observe.Observation{Observe: "on", WaitSample: 100 * time.Millisecond, RunningSample: 50 * time.Millisecond, StacksHz: 99, Waits: "read", SessionHistory: "on"},
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
