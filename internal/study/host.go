package study

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// A study reproduces a published one on another host. Some of what the original's host ran with
// cairn does not set (the SMT mode) or this host does not have (POWER's DSCR on x86); the file
// names them under host:, and the plan and the run say, for each, whether this host matches, and
// what the file's CPU lists cover here, rather than leave the difference unsaid.

// hostKeys are the host settings a study file may name, with what each is and the architectures
// (GOARCH) that have it; none: every one.
var hostKeys = []struct {
	name, what string
	arches     []string
}{
	{"smt", "threads per core (the SMT mode)", nil},
	{"dscr", "DSCR, the POWER Data Stream Control Register (hardware prefetch)", []string{"ppc64", "ppc64le"}},
}

// readHost reads host: a mapping of host settings the original used to values.
func readHost(v *yaml.Node) ([]Assign, error) {
	var names []string
	for _, k := range hostKeys {
		names = append(names, k.name)
	}
	if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
		return nil, errf("host", "must be a mapping of the original host's settings (%s) to values", strings.Join(names, ", "))
	}
	var out []Assign
	for i := 0; i+1 < len(v.Content); i += 2 {
		name, val := strings.ToLower(v.Content[i].Value), v.Content[i+1]
		key := "host." + name
		if !slices.Contains(names, name) {
			return nil, errf(key, "not a host setting cairn knows: use %s", strings.Join(names, ", "))
		}
		if slices.ContainsFunc(out, func(a Assign) bool { return a.Name == name }) {
			return nil, errf(key, "given twice")
		}
		if val.Kind != yaml.ScalarNode || val.Value == "" {
			return nil, errf(key, "must be a value")
		}
		if name == "smt" {
			if _, ok := smtThreads(val.Value); !ok {
				return nil, errf(key, "must be off, on or the threads per core (1, 2, 4, 8); given %s", val.Value)
			}
		}
		out = append(out, Assign{name, val.Value})
	}
	return out, nil
}

