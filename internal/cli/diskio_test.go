package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// diskReading is one reading of a device's line of /proc/diskstats by the test, with the wall
// time around it.
type diskReading struct {
	before, after       int64 // Unix ns
	reads, writes       uint64
	readSect, writeSect uint64
}

// readDiskstats parses the device's line of /proc/diskstats itself (not through procfs, which
// the observer uses): fields 4, 6, 8 and 10 are reads, sectors read, writes and sectors written.
func readDiskstats(t *testing.T, dev string) (diskReading, bool) {
	r := diskReading{before: time.Now().UnixNano()}
	b, err := os.ReadFile("/proc/diskstats")
	r.after = time.Now().UnixNano()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 14 || f[2] != dev {
			continue
		}
		n := func(i int) uint64 { v, _ := strconv.ParseUint(f[i], 10, 64); return v }
		r.reads, r.readSect, r.writes, r.writeSect = n(3), n(5), n(7), n(9)
		return r, true
	}
	return r, false
}

// wholeDiskOf is the whole block device holding path, found apart from cairn's way: the device
// number from stat, its name from /sys/dev/block/MAJ:MIN/uevent, then the disk in /sys/block that
// is that device or has it as a partition (a subdirectory of that name).
func wholeDiskOf(t *testing.T, path string) string {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	if unix.Major(st.Dev) == 0 {
		t.Skipf("%s lies on a filesystem without a block device", path)
	}
	b, err := os.ReadFile(fmt.Sprintf("/sys/dev/block/%d:%d/uevent", unix.Major(st.Dev), unix.Minor(st.Dev)))
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "DEVNAME="); ok {
			name = v
		}
	}
	disks, err := os.ReadDir("/sys/block")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range disks {
		if d.Name() == name {
			return name
		}
		if _, err := os.Stat(filepath.Join("/sys/block", d.Name(), name)); err == nil {
			return d.Name()
		}
	}
	t.Fatalf("no whole disk in /sys/block holds %s (device %s)", path, name)
	return ""
}

