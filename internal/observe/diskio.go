package observe

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// sectorBytes is the unit of /proc/diskstats' sector counts, whatever the device's own sector
// size (the kernel's block layer counts in 512-byte sectors).
const sectorBytes = 512

// diskIO reads the whole block devices under the server's files from /proc/diskstats each
// second (on the run's clock: one small file, read once for every device) and at the window's
// edges. Only whole devices are read, never a partition: the kernel counts a partition's I/O in
// its disk's line too, so a disk and its partitions read together would count it twice.
type diskIO struct {
	Base
	fs     blockdevice.FS
	names  []string // the whole devices watched
	devs   []string // their major:minor
	roles  [][]string
	scope  string
	paths  []results.DiskPath
	notes  []string
	prev   []blockdevice.IOStats
	prevOK []bool
	prevAt time.Time
	win    [2][]blockdevice.IOStats
	winOK  [2][]bool
	winAt  [2]time.Time
	series []results.DiskSecond
	// did marks the devices that did I/O in the run: with scope "all" the others are left out.
	did []bool
	// The server's own I/O counters at the window's edges, read on srvConn.
	srvIO     target.ServerIO
	srvConn   target.Conn
	srvSource string
	srvAt     [2]time.Time
	srvVals   [2][]target.IOCounter
	srvErr    string
}

func init() {
	Register(Kind{Name: results.DiskIOSection, Order: 25, Start: startDiskIO})
}

func startDiskIO(ctx context.Context, env *Env) (Observer, error) {
	if env.Off() {
		return nil, nil
	}
	paths, notes := serverPaths(ctx, env)
	o := newDiskIO(paths, notes)
	if o == nil {
		return nil, nil
	}
	// The server's own view, of one server: a shard set's would be several, left to its members'
	// runs.
	if sio, ok := env.Target.(target.ServerIO); ok {
		if _, composite := env.Target.(target.Composite); !composite {
			c, err := env.conn(ctx, env.Target)
			if err != nil {
				return nil, fmt.Errorf("disk I/O: %w", err)
			}
			o.srvIO, o.srvConn = sio, c
		}
	}
	return o, nil
}

// newDiskIO watches the whole devices under paths, or every whole device where none is under
// them, from now on; nil where none can be read.
func newDiskIO(paths []results.DiskPath, notes []string) *diskIO {
	fs, err := blockdevice.NewDefaultFS()
	if err != nil {
		return nil
	}
	o := &diskIO{fs: fs, paths: paths, notes: notes}
	index := map[string]int{}
	for i, p := range o.paths {
		if p.Device == "" {
			continue
		}
		j, ok := index[p.Device]
		if !ok {
			j = len(o.names)
			index[p.Device] = j
			o.names = append(o.names, p.Device)
			o.roles = append(o.roles, nil)
		}
		if !slices.Contains(o.roles[j], p.Role) {
			o.roles[j] = append(o.roles[j], p.Role)
		}
		o.paths[i] = p
	}
	o.scope = "server"
	if len(o.names) == 0 {
		o.scope = "all"
		if len(o.paths) > 0 {
			o.notes = append(o.notes, "none of the server's directories lies on a block device: every device is read")
		}
		all, err := fs.SysBlockDevices()
		if err != nil {
			return nil
		}
		o.names, o.roles = all, make([][]string, len(all))
	}
	o.devs = make([]string, len(o.names))
	for i, n := range o.names {
		if b, err := os.ReadFile("/sys/block/" + n + "/dev"); err == nil {
			o.devs[i] = strings.TrimSpace(string(b))
		}
	}
	o.did = make([]bool, len(o.names))
	o.prev, o.prevOK = o.read()
	o.prevAt = time.Now()
	if !slices.Contains(o.prevOK, true) {
		return nil // no /proc/diskstats line for any of them: nothing to watch
	}
	return o
}

