package spec_test

import (
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/spec"
)

// Terminals over pooled connections: what does not go with them is refused in one line naming
// the key.
func TestTerminalsSpecs(t *testing.T) {
	for text, want := range map[string]string{
		"workload: tpcc\nterminals: 100\nrate: 50\n":   "rate: --rate and --terminals exclude each other",
		"workload: tpcc\nconnections: 10\n":            "connections: --connections sizes the pool that serves --terminals",
		"workload: tpcc\nvu: [1, 2]\nterminals: 100\n": "terminals: a profile varies the VUs",
	} {
		_, err := spec.Read([]byte(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error with %q", text, err, want)
		}
	}
	s, err := spec.Read([]byte("workload: tpcc\nterminals: 100\nconnections: 10\noptions: {keying-thinking: true}\n"))
	if err != nil || s.Terminals != 100 || s.Connections != 10 {
		t.Fatalf("a run of 100 terminals over 10 connections: %+v, %v", s, err)
	}
}
