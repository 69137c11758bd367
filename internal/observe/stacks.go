package observe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"

	"github.com/cairn-bench/cairn/internal/results"
)

// Bounds of the stored profile.
const (
	stacksFunctions = 30
	stacksFolded    = 2000
)

// stacks samples the server's on-CPU stacks with perf record over the window; the stored
// section is perf script's output folded (Close).
//
// perf starts before the run, with its events disabled, and the window's edges enable and
// disable them: perf's start (with -a it describes every process on the host) and its end
// (writing its file) fall outside the window.
type stacks struct {
	Base
	perf    string
	hz      int // perf's rate (--stacks-hz)
	servers []*Server
	dir     string
	cmd     *exec.Cmd
	exited  chan struct{} // closed when perf has exited, waitErr then its status
	waitErr error
	ctl     *os.File // perf's control commands ("enable", "disable")
	ack     *os.File // perf's "ack" of each
	out     bytes.Buffer
	pids    []int
	started time.Time
	seconds float64
	sec     *results.Stacks
	note    string
	// live cuts the samples into the live segments' settled parts, by their timestamps.
	live liveStacks
}

func init() {
	Register(Kind{Name: "stacks", Order: 50, Start: startStacks})
}

func startStacks(_ context.Context, env *Env) (Observer, error) {
	if env.Observe != "stacks" {
		return nil, nil
	}
	const no = "--observe stacks: no on-CPU profile: "
	var local []*Server
	for _, s := range serversOf(env) {
		switch {
		case s.embedded():
			env.note(no + "SQLite runs inside cairn, whose stacks are not the server's")
			return nil, nil
		case !s.Local:
			env.note(no + "the server at " + env.Target.Address() + " is not on this host, and perf samples only local processes")
			return nil, nil
		case s.PID == 0:
			env.note(no + "the server's process was not found (" + s.Why + ")")
			return nil, nil
		}
		local = append(local, s)
	}
	perf, err := exec.LookPath("perf")
	if err != nil {
		env.note(no + "perf is not installed (Debian: apt-get install linux-perf)")
		return nil, nil
	}
	if why := perfDenied(local); why != "" {
		env.note(no + why)
		return nil, nil
	}
	hz := env.StacksHz
	if hz <= 0 {
		hz = 99 // an Env built without the engine's defaults (tests, older callers)
	}
	o := &stacks{perf: perf, servers: local, hz: hz}
	if o.start(); o.note != "" {
		env.note("--observe stacks: " + o.note)
	}
	return o, nil
}

// perfDenied says why perf may not sample the servers' processes, or "".
func perfDenied(servers []*Server) string {
	if os.Geteuid() == 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
	if p, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && p > 2 {
		return fmt.Sprintf("kernel.perf_event_paranoid is %d: only root may sample (run cairn as root, or set it to 2 or less)", p)
	}
	for _, s := range servers {
		if st, err := os.Stat(fmt.Sprintf("/proc/%d", s.PID)); err == nil {
			if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
				return fmt.Sprintf("the server's process %d belongs to another user: perf may sample it as root only", s.PID)
			}
		}
	}
	return ""
}

// serverPIDs are the servers' processes and their children (PostgreSQL's backends), as they
// are when the window starts: the VUs are connected by then.
func serverPIDs(servers []*Server) []int {
	want := map[int]bool{}
	for _, s := range servers {
		want[s.PID] = true
	}
	out := []int{}
	for _, s := range servers {
		out = append(out, s.PID)
	}
	procs, err := procfs.AllProcs()
	if err != nil {
		return out
	}
	for _, p := range procs {
		if st, err := p.Stat(); err == nil && want[st.PPID] && !want[p.PID] {
			out = append(out, p.PID)
		}
	}
	return out
}

// perfScript bounds perf script's folding of the window's samples.
const perfScript = 2 * time.Minute

// perfReady bounds how long perf may take to start (it describes every process on the host) and
// to answer a command.
const perfReady = 10 * time.Second