// serverPaths are the directories of the target's servers that run on this host, each with the
// whole device under it, and notes on what could not be found. None: the servers are remote, or
// where they keep their files is unknown.
func serverPaths(ctx context.Context, env *Env) ([]results.DiskPath, []string) {
	members := []target.Target{env.Target}
	if c, ok := env.Target.(target.Composite); ok {
		members = c.Members()
	}
	var out []results.DiskPath
	var notes []string
	seen := map[string]bool{}
	for _, m := range members {
		if seen[m.Address()] {
			continue
		}
		seen[m.Address()] = true
		srv := env.Server()
		if m != env.Target {
			srv = FindServer(m)
		}
		if !srv.Local {
			notes = append(notes, fmt.Sprintf("the server at %s is not on this host: every device is read", m.Address()))
			continue
		}
		var dirs []target.DataPath
		var why string
		switch st, ok := m.(target.Storage); {
		case srv.embedded():
			dirs = []target.DataPath{{Role: "data", Path: m.Address()}}
		case ok:
			c, err := env.conn(ctx, m)
			if err == nil {
				dirs, err = st.DataPaths(ctx, c)
				c.Close()
			}
			if err != nil {
				why = err.Error()
			}
		default:
			why = m.Name() + " does not say where it keeps its files"
		}
		root := ""
		if srv.PID > 0 && !srv.embedded() {
			root = fmt.Sprintf("/proc/%d/root", srv.PID)
			if _, err := os.Stat(root + "/"); err != nil {
				root = "" // another user's process: its paths are read in cairn's namespace
			}
		}
		if len(dirs) == 0 && srv.PID > 0 && !srv.embedded() {
			// The server's working directory is its data directory: PostgreSQL and MySQL chdir to it.
			if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", srv.PID)); err == nil {
				dirs = []target.DataPath{{Role: "data", Path: cwd}}
				notes = append(notes, fmt.Sprintf("the server at %s did not say where its files are (%s): its process's working directory is taken for its data directory", m.Address(), why))
				why = ""
			}
		}
		if why != "" {
			notes = append(notes, fmt.Sprintf("where the server at %s keeps its files is not known (%s)", m.Address(), why))
		}
		for _, d := range dirs {
			out = append(out, locate(d, root))
		}
	}
	return out, notes
}

// locate finds the whole block device under a server's directory: the directory's st_dev names
// its filesystem's device, /sys/dev/block/MAJ:MIN that device, and a partition's parent is its
// disk. root is the server's /proc/PID/root, so that a server in another mount namespace (a
// container) is read where it sees its files, or "".
func locate(d target.DataPath, root string) results.DiskPath {
	p := results.DiskPath{Role: d.Role, Path: d.Path}
	path := root + d.Path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r // a WAL directory linked to another disk is that disk's
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		p.Note = "cannot stat it: " + err.Error()
		return p
	}
	maj, min := unix.Major(st.Dev), unix.Minor(st.Dev)
	p.FSType, p.Mount, p.Options = mountOf(fmt.Sprintf("%d:%d", maj, min), strings.TrimPrefix(path, root))
	disk, part, err := WholeDevice(maj, min)
	if err != nil {
		p.Note = err.Error()
		return p
	}
	p.Device, p.Partition = disk, part
	return p
}

// WholeDevice is the whole block device that holds device maj:min, and the partition when that
// is one: /sys/dev/block/MAJ:MIN links to the device's directory, which is in its disk's when it
// is a partition (it has a partition file then). An error says why there is none: a
// filesystem without a block device (tmpfs, overlayfs, NFS) has major 0.
func WholeDevice(maj, min uint32) (disk, partition string, err error) {
	if maj == 0 {
		return "", "", fmt.Errorf("its filesystem has no block device")
	}
	dir, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", maj, min))
	if err != nil {
		return "", "", fmt.Errorf("no block device %d:%d in /sys/dev/block", maj, min)
	}
	if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
		return filepath.Base(filepath.Dir(dir)), filepath.Base(dir), nil
	}
	return filepath.Base(dir), "", nil
}

