package cli

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

// --vu beyond what the database accepts is refused before any connection is opened, naming the
// limit: cairn's cap for SQLite, max_connections for the servers.
func TestVUsBeyondTheLimit(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			cairn(t, "tpcb", "cleanup", "--db", url)
			if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
				t.Fatalf("prepare: %d %s %s", code, out, stderr)
			}
			t.Cleanup(func() { cairn(t, "tpcb", "cleanup", "--db", url) })
			want := map[string]string{"sqlite": "cairn's cap for an SQLite file", "postgres": "max_connections", "mysql": "max_connections"}[tg.Name]
			for _, args := range [][]string{{"tpcb", "run", "--vu", "100000"}, {"tpcb", "profile", "--vu", "1,100000"}} {
				start := time.Now()
				code, _, stderr := cairn(t, append(args, "--db", url, "--no-store", "--duration", "1s")...)
				if code != ExitUsage || !strings.Contains(stderr, want) || !strings.Contains(stderr, "--vu 100000") {
					t.Errorf("%v: exit %d, %q", args, code, stderr)
				}
				oneCleanLine(t, stderr)
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("%v took %s to refuse: it opened connections first", args, d)
				}
			}
		})
	}
}

// Ctrl-C stops a run within a second, in any phase: while the VUs connect, in the rampup with
// VUs queued for SQLite's one writer, and in the window.
func TestInterruptStopsWithinASecond(t *testing.T) {
	bin := cairnBinary(t)
	url := testutil.SQLite(t)
	if code, out, stderr := cairn(t, "tpcc", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	for _, c := range []struct {
		marker string
		delay  time.Duration
	}{{"running TPC-C", 0}, {"rampup", 0}, {"window", 0}} {
		cmd, _ := startUntil(t, bin, c.marker, "tpcc", "run", "--db", url, "--vu", "200", "--rampup", "2s", "--duration", "1m", "--progress", "1s", "--no-store")
		time.Sleep(c.delay)
		start := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		// One second is the promise; the margin is this shared machine's scheduling.
		if d := time.Since(start); d > 1500*time.Millisecond {
			t.Errorf("Ctrl-C after %q: stopped after %s", c.marker, d)
		}
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInterrupted {
			t.Errorf("Ctrl-C after %q: %v, want exit %d", c.marker, err, ExitInterrupted)
		}
	}
}

// Every output path is checked before connecting: a run with a --json it cannot write fails at
// once, not after its window, and stores nothing.
func TestOutputsCheckedFirst(t *testing.T) {
	url := testutil.SQLite(t)
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "results.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tpcb", "run", "--db", url, "--duration", "1m", "--json", "/nonexistent/dir/x.json"}, "/nonexistent/dir does not exist"},
		{[]string{"tpcb", "profile", "--db", url, "--duration", "1m", "--json", dir}, "is a directory"},
		{[]string{"tpcc", "run", "--db", "postgres://u:p@127.0.0.1:1/db", "--json", "/nonexistent/x.json"}, "does not exist"},
		{[]string{"tpch", "run", "--db", url, "--json", "/nonexistent/x.json"}, "does not exist"},
		{[]string{"tpch", "gen", "--sf", "0.01", "--out", file}, "is a file"},
		{[]string{"report", "1", "-o", "/nonexistent/r.html"}, "does not exist"},
		{[]string{"report", "1", "--png", file}, "is a file"},
		{[]string{"results", "export", "1", "-o", "/nonexistent/e.json"}, "does not exist"},
	} {
		start := time.Now()
		code, _, stderr := cairn(t, append(c.args, "--results", store)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q, want exit 2 naming %q", c.args, code, stderr, c.want)
		}
		oneCleanLine(t, stderr)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v failed only after %s", c.args, d)
		}
	}
	if _, err := os.Stat(store); err == nil {
		t.Error("a run with an unwritable output stored a result")
	}
}

// Every workload's unknown subcommand lists all the real ones (tpcc's used to leave out profile).
func TestUnknownSubcommandListsAll(t *testing.T) {
	root := newRoot(io.Discard, io.Discard)
	for _, c := range root.Commands() {
		if !c.HasSubCommands() {
			continue
		}
		code, _, stderr := cairn(t, c.Name(), "nosuch")
		if code != ExitUsage {
			t.Errorf("cairn %s nosuch: exit %d", c.Name(), code)
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && !strings.Contains(stderr, sub.Name()) {
				t.Errorf("cairn %s nosuch: %q does not list %s", c.Name(), stderr, sub.Name())
			}
		}
	}
}

