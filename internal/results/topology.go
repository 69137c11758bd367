package results

import (
	"fmt"
	"strings"

	"github.com/cairn-bench/cairn/internal/textfmt"
)

// CPUTopology is what a CPU list covers on the host (docs/host.md#cpu-lists): its physical cores,
// whether it holds SMT siblings of one core, the siblings it leaves out, and its packages and
// NUMA nodes. Note says what was not readable on this host.
type CPUTopology struct {
	CPUs   string `json:"cpus"`
	Cores  int    `json:"cores,omitempty"`
	Shared int    `json:"smt_shared_cores,omitempty"` // cores of which the list holds two or more siblings
	// ThreadsPerCore is the hardware threads of the list's cores on this host (the most any of
	// them has), whether or not the list holds them: 1 without SMT.
	ThreadsPerCore int    `json:"threads_per_core,omitempty"`
	Siblings       string `json:"siblings_left_out,omitempty"`
	Packages       []int  `json:"packages,omitempty"`
	Nodes          []int  `json:"numa_nodes,omitempty"`
	Note           string `json:"note,omitempty"`
}

// Text is the topology for a label: "2 cores (2 threads per core), no SMT siblings, siblings 4-5
// left out, package 0, node 0".
func (t *CPUTopology) Text() string {
	if t == nil {
		return ""
	}
	if t.Cores == 0 {
		return "topology not readable on this host"
	}
	parts := []string{textfmt.Plural(t.Cores, "core")}
	if t.ThreadsPerCore > 0 {
		parts[0] = textfmt.Plural(t.Cores, "core") + " (" + textfmt.Plural(t.ThreadsPerCore, "thread") + " per core)"
	}
	switch {
	case t.Shared > 0:
		parts = append(parts, fmt.Sprintf("SMT siblings on %s", textfmt.Plural(t.Shared, "core")))
	default:
		parts = append(parts, "no SMT siblings")
	}
	if t.Siblings != "" {
		parts = append(parts, "siblings "+t.Siblings+" left out")
	}
	if len(t.Packages) > 0 {
		parts = append(parts, "package "+ints(t.Packages))
	}
	if len(t.Nodes) > 0 {
		parts = append(parts, "node "+ints(t.Nodes))
	} else {
		parts = append(parts, "NUMA node not readable")
	}
	return strings.Join(parts, ", ")
}

func ints(l []int) string {
	s := make([]string, len(l))
	for i, v := range l {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ",")
}
