package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/textfmt"
	"github.com/cairn-bench/cairn/internal/undo"
)

// CPUError is a CPU list that cannot be used on this host (exit 2).
type CPUError struct{ Flag, List, Msg string }

func (e *CPUError) Error() string { return fmt.Sprintf("--%s %s: %s", e.Flag, e.List, e.Msg) }

// BadInput marks the error as the user's to fix.
func (e *CPUError) BadInput() {}

// OnlineCPUs lists the CPUs this host has online.
func OnlineCPUs() ([]int, error) {
	s, err := readSys("devices/system/cpu/online")
	if err != nil {
		return nil, err
	}
	return textfmt.ParseCPUList(s)
}

// HostCPUs reads a --client-cpus or --server-cpus list and checks that this host has every CPU.
func HostCPUs(flag, list string) ([]int, error) {
	cpus, err := textfmt.ParseCPUList(list)
	if err != nil {
		return nil, &CPUError{Flag: flag, List: list, Msg: err.Error()}
	}
	online, err := OnlineCPUs()
	if err != nil {
		return cpus, nil // the kernel will refuse what it does not have
	}
	have := map[int]bool{}
	for _, c := range online {
		have[c] = true
	}
	for _, c := range cpus {
		if !have[c] {
			return nil, &CPUError{Flag: flag, List: list, Msg: fmt.Sprintf("this host has no CPU %d online (it has %s)", c, textfmt.FormatCPUList(online))}
		}
	}
	return cpus, nil
}

func cpuSet(cpus []int) unix.CPUSet {
	var s unix.CPUSet
	for _, c := range cpus {
		s.Set(c)
	}
	return s
}

func setCPUs(s unix.CPUSet) []int {
	var out []int
	for c := 0; c < len(s)*64; c++ {
		if s.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// PinSelf binds every thread of this process to cpus (threads made later inherit the binding)
// and sets GOMAXPROCS to their count.
func PinSelf(cpus []int) error {
	set := cpuSet(cpus)
	tids, err := threads(os.Getpid())
	if err != nil {
		return err
	}
	for _, tid := range tids {
		if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("bind cairn to CPUs %s: %w", textfmt.FormatCPUList(cpus), err)
		}
	}
	runtime.GOMAXPROCS(len(cpus))
	return nil
}

// Affinity reads a process's CPU binding (its main thread's), as a CPU list.
func Affinity(pid int) (string, error) {
	var s unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &s); err != nil {
		return "", err
	}
	return textfmt.FormatCPUList(setCPUs(s)), nil
}

func threads(pid int) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}

// tree is a process and its children (PostgreSQL's backends are children of the postmaster).
func tree(pid int) ([]int, error) {
	procs, err := procfs.AllProcs()
	if err != nil {
		return nil, err
	}
	out := []int{pid}
	for _, p := range procs {
		if st, err := p.Stat(); err == nil && st.PPID == pid {
			out = append(out, p.PID)
		}
	}
	return out, nil
}

// Pinning is a server's processes bound to CPUs for a run.
type Pinning struct {
	PID   int
	CPUs  []int
	saved pinData
	entry *undo.Entry
}

// pinData is what undoes a pinning: every thread's CPU list before it, and the process's own
// for threads and children made during the run. Start identifies the process, so that a pid the
// kernel gave to another process since is left alone.
type pinData struct {
	PID     int            `json:"pid"`
	Start   uint64         `json:"start"`
	Main    string         `json:"main"`
	Threads map[int]string `json:"threads"`
}

func startTime(pid int) (uint64, error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, err
	}
	st, err := p.Stat()
	if err != nil {
		return 0, err
	}
	return st.Starttime, nil
}

// PinServer binds the process pid, every thread of it and of its children, to cpus, after
// recording their bindings in the undo journal. Restore puts them back.
func PinServer(pid int, cpus []int, what string) (*Pinning, error) {
	start, err := startTime(pid)
	if err != nil {
		return nil, err
	}
	main, err := Affinity(pid)
	if err != nil {
		return nil, fmt.Errorf("read the CPU binding of %s (pid %d): %w", what, pid, err)
	}
	d := pinData{PID: pid, Start: start, Main: main, Threads: map[int]string{}}
	procs, err := tree(pid)
	if err != nil {
		return nil, err
	}
	for _, p := range procs {
		tids, _ := threads(p)
		for _, tid := range tids {
			if a, err := Affinity(tid); err == nil {
				d.Threads[tid] = a
			}
		}
	}
	e, err := undo.Record("affinity", fmt.Sprintf("CPU binding of %s (pid %d), %s before", what, pid, main), "", d)
	if err != nil {
		return nil, err
	}
	p := &Pinning{PID: pid, CPUs: cpus, saved: d, entry: e}
	set := cpuSet(cpus)
	for tid := range d.Threads {
		if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
			_ = p.Restore()
			return nil, fmt.Errorf("bind %s (pid %d) to CPUs %s: %w", what, pid, textfmt.FormatCPUList(cpus), err)
		}
	}
	return p, nil
}

// Restore puts every thread of the process and its children back as they were; threads and
// children made during the run get the process's own binding from before.
func (p *Pinning) Restore() error {
	if p == nil {
		return nil
	}
	if err := restorePins(p.saved); err != nil {
		return err
	}
	return p.entry.Done()
}

func restorePins(d pinData) error {
	if s, err := startTime(d.PID); err != nil || s != d.Start {
		return nil // the process is gone (a restart), and with it the binding
	}
	procs, err := tree(d.PID)
	if err != nil {
		return err
	}
	var errs []error
	for _, pr := range procs {
		tids, _ := threads(pr)
		for _, tid := range tids {
			list, ok := d.Threads[tid]
			if !ok {
				list = d.Main
			}
			cpus, err := textfmt.ParseCPUList(list)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			set := cpuSet(cpus)
			if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func init() {
	undo.Register("affinity", func(_ context.Context, e *undo.Entry, _ string) error {
		var d pinData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		return restorePins(d)
	})
}