// start starts perf record with its events disabled, and waits until it answers on its control
// pipe: by then it has described the host's processes and opened its events.
func (o *stacks) start() {
	sweepStacksDirs(os.TempDir())
	dir, err := os.MkdirTemp("", stacksDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		o.note = "no temporary directory for perf: " + err.Error()
		return
	}
	o.dir = dir
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		o.note = "no pipe to control perf: " + err.Error()
		return
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		o.note = "no pipe to control perf: " + err.Error()
		return
	}
	o.ctl, o.ack = ctlW, ackR
	// Every CPU, not the server's tasks (-p): a per-task event is switched in and out with its
	// task, which on a server that switches at every statement cost 13-18% of PostgreSQL's point
	// selects (bench/observe.sh); a per-CPU event costs the same whoever runs, and the server's
	// samples are picked out by process when they are folded. -B: no build ids, so that perf
	// neither reads its whole file again as it ends nor copies the binaries it saw into
	// ~/.debug; perf script runs on this host, on the same binaries, right after.
	// -k: the samples' times are CLOCK_MONOTONIC's, which cairn reads at the live changes to
	// cut the samples into segments (liveStacks).
	o.cmd = exec.Command(o.perf, "record", "-q", "-e", "cpu-clock", "-F", strconv.Itoa(o.hz), "-g",
		"-a", "-B", "-N", "-k", "CLOCK_MONOTONIC", "--delay=-1", "--control", "fd:3,4", "-o", filepath.Join(dir, "perf.data"))
	o.cmd.Stdout, o.cmd.Stderr = &o.out, &o.out
	o.cmd.ExtraFiles = []*os.File{ctlR, ackW} // fds 3 and 4
	// perf runs in a process group of its own, so that a terminal's Ctrl-C reaches cairn alone,
	// which then ends the window and stops perf itself (perf would end before its last "disable",
	// and the profile of the window so far be lost); it ends with cairn if cairn is killed.
	o.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	err = o.cmd.Start()
	ctlR.Close()
	ackW.Close()
	if err != nil {
		o.note, o.cmd = "perf did not start: "+err.Error(), nil
		return
	}
	o.exited = make(chan struct{})
	go func() { o.waitErr = o.cmd.Wait(); close(o.exited) }()
	if err := o.command("ping"); err != nil {
		o.note = "perf did not start: " + err.Error()
		o.kill()
	}
}

// stacksDirPrefix starts the name of perf's temporary directory, followed by cairn's process id.
const stacksDirPrefix = "cairn-stacks-"

// sweepStacksDirs removes the perf directories in dir left by a cairn that was killed (SIGKILL, a
// crash: Close never ran; perf itself ends with cairn, Pdeathsig), found by the process id in
// their name no longer running. Directories of a running cairn, and names of another shape, stay.
func sweepStacksDirs(dir string) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range es {
		rest, ok := strings.CutPrefix(e.Name(), stacksDirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pid, _, ok := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || n <= 0 || n == os.Getpid() {
			continue
		}
		if err := syscall.Kill(n, 0); err == nil || errors.Is(err, syscall.EPERM) {
			continue // alive (EPERM: alive, another user's)
		}
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// command sends perf a control command and waits for its ack.
func (o *stacks) command(c string) error {
	if err := o.ack.SetReadDeadline(time.Now().Add(perfReady)); err != nil {
		return err
	}
	if _, err := o.ctl.WriteString(c + "\n"); err != nil {
		return o.ended(err)
	}
	var b [16]byte
	n, err := o.ack.Read(b[:])
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("perf did not answer %q within %s", c, perfReady)
	case err != nil:
		return o.ended(err)
	case !strings.HasPrefix(string(b[:n]), "ack"):
		return fmt.Errorf("perf answered %q with %q", c, b[:n])
	}
	return nil
}

// ended is why perf stopped answering: its own words when it has exited.
func (o *stacks) ended(err error) error {
	select {
	case <-o.exited:
		if o.waitErr != nil {
			err = fmt.Errorf("%v (%v)", err, o.waitErr)
		}
		return errors.New(firstLine(o.out.String(), err))
	case <-time.After(time.Second):
		return err
	}
}

func (o *stacks) Window(start bool) {
	if o.cmd == nil || o.note != "" {
		return
	}
	if start {
		o.pids = serverPIDs(o.servers)
		if err := o.command("enable"); err != nil {
			o.note = "perf did not start sampling: " + err.Error()
			return
		}
		o.started = time.Now()
		o.live.window(true)
		return
	}
	if o.started.IsZero() || o.seconds > 0 {
		return
	}
	o.seconds = time.Since(o.started).Seconds()
	o.live.window(false)
	if err := o.command("disable"); err != nil {
		o.note = "perf did not stop sampling: " + err.Error()
	}
}

// stop ends perf record as Ctrl-C would, so that it writes its file; a perf that does not end
// within 10 seconds is killed.
func (o *stacks) stop() {
	_ = o.cmd.Process.Signal(os.Interrupt)
	select {
	case <-o.exited:
		err := o.waitErr
		var ee *exec.ExitError
		// perf ends on SIGINT with status 0, or as killed by it; anything else is its own failure.
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == -1) && o.note == "" {
			o.note = "perf record failed: " + firstLine(o.out.String(), err)
		}
	case <-time.After(perfReady):
		o.kill()
		if o.note == "" {
			o.note = "perf record did not stop within 10 s and was killed"
		}
	}
}