// A TPC-C run on a server of this host records the I/O of the whole disk under its data
// directory, found from the server's own data directory, the directory's disk computed here
// apart: the device and roles are right, no partition is listed as a device, and the window's
// request and byte counts lie between /proc/diskstats read by the test just before and just
// after each of the window's edges (every 20 ms through the run: the margin is what the disk did
// in the 20 ms around an edge, as measured). The summary prints the line.
func TestDiskIORun(t *testing.T) {
	for _, srv := range testutil.Servers() {
		t.Run(srv.Name, func(t *testing.T) {
			url := srv.URL(t)
			_, c := testutil.Open(t, url)
			var dir, log string
			ctx := context.Background()
			if srv.Name == "postgres" {
				if err := c.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err != nil {
					t.Fatal(err)
				}
				log = "wal"
			} else {
				if err := c.QueryRow(ctx, "SELECT @@datadir").Scan(&dir); err != nil {
					t.Fatal(err)
				}
				log = "redo"
			}
			disk := wholeDiskOf(t, dir)
			prepared(t, url)

			var mu sync.Mutex
			var readings []diskReading
			stop, done := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(done)
				for {
					r, ok := readDiskstats(t, disk)
					if ok {
						mu.Lock()
						readings = append(readings, r)
						mu.Unlock()
					}
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
			js := filepath.Join(t.TempDir(), "r.json")
			code, out, stderr := cairn(t, "tpcc", "run", "--db", url, "--vu", "2", "--duration", "3s", "--rampup", "1s", "--json", js, "--no-store")
			close(stop)
			<-done
			if code != 0 {
				t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
			}
			doc := readDoc(t, js)
			sec, _ := field(t, doc, "extra.observations.disk-io").(map[string]any)
			if sec == nil {
				t.Fatalf("no disk-io section: %v", doc["extra"])
			}
			if sec["scope"] != "server" {
				t.Fatalf("scope %v, notes %v: want the server's devices", sec["scope"], sec["notes"])
			}
			roles := map[string]string{}
			for _, p := range sec["paths"].([]any) {
				p := p.(map[string]any)
				d, _ := p["device"].(string)
				roles[p["role"].(string)] = d
			}
			if roles["data"] != disk || roles[log] != disk {
				t.Errorf("paths %v: want data and %s on %s", sec["paths"], log, disk)
			}
			devs := sec["devices"].([]any)
			var dv map[string]any
			for _, d := range devs {
				d := d.(map[string]any)
				name := d["name"].(string)
				if _, err := os.Stat("/sys/block/" + name); err != nil {
					t.Errorf("device %s is not a whole device of /sys/block: a partition counted beside its disk?", name)
				}
				if name == disk {
					dv = d
				}
			}
			if dv == nil || len(devs) != 1 {
				t.Fatalf("devices %v: want %s alone (data and %s on one disk)", devs, disk, log)
			}
			wc, _ := dv["window_counts"].(map[string]any)
			if wc == nil {
				t.Fatalf("no window counts: %v", dv)
			}
			from, until := int64(wc["from_unix_ns"].(float64)), int64(wc["until_unix_ns"].(float64))
			// The test's last reading wholly before an edge and first wholly after it.
			bracket := func(at int64) (lo, hi diskReading) {
				mu.Lock()
				defer mu.Unlock()
				found := false
				for _, r := range readings {
					if r.after <= at {
						lo = r
					}
					if r.before >= at && !found {
						hi, found = r, true
					}
				}
				if lo.after == 0 || !found {
					t.Fatalf("the test's readings do not bracket %d", at)
				}
				return lo, hi
			}
			s0, s1 := bracket(from)
			e0, e1 := bracket(until)
			check := func(what string, got float64, lo, hi uint64) {
				if got < float64(lo) || got > float64(hi) {
					t.Errorf("%s: cairn counted %.0f in the window, /proc/diskstats around its edges says %d to %d", what, got, lo, hi)
				}
			}
			t.Logf("%s on %s: window writes %v (diskstats around the edges %d–%d), reads %v (%d–%d)", srv.Name, disk,
				wc["write_ios"], e0.writes-s1.writes, e1.writes-s0.writes, wc["read_ios"], e0.reads-s1.reads, e1.reads-s0.reads)
			check("writes", wc["write_ios"].(float64), e0.writes-s1.writes, e1.writes-s0.writes)
			check("reads", wc["read_ios"].(float64), e0.reads-s1.reads, e1.reads-s0.reads)
			check("bytes written", wc["write_bytes"].(float64), (e0.writeSect-s1.writeSect)*512, (e1.writeSect-s0.writeSect)*512)
			if wc["write_ios"].(float64) == 0 {
				t.Errorf("no write in a TPC-C window that commits: %v", wc)
			}
			// The window's rate is its count over its seconds.
			w := dv["window"].(map[string]any)
			if secs := wc["seconds"].(float64); secs <= 0 || abs(w["w_s"].(float64)-wc["write_ios"].(float64)/secs) > 0.01 {
				t.Errorf("w_s %v, %v writes in %v s", w["w_s"], wc["write_ios"], secs)
			}
			series, _ := sec["series"].([]any)
			ts, _ := doc["timeseries"].([]any)
			if len(series) == 0 || len(series) != len(ts) {
				t.Errorf("%d seconds of disk I/O, %d of the run", len(series), len(ts))
			}
			// The server's own count of its log's I/O over the window stands beside the disk's.
			sv, _ := sec["server"].(map[string]any)
			if sv == nil {
				t.Fatalf("no server view: %v", sec["notes"])
			}
			counters := map[string]map[string]any{}
			for _, c := range sv["counters"].([]any) {
				c := c.(map[string]any)
				counters[c["name"].(string)] = c
			}
			logName := map[string]string{"postgres": "pg_stat_wal.wal_bytes", "mysql": "Innodb_os_log_written"}[srv.Name]
			lc := counters[logName]
			if lc == nil || lc["delta"].(float64) <= 0 || lc["unit"] != "bytes" {
				t.Errorf("%s over the window: %v (a TPC-C window that commits writes its log)", logName, lc)
			} else if secs := sv["seconds"].(float64); secs <= 0 || abs(lc["per_second"].(float64)-lc["delta"].(float64)/secs) > 0.01+lc["delta"].(float64)/secs*1e-6 {
				// seconds is kept to the microsecond: the rate from it is off by a millionth at most
				t.Errorf("%s: %v per second, %v over %v s", logName, lc["per_second"], lc["delta"], secs)
			}
			if !strings.Contains(out, "server's own I/O: ") || !strings.Contains(out, logName+" ") {
				t.Errorf("no line of the server's own I/O naming %s:\n%s", logName, out)
			}
			if !strings.Contains(out, "disk I/O: "+disk+" (data, ") {
				t.Errorf("no disk I/O line for %s:\n%s", disk, out)
			}
		})
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// windowWrites is the w_s of the first disk-io device of a stored run's document.
func windowWrites(t *testing.T, doc map[string]any) float64 {
	t.Helper()
	devs, _ := field(t, doc, "extra.observations.disk-io.devices").([]any)
	if len(devs) == 0 {
		t.Fatalf("no disk-io devices")
	}
	return devs[0].(map[string]any)["window"].(map[string]any)["w_s"].(float64)
}

// A PostgreSQL TPC-C run with synchronous_commit on fsyncs the WAL at each commit; with it off
// the WAL writer flushes a few times a second: results compare shows the disk's writes per
// second of each, as stored, and on writes more. The disk is shared with whatever else runs on
// this host, so the test measures its background writes in the 2 s before each run and asks of
// the difference that it exceed the larger; where the background is as large as the runs' own
// writes nothing can be judged, and the test says so and skips.
func TestDiskIOSyncCommitCompare(t *testing.T) {
	url := testutil.PG(t)
	tg, c := testutil.Open(t, url)
	ctx := context.Background()
	var dir string
	if err := c.QueryRow(ctx, "SHOW data_directory").Scan(&dir); err != nil {
		t.Fatal(err)
	}
	disk := wholeDiskOf(t, dir)
	prepared(t, url)
	store := filepath.Join(t.TempDir(), "r.db")
	db := tg.Database()
	t.Cleanup(func() { c.Exec(ctx, "ALTER DATABASE "+db+" RESET synchronous_commit") })
	background := func() float64 {
		// The server's own dirty pages (the load's, the last run's) are written first: what
		// remains is the rest of the host's.
		if _, err := c.Exec(ctx, "CHECKPOINT"); err != nil {
			t.Fatal(err)
		}
		a, _ := readDiskstats(t, disk)
		time.Sleep(2 * time.Second)
		b, _ := readDiskstats(t, disk)
		return float64(b.writes-a.writes) / (float64(b.after-a.before) / 1e9)
	}
	var bg float64
	for _, mode := range []string{"on", "off"} {
		// A database's setting reaches the sessions opened after it: the run's.
		if _, err := c.Exec(ctx, "ALTER DATABASE "+db+" SET synchronous_commit = "+mode); err != nil {
			t.Fatal(err)
		}
		bg = max(bg, background())
		if code, out, stderr := cairn(t, "tpcc", "run", "--db", url, "--vu", "2", "--duration", "3s", "--rampup", "1s", "--results", store); code != 0 {
			t.Fatalf("run with synchronous_commit %s: exit %d\n%s\n%s", mode, code, out, stderr)
		}
	}
	var docs []map[string]any
	for _, id := range []string{"1", "2"} {
		js := filepath.Join(t.TempDir(), id+".json")
		if code, out, stderr := cairn(t, "results", "export", id, "--results", store, "-o", js); code != 0 {
			t.Fatalf("export %s: exit %d\n%s\n%s", id, code, out, stderr)
		}
		docs = append(docs, readDoc(t, js))
	}
	for i, want := range []string{"on", "off"} {
		if s, _ := field(t, docs[i], "target.settings.synchronous_commit").(string); s != want {
			t.Errorf("run %d's synchronous_commit: %q, want %s", i+1, s, want)
		}
	}
	on, off := windowWrites(t, docs[0]), windowWrites(t, docs[1])
	code, out, stderr := cairn(t, "results", "compare", "1", "2", "--results", store)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, out, stderr)
	}
	var row string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "disk" && f[1] == "w/s" {
			row = l
		}
	}
	// Compare prints counts with thousands separators: 2,188.
	f := strings.Fields(strings.ReplaceAll(row, ",", ""))
	if len(f) < 5 || f[2] != fmt.Sprintf("%.0f", on) || f[3] != fmt.Sprintf("%.0f", off) {
		t.Fatalf("compare's disk w/s row %q: want %.0f and %.0f, as stored\n%s", row, on, off, out)
	}
	t.Logf("disk w/s with synchronous_commit on %.0f, off %.0f; background before the runs at most %.0f w/s", on, off, bg)
	if bg >= on/2 {
		t.Skipf("the disk's background writes (%.0f/s) are as large as the run's own: on %.0f w/s, off %.0f w/s cannot be judged", bg, on, off)
	}
	if on-off <= bg {
		t.Errorf("synchronous_commit on wrote %.0f/s, off %.0f/s: want on above off by more than the background's %.0f/s", on, off, bg)
	}
}

