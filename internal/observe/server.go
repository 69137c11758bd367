package observe

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"

	"github.com/cairn-bench/cairn/internal/target"
)

// Server is where the database server runs as cairn sees it: on this host, with the process
// found, or not.
type Server struct {
	Local   bool
	PID     int
	Name    string // the process's command name
	FoundBy string // "listening socket 127.0.0.1:5432"
	Why     string // when PID is 0: why ("remote", "run cairn as root or as the server's user")
}

// FindServer finds the process that listens where t is reached, when that is on this host:
// the listening socket's inode (from /proc/net/tcp, tcp6 or unix), then the process holding it.
func FindServer(t target.Target) *Server {
	if t.Dialect().Embedded {
		return &Server{Local: true, PID: os.Getpid(), Name: "cairn", FoundBy: "embedded in cairn"}
	}
	host, port, err := net.SplitHostPort(t.Address())
	if err != nil {
		return &Server{Why: "address " + t.Address() + " names no port"}
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return &Server{Why: "no /proc"}
	}
	var inodes map[uint64]bool
	var where string
	if strings.HasPrefix(host, "/") {
		// A Unix socket: PostgreSQL's is .s.PGSQL.<port> in the directory; MySQL's the path itself.
		paths := []string{host, filepath.Join(host, ".s.PGSQL."+port)}
		inodes, where = unixListeners(fs, paths), "listening socket "+host
	} else {
		if !isLocal(host) {
			return &Server{Why: "remote"}
		}
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return &Server{Why: "port " + port + " is not a number"}
		}
		inodes, where = tcpListeners(fs, p), "listening socket "+t.Address()
	}
	s := &Server{Local: true}
	if len(inodes) == 0 {
		s.Why = "no listening socket at " + t.Address() + " in /proc/net (a container with another network namespace?)"
		return s
	}
	procs, err := fs.AllProcs()
	if err != nil {
		s.Why = "cannot list processes: " + err.Error()
		return s
	}
	denied := false
	for _, p := range procs {
		targets, err := p.FileDescriptorTargets()
		if err != nil {
			denied = denied || os.IsPermission(err)
			continue
		}
		for _, tg := range targets {
			if n, ok := strings.CutPrefix(tg, "socket:["); ok {
				if ino, err := strconv.ParseUint(strings.TrimSuffix(n, "]"), 10, 64); err == nil && inodes[ino] {
					s.PID, s.FoundBy = p.PID, where
					s.Name, _ = p.Comm()
					return s
				}
			}
		}
	}
	s.Why = "its process holds the listening socket but could not be found"
	if denied {
		s.Why = "the server runs here, but only root or the server's user can see which process it is"
	}
	return s
}

// IsLocalHost reports whether host (a name, an address, or a Unix socket's directory) is this
// host, without connecting.
func IsLocalHost(host string) bool {
	return host == "" || strings.HasPrefix(host, "/") || isLocal(host)
}

func isLocal(host string) bool {
	ips, err := net.LookupIP(host)
	if err != nil {
		return false
	}
	addrs, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		if ip.IsLoopback() {
			return true
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return true
			}
		}
	}
	return false
}

// tcpListeners are the inodes of the sockets listening on port (state 0A is LISTEN).
func tcpListeners(fs procfs.FS, port uint64) map[uint64]bool {
	out := map[uint64]bool{}
	for _, read := range []func() (procfs.NetTCP, error){fs.NetTCP, fs.NetTCP6} {
		lines, err := read()
		if err != nil {
			continue
		}
		for _, l := range lines {
			if l.St == 10 && l.LocalPort == port {
				out[l.Inode] = true
			}
		}
	}
	return out
}

func unixListeners(fs procfs.FS, paths []string) map[uint64]bool {
	out := map[uint64]bool{}
	u, err := fs.NetUNIX()
	if err != nil {
		return out
	}
	for _, l := range u.Rows {
		for _, p := range paths {
			if l.Path == p && l.Flags.String() == "listen" {
				out[l.Inode] = true
			}
		}
	}
	return out
}

// children lists pid's child processes from its main thread's children file: a process forked
// by another thread is listed in that thread's file instead, but servers fork from their main
// thread (PostgreSQL's postmaster; MySQL and MariaDB fork nothing). Every thread's file was read
// before: a server with a thread per connection has hundreds, and reading them all, at the
// window's edges on the run's clock, took 13 s on a loaded host at 40 VUs × 8 connections on 4
// MariaDB servers. false: the kernel has no children files (CONFIG_PROC_CHILDREN).
func children(pid int) ([]int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return nil, false
	}
	var out []int
	for _, w := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(w); err == nil {
			out = append(out, n)
		}
	}
	return out, true
}

// CPU is the server's CPU time so far: its own (every thread), its children's (PostgreSQL's
// backends), and that of children it has reaped (backends that ended).
func (s *Server) CPU() (float64, error) {
	if s == nil || s.PID == 0 {
		return 0, fmt.Errorf("no server process")
	}
	// The main thread's children file names its children without a pass over every process: it
	// is read each second for the live figures. Without it (a kernel built without
	// CONFIG_PROC_CHILDREN), every process's parent is read.
	kids, kidsOK := children(s.PID)
	own, err := procfs.NewProc(s.PID)
	if err != nil {
		return 0, fmt.Errorf("the server process %d is gone", s.PID)
	}
	st, err := own.Stat()
	if err != nil {
		return 0, fmt.Errorf("the server process %d is gone", s.PID)
	}
	ticks := float64(st.UTime+st.STime) + float64(st.CUTime+st.CSTime)
	if kidsOK {
		for _, k := range kids {
			if p, err := procfs.NewProc(k); err == nil {
				if st, err := p.Stat(); err == nil && st.PPID == s.PID {
					ticks += float64(st.UTime + st.STime)
				}
			}
		}
	} else {
		procs, err := procfs.AllProcs()
		if err != nil {
			return 0, err
		}
		for _, p := range procs {
			if st, err := p.Stat(); err == nil && st.PPID == s.PID {
				ticks += float64(st.UTime + st.STime)
			}
		}
	}
	// /proc counts in USER_HZ, 100 per second on every Linux this runs on.
	return ticks / 100, nil
}
