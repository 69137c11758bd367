package results

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// Terminals describes a run of terminals served by pooled connections (--terminals with
// --connections): latencies in Txns run from each terminal's submission, the wait for a
// connection included; this section has that wait apart, and the terminals' measured menu,
// keying and think times when they keyed and thought.
type Terminals struct {
	Terminals   int `json:"terminals"`
	Connections int `json:"connections"`
	// Of, on a part's document, is the run's terminals in all parts.
	Of   int                     `json:"of,omitempty"`
	Txns map[string]*TerminalTxn `json:"transactions"`
	// Histograms are the waits for a connection, per type, so that parts merge exactly.
	Histograms map[string]string `json:"connection_wait_histograms,omitempty"`
}

// TerminalTxn is one transaction type's part of Terminals, over the measured window.
type TerminalTxn struct {
	WaitMs  metrics.Latency `json:"connection_wait_ms"`
	MenuMs  *float64        `json:"menu_ms,omitempty"`
	KeyingS *float64        `json:"keying_s,omitempty"`
	ThinkS  *float64        `json:"think_s,omitempty"`
}

// SpecFigures is a keying and thinking run against its workload's specification (TPC-C's
// extra.tpcc.spec): its efficiency against the specification's ceiling and its response-time
// constraints.
type SpecFigures struct {
	TpmC                  float64        `json:"tpmc"`
	Ceiling               float64        `json:"ceiling_tpmc"` // 12.86 per warehouse
	EfficiencyPct         float64        `json:"efficiency_pct"`
	TerminalsPerWarehouse float64        `json:"terminals_per_warehouse"`
	ResponseTime          []RTConstraint `json:"response_time_constraints"`
	Met                   bool           `json:"constraints_met"`
}

// RTConstraint is one type's 90th-percentile response time against its limit. A type with no
// transaction measured in the window has no 90th percentile: its constraint is not met, and
// Reason says why.
type RTConstraint struct {
	Txn     string  `json:"transaction"`
	P90Ms   float64 `json:"p90_ms"`
	LimitMs float64 `json:"limit_ms"`
	Met     bool    `json:"met"`
	Reason  string  `json:"reason,omitempty"`
}

// NoneMeasured is the reason of a constraint whose type ran no transaction in the window.
const NoneMeasured = "none measured in the window"

// Verdict is the constraint as one phrase: "delivery 412 ms ≤ 80 s met", "… NOT met", or
// "delivery: none measured in the window, NOT met".
func (c RTConstraint) Verdict() string {
	if c.Reason != "" {
		return fmt.Sprintf("%s: %s, NOT met", c.Txn, c.Reason)
	}
	if !c.Met {
		return fmt.Sprintf("%s %.0f ms > %s s NOT met", c.Txn, c.P90Ms, strconv.FormatFloat(c.LimitMs/1000, 'f', -1, 64))
	}
	return fmt.Sprintf("%s %.0f ms ≤ %s s met", c.Txn, c.P90Ms, strconv.FormatFloat(c.LimitMs/1000, 'f', -1, 64))
}

// SpecOf is a run's figures against its workload's specification (extra.WORKLOAD.spec), nil when
// it has none: a run whose terminals did not key and think, or of a workload without them.
func SpecOf(d *Document) *SpecFigures {
	x, ok := d.Extra[d.Workload]
	if !ok {
		return nil
	}
	// The section is the workload's own type in a run just made, a map when read back.
	b, err := json.Marshal(x)
	if err != nil {
		return nil
	}
	var v struct {
		Spec *SpecFigures `json:"spec"`
	}
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	return v.Spec
}
