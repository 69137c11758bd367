//go:build linux

// Package blockconn is a net.Conn over a socket (TCP or Unix) in blocking mode, read and written
// with plain system calls, the way libpq and libmysqlclient talk to a server.
//
// Why: a benchmark client sends a request and waits for the answer, one round trip at a time per
// virtual user. Through Go's network poller each round trip costs a read that finds the socket
// empty, a park of the goroutine, an epoll wake-up and often a futex wake-up of another thread
// (measured in docs/benchmarks.md). A blocking read costs one system call, and the kernel wakes the
// one thread waiting on the socket. The price is one OS thread per connection while it waits, which
// is what the C tools pay too; GOMAXPROCS is raised, once, when a target opens, so that a thread
// returning from a blocked read finds a free P instead of queueing for one (see Reserve), and a
// reader yields every few milliseconds so that the runtime does not take it for a CPU hog (see
// yieldEvery).
package blockconn

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/target"
)

// How a blocked read lives with Go's scheduler. Through syscall.Read, a goroutine blocked in read(2)
// keeps its P, and the runtime's monitor (sysmon) takes the P of a goroutine that has not been
// through the scheduler for 10 ms: the thread must then find another P when the read returns
// (Go 1.26 steals its old one back from whichever thread now holds it, which then does the same),
// and after each take sysmon wakes every 20 µs for a millisecond or more. Under load that cost
// more than the round trips (0.3-1.9 of sysmon's wake-ups and up to 4 context switches per point
// select, docs/benchmarks.md). So Read calls read(2) as a raw system call: to the runtime the
// goroutine is running, there is no P to take, and no entersyscall/exitsyscall either. What
// sysmon and the garbage collector do to a running goroutine that must stop is send its thread a
// signal, which interrupts the read (EINTR: the socket has a receive timeout, so the read is not
// restarted); Read then yields, which is where the goroutine stops, and reads again. A read that
// waits longer than waitSlice (SO_RCVTIMEO) returns and yields the same way, and Read yields once
// yieldEvery has passed since its last yield, so that sysmon never needs to signal a reader that
// is merely busy. The yield is runtime.goyield: it requeues the goroutine on its own P, where it
// runs again at once; runtime.Gosched, which the run engine called every 8 ms before, puts it on
// the global queue and wakes an idle thread to look for work (a futex call and two context
// switches).
const (
	yieldEvery = 2 * time.Millisecond
	waitSlice  = 7 * time.Millisecond
)

// goyield is runtime.goyield, which the runtime exports for linkname (go.dev/issue/67401).
//
//go:linkname goyield runtime.goyield
func goyield()

// nanotime is the runtime's monotonic clock, exported for linkname too.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// MaxBlocking is how many connections at once get a blocking socket; more than that stay on the
// network poller. A thread per connection is cheap at benchmark sizes, but each one also costs a P
// (see reserve), and hundreds of Ps make every garbage collection start hundreds of workers.
const MaxBlocking = 64

var (
	open   atomic.Int32 // blocking connections currently open
	busy   atomic.Int32 // of them, those dialed for a known concurrency (the run's VUs'; see dial)
	slots  atomic.Int32 // blocking connections the Ps reserved so far allow (see Reserve)
	polls  atomic.Int32 // Pollers holding a slot of their own (Poller.Reserved)
	pslots atomic.Int32 // Pollers the Ps reserved so far allow (see ReservePollers)
	procMu sync.Mutex
)

// baseProcs is the number of CPUs this process may use: its affinity, which --client-cpus
// narrows before a target opens.
func baseProcs() int {
	var s unix.CPUSet
	if unix.SchedGetaffinity(0, &s) == nil && s.Count() > 0 {
		return s.Count()
	}
	return runtime.NumCPU()
}

// Transport is one opened target's choice of sockets. Everything process-wide about it is
// decided in New, when the target opens: CAIRN_SOCKETS is read there, and the Ps that blocking
// connections need are reserved there; a dial only chooses, by its context, between a blocking
// socket and the poller.
type Transport struct {
	perCPU int
	base   int    // CPUs this process may use when the target opened
	force  string // "blocking" or "poller" from CAIRN_SOCKETS; "" lets concurrency decide
}

