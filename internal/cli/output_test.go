package cli

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the progress bar draws only on a terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pty's other end: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// The load bar's first rate is over a real interval: with a million rows done at once, it shows
// at most rows per the bar's 200 ms refresh, not rows per few microseconds (it showed 1.8 billion
// rows/s when its clock started at its first update).
func TestProgressBarFirstRate(t *testing.T) {
	master, slave := openPTY(t)
	var rows atomic.Int64
	p := newProgress(slave, 10_000_000, "loading")
	rows.Store(1_000_000)
	p.start(&rows)
	time.Sleep(700 * time.Millisecond)
	p.finish()
	slave.Close()
	var out strings.Builder
	r := bufio.NewReader(master)
	master.SetReadDeadline(time.Now().Add(2 * time.Second))
	for {
		line, err := r.ReadString('\r')
		out.WriteString(line)
		if err != nil {
			break
		}
	}
	m := regexp.MustCompile(`([0-9]+) rows/s`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no rate on the bar: %q", out.String())
	}
	if rate, _ := strconv.Atoi(m[1]); rate > 10_000_000 {
		t.Errorf("the bar's first rate is %d rows/s for a million rows: not over a real interval", rate)
	}
}
