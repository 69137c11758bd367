package results

// RunningSection is the running-threads observer's section under extra.observations
// (docs/result-format.md#running-threads).
const RunningSection = "running-threads"

// RunningSecond is the running threads' samples of one second of the run, T as the run's time
// series: the server's running threads and the host's run queue, each its max and mean over the
// second.
type RunningSecond struct {
	T        float64 `json:"t"`
	Samples  int     `json:"samples"`
	Max      int64   `json:"max,omitempty"`
	Mean     float64 `json:"mean,omitempty"`
	HostMax  int64   `json:"host_max,omitempty"`
	HostMean float64 `json:"host_mean,omitempty"`
}

// SegmentRunning is the running threads in a segment's settled seconds: the largest of their
// maxima and the mean of their means, for the server and the host's run queue.
type SegmentRunning struct {
	Max      int64   `json:"max"`
	Mean     float64 `json:"mean"`
	HostMax  int64   `json:"host_max"`
	HostMean float64 `json:"host_mean"`
}

// runningSeries is the run's running threads by second, keyed by T; nil without the section.
func runningSeries(d *Document) map[float64]RunningSecond {
	r := RunningOf(d)
	if r == nil || len(r.Series) == 0 {
		return nil
	}
	m := make(map[float64]RunningSecond, len(r.Series))
	for _, s := range r.Series {
		m[s.T] = s
	}
	return m
}
