package workload

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
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
	Schedule          string        `opt:"schedule" help:"load that changes in the window: AT:vu=N,… and with --rate AT:rate=R (AT a time from the window's start like 30s, or a share of it like 30%; both: AT:vu=N:rate=R); the most VUs connect at the start, the others wait parked"`
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

// LoadStep is one change of a load schedule (Engine.Schedule): from At (after the measured
// window's start) VUs virtual users run, the others waiting parked on their connections, and
// an open loop's total rate is Rate; 0 leaves either as it was.
type LoadStep struct {
	At   time.Duration
	VUs  int
	Rate float64
	// Frac > 0: At was given as this share of the window.
	Frac float64
}

// ParseSchedule reads a load schedule, "30%:vu=16,60%:vu=4" (or "30s:vu=16", "30%:rate=500",
// "30%:vu=16:rate=500"), and places it in a window of the given length: every time inside it,
// in rising order. "" is no schedule.
func ParseSchedule(text string, window time.Duration) ([]LoadStep, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	var out []LoadStep
	for i, item := range strings.Split(text, ",") {
		item = strings.TrimSpace(item)
		at, load, ok := strings.Cut(item, ":")
		if !ok {
			return nil, options.Errorf("schedule", text, "%q: give AT:vu=N or AT:rate=R, like 30%%:vu=16 or 30s:rate=500", item)
		}
		var st LoadStep
		if pct, ok := strings.CutSuffix(at, "%"); ok {
			f, err := strconv.ParseFloat(pct, 64)
			if err != nil || f <= 0 || f >= 100 {
				return nil, options.Errorf("schedule", text, "%q: a share of the window must be between 0%% and 100%%, like 30%%", at)
			}
			st.Frac = f / 100
			st.At = time.Duration(st.Frac * float64(window)).Round(time.Millisecond)
		} else {
			d, err := time.ParseDuration(at)
			if err != nil {
				return nil, options.Errorf("schedule", text, "%q: the time must be a duration from the window's start, like 30s, or a share of it, like 30%%", at)
			}
			st.At = d
		}
		for _, kv := range strings.Split(load, ":") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "vu":
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > 100000 || st.VUs > 0 {
					return nil, options.Errorf("schedule", text, "%q: vu must be a whole number from 1 to 100000, once", item)
				}
				st.VUs = n
			case "rate":
				r, err := strconv.ParseFloat(v, 64)
				if err != nil || !(r > 0) || r > 1e9 || st.Rate > 0 {
					return nil, options.Errorf("schedule", text, "%q: rate must be a positive number of transactions per second, once", item)
				}
				st.Rate = r
			default:
				return nil, options.Errorf("schedule", text, "%q: a step sets vu=N (the VUs that run from then on) or rate=R (the open loop's total rate), or both", item)
			}
		}
		if st.At <= 0 || st.At >= window {
			return nil, options.Errorf("schedule", text, "%q: %s is outside the measured window (0 to %s): a change must fall inside it",
				item, options.FormatDuration(st.At), options.FormatDuration(window))
		}
		if i > 0 && st.At <= out[i-1].At {
			return nil, options.Errorf("schedule", text, "%q: the schedule must be in rising order of time", item)
		}
		out = append(out, st)
	}
	return out, nil
}

// FormatSchedule writes steps as ParseSchedule reads them, a share of the window kept a share.
func FormatSchedule(steps []LoadStep) string {
	parts := make([]string, len(steps))
	for i, st := range steps {
		at := options.FormatDuration(st.At)
		if st.Frac > 0 {
			at = strconv.FormatFloat(st.Frac*100, 'f', -1, 64) + "%"
		}
		parts[i] = at
		if st.VUs > 0 {
			parts[i] += fmt.Sprintf(":vu=%d", st.VUs)
		}
		if st.Rate > 0 {
			parts[i] += ":rate=" + strconv.FormatFloat(st.Rate, 'g', -1, 64)
		}
	}
	return strings.Join(parts, ",")
}
