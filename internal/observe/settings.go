package observe

import "time"

// Observation is the run spec's group of observation settings, declared once here: flags, run
// specs and the schema read these tags (spec.Engine embeds the group).
type Observation struct {
	Observe string `opt:"observe" enum:"on,off,stacks" help:"per-core CPU, the server's CPU and its wait events over the run (off: none of them; host facts are always taken; stacks: on, and the server's on-CPU profile with perf, docs/diagnosis.md)"`
	// The samplers' intervals have a floor of 10 ms: below it a sample costs the server more
	// than it tells, and the interval is refused (docs/tpcc.md#cairns-own-statements).
	WaitSample time.Duration `opt:"wait-sample" min:"10ms" max:"10s" help:"interval of the wait-event samples, where the server shows only current waits (PostgreSQL); at least 10ms"`
	// RunningSample is 0 where the running threads are not sampled: bench/observe.sh measures the
	// sampler's cost against a run without it, all else the same.
	RunningSample time.Duration `opt:"running-sample" min:"10ms" max:"1s" zero:"off" help:"interval of the samples of the server's running threads and the host's run queue, at least 10ms (0s: none; --observe off takes none either)"`
	// StacksHz is perf's sampling rate for --observe stacks; bench/observe.sh raises it tenfold to
	// measure what a sample costs above the noise of a run.
	StacksHz int `opt:"stacks-hz" min:"1" max:"999" help:"perf's sampling rate for --observe stacks, per CPU (99: off the kernel's own timer ticks)"`
	// SessionHistory off keeps the waits and drops the history's per-second sessions, and with them
	// the one query a --wait-sample the history adds on MySQL/MariaDB: bench/observe.sh's history
	// pair measures that query's cost against a run without it.
	SessionHistory string `opt:"session-history" enum:"on,off" help:"the session history: every session's wait, sampled each --wait-sample and kept per second (off: the waits alone; on MySQL/MariaDB one query a sample less)"`
	// Calibrate measures the host's speed before the run, with its facts (docs/host.md#calibration).
	Calibrate bool   `opt:"calibrate" help:"measure the host's single-core and all-core speed on a fixed kernel of work before the run (one to two seconds of every CPU, outside the window) and store it with the host facts"`
	Waits     string `opt:"waits" enum:"read,instrument" help:"instrument: turn on the server's wait instruments for the run (MySQL/MariaDB's InnoDB mutexes and rw-locks, metadata locks, and the events_waits_current consumer the session history reads), restored after; read: read what is on"`
}

// Off reports whether the run is observed only for its host facts.
func (o Observation) Off() bool { return o.Observe == "off" }

// Binding is the run spec's group of CPU binding settings, declared once here.
type Binding struct {
	ClientCPUs string `opt:"client-cpus" unset:"" help:"bind cairn to these CPUs (a list like 0-3,8); GOMAXPROCS becomes their count"`
	ServerCPUs string `opt:"server-cpus" unset:"" help:"bind the server's processes to these CPUs for the run (a server on this host only); restored after, also on Ctrl-C"`
}