// New returns the transport of a target opened for connections busy at most concurrency at a
// time (0: not known; see target.WithConcurrency). It uses blocking sockets while the
// connections busy at once (target.Concurrency of each dial's context; unknown counts as few)
// are at most perCPU per CPU, and Go's network poller otherwise.
//
// Which is cheaper depends on the server. With one or two connections per CPU a blocking read wins
// on every server: one system call and one thread wake-up per round trip. With many connections per
// CPU the poller can win, because one thread then collects several answers per epoll wake-up and
// runs their goroutines one after another without a thread switch. Measured on 2 CPUs
// (docs/benchmarks.md): PostgreSQL point selects at 8 and 16 connections cost less CPU on the
// poller; MariaDB, which often sends a result in two segments and so costs the poller two wake-ups
// per round trip, is cheaper blocking up to 16.
//
// CAIRN_SOCKETS=blocking or CAIRN_SOCKETS=poller overrides the choice, to measure one against the
// other.
func New(perCPU, concurrency int) *Transport {
	tr := &Transport{perCPU: perCPU, base: baseProcs()}
	switch os.Getenv("CAIRN_SOCKETS") {
	case "blocking", "poller":
		tr.force = os.Getenv("CAIRN_SOCKETS")
	}
	if tr.force == "poller" {
		return tr
	}
	n := concurrency
	if limit := perCPU * tr.base; tr.force == "" && (n == 0 || n > limit) {
		n = limit // more than that run on the poller
	}
	if n == 0 {
		n = perCPU * tr.base
	}
	// Two more for the connections a run opens besides its VUs' (the headline's, a monitor's).
	Reserve(n + 2)
	return tr
}

// Dial opens a connection, with a blocking socket when the dial's context expects few busy
// connections and the reserved Ps allow one more.
func (tr *Transport) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	blocking := target.Concurrency(ctx) <= tr.perCPU*tr.base
	switch tr.force {
	case "blocking":
		blocking = true
	case "poller":
		blocking = false
	}
	return dial(ctx, network, addr, blocking, false, target.Concurrency(ctx) > 0)
}

// DialPolled opens a connection whose answers are read only once the Poller says they are there
// (target.WithPolled): a blocking socket kept off Go's network poller, so that an answer wakes
// only the thread polling for it and not also a thread of the runtime's netpoller, which would
// find nobody waiting. Its reader waits in the Poller, not in read, so the socket takes no slot
// (Reserve): the Poller takes one for all its sockets (Poller.Reserved).
func (tr *Transport) DialPolled(ctx context.Context, network, addr string) (net.Conn, error) {
	return dial(ctx, network, addr, tr.force != "poller", true, false)
}

// dial opens a connection, blocking if asked and a slot is free. The slots Reserve made are for
// the connections dialed with a concurrency hint (hinted: a run's VUs'), counted apart, so that
// the few a run opens besides them (its observers', its monitor's, the pool's, often opened first)
// never push a VU onto the poller: one of 4 VUs was, and paid a futex and epoll wake-up per round
// trip. Those others take a blocking socket only while fewer than the slots are open in all; they
// are idle most of the time, and a P is spare for each of them (Reserve).
func dial(ctx context.Context, network, addr string, blocking, polled, hinted bool) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	sc, ok := c.(syscall.Conn)
	if !ok || !blocking || !polled && !takeSlot(hinted) {
		return c, nil
	}
	counted := !polled
	free := func() {
		if counted {
			freeSlot(hinted)
		}
	}
	rc, err := sc.SyscallConn()
	fd := -1
	var derr error
	if err == nil {
		err = rc.Control(func(s uintptr) { fd, derr = syscall.Dup(int(s)) })
	}
	if err == nil && derr != nil {
		err = os.NewSyscallError("dup", derr)
	}
	if err != nil {
		free()
		c.Close()
		return nil, err
	}
	// Closing the original removes it from the poller; the duplicate keeps the socket open, with
	// the options the dialer set (TCP_NODELAY, keep-alive).
	local, remote := c.LocalAddr(), c.RemoteAddr()
	c.Close()
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, false); err != nil {
		free()
		syscall.Close(fd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: int64(waitSlice / time.Microsecond)}); err != nil {
		free()
		syscall.Close(fd)
		return nil, os.NewSyscallError("setsockopt", err)
	}
	conn := &Conn{fd: fd, local: local, remote: remote, network: network, counted: counted, hinted: hinted}
	conn.refs.Store(1)
	return conn, nil
}

// takeSlot counts one more blocking connection if a slot is free (see dial).
func takeSlot(hinted bool) bool {
	if hinted {
		if busy.Add(1) > slots.Load() {
			busy.Add(-1)
			return false
		}
		open.Add(1)
		return true
	}
	if open.Add(1) > slots.Load() {
		open.Add(-1)
		return false
	}
	return true
}

func freeSlot(hinted bool) {
	open.Add(-1)
	if hinted {
		busy.Add(-1)
	}
}

// Reserve makes room for n blocking connections (at most MaxBlocking in all) by keeping a P free
// for each. A goroutine returning from a blocking read needs a P to go on; if none is idle it
// queues and a thread is woken to run it later, which is the very cost this package avoids. And
// while no P is idle, the runtime's monitor takes the P of every thread blocked in a system call
// and hands it to another thread, polling every 20 µs to do so. Spare Ps cost nothing while
// nobody runs on them; GOMAXPROCS only grows, since lowering it stops the world. It is called
// when a target opens (New), never on a dial.
func Reserve(n int) {
	n = min(n, MaxBlocking)
	procMu.Lock()
	defer procMu.Unlock()
	if int(slots.Load()) >= n {
		return
	}
	slots.Store(int32(n))
	grow()
}