// smtThreads is an SMT mode as threads per core (1, 2, 4 or 8: the modes Linux offers on x86 and
// POWER): off is 1, on is 0 (some number above 1).
func smtThreads(v string) (int, bool) {
	switch strings.ToLower(v) {
	case "off":
		return 1, true
	case "on":
		return 0, true
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && slices.Contains([]int{1, 2, 4, 8}, n)
}

// hostFacts are what the notes read of this host; tests give their own.
type hostFacts struct {
	arch           string // GOARCH
	threadsPerCore int    // the most threads a core has; 0: not readable
	smtControl     string // /sys/devices/system/cpu/smt/control; "": missing
	dscr           string // POWER's dscr_default; "": none
	topology       func(list string) *results.CPUTopology
}

func thisHost() hostFacts {
	return hostFacts{arch: runtime.GOARCH, threadsPerCore: observe.HostThreadsPerCore(), smtControl: observe.SMTControl(),
		dscr: observe.DSCRDefault(), topology: cpuTopology}
}

// HostNotes say what a study's file asks of the host that this host gives or does not: the NUMA
// nodes of its CPU lists taken together, whether this host can vary SMT, and each host setting of
// the original (host:) as reproducible here or not. Each CPU list's own cover (cores, threads per
// core, node) is printed beside it by the plan.
func HostNotes(st *Study) []string { return hostNotes(st, thisHost()) }

func hostNotes(st *Study, h hostFacts) []string {
	var out []string
	lists := cpuLists(st)
	if len(lists) > 0 {
		out = append(out, numaNote(lists, h))
	}
	smt := ""
	for _, a := range st.Host {
		if a.Name == "smt" {
			smt = a.Value
		}
	}
	if len(lists) > 0 || smt != "" {
		out = append(out, "SMT on this host: "+smtText(h))
	}
	for _, a := range st.Host {
		switch a.Name {
		case "smt":
			out = append(out, smtNote(a.Value, h))
		case "dscr":
			out = append(out, dscrNote(a.Value, h))
		}
	}
	return out
}

// numaNote says where the file's CPU lists lie: all on one node of this host (so whatever the
// original placed on different nodes shares one here), each within a node, or some across nodes.
func numaNote(lists [][2]string, h hostFacts) string {
	var nodes []int
	var across, each []string
	for _, l := range lists {
		t := h.topology(l[1])
		if t == nil || len(t.Nodes) == 0 {
			return "NUMA nodes not readable on this host: where the CPU lists lie is not known"
		}
		for _, n := range t.Nodes {
			if !slices.Contains(nodes, n) {
				nodes = append(nodes, n)
			}
		}
		where := fmt.Sprintf("%s %s on node %s", l[0], l[1], ints(t.Nodes))
		if len(t.Nodes) > 1 {
			across = append(across, fmt.Sprintf("%s %s spans nodes %s", l[0], l[1], ints(t.Nodes)))
		}
		each = append(each, where)
	}
	switch {
	case len(across) > 0:
		return "CPU lists across NUMA nodes of this host: " + strings.Join(across, "; ")
	case len(nodes) == 1:
		return fmt.Sprintf("every CPU list of the file lies on one NUMA node of this host, node %d: what the lists bind shares that node's memory", nodes[0])
	}
	return "each CPU list lies within one NUMA node of this host: " + strings.Join(each, "; ")
}

func ints(l []int) string {
	s := make([]string, len(l))
	for i, v := range l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// smtText is this host's SMT: its threads per core and whether it can change them.
func smtText(h hostFacts) string {
	tpc := "threads per core not readable"
	if h.threadsPerCore > 0 {
		tpc = textfmt.Plural(h.threadsPerCore, "thread") + " per core"
	}
	switch c := h.smtControl; c {
	case "":
		return tpc + "; whether SMT can be varied is not known (no /sys/devices/system/cpu/smt/control)"
	case "notsupported":
		return tpc + "; SMT cannot be varied here: the CPUs have none (smt/control: notsupported)"
	case "notimplemented":
		return tpc + "; SMT cannot be varied here: the kernel cannot control it on this host (smt/control: notimplemented)"
	case "forceoff":
		return tpc + "; SMT is forced off until a reboot (smt/control: forceoff)"
	case "on", "off":
		return tpc + "; SMT can be switched on and off here, as root (echo on|off > /sys/devices/system/cpu/smt/control): cairn does not (smt/control: " + c + ")"
	default:
		return tpc + "; the threads per core can be set here, as root (smt/control: " + c + "): cairn does not"
	}
}

// smtNote says whether this host runs the original's SMT mode.
func smtNote(v string, h hostFacts) string {
	want, _ := smtThreads(v)
	head := "host.smt " + v + " (the original's threads per core): "
	have := h.threadsPerCore
	if h.smtControl == "off" || h.smtControl == "forceoff" {
		have = 1
	}
	switch {
	case have == 0:
		return head + "not known whether this host matches: its threads per core are not readable"
	case want == have || want == 0 && have > 1:
		return head + "this host runs " + textfmt.Plural(have, "thread") + " per core, the same"
	case (h.smtControl == "on" || h.smtControl == "off") && (want == 1 || want == 0 || want == h.threadsPerCore):
		return head + "NOT as this host runs now (" + textfmt.Plural(have, "thread") + " per core); it can be switched here, as root, before the study: cairn does not"
	}
	return head + "NOT reproducible here: this host runs " + textfmt.Plural(have, "thread") + " per core and cannot run " + v
}

// dscrNote says whether this host has the original's DSCR, and with which value.
func dscrNote(v string, h hostFacts) string {
	k := hostKeys[1]
	head := "host.dscr " + v + " (the original's " + k.what + "): "
	if !slices.Contains(k.arches, h.arch) {
		return head + "NOT reproducible here: it exists only on " + strings.Join(k.arches, " and ") + ", and this host is " + h.arch
	}
	switch {
	case h.dscr == "":
		return head + "not known whether this host matches: no /sys/devices/system/cpu/dscr_default"
	case dscrEqual(h.dscr, v):
		return head + "this host's default is " + h.dscr + ", the same"
	}
	return head + "NOT as this host runs: its default is " + h.dscr + "; it can be set as root (ppc64_cpu --dscr=" + v + "): cairn does not"
}

// dscrEqual compares the kernel's DSCR (written in hex, without 0x) with a file's value (decimal,
// or hex with 0x).
func dscrEqual(kernel, file string) bool {
	x, err1 := strconv.ParseUint(kernel, 16, 64)
	y, err2 := strconv.ParseUint(file, 0, 64)
	return err1 == nil && err2 == nil && x == y
}