// mountOf is the filesystem type, mount point and options of device dev holding path: of the
// mounts of that device, the one whose mount point is the longest prefix of path. The options are
// the mount's and its filesystem's (mountinfo's super options), sorted.
func mountOf(dev, path string) (fstype, mount, options string) {
	ms, err := procfs.GetMounts()
	if err != nil {
		return "", "", ""
	}
	var best *procfs.MountInfo
	for _, m := range ms {
		if m.MajorMinorVer != dev {
			continue
		}
		if under(path, m.MountPoint) && (best == nil || !under(path, best.MountPoint) || len(m.MountPoint) >= len(best.MountPoint)) {
			best = m
		} else if best == nil {
			best = m
		}
	}
	if best == nil {
		return "", "", ""
	}
	seen := map[string]bool{}
	var opts []string
	for _, o := range []map[string]string{best.Options, best.SuperOptions} {
		for k, v := range o {
			if v != "" {
				k += "=" + v
			}
			if !seen[k] {
				seen[k] = true
				opts = append(opts, k)
			}
		}
	}
	sort.Strings(opts)
	mount = best.MountPoint
	if !under(path, mount) {
		mount = ""
	}
	return best.FSType, mount, strings.Join(opts, ",")
}

func under(path, dir string) bool {
	return dir == "/" || path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// read takes one reading of every watched device (ok false: its line is gone).
func (o *diskIO) read() ([]blockdevice.IOStats, []bool) {
	cur := make([]blockdevice.IOStats, len(o.names))
	ok := make([]bool, len(o.names))
	lines, err := o.fs.ProcDiskstats()
	if err != nil {
		return cur, ok
	}
	for _, l := range lines {
		for i, n := range o.names {
			if l.DeviceName == n {
				cur[i], ok[i] = l.IOStats, true
			}
		}
	}
	return cur, ok
}

// delta is b less a, 0 where a counter went back (a device removed and added again).
func delta(a, b uint64) uint64 {
	if b < a {
		return 0
	}
	return b - a
}

// rates are a device's figures between two readings dt seconds apart, as iostat -x computes
// them.
func rates(name string, a, b blockdevice.IOStats, dt float64) metrics.DiskRates {
	r := metrics.DiskRates{Device: name}
	if dt <= 0 {
		return r
	}
	rios, wios := delta(a.ReadIOs, b.ReadIOs), delta(a.WriteIOs, b.WriteIOs)
	rt, wt := delta(a.ReadTicks, b.ReadTicks), delta(a.WriteTicks, b.WriteTicks)
	r.ReadsPerS, r.WritesPerS = round(float64(rios)/dt, 2), round(float64(wios)/dt, 2)
	r.ReadMBs = round(float64(delta(a.ReadSectors, b.ReadSectors))*sectorBytes/1e6/dt, 3)
	r.WriteMBs = round(float64(delta(a.WriteSectors, b.WriteSectors))*sectorBytes/1e6/dt, 3)
	await := func(ticks, n uint64) *float64 {
		if n == 0 {
			return nil
		}
		v := round(float64(ticks)/float64(n), 3)
		return &v
	}
	r.ReadAwaitMs, r.WriteAwaitMs, r.AwaitMs = await(rt, rios), await(wt, wios), await(rt+wt, rios+wios)
	r.QueueDepth = round(float64(delta(a.WeightedIOTicks, b.WeightedIOTicks))/(dt*1000), 2)
	r.UtilPct = round(min(100, float64(delta(a.IOsTotalTicks, b.IOsTotalTicks))/(dt*10)), 1)
	r.FlushesPerS = round(float64(delta(a.FlushRequestsCompleted, b.FlushRequestsCompleted))/dt, 2)
	return r
}

// Tick adds each device's I/O since the last reading.
func (o *diskIO) Tick(sec *metrics.Second) {
	cur, ok := o.read()
	now := time.Now()
	dt := now.Sub(o.prevAt).Seconds()
	p := results.DiskSecond{T: sec.T, Devices: make([]metrics.DiskRates, len(o.names))}
	for i, n := range o.names {
		p.Devices[i] = metrics.DiskRates{Device: n}
		if ok[i] && o.prevOK[i] {
			p.Devices[i] = rates(n, o.prev[i], cur[i], dt)
			if p.Devices[i].ReadsPerS+p.Devices[i].WritesPerS > 0 {
				o.did[i] = true
			}
		}
	}
	o.series = append(o.series, p)
	sec.Disks = nil
	for i, d := range p.Devices {
		if o.scope == "server" || o.did[i] {
			sec.Disks = append(sec.Disks, d)
		}
	}
	o.prev, o.prevOK, o.prevAt = cur, ok, now
}

// Window reads every device at the window's edge, and the server's own counters.
func (o *diskIO) Window(start bool) {
	i := 0
	if !start {
		i = 1
	}
	o.win[i], o.winOK[i] = o.read()
	o.winAt[i] = time.Now()
	if o.srvIO != nil && o.srvErr == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		vals, source, err := o.srvIO.ReadServerIO(ctx, o.srvConn)
		if err != nil {
			o.srvErr = "the server's own I/O counters could not be read: " + err.Error()
			return
		}
		o.srvVals[i], o.srvAt[i], o.srvSource = vals, time.Now(), source
	}
}

