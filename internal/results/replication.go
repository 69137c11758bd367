package results

import "github.com/cairn-bench/cairn/internal/metrics"

// Replication is a run on a primary with replicas (docs/result-format.md#replication): what each
// connection group ran, what each server counted, and how far each replica lagged.
type Replication struct {
	// Route is the routing policy: "reads" (the read-only types to the replicas, each VU to one
	// replica) or "primary" (everything to the primary).
	Route string `json:"route"`
	// Groups are the connection groups: "primary", then "replicas" when anything was routed.
	Groups []ReplicaGroup `json:"groups"`
	// Servers are every server's own counts: the primary first, then each replica in the order
	// given. Their tpm add up to result.tpm when it is server-counted.
	Servers []ReplicaServer `json:"servers"`
}

// ReplicaGroup is one connection group's figures in the window, from the client's counts.
type ReplicaGroup struct {
	Group string   `json:"group"` // "primary" or "replicas"
	Types []string `json:"transaction_types"`
	// Transactions are the group's types' completed transactions (rollbacks included), Errors
	// their failures, PerMinute Transactions over the client's window.
	Transactions int64   `json:"transactions"`
	Errors       int64   `json:"errors"`
	PerMinute    float64 `json:"per_minute"`
	// LatencyMs is the latency of all the group's transactions together (the types' histograms
	// merged).
	LatencyMs metrics.Latency `json:"latency_ms"`
}

// ReplicaServer is one server's transaction counter over the window and, for a replica, its lag.
type ReplicaServer struct {
	Role    string `json:"role"` // "primary" or "replica"
	Address string `json:"address"`
	// TPM is the server's own counter's difference between the window's two readings, per
	// minute of the time between them (the primary's without cairn's own readings); nil when
	// the counter could not be read at both edges.
	TPM *int64 `json:"tpm,omitempty"`
	// Lag is the replica's replication lag, sampled once a second from the run's start.
	Lag *ReplicaLag `json:"lag,omitempty"`
}

// ReplicaLag is a replica's lag samples: Seconds[i] was read AtS[i] seconds after the run
// started (the window starts at window.rampup_s); a second without an answer has no sample.
type ReplicaLag struct {
	Source  string    `json:"source"`
	AtS     []float64 `json:"at_s"`
	Seconds []float64 `json:"seconds"`
	// MaxS is the largest sample inside the window, MeanS their mean; nil without one.
	MaxS  *float64 `json:"max_s,omitempty"`
	MeanS *float64 `json:"mean_s,omitempty"`
}
