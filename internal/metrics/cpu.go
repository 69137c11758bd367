package metrics

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
)

// ProcessCPU returns this process's user+system CPU time.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// HostCPU returns the busy CPU time of the whole host summed over cores (Linux /proc/stat: every
// state but idle and iowait), and false where it cannot be read.
func HostCPU() (time.Duration, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, false
	}
	var busy int64
	for i, v := range fields[1:] {
		// Skip idle, iowait and steal (time the hypervisor gave to other guests); guest times are
		// already counted in user and nice.
		if i == 3 || i == 4 || i >= 7 {
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		busy += n
	}
	// /proc/stat counts in USER_HZ, 100 per second on every Linux this runs on.
	return time.Duration(busy) * 10 * time.Millisecond, true
}

// PeakRSS returns this process's peak resident set size in bytes (VmHWM), 0 where it cannot be read.
func PeakRSS() int64 {
	p, err := procfs.Self()
	if err != nil {
		return 0
	}
	st, err := p.NewStatus()
	if err != nil {
		return 0
	}
	return int64(st.VmHWM)
}
