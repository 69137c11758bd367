package observe

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// run runs a command the test needs, failing the test on an error.
func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// writesOf reads the completed writes of a device's line of /proc/diskstats (its eighth field).
func writesOf(t *testing.T, dev string) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 14 && f[2] == dev {
			v, _ := strconv.ParseUint(f[7], 10, 64)
			return v
		}
	}
	t.Fatalf("no line of %s in /proc/diskstats", dev)
	return 0
}

// A directory on a partition is its disk's: a loop device the test makes with one partition
// (added with addpart, as the kernel here may read no partition table), an ext4 filesystem on
// the partition, mounted. Its directory's device is the loop disk, the partition named apart; the
// observer reads the disk alone, so the writes the test makes on the partition are counted once
// (the kernel counts them in both lines: the disk's and the partition's deltas are equal), at
// least as many as the test's synchronous direct writes and at most what /proc/diskstats says
// the disk did around the window. Watching every device lists the disk and not its partition. A
// tmpfs directory has no device: the observer then reads every device and says why.
func TestDiskIOPartitionFolded(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a loop device with a partition needs root")
	}
	for _, tool := range []string{"losetup", "addpart", "delpart", "mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dir := t.TempDir()
	img := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	loop := run(t, "losetup", "-f", "--show", img)
	t.Cleanup(func() { exec.Command("losetup", "-d", loop).Run() })
	run(t, "addpart", loop, "1", "2048", strconv.Itoa(64<<11-2048))
	t.Cleanup(func() { exec.Command("delpart", loop, "1").Run() })
	part := loop + "p1"
	if _, err := os.Stat(part); err != nil {
		t.Skipf("no device node %s for the partition (no devtmpfs?)", part)
	}
	run(t, "mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", part)
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "mount", part, mnt)
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	disk, pname := filepath.Base(loop), filepath.Base(part)

	p := locate(target.DataPath{Role: "data", Path: mnt}, "")
	if p.Device != disk || p.Partition != pname || p.FSType != "ext4" || p.Mount != mnt {
		t.Fatalf("located %+v: want device %s, partition %s, ext4 mounted at %s", p, disk, pname, mnt)
	}

	o := newDiskIO([]results.DiskPath{p}, nil)
	if o == nil || o.scope != "server" || len(o.names) != 1 || o.names[0] != disk {
		t.Fatalf("watching %+v", o)
	}
	const n = 64
	f, err := os.OpenFile(filepath.Join(mnt, "f"), os.O_CREATE|os.O_WRONLY|unix.O_DIRECT|unix.O_DSYNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// O_DIRECT wants a buffer aligned to the logical block size: a page of its own.
	buf, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(buf)
	copy(buf, bytes.Repeat([]byte("cairn"), 800))
	diskBefore, partBefore := writesOf(t, disk), writesOf(t, pname)
	o.Window(true)
	for i := 0; i < n; i++ {
		if _, err := f.WriteAt(buf, int64(i)*4096); err != nil {
			t.Fatal(err)
		}
	}
	var sec metrics.Second
	sec.T = 1
	o.Tick(&sec)
	o.Window(false)
	diskAfter, partAfter := writesOf(t, disk), writesOf(t, pname)
	if diskAfter-diskBefore != partAfter-partBefore {
		t.Fatalf("the kernel counted %d writes on %s and %d on %s: the disk's line should hold its partition's", diskAfter-diskBefore, disk, partAfter-partBefore, pname)
	}
	io := o.Section().(*results.DiskIO)
	if len(io.Devices) != 1 || io.Devices[0].Counts == nil {
		t.Fatalf("devices %+v", io.Devices)
	}
	got := io.Devices[0].Counts.WriteIOs
	if got < n || got > diskAfter-diskBefore {
		t.Errorf("the window counted %d writes on %s: the test made %d, /proc/diskstats says %d around the window", got, disk, n, diskAfter-diskBefore)
	}
	if len(sec.Disks) != 1 || sec.Disks[0].Device != disk || sec.Disks[0].WritesPerS < n {
		t.Errorf("the second's figures %+v: want %s with at least %d writes", sec.Disks, disk, n)
	}

	all := newDiskIO(nil, nil)
	if all == nil || all.scope != "all" {
		t.Fatalf("every device: %+v", all)
	}
	var hasDisk bool
	for _, name := range all.names {
		if name == pname {
			t.Errorf("every device lists the partition %s beside its disk", pname)
		}
		hasDisk = hasDisk || name == disk
	}
	if !hasDisk {
		t.Errorf("every device (%v) lacks %s", all.names, disk)
	}

	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "mount", "-t", "tmpfs", "cairn-test", tmp)
	t.Cleanup(func() { exec.Command("umount", tmp).Run() })
	tp := locate(target.DataPath{Role: "data", Path: tmp}, "")
	if tp.Device != "" || tp.FSType != "tmpfs" || !strings.Contains(tp.Note, "no block device") {
		t.Errorf("a tmpfs directory located as %+v", tp)
	}
	if o := newDiskIO([]results.DiskPath{tp}, nil); o == nil || o.scope != "all" || len(o.notes) == 0 {
		t.Errorf("a server on tmpfs: %+v", o)
	}
}

// BenchmarkDiskIOTick is what the disk I/O observer costs each second on the run's clock: one
// read of /proc/diskstats for every watched device, and the figures of each.
func BenchmarkDiskIOTick(b *testing.B) {
	o := newDiskIO(nil, nil) // every whole device: the most it reads
	if o == nil {
		b.Skip("no /proc/diskstats")
	}
	var sec metrics.Second
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sec.T = float64(i)
		o.Tick(&sec)
	}
}
