package results

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Host is the inventory of the machine cairn ran on. Fields it could not read stay empty: a
// container may hide /sys, and other systems than Linux have no /proc.
type Host struct {
	Hostname  string `json:"hostname"`
	OS        string `json:"os"`
	Kernel    string `json:"kernel"`
	Arch      string `json:"arch"`
	CPUModel  string `json:"cpu_model"`
	Sockets   int    `json:"sockets,omitempty"`
	Cores     int    `json:"cores,omitempty"` // physical cores
	Threads   int    `json:"threads"`         // logical CPUs
	MemoryMiB int64  `json:"memory_mib,omitempty"`
	Governor  string `json:"cpu_governor,omitempty"`
}

// ReadHost reads the inventory from /proc, /sys and uname.
func ReadHost() *Host {
	h := &Host{Arch: runtime.GOARCH, Threads: runtime.NumCPU()}
	h.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		h.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
	}
	h.OS = runtime.GOOS
	if m := keyValues("/etc/os-release", "="); m["PRETTY_NAME"] != "" {
		h.OS = strings.Trim(m["PRETTY_NAME"], `"`)
	}
	h.CPUModel, h.Sockets, h.Cores = cpuInfo()
	if m := keyValues("/proc/meminfo", ":"); m["MemTotal"] != "" {
		kb, _ := strconv.ParseInt(strings.TrimSuffix(m["MemTotal"], " kB"), 10, 64)
		h.MemoryMiB = kb / 1024
	}
	if b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); err == nil {
		h.Governor = strings.TrimSpace(string(b))
	}
	return h
}

// cpuInfo counts distinct (physical id, core id) pairs: /proc/cpuinfo lists logical CPUs, and
// SMT siblings share a core id.
func cpuInfo() (model string, sockets, cores int) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "", 0, 0
	}
	defer f.Close()
	socketSet, coreSet := map[string]bool{}, map[string]bool{}
	phys := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name":
			if model == "" {
				model = v
			}
		case "physical id":
			phys = v
			socketSet[v] = true
		case "core id":
			coreSet[phys+"/"+v] = true
		}
	}
	return model, len(socketSet), len(coreSet)
}

func keyValues(path, sep string) map[string]string {
	m := map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, sep); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}
