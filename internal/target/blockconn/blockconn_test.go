//go:build linux

package blockconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// echoServer accepts connections and echoes what it reads until the client closes.
func echoServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return l.Addr().String()
}

func TestRoundTripAndClose(t *testing.T) {
	addr := echoServer(t)
	c, err := New(1, 0).Dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*Conn); !ok {
		t.Fatalf("with no concurrency hint the connection should be blocking, got %T", c)
	}
	if runtime.GOMAXPROCS(0) < baseProcs()+2 {
		t.Errorf("GOMAXPROCS %d: a transport for blocking connections should reserve Ps (base %d)", runtime.GOMAXPROCS(0), baseProcs())
	}
	msg := []byte("select 1")
	for i := 0; i < 100; i++ {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(msg))
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
		if string(buf) != string(msg) {
			t.Fatalf("echo %q, want %q", buf, msg)
		}
	}
	// A read blocked in the kernel must return when another goroutine closes the connection.
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 16))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	before := open.Load()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("blocked read after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not wake the blocked read")
	}
	if open.Load() != before-1 {
		t.Errorf("open connections %d after close, want %d", open.Load(), before-1)
	}
	if _, err := c.Write(msg); !errors.Is(err, net.ErrClosed) {
		t.Errorf("write after Close: %v, want net.ErrClosed", err)
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v, want net.ErrClosed", err)
	}
}

// Drivers abandon a cancelled query by setting a deadline: in the past it must interrupt a blocked
// read at once, in the future when it comes, and the zero time must disarm it.
func TestDeadlines(t *testing.T) {
	addr := echoServer(t)
	dial := New(1, 0).Dial
	c, err := dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(time.Hour))
	c.SetReadDeadline(time.Time{})
	if _, err := c.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
		t.Fatalf("a disarmed deadline broke the connection: %v", err)
	}
	start := time.Now()
	c.SetDeadline(time.Now().Add(100 * time.Millisecond))
	_, err = c.Read(make([]byte, 1))
	if err == nil {
		t.Fatal("read past the deadline returned data")
	}
	if el := time.Since(start); el < 80*time.Millisecond || el > 3*time.Second {
		t.Errorf("deadline of 100ms interrupted the read after %v", el)
	}

	c2, err := dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	c2.SetDeadline(time.Now().Add(-time.Second))
	if _, err := c2.Read(make([]byte, 1)); err == nil {
		t.Fatal("read after a past deadline returned data")
	}
}