// ReservePollers makes room for n Pollers waiting at once (at most MaxBlocking), a P kept free for
// each as Reserve does for blocking connections: a Poller waits in a raw system call, which keeps
// its P (Poller.Reserved). Called before the clock starts (a VU's Bind), with the run's VUs.
func ReservePollers(n int) {
	n = min(n, MaxBlocking)
	procMu.Lock()
	defer procMu.Unlock()
	if int(pslots.Load()) >= n {
		return
	}
	pslots.Store(int32(n))
	grow()
}

// grow raises GOMAXPROCS to a P per CPU, per slot and per Poller slot, and one more; the caller
// holds procMu.
func grow() {
	if want := baseProcs() + int(slots.Load()) + int(pslots.Load()) + 1; runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}

// Conn is a blocking socket connection. Close may be called from another goroutine while a read is
// blocked: it shuts the socket down, which wakes the reader, and the descriptor is closed by
// whichever of them finishes last, so a blocked call never reads a reused descriptor number.
type Conn struct {
	fd            int
	local, remote net.Addr
	network       string
	counted       bool         // holds a slot (not when DialPolled)
	hinted        bool         // counted in busy
	yielded       int64        // nanotime of the last yield in Read
	refs          atomic.Int32 // 1 for the open connection + 1 per call in progress
	closed        atomic.Bool
	fdClosed      atomic.Bool
	mu            sync.Mutex // guards timer
	timer         *time.Timer
}

var errClosed = net.ErrClosed

func (c *Conn) acquire() bool {
	c.refs.Add(1)
	if c.closed.Load() {
		c.release()
		return false
	}
	return true
}

func (c *Conn) release() {
	if c.refs.Add(-1) == 0 && c.fdClosed.CompareAndSwap(false, true) {
		syscall.Close(c.fd)
		if c.counted {
			freeSlot(c.hinted)
		}
	}
}

func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !c.acquire() {
		return 0, errClosed
	}
	defer c.release()
	if now := nanotime(); now-c.yielded > int64(yieldEvery) {
		c.yielded = now
		goyield()
	}
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		n := int(r)
		switch {
		case e == syscall.EINTR || e == syscall.EAGAIN: // a signal to stop, or waitSlice passed
			c.yielded = nanotime()
			goyield()
			continue
		case e != 0:
			return 0, c.opErr("read", e)
		case n == 0:
			if c.closed.Load() {
				return 0, errClosed
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *Conn) Write(p []byte) (int, error) {
	if !c.acquire() {
		return 0, errClosed
	}
	defer c.release()
	done := 0
	for done < len(p) {
		n, err := syscall.Write(c.fd, p[done:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, c.opErr("write", err)
		}
		done += n
	}
	return done, nil
}

func (c *Conn) opErr(op string, err error) error {
	if c.closed.Load() {
		return errClosed
	}
	return &net.OpError{Op: op, Net: c.network, Source: c.local, Addr: c.remote, Err: os.NewSyscallError(op, err)}
}

// Close shuts the socket down (waking any blocked reader) and releases the descriptor.
func (c *Conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return errClosed
	}
	syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	c.release()
	return nil
}

func (c *Conn) LocalAddr() net.Addr  { return c.local }
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// Deadlines can only be enforced on a blocking socket by shutting the connection down: drivers
// set one to abandon a cancelled query, and discard the connection afterwards. A deadline in the
// past shuts it down at once, one in the future arms a timer, the zero time disarms it.
func (c *Conn) SetDeadline(t time.Time) error      { return c.deadline(t) }
func (c *Conn) SetReadDeadline(t time.Time) error  { return c.deadline(t) }
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.deadline(t) }

func (c *Conn) deadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if t.IsZero() {
		return nil
	}
	if d := time.Until(t); d > 0 {
		c.timer = time.AfterFunc(d, c.shutdown)
		return nil
	}
	c.shutdown()
	return nil
}

func (c *Conn) shutdown() {
	if c.acquire() {
		syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
		c.release()
	}
}

// Fd is the socket's descriptor, for a caller that polls several connections (Poller). It is
// valid while the connection is open.
func (c *Conn) Fd() int { return c.fd }

// CanPoll says whether Poller works here.
const CanPoll = true

