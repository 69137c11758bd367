package results

import (
	"encoding/json"
	"sort"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// FanoutSection is the fan-out workload's section of a run's document (extra.fanout). It lives
// here, not in the workload, so that studies, comparisons, exports and reports read a run's
// fan-out figures without the workload; docs/fanout.md defines each figure.
const FanoutSection = "fanout"

// Fanout is extra.fanout: logical against physical response time, per shard and per server, the
// short board and the slowest requests.
type Fanout struct {
	Shards      int    `json:"shards"`
	Servers     int    `json:"servers"`
	Fanout      int    `json:"fanout"`
	Parallelism int    `json:"parallelism"`
	Protocol    string `json:"protocol"`
	Rows        int    `json:"rows_per_shard"`
	DataSeed    uint64 `json:"data_seed"`

	Requests       int64           `json:"requests"`
	RequestsPerSec float64         `json:"requests_per_s"`
	LogicalMs      metrics.Latency `json:"logical_ms"`

	Statements       int64           `json:"statements"`
	StatementsPerSec float64         `json:"statements_per_s"`
	PhysicalMs       metrics.Latency `json:"physical_ms"`
	SchedMs          metrics.Latency `json:"sched_delay_ms"`

	PerShard  []FanoutGroup `json:"per_shard"`
	PerServer []FanoutGroup `json:"per_server"`

	ShortBoard ShortBoard    `json:"short_board"`
	Slow       []SlowRequest `json:"slow_requests"`
	Mismatches int64         `json:"mismatches"`
}

// FanoutGroup is the physical figures of one shard or one server.
type FanoutGroup struct {
	Name       string          `json:"name"` // host:port/db, or host:port
	Shards     int             `json:"shards"`
	Statements int64           `json:"statements"`
	PerSec     float64         `json:"statements_per_s"`
	RTMs       metrics.Latency `json:"rt_ms"`
	Last       int64           `json:"last"`            // requests whose last statement was here
	LastPct    float64         `json:"last_percent"`    // of the requests
	Slowest    int64           `json:"slowest"`         // requests whose longest statement was here
	SlowestPct float64         `json:"slowest_percent"` // of the requests
	// AddedMs is the time the group added to the requests' logical response times, in all: for
	// each request whose last statement was here, that statement's end minus the end of the
	// request's next-latest statement (of its start, with one statement). AddedMeanMs is AddedMs
	// per request (every request of the window, last here or not): what the group adds to the mean
	// logical response time. AddedPct is its share of every group's AddedMs.
	AddedMs     float64 `json:"added_ms"`
	AddedMeanMs float64 `json:"added_mean_ms"`
	AddedPct    float64 `json:"added_percent"`
}

// ShortBoard is which shard holds a request back.
type ShortBoard struct {
	LagMs         metrics.Latency `json:"lag_ms"`          // the last statement's end after the request's median end
	RequestMs     metrics.Latency `json:"request_ms"`      // logical, as the VUs timed it (start to end)
	SumPhysicalMs metrics.Latency `json:"sum_physical_ms"` // per request, its statements' times added
	MaxPhysicalMs metrics.Latency `json:"max_physical_ms"` // per request, its longest statement
}

// SlowStatement is one statement of a slow request.
type SlowStatement struct {
	Shard   int     `json:"shard"`
	Where   string  `json:"where"`
	StartMs float64 `json:"start_ms"` // after the request's start
	RTMs    float64 `json:"rt_ms"`
	SchedMs float64 `json:"sched_ms"`
}

// SlowRequest is one of the slowest requests.
type SlowRequest struct {
	ID         string          `json:"id"` // as sent in /* cairn-req=ID */
	AtS        float64         `json:"at_s"`
	RTMs       float64         `json:"rt_ms"`
	Last       int             `json:"last_shard"`
	Statements []SlowStatement `json:"statements"`
}

// FanoutOf reads extra.fanout from a document, new or stored; false without it.
func FanoutOf(d *Document) (*Fanout, bool) {
	v, ok := d.Extra[FanoutSection]
	if !ok {
		return nil, false
	}
	switch x := v.(type) {
	case Fanout:
		return &x, true
	case *Fanout:
		return x, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var x Fanout
	if json.Unmarshal(b, &x) != nil {
		return nil, false
	}
	return &x, true
}

// RankByAdded orders groups by the time each added to the logical response times, most first;
// ties by how often each ended last, then in their order.
func RankByAdded(gs []FanoutGroup) []FanoutGroup {
	out := append([]FanoutGroup(nil), gs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.AddedMs != b.AddedMs {
			return a.AddedMs > b.AddedMs
		}
		return a.Last > b.Last
	})
	return out
}