// kill ends perf at once and waits for it.
func (o *stacks) kill() {
	_ = o.cmd.Process.Kill()
	<-o.exited
}

// Close stops perf, folds the window's samples and removes perf's files. A run whose window
// never started has no section.
func (o *stacks) Close(ctx context.Context) error {
	if o.ctl != nil {
		defer o.ctl.Close()
		defer o.ack.Close()
	}
	if o.dir != "" {
		defer os.RemoveAll(o.dir)
	}
	if o.cmd == nil {
		if o.note != "" {
			o.sec = &results.Stacks{Event: "cpu-clock", Hz: o.hz, Note: o.note}
		}
		return nil
	}
	switch {
	case o.started.IsZero() && o.note == "":
		o.kill()
		return nil
	case o.started.IsZero():
		o.kill()
	default:
		if o.seconds == 0 {
			o.Window(false)
		}
		o.stop()
	}
	o.sec = &results.Stacks{Event: "cpu-clock", Hz: o.hz, PIDs: o.pids, Seconds: roundTo(o.seconds, 2), Note: o.note}
	if o.note != "" {
		return nil
	}
	// An interrupted run keeps its profile of the window so far: perf script is not cut by the
	// run's cancellation, only bounded.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), perfScript)
	defer cancel()
	sc := exec.CommandContext(sctx, o.perf, "script", "-i", filepath.Join(o.dir, "perf.data"), "-F", "comm,pid,tid,time,ip,sym,dso")
	var errb bytes.Buffer
	sc.Stderr = &errb
	out, err := sc.StdoutPipe()
	if err == nil {
		err = sc.Start()
	}
	if err != nil {
		o.sec.Note = "perf script did not start: " + err.Error()
		return nil
	}
	// The server's processes: those of the window's start, and children started since (a
	// backend for a reconnected VU).
	keep := map[int]bool{}
	for _, p := range append(o.pids, serverPIDs(o.servers)...) {
		keep[p] = true
	}
	folded := map[string]int64{}
	spans := o.live.spans()
	segs := make([]map[string]int64, len(spans))
	perr := ScanPerfScript(out, func(pid int) bool { return keep[pid] }, func(t float64, stack string) {
		folded[stack]++
		if k := spanOf(spans, t); k >= 0 {
			if segs[k] == nil {
				segs[k] = map[string]int64{}
			}
			segs[k][stack]++
		}
	})
	if err := sc.Wait(); err != nil || perr != nil {
		o.sec.Note = "perf script failed: " + firstLine(errb.String(), errors.Join(err, perr))
		return nil
	}
	fillStacks(o.sec, folded, stacksFolded)
	o.sec.Segments = segmentStacks(spans, segs)
	if o.sec.Samples == 0 {
		o.sec.Note = "perf recorded no samples of the server in the window"
	}
	return nil
}

func (o *stacks) Fill(d *results.Document) {
	if o.sec != nil && o.sec.Note != "" {
		d.Notes = append(d.Notes, "--observe stacks: "+o.sec.Note)
	}
}

// Section is stored under extra.observations.stacks.
func (o *stacks) Section() any {
	if o.sec == nil {
		return nil
	}
	return o.sec
}

func firstLine(out string, err error) string {
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return err.Error()
}

// FoldPerfScript folds perf script's samples (comm, pid/tid header, then one frame a line,
// leaf first, a blank line after each) into counts per stack, root first. A frame is its
// symbol, or its object in brackets where perf has no symbol for it.
//
// keep, when not nil, picks the samples to fold by the process they hit.
func FoldPerfScript(r io.Reader, keep func(pid int) bool) (map[string]int64, error) {
	out := map[string]int64{}
	err := ScanPerfScript(r, keep, func(_ float64, stack string) { out[stack]++ })
	return out, err
}

// ScanPerfScript reads perf script's samples of the processes keep picks (nil: all) and gives
// each one's time (seconds on perf's clock, from a header with perf script's time field; 0
// without) and stack, folded root first as FoldPerfScript folds them.
func ScanPerfScript(r io.Reader, keep func(pid int) bool, sample func(t float64, stack string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var frames []string
	t := 0.0
	flush := func() {
		if len(frames) > 0 {
			for i, j := 0, len(frames)-1; i < j; i, j = i+1, j-1 {
				frames[i], frames[j] = frames[j], frames[i]
			}
			sample(t, strings.Join(frames, ";"))
			frames = frames[:0]
		}
	}
	inSample := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
			inSample = false
		case line[0] != ' ' && line[0] != '\t':
			flush()
			var pid int
			pid, t = header(line)
			inSample = keep == nil || keep(pid)
		case inSample:
			frames = append(frames, frameName(strings.TrimSpace(line)))
		}
	}
	flush()
	return sc.Err()
}