// startTmpfsPG starts a PostgreSQL of the test's own whose data directory lies on a tmpfs the
// test mounts, on a free loopback port, and returns its URL; it is stopped and the tmpfs
// unmounted after the test. It needs root (mount, and initdb run as the postgres user).
func startTmpfsPG(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs and starting a server as the postgres user needs root")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Skip("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb)")
	}
	bin := filepath.Dir(bins[len(bins)-1])
	base := t.TempDir()
	// The postgres user must reach the data directory: the test's directories are root's.
	for d := base; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mnt := filepath.Join(base, "tmpfs")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512m", "cairn-test", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	if out, err := exec.Command("chown", "postgres", mnt).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	data := filepath.Join(mnt, "pg")
	su := func(cmd string) {
		t.Helper()
		if out, err := exec.Command("su", "postgres", "-c", cmd).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
	}
	su(fmt.Sprintf("%s/initdb -D %s -U postgres --auth=trust >/dev/null", bin, data))
	su(fmt.Sprintf("%s/pg_ctl -D %s -l %s/log -w -o '-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s' start >/dev/null", bin, data, mnt, port, mnt))
	t.Cleanup(func() {
		exec.Command("su", "postgres", "-c", fmt.Sprintf("%s/pg_ctl -D %s -m immediate -w stop", bin, data)).Run()
	})
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", port)
}