func TestConcurrencyChoosesTransport(t *testing.T) {
	addr := echoServer(t)
	dial := New(2, 0).Dial
	few := target.WithConcurrency(context.Background(), 2*baseProcs())
	many := target.WithConcurrency(context.Background(), 2*baseProcs()+1)
	c, err := dial(few, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*Conn); !ok {
		t.Errorf("%d busy connections at 2 per CPU: got %T, want a blocking *Conn", 2*baseProcs(), c)
	}
	c2, err := dial(many, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, ok := c2.(*net.TCPConn); !ok {
		t.Errorf("%d busy connections at 2 per CPU: got %T, want the poller's *net.TCPConn", 2*baseProcs()+1, c2)
	}
	// CAIRN_SOCKETS is read when a target opens, not on every dial.
	t.Setenv("CAIRN_SOCKETS", "poller")
	c3, err := dial(few, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if _, ok := c3.(*Conn); !ok {
		t.Errorf("CAIRN_SOCKETS set after the transport was made changed a dial: got %T", c3)
	}
	c4, err := New(2, 0).Dial(few, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c4.Close()
	if _, ok := c4.(*net.TCPConn); !ok {
		t.Errorf("CAIRN_SOCKETS=poller: got %T", c4)
	}
}

// TestNoDialChangesGOMAXPROCS: the Ps are reserved when the transport is made; dials beyond
// what was reserved go to the poller rather than raise GOMAXPROCS.
func TestNoDialChangesGOMAXPROCS(t *testing.T) {
	addr := echoServer(t)
	tr := New(1, 1)
	procs := runtime.GOMAXPROCS(0)
	if procs < baseProcs()+int(slots.Load())+1 {
		t.Fatalf("GOMAXPROCS %d for %d slots (base %d)", procs, slots.Load(), baseProcs())
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	blocking := 0
	for i := 0; i < int(slots.Load())+3; i++ {
		c, err := tr.Dial(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, ok := c.(*Conn); ok {
			blocking++
		}
	}
	if runtime.GOMAXPROCS(0) != procs {
		t.Errorf("dials changed GOMAXPROCS from %d to %d", procs, runtime.GOMAXPROCS(0))
	}
	if open.Load() > slots.Load() {
		t.Errorf("%d blocking connections open for %d reserved slots", open.Load(), slots.Load())
	}
	if blocking == 0 {
		t.Error("no dial got a blocking socket")
	}
}

func TestDialError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = New(1, 0).Dial(context.Background(), "tcp", addr)
	var oe *net.OpError
	if !errors.As(err, &oe) {
		t.Fatalf("dial to a closed port: %v, want the dialer's *net.OpError (the targets name host:port from it)", err)
	}
}

// TestHintedDialsKeepTheirSlots: the connections a run opens besides its VUs' (no concurrency
// hint: its observers', its monitor's), even when they fill every slot first, leave the reserved
// slots to the VUs' (hinted) dials, which never go beyond them.
func TestHintedDialsKeepTheirSlots(t *testing.T) {
	addr := echoServer(t)
	tr := New(1, 1)
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	dial := func(ctx context.Context) bool {
		c, err := tr.Dial(ctx, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		_, ok := c.(*Conn)
		return ok
	}
	for i := 0; dial(context.Background()); i++ {
		if i > MaxBlocking {
			t.Fatal("unhinted dials never ran out of blocking slots")
		}
	}
	hint := target.WithConcurrency(context.Background(), 1)
	for busy.Load() < slots.Load() {
		if !dial(hint) {
			t.Fatalf("a hinted dial went to the poller with %d of %d reserved slots in use (%d blocking connections in all)", busy.Load(), slots.Load(), open.Load())
		}
	}
	if dial(hint) {
		t.Errorf("a hinted dial got a blocking socket beyond the %d reserved slots", slots.Load())
	}
}

// Pollers take the slots ReservePollers made, one each, and wait as raw system calls only with
// one: beyond them a Poller's waits give their P up, so that more raw waiters than Ps never hold
// every P (the run's clock then queued for one at each system call). A closed Poller frees its slot.
func TestPollersHoldTheirSlots(t *testing.T) {
	const more = 3
	ReservePollers(int(pslots.Load()) + more)
	if want := baseProcs() + int(slots.Load()) + int(pslots.Load()) + 1; runtime.GOMAXPROCS(0) < want {
		t.Errorf("GOMAXPROCS %d, want at least %d", runtime.GOMAXPROCS(0), want)
	}
	var ps []*Poller
	defer func() {
		for _, p := range ps {
			p.Close()
		}
	}()
	for polls.Load() < pslots.Load() {
		p := &Poller{}
		ps = append(ps, p)
		if !p.Reserved() {
			t.Fatalf("a poller got no slot with %d of %d in use", polls.Load(), pslots.Load())
		}
	}
	extra := &Poller{}
	ps = append(ps, extra)
	if extra.Reserved() || extra.Reserved() {
		t.Fatalf("a poller got a slot beyond the %d reserved", pslots.Load())
	}
	// It still waits, releasing its P: a socket with data is found ready.
	c, err := net.Dial("tcp", echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("x"))
	rc, _ := c.(*net.TCPConn).SyscallConn()
	fd := -1
	rc.Control(func(s uintptr) { fd = int(s) })
	if err := extra.Wait([]int{fd}); err != nil || !extra.Ready(0) {
		t.Fatalf("wait without a slot: %v, ready %v", err, extra.Ready(0))
	}
	ps[0].Close()
	again := &Poller{}
	ps = append(ps, again)
	if !again.Reserved() {
		t.Errorf("a closed poller's slot was not freed")
	}
}

// A poll or a read that waits longer than waitSlice yields and waits on: the caller sees the data
// when it comes, never the timeout.
func TestLongReadWaitsOn(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		for _, m := range []string{"poll", "read"} {
			time.Sleep(10 * waitSlice)
			c.Write([]byte(m))
		}
		io.Copy(io.Discard, c)
	}()
	c, err := New(1, 0).Dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := c.(*Conn); !ok {
		t.Fatalf("got %T, want a blocking *Conn", c)
	}
	start := time.Now()
	var p Poller
	if err := p.Wait([]int{c.(*Conn).Fd()}); err != nil || !p.Ready(0) {
		t.Fatalf("poll: %v, ready %v", err, p.Ready(0))
	}
	for _, want := range []string{"poll", "read"} {
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != want {
			t.Fatalf("read %q, %v; want %q", buf, err, want)
		}
		if el := time.Since(start); el < 5*waitSlice {
			t.Errorf("%q came after %v, sooner than the server sent it", want, el)
		}
		start = time.Now()
	}
}

// A goroutine blocked in Read is running as far as the runtime knows (a raw system call): a
// garbage collection, which stops the world, must still go ahead at once, the read interrupted and
// resumed, and the read must still return its data afterwards.
func TestCollectionWhileReading(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	send := make(chan struct{})
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		<-send
		c.Write([]byte("done"))
		io.Copy(io.Discard, c)
	}()
	c, err := New(1, 0).Dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 4)
		_, err := io.ReadFull(c, buf)
		got <- fmt.Sprintf("%s %v", buf, err)
	}()
	time.Sleep(20 * time.Millisecond)
	collected := make(chan time.Duration, 1)
	go func() {
		start := time.Now()
		for i := 0; i < 5; i++ {
			runtime.GC()
		}
		collected <- time.Since(start)
	}()
	select {
	case el := <-collected:
		t.Logf("5 collections with a goroutine blocked in Read: %v", el)
	case <-time.After(5 * time.Second):
		t.Fatal("a collection waited for a goroutine blocked in Read")
	}
	close(send)
	select {
	case g := <-got:
		if g != "done <nil>" {
			t.Errorf("read after the collections: %s", g)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read never returned")
	}
}