// header is the process and time of a sample's header line, "comm pid/tid [time:]" (comm may
// hold spaces); pid -1 when the line has none, time 0 without it.
func header(line string) (int, float64) {
	f := strings.Fields(line)
	t := 0.0
	for i := len(f) - 1; i >= 0; i-- {
		if v, ok := strings.CutSuffix(f[i], ":"); ok && t == 0 {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				t = x
			}
			continue
		}
		if pid, _, ok := strings.Cut(f[i], "/"); ok {
			if n, err := strconv.Atoi(pid); err == nil {
				return n, t
			}
		}
	}
	return -1, t
}

// frameName is "sym" of "addr sym (dso)", or "[dso's base name]" when perf has no symbol; a
// kernel frame's name ends in results.KernelMark.
func frameName(l string) string {
	addr, rest, _ := strings.Cut(l, " ")
	rest = strings.TrimSpace(rest)
	sym, dso := rest, ""
	if i := strings.LastIndex(rest, " ("); i >= 0 && strings.HasSuffix(rest, ")") {
		sym, dso = rest[:i], rest[i+2:len(rest)-1]
	}
	mark := ""
	if kernelFrame(addr, dso) {
		mark = results.KernelMark
	}
	if sym == "" || sym == "[unknown]" {
		if dso == "" || dso == "[unknown]" {
			return "[unknown]"
		}
		return "[" + strings.Trim(filepath.Base(dso), "[]") + "]" + mark
	}
	// ";" separates frames in a folded stack; C++ names do not use it.
	return strings.ReplaceAll(sym, ";", ":") + mark
}

// kernelFrame reports whether perf's frame at addr in dso is the kernel's: perf's object for the
// kernel's image is [kernel.kallsyms] (a guest's, [guest.kernel.kallsyms]); a module's code is
// its object ("[xfs]", "xfs.ko") at an address in the kernel's half of the address space
// (x86-64 and arm64 alike), where only [vsyscall] is user code.
func kernelFrame(addr, dso string) bool {
	switch {
	case dso == "[kernel.kallsyms]" || strings.HasPrefix(dso, "[guest.kernel.kallsyms"):
		return true
	case dso == "" || dso == "[unknown]" || dso == "[vsyscall]":
		return false
	}
	a, err := strconv.ParseUint(addr, 16, 64)
	return err == nil && a >= 0xffff800000000000
}

// fillStacks ranks the folded stacks into the section: its top functions and its commonest
// stacks, the first keep of them.
func fillStacks(s *results.Stacks, folded map[string]int64, keep int) {
	self, total := map[string]int64{}, map[string]int64{}
	all := make([]results.FoldedStack, 0, len(folded))
	var kernel int64
	for st, n := range folded {
		s.Samples += n
		all = append(all, results.FoldedStack{Stack: st, Count: n})
		frames := strings.Split(st, ";")
		leaf := frames[len(frames)-1]
		self[leaf] += n
		if results.KernelFrame(leaf) {
			kernel += n
		}
		seen := map[string]bool{}
		for _, f := range frames {
			if !seen[f] {
				seen[f] = true
				total[f] += n
			}
		}
	}
	if s.Samples == 0 {
		return
	}
	k := roundTo(100*float64(kernel)/float64(s.Samples), 2)
	s.Kernel = &k
	sort.Slice(all, func(i, j int) bool {
		if all[i].Count != all[j].Count {
			return all[i].Count > all[j].Count
		}
		return all[i].Stack < all[j].Stack
	})
	if len(all) > keep {
		for _, f := range all[keep:] {
			s.CutStacks++
			s.CutSamples += f.Count
		}
		all = all[:keep]
	}
	s.Folded = all
	pick := map[string]bool{}
	for _, m := range []map[string]int64{self, total} {
		for _, n := range topKeys(m, stacksFunctions) {
			pick[n] = true
		}
	}
	pc := func(n int64) float64 { return roundTo(100*float64(n)/float64(s.Samples), 2) }
	for n := range pick {
		s.Functions = append(s.Functions, results.StackFunction{Name: n, Self: pc(self[n]), Total: pc(total[n])})
	}
	sort.Slice(s.Functions, func(i, j int) bool {
		a, b := s.Functions[i], s.Functions[j]
		if a.Self != b.Self {
			return a.Self > b.Self
		}
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return a.Name < b.Name
	})
}

func topKeys(m map[string]int64, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}