// Runs against two PostgreSQL servers, one with its data directory on a block device's
// filesystem and one on a tmpfs the test mounts: the tmpfs run's data directory has no device
// (its disk I/O reads every device, and says why), and results compare lists the data
// directory's filesystem among the conditions that differ, each as stored.
func TestDiskIOTmpfsCompare(t *testing.T) {
	url := testutil.PG(t)
	tmpURL := startTmpfsPG(t)
	store := filepath.Join(t.TempDir(), "r.db")
	prepared(t, url)
	prepared(t, tmpURL)
	for _, u := range []string{url, tmpURL} {
		if code, out, stderr := cairn(t, "tpcc", "run", "--db", u, "--vu", "1", "--duration", "2s", "--rampup", "0s", "--results", store); code != 0 {
			t.Fatalf("run on %s: exit %d\n%s\n%s", u, code, out, stderr)
		}
	}
	var fs [2]string
	for i, id := range []string{"1", "2"} {
		js := filepath.Join(t.TempDir(), id+".json")
		if code, out, stderr := cairn(t, "results", "export", id, "--results", store, "-o", js); code != 0 {
			t.Fatalf("export %s: exit %d\n%s\n%s", id, code, out, stderr)
		}
		sec, _ := field(t, readDoc(t, js), "extra.observations.disk-io").(map[string]any)
		if sec == nil {
			t.Fatalf("run %s: no disk-io", id)
		}
		for _, p := range sec["paths"].([]any) {
			p := p.(map[string]any)
			if p["role"] == "data" {
				fs[i], _ = p["fstype"].(string)
				if dev, _ := p["device"].(string); (dev == "") != (i == 1) {
					t.Errorf("run %s's data directory: device %q (the tmpfs run's has none, the other's one)", id, dev)
				}
			}
		}
		if i == 1 && (sec["scope"] != "all" || len(sec["notes"].([]any)) == 0) {
			t.Errorf("the tmpfs run's disk I/O: scope %v, notes %v: want every device, and why", sec["scope"], sec["notes"])
		}
	}
	if fs[0] == "" || fs[0] == "tmpfs" || fs[1] != "tmpfs" {
		t.Fatalf("data directories' filesystems %q: want a block device's and tmpfs", fs)
	}
	code, out, stderr := cairn(t, "results", "compare", "1", "2", "--results", store)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s\n%s", code, out, stderr)
	}
	_, after, ok := strings.Cut(out, "conditions that differ")
	// One line per condition that differs: "data filesystem: A's → B's".
	line := ""
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "data filesystem: ") {
			line = l
		}
	}
	if !ok || !strings.Contains(line, ": "+fs[0]+" on ") || !strings.Contains(line, " → tmpfs (no block device)") {
		t.Errorf("compare does not list the data directories' filesystems %v:\n%s", fs, out)
	}
}