// Poller waits on several sockets at once from one goroutine, as a C client with statements in
// flight on several connections does: no goroutine per socket to wake. It has an epoll instance of
// its own, to which a socket is added the first time it is waited on and where it stays, so that a
// wait is one epoll_pwait whatever the number of sockets (poll(2) would add the caller to each
// socket's wait queue, and take it off again, at every call). Level-triggered: a socket whose
// answer has not been read yet stays ready. A socket on Go's poller may be among them: epoll only
// looks, and the read that follows finds the data. Close releases the instance, and the next Wait
// makes a new one: so when the connections change (a closed descriptor leaves the set, and its
// number may come back as another socket's). The wait is a raw system call with a timeout of
// waitSlice and yields as Conn.Read does, for the same reasons.
type Poller struct {
	ep      int // the epoll instance, when made
	made    bool
	on      map[int]bool // sockets added
	ev      []unix.EpollEvent
	ready   []bool
	yielded int64 // as Conn's
	// slot: 1 the poller holds a slot (Reserve), and waits as a raw system call, keeping its P;
	// -1 none was free, and it waits as an ordinary one, which gives the P up (see Reserved);
	// 0 not decided yet.
	slot int8
}

// Reserved says whether the poller holds one of the slots ReservePollers made, taking one the first
// time it is asked (a poller is one waiter, whatever its sockets). With a slot its waits, and the
// reads its caller makes without waiting (a lone statement on a blocking socket), are raw system
// calls, each keeping a P reserved for it. Without one its waits give their P up, and its caller
// must wait before it reads: a raw call keeps the P whoever needs it, and when more goroutines
// wait in raw calls than Ps were reserved, every other goroutine that gives its P up in a system
// call (the run's clock reading /proc, a VU writing) queues for one. At 40 fan-out VUs with 21
// Ps, the clock's ticks came seconds late so.
func (p *Poller) Reserved() bool {
	if p.slot == 0 {
		p.slot = 1
		if polls.Add(1) > pslots.Load() {
			polls.Add(-1)
			p.slot = -1
		}
	}
	return p.slot == 1
}

// Wait blocks until at least one of fds is readable (or hung up or failed, which its next read
// reports); Ready then says which.
func (p *Poller) Wait(fds []int) error {
	if len(fds) == 0 {
		return errors.New("blockconn: Wait on no socket")
	}
	if !p.made {
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if err != nil {
			return os.NewSyscallError("epoll_create1", err)
		}
		p.ep, p.made, p.on = ep, true, map[int]bool{}
	}
	for _, fd := range fds {
		if p.on[fd] {
			continue
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(p.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil && err != unix.EEXIST {
			return os.NewSyscallError("epoll_ctl", err)
		}
		p.on[fd] = true
	}
	if cap(p.ev) < len(fds) {
		p.ev = make([]unix.EpollEvent, max(len(fds), 8))
	}
	p.ev = p.ev[:cap(p.ev)]
	p.ready = append(p.ready[:0], make([]bool, len(fds))...)
	if now := nanotime(); now-p.yielded > int64(yieldEvery) {
		p.yielded = now
		goyield()
	}
	raw := p.Reserved()
	for {
		// Raw, as Conn.Read's read(2), with a slot: a signal interrupts epoll_pwait with EINTR.
		var r uintptr
		var e syscall.Errno
		if raw {
			r, _, e = syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(p.ep), uintptr(unsafe.Pointer(&p.ev[0])),
				uintptr(len(p.ev)), uintptr(waitSlice/time.Millisecond), 0, 0)
		} else {
			r, _, e = syscall.Syscall6(unix.SYS_EPOLL_PWAIT, uintptr(p.ep), uintptr(unsafe.Pointer(&p.ev[0])),
				uintptr(len(p.ev)), uintptr(waitSlice/time.Millisecond), 0, 0)
		}
		if e != 0 && e != syscall.EINTR {
			return os.NewSyscallError("epoll_pwait", e)
		}
		found := false
		if e == 0 {
			for _, ev := range p.ev[:int(r)] {
				k := slices.Index(fds, int(ev.Fd))
				if k < 0 {
					// A socket not waited on now that hung up or failed: out of the set until it is
					// waited on again, or it would wake every wait.
					unix.EpollCtl(p.ep, unix.EPOLL_CTL_DEL, int(ev.Fd), nil)
					delete(p.on, int(ev.Fd))
					continue
				}
				p.ready[k], found = true, true
			}
		}
		if found {
			return nil
		}
		p.yielded = nanotime()
		goyield()
	}
}

// Ready reports whether the i-th socket of the last Wait is readable.
func (p *Poller) Ready(i int) bool { return p.ready[i] }

// Close releases the epoll instance and its slot, and forgets every socket.
func (p *Poller) Close() {
	if p.made {
		unix.Close(p.ep)
		p.made, p.on = false, nil
	}
	if p.slot == 1 {
		polls.Add(-1)
	}
	p.slot = 0
}