// Close closes the connection of the server's counters.
func (o *diskIO) Close(context.Context) error {
	if o.srvConn != nil {
		o.srvConn.Close()
		o.srvConn = nil
	}
	return nil
}

// serverView is the server's counters over the window: those read at both edges.
func (o *diskIO) serverView() *results.ServerIO {
	if len(o.srvVals[0]) == 0 || len(o.srvVals[1]) == 0 {
		return nil
	}
	dt := o.srvAt[1].Sub(o.srvAt[0]).Seconds()
	if dt <= 0 {
		return nil
	}
	v := &results.ServerIO{Source: o.srvSource, Seconds: round(dt, 6)}
	for _, a := range o.srvVals[0] {
		for _, b := range o.srvVals[1] {
			if a.Name == b.Name {
				d := max(0, b.Value-a.Value)
				v.Counters = append(v.Counters, results.ServerIOCounter{Name: a.Name, Unit: a.Unit, Delta: d, PerSecond: round(d/dt, 2)})
			}
		}
	}
	return v
}

// Section is the devices' figures over the window and each second of the run.
func (o *diskIO) Section() any {
	s := &results.DiskIO{Scope: o.scope, Paths: o.paths, Notes: o.notes, Server: o.serverView()}
	if o.srvErr != "" {
		s.Notes = append(s.Notes, o.srvErr)
	}
	keep := make([]bool, len(o.names))
	for i := range o.names {
		keep[i] = o.scope == "server" || o.did[i]
	}
	if o.scope == "all" {
		if n := len(o.names) - countTrue(keep); n > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%d whole devices that did no I/O in the run are left out", n))
		}
	}
	dt := o.winAt[1].Sub(o.winAt[0]).Seconds()
	for i, n := range o.names {
		if !keep[i] {
			continue
		}
		d := results.Disk{Name: n, Dev: o.devs[i], Roles: o.roles[i]}
		if o.winOK[0] != nil && o.winOK[1] != nil && o.winOK[0][i] && o.winOK[1][i] && dt > 0 {
			a, b := o.win[0][i], o.win[1][i]
			w := rates(n, a, b, dt)
			w.Device = ""
			d.Window = &w
			d.Counts = &results.DiskCounts{Seconds: round(dt, 6),
				ReadIOs: delta(a.ReadIOs, b.ReadIOs), WriteIOs: delta(a.WriteIOs, b.WriteIOs),
				ReadBytes:  delta(a.ReadSectors, b.ReadSectors) * sectorBytes,
				WriteBytes: delta(a.WriteSectors, b.WriteSectors) * sectorBytes,
				FromUnixNs: o.winAt[0].UnixNano(), UntilUnixNs: o.winAt[1].UnixNano()}
		}
		s.Devices = append(s.Devices, d)
	}
	for _, p := range o.series {
		q := results.DiskSecond{T: p.T}
		for i, d := range p.Devices {
			if keep[i] {
				d.Device = ""
				q.Devices = append(q.Devices, d)
			}
		}
		s.Series = append(s.Series, q)
	}
	return s
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