// With --rate, each progress line reports its own interval's schedule lag (it used to print 0).
func TestProgressLagPerInterval(t *testing.T) {
	url := testutil.SQLite(t)
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	code, _, stderr := cairn(t, "tpcb", "run", "--db", url, "--rate", "300", "--latency-limit", "50ms", "-P", "1s",
		"--rampup", "0s", "--duration", "3s", "--no-store", "--vu", "2")
	if code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	lags := regexp.MustCompile(`lag ([0-9.]+) ms`).FindAllStringSubmatch(stderr, -1)
	if len(lags) < 2 {
		t.Fatalf("no lag on the progress lines:\n%s", stderr)
	}
	nonzero := 0
	for _, m := range lags {
		if m[1] != "0.000" {
			nonzero++
		}
	}
	if nonzero == 0 {
		t.Errorf("every progress line says lag 0.000 ms:\n%s", stderr)
	}
}

// A progress line is printed only for an interval in which something was measured: Ctrl-C in the
// rampup ends without an "end" line.
func TestNoEndLineAfterCtrlCInRampup(t *testing.T) {
	url := testutil.SQLite(t)
	if code, out, stderr := cairn(t, "tpcb", "prepare", "--db", url); code != 0 {
		t.Fatalf("prepare: %d %s %s", code, out, stderr)
	}
	cmd, out := startUntil(t, cairnBinary(t), "(rampup)", "tpcb", "run", "--db", url, "--rampup", "30s", "-P", "1s", "--no-store")
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	time.Sleep(100 * time.Millisecond) // the reader drains the pipe
	if strings.Contains(out.String(), "(end)") {
		t.Errorf("a progress line for the interrupted rampup:\n%s", out.String())
	}
}

// docs/cli.md lists every command the program has, and says what the program does where the two
// used to disagree.
func TestDocsAgreeWithTheProgram(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			if !sub.HasSubCommands() && !strings.Contains(doc, sub.CommandPath()) {
				t.Errorf("docs/cli.md does not show %q", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(newRoot(io.Discard, io.Discard))
	// results list on a store that does not exist: exit 0, and the docs say so.
	code, out, _ := cairn(t, "results", "list", "--results", filepath.Join(t.TempDir(), "none.db"))
	if code != 0 || !strings.Contains(out, "no results stored yet") || !strings.Contains(doc, "no results stored yet") {
		t.Errorf("results list on a missing store: exit %d %q (and docs/cli.md must say so)", code, out)
	}
	if strings.Contains(doc, "currently exits with 1") {
		t.Error("docs/cli.md still says an unknown command exits 1")
	}
}

// Every flag docs/cli.md's synopsis shows a command with is one that command has (by its name
// or its one-letter shorthand): the synopsis is what users copy.
func TestSynopsisFlagsExist(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	block := strings.SplitN(string(b), "```", 3)[1]
	root := newRoot(io.Discard, io.Discard)
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	root.InitDefaultHelpCmd()
	flagRe := regexp.MustCompile(`(?:^|[\s\[|(])(--?[a-zA-Z][a-zA-Z0-9-]*)`)
	var cmd *cobra.Command
	checked := 0
	for _, line := range strings.Split(block, "\n") {
		if rest, ok := strings.CutPrefix(line, "cairn "); ok {
			var path []string
			for _, w := range strings.Fields(rest) {
				if w != strings.ToLower(w) || strings.ContainsAny(w, "[-|") {
					break
				}
				path = append(path, w)
			}
			c, _, err := root.Find(path)
			if err != nil || (len(path) > 0 && c == root) {
				t.Errorf("docs/cli.md shows %q, which is no command", "cairn "+strings.Join(path, " "))
				cmd = nil
				continue
			}
			cmd = c
			line = rest
		}
		if cmd == nil {
			continue
		}
		if i := strings.Index(line, "   ("); i >= 0 {
			line = line[:i] // a comment to the right
		}
		cmd.InitDefaultHelpFlag()
		for _, m := range flagRe.FindAllStringSubmatch(line, -1) {
			name := m[1]
			var f *pflag.Flag
			if long, ok := strings.CutPrefix(name, "--"); ok {
				f = cmd.Flags().Lookup(long)
				if f == nil {
					f = cmd.InheritedFlags().Lookup(long)
				}
			} else {
				f = cmd.Flags().ShorthandLookup(name[1:])
				if f == nil {
					f = cmd.InheritedFlags().ShorthandLookup(name[1:])
				}
			}
			checked++
			if f == nil {
				t.Errorf("docs/cli.md shows %s with %s, which it does not have", cmd.CommandPath(), name)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked only %d flags of the synopsis", checked)
	}
}

// docs/result-format.md gives the running threads' sampling interval the run takes by default.
func TestResultFormatRunningInterval(t *testing.T) {
	b, err := os.ReadFile("../../docs/result-format.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^\\| `interval_ms` \\| the sampling interval in ms: (\\d+) by default \\(`--running-sample`").FindSubmatch(b)
	w, err := workload.Get("tpcc")
	if err != nil {
		t.Fatal(err)
	}
	def := spec.EngineDefaults(w.Info(), false).RunningSample
	if m == nil || string(m[1]) != strconv.FormatInt(def.Milliseconds(), 10) {
		t.Errorf("docs/result-format.md's running interval_ms row does not give the default, %d ms", def.Milliseconds())
	}
}
