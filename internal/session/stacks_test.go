package session

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload/oltp"
)

// stacksRun runs oltp read-only with --observe stacks against url, and returns the document and
// the lines shown before the run.
func stacksRun(t *testing.T, url string, vu string, set ...string) (*results.Document, []string) {
	return stacksRunCtx(context.Background(), t, url, vu, nil, set...)
}

// stacksRunCtx runs oltp with --observe stacks; set is more settings, as key, value, ….
// onStart, when not nil, is called as the measured window starts.
func stacksRunCtx(ctx context.Context, t *testing.T, url string, vu string, onStart func(), set ...string) (*results.Document, []string) {
	t.Helper()
	s, err := spec.New("oltp", false)
	if err != nil {
		t.Fatal(err)
	}
	s.DB = url
	for k, v := range map[string]string{"options.workload": "read-only", "options.tables": "1", "options.table-size": "10000",
		"vu": vu, "rampup": "0s", "duration": "3s", "progress": "0s", "seed": "1", "observe": "stacks"} {
		if err := s.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(set); i += 2 {
		if err := s.Set(set[i], set[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	s.AskPrepare()
	tg, err := target.Open(ctx, s.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if _, err := oltp.Cleanup(ctx, tg); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = oltp.Cleanup(context.Background(), tg) }()
	var notes []string
	se := &Session{Spec: s, W: s.WorkloadOf(), T: tg, Version: "test"}
	d, err := se.Run(ctx, event.New(event.Func(func(_ context.Context, e event.Event) error {
		switch e := e.(type) {
		case event.Note:
			notes = append(notes, e.Line)
		case event.Window:
			if e.Start && onStart != nil {
				onStart()
			}
		}
		return nil
	})))
	if err != nil {
		t.Fatal(err)
	}
	if name, v, ok := d.Headline(); !ok || v <= 0 {
		t.Fatalf("the run measured nothing: %s %v", name, v)
	}
	return d, notes
}

// TestStacksOfMariaDB: with --observe stacks, a MariaDB run at 16 VUs stores the server's
// on-CPU profile: named server functions, shares that add up, folded stacks, perf's files gone.
func TestStacksOfMariaDB(t *testing.T) {
	url := testutil.MySQL(t)
	if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
		t.Skip("perf sampling another user's server needs perf installed and root")
	}
	before, _ := os.ReadDir(os.TempDir())
	d, notes := stacksRun(t, url, "16")
	st := results.StacksOf(d)
	if st == nil {
		t.Fatalf("no stacks section; notes %q, document notes %q", notes, d.Notes)
	}
	if st.Note != "" || st.Samples == 0 || st.Event != "cpu-clock" || len(st.PIDs) == 0 || st.Kernel == nil {
		t.Fatalf("stacks section %+v", st)
	}
	named := 0
	for _, f := range st.Functions {
		if f.Named() && !results.KernelFrame(f.Name) {
			named++
		}
		if f.Self > f.Total || f.Total > 100 {
			t.Errorf("function %+v: self above inclusive share, or above 100%%", f)
		}
	}
	for i := 0; i < 8 && i < len(st.Functions); i++ {
		t.Logf("%6.2f%% self %6.2f%% total  %s", st.Functions[i].Self, st.Functions[i].Total, st.Functions[i].Name)
	}
	if named < 5 {
		t.Errorf("%d named server functions (the kernel's apart), want at least 5: %+v", named, st.Functions)
	}
	var n int64
	for _, f := range st.Folded {
		n += f.Count
	}
	if n+st.CutSamples != st.Samples || len(st.Folded) > 2000 {
		t.Errorf("folded stacks hold %d + %d cut samples of %d (%d stacks)", n, st.CutSamples, st.Samples, len(st.Folded))
	}
	after, _ := os.ReadDir(os.TempDir())
	for _, e := range after {
		// this process's own: other cairn processes on the host (other tests) make theirs
		if strings.HasPrefix(e.Name(), "cairn-stacks-"+strconv.Itoa(os.Getpid())+"-") && !contains(before, e.Name()) {
			t.Errorf("perf's temporary directory %s was left behind", e.Name())
		}
	}
}

func contains(es []os.DirEntry, name string) bool {
	for _, e := range es {
		if e.Name() == name {
			return true
		}
	}
	return false
}

// TestStacksWithoutPerf: without perf, --observe stacks says so in one line and the run goes on.
func TestStacksWithoutPerf(t *testing.T) {
	url := testutil.MySQL(t)
	t.Setenv("PATH", t.TempDir())
	d, notes := stacksRun(t, url, "2")
	var said []string
	for _, n := range notes {
		if strings.Contains(n, "--observe stacks") {
			said = append(said, n)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "perf is not installed") {
		t.Errorf("notes %q: want one line saying perf is not installed", notes)
	}
	if results.StacksOf(d) != nil {
		t.Errorf("a stacks section without perf")
	}
	if d.Server == nil || d.Server.CPUSeconds <= 0 {
		t.Errorf("the rest of the observation is gone: server %+v", d.Server)
	}
}

// TestStacksPerfFails: a perf that cannot start says why in one line before the run, in the
// document's notes and in the section's note, and the run goes on.
func TestStacksPerfFails(t *testing.T) {
	url := testutil.MySQL(t)
	if os.Geteuid() != 0 {
		t.Skip("perf sampling another user's server needs root")
	}
	dir := t.TempDir()
	fake := "#!/bin/sh\necho 'perf: failed to mmap with 1 (Operation not permitted)' >&2\nexit 1\n"
	if err := os.WriteFile(dir+"/perf", []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	d, notes := stacksRun(t, url, "2")
	var said []string
	for _, n := range notes {
		if strings.Contains(n, "--observe stacks") {
			said = append(said, n)
		}
	}
	const why = "perf did not start: perf: failed to mmap with 1 (Operation not permitted)"
	if len(said) != 1 || !strings.Contains(said[0], why) {
		t.Errorf("notes %q: want one line saying %q", notes, why)
	}
	st := results.StacksOf(d)
	if st == nil || st.Note != why || st.Samples != 0 {
		t.Errorf("stacks section %+v: want the note %q", st, why)
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), why) {
		t.Errorf("document notes %q lack %q", d.Notes, why)
	}
	if d.Server == nil || d.Server.CPUSeconds <= 0 {
		t.Errorf("the rest of the observation is gone: server %+v", d.Server)
	}
}

// TestStacksInterrupted: a run interrupted in its window (Ctrl-C) keeps the profile of the window
// so far, and perf is gone.
func TestStacksInterrupted(t *testing.T) {
	url := testutil.MySQL(t)
	if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
		t.Skip("perf sampling another user's server needs perf installed and root")
	}
	// Ctrl-C 1.5 s into the 3 s window, on the window's own start: a deadline from before the
	// prepare and the connections fell before the window on a loaded host.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, _ := stacksRunCtx(ctx, t, url, "4", func() { time.AfterFunc(1500*time.Millisecond, cancel) })
	st := results.StacksOf(d)
	if !d.Interrupted || st == nil || st.Note != "" || st.Samples == 0 || st.Seconds <= 0 || st.Seconds >= 3 {
		t.Fatalf("interrupted %v, stacks section %+v: want the profile of the window so far", d.Interrupted, st)
	}
}

// TestStacksHz: --stacks-hz sets perf's rate: perf samples the server's threads while they run,
// Hz times each CPU-second of theirs, so at 999 Hz the samples per CPU-second of the server's are
// well above the 99 that the default rate gives, however little CPU a busy host left the server
// (a rate per second of the window fell under 99 Hz on every CPU at a load of 20).
func TestStacksHz(t *testing.T) {
	url := testutil.MySQL(t)
	if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
		t.Skip("perf sampling another user's server needs perf installed and root")
	}
	d, notes := stacksRun(t, url, "16", "stacks-hz", "999")
	st := results.StacksOf(d)
	if st == nil || st.Note != "" || st.Seconds <= 0 {
		t.Fatalf("stacks section %+v; notes %q", st, notes)
	}
	if d.Server == nil || d.Server.CPUSeconds <= 0 {
		t.Fatalf("server %+v: want the server's CPU time", d.Server)
	}
	// The stacks cover the window, the server's CPU time too; 3×99 leaves room for the two
	// spans' edges and perf's own losses.
	perCPUSecond := float64(st.Samples) / d.Server.CPUSeconds
	if st.Hz != 999 || perCPUSecond <= 3*99 {
		t.Errorf("stacks at %d Hz, %.0f samples per CPU-second of the server's (%d samples, %.2f s): want 999 Hz and more than %d", st.Hz, perCPUSecond, st.Samples, d.Server.CPUSeconds, 3*99)
	}
	t.Logf("%.0f samples per CPU-second of the server's at 999 Hz", perCPUSecond)
}
