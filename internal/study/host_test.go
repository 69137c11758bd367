package study

import (
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// The shipped POWER8 study names its original's SMT4 and DSCR=1; on an x86 host of one NUMA node
// and no SMT, the notes say that every CPU list lies on that node, that SMT cannot be varied,
// and that neither host setting is reproducible here, DSCR being POWER's alone. On a POWER host
// in SMT4 with DSCR 1, both are the same.
func TestHostNotes(t *testing.T) {
	t.Setenv("CAIRN_PASSWORD", "x")
	st, err := ReadFile("../../studies/point-select-binding.yaml")
	if err != nil {
		t.Fatal(err)
	}
	oneNode := func(list string) *results.CPUTopology {
		return &results.CPUTopology{CPUs: list, Cores: 1, ThreadsPerCore: 1, Packages: []int{0}, Nodes: []int{0}}
	}
	x86 := hostFacts{arch: "amd64", threadsPerCore: 1, smtControl: "notsupported", topology: oneNode}
	got := strings.Join(hostNotes(st, x86), "\n")
	for _, want := range []string{
		"every CPU list of the file lies on one NUMA node of this host, node 0",
		"SMT on this host: 1 thread per core; SMT cannot be varied here: the CPUs have none (smt/control: notsupported)",
		"host.smt 4 (the original's threads per core): NOT reproducible here: this host runs 1 thread per core and cannot run 4",
		"host.dscr 1 (the original's DSCR, the POWER Data Stream Control Register (hardware prefetch)): NOT reproducible here: it exists only on ppc64 and ppc64le, and this host is amd64",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("notes lack %q:\n%s", want, got)
		}
	}
	power := hostFacts{arch: "ppc64le", threadsPerCore: 4, smtControl: "4", dscr: "1", topology: oneNode}
	got = strings.Join(hostNotes(st, power), "\n")
	for _, want := range []string{"host.smt 4 (the original's threads per core): this host runs 4 threads per core, the same",
		"this host's default is 1, the same", "the threads per core can be set here, as root (smt/control: 4): cairn does not"} {
		if !strings.Contains(got, want) {
			t.Errorf("POWER notes lack %q:\n%s", want, got)
		}
	}
	// SMT that can be switched off, DSCR another value, lists on two nodes.
	twoNodes := func(list string) *results.CPUTopology {
		n := 0
		if list == "0-1" {
			n = 1
		}
		return &results.CPUTopology{CPUs: list, Cores: 1, ThreadsPerCore: 2, Nodes: []int{n}}
	}
	power = hostFacts{arch: "ppc64", threadsPerCore: 2, smtControl: "on", dscr: "0", topology: twoNodes}
	st.Host = []Assign{{"smt", "off"}, {"dscr", "0x10"}}
	got = strings.Join(hostNotes(st, power), "\n")
	for _, want := range []string{"each CPU list lies within one NUMA node of this host: client-cpus 1 on node 0; server-cpus 0 on node 0; server-cpus 0-1 on node 1",
		"host.smt off (the original's threads per core): NOT as this host runs now (2 threads per core); it can be switched here, as root, before the study: cairn does not",
		"NOT as this host runs: its default is 0; it can be set as root (ppc64_cpu --dscr=0x10): cairn does not"} {
		if !strings.Contains(got, want) {
			t.Errorf("notes lack %q:\n%s", want, got)
		}
	}
	// A study without CPU lists or host settings has nothing to say of the host.
	st.ClientCPUs, st.ServerCPUs, st.Host = []string{""}, []string{""}, nil
	if n := hostNotes(st, x86); n != nil {
		t.Errorf("notes %q", n)
	}
}

// host: takes the settings cairn knows, each once, with a value it can read; anything else is
// refused naming the key.
func TestHostKeyRefused(t *testing.T) {
	base := "name: h\nworkload: oltp\nvu: [1]\n"
	for text, key := range map[string]string{
		"host: {turbo: off}":      "host.turbo",
		"host: {smt: 3}":          "host.smt",
		"host: {smt: [4]}":        "host.smt",
		"host: {smt: 4, SMT: 2}":  "host.smt",
		"host: [smt]":             "host",
		"host: {dscr: \"\"}":      "host.dscr",
		"host: {smt: 8, dscr: 1}": "",
	} {
		_, err := Read([]byte(base + text))
		switch {
		case key == "" && err != nil:
			t.Errorf("%s: %v", text, err)
		case key != "" && (err == nil || !strings.Contains(err.Error(), key)):
			t.Errorf("%s: %v, want an error naming %s", text, err, key)
		}
	}
}
