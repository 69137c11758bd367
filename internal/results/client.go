package results

import "fmt"

// ClientThreads is what cairn's threads did in the measured window, from the kernel's per-thread
// scheduler statistics (/proc/self/task/*/schedstat): the time they ran on a CPU and the time
// they were runnable but waited in a run queue for one (docs/result-format.md#client).
type ClientThreads struct {
	// RunSeconds and WaitSeconds are summed over cairn's threads across the window (a thread
	// that ended inside it is left out); UsableCPUs the CPUs cairn may run on.
	RunSeconds  float64 `json:"run_seconds"`
	WaitSeconds float64 `json:"wait_seconds"`
	UsableCPUs  int     `json:"usable_cpus"`
	// UseShare is RunSeconds over what the usable CPUs could give in the window; WaitPerCPU is
	// WaitSeconds over the same: how many of cairn's threads waited in a run queue, on average
	// through the window, per CPU it may use. VUWaitShare is WaitSeconds over the VUs' time in
	// the window (vu × window): the share of it a VU spent ready to issue or finish a
	// transaction but waiting for a CPU, were the wait all theirs.
	UseShare    float64 `json:"use_share"`
	WaitPerCPU  float64 `json:"wait_per_cpu"`
	VUWaitShare float64 `json:"vu_wait_share"`
	// CPUsBusy is how busy the CPUs cairn may use were in the window, by any process (/proc/stat),
	// absent where it could not be read; ServerShares says the server runs on this host and cairn
	// may use every CPU of it, so that a shortage of them is the host's, the server's too.
	CPUsBusy     *float64 `json:"cpus_busy,omitempty"`
	ServerShares bool     `json:"server_shares_cpus,omitempty"`
}

// IssueLag is how late the VUs issued their transactions in the window: from when each was due
// (the previous one's end in a closed loop; that plus the keying or thinking time asked when
// paced; its intended start in an open loop) to its start (docs/result-format.md#client).
type IssueLag struct {
	Transactions int64   `json:"transactions"` // those counted: started in the window
	MeanMs       float64 `json:"mean_ms"`
	MaxMs        float64 `json:"max_ms"`
	// VUShare is the lag summed over the VUs, over their time running in the window (vu ×
	// window; under a load schedule, each count × the part of the window it ran).
	VUShare float64 `json:"vu_share"`
}

// Text is the figures in words: "VUs issued each transaction 0.021 ms after it was due on
// average (max 4.31 ms), 0.8% of their time in the window".
func (l *IssueLag) Text() string {
	return fmt.Sprintf("VUs issued each transaction %.3f ms after it was due on average (max %.2f ms), %.1f%% of their time in the window",
		l.MeanMs, l.MaxMs, 100*l.VUShare)
}

// ClientClock is how late the run's clock came to the window's per-second ticks and its edges
// (docs/result-format.md#client).
type ClientClock struct {
	Ticks       int      `json:"ticks"` // the window's ticks before its end
	TickMeanMs  float64  `json:"tick_late_mean_ms"`
	TickMaxMs   float64  `json:"tick_late_max_ms"`
	StartLateMs float64  `json:"start_late_ms"`
	EndLateMs   *float64 `json:"end_late_ms,omitempty"` // absent when the window did not end as planned
}

// Text is the figures in words: "ticks 0.42 ms late on average (max 3.10 ms, 28 ticks); the
// window's start 0.20 ms late, its end 0.31 ms late".
func (c *ClientClock) Text() string {
	t := fmt.Sprintf("ticks %.2f ms late on average (max %.2f ms, %d ticks); the window's start %.2f ms late", c.TickMeanMs, c.TickMaxMs, c.Ticks, c.StartLateMs)
	if c.EndLateMs != nil {
		t += fmt.Sprintf(", its end %.2f ms late", *c.EndLateMs)
	}
	return t
}

// A run is marked client_bound when cairn itself limited it (docs/result-format.md#client):
// its threads ran ClientBoundUse or more of the CPUs it may use, or those CPUs were
// ClientBoundBusy busy, by anything, while its VUs waited ClientWaitWarn of the window for them,
// and the server does not share them all (ServerShares): a client bound to some of a host's
// CPUs, or on a host of its own, beside other busy processes. Where cairn and the server share
// every CPU, a shortage is the host's: both queue for the same CPUs (on this 2-CPU host at 8 VUs
// with nothing else running, cairn's threads waited 3.7 deep per CPU), and the VUs' wait warns
// but does not mark. ClientWaitWarn is the share of the window its VUs waited for a CPU from
// which the summary warns: their latencies include that wait.
const (
	ClientBoundUse  = 0.90
	ClientBoundBusy = 0.90
	ClientWaitWarn  = 0.10
)

// Bound says cairn itself limited the run (ClientBoundUse, ClientBoundBusy).
func (c *ClientThreads) Bound() bool {
	if c == nil {
		return false
	}
	return c.UseShare >= ClientBoundUse ||
		c.CPUsBusy != nil && *c.CPUsBusy >= ClientBoundBusy && c.VUWaitShare >= ClientWaitWarn && !c.ServerShares
}

// Waited says cairn's VUs waited ClientWaitWarn or more of the window for a CPU.
func (c *ClientThreads) Waited() bool { return c != nil && c.VUWaitShare >= ClientWaitWarn }

// Text is the figures in words: "VUs waited 12% of the window for a CPU (cairn's threads
// 4.80 s in a run queue, 0.40 per CPU it may use); cairn ran 0.91 CPU-s per s, 46% of the 2 CPUs
// it may use, which were 61% busy".
func (c *ClientThreads) Text(window float64) string {
	t := fmt.Sprintf("VUs waited %.0f%% of the window for a CPU (cairn's threads %.2f s in a run queue, %.2f per CPU it may use); cairn ran %.2f CPU-s per s, %.0f%% of the %d CPUs it may use",
		100*c.VUWaitShare, c.WaitSeconds, c.WaitPerCPU, c.RunSeconds/window, 100*c.UseShare, c.UsableCPUs)
	if c.CPUsBusy != nil {
		t += fmt.Sprintf(", which were %.0f%% busy", 100**c.CPUsBusy)
		if c.ServerShares {
			t += " (the server's too)"
		}
	}
	return t
}
