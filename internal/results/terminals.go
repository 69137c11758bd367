package results

import "github.com/cairn-bench/cairn/internal/metrics"

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
