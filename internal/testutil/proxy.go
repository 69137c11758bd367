package testutil

import (
	"io"
	"net"
	neturl "net/url"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections from a port of its own on 127.0.0.1 to a database server, so
// that a test can take the server away from cairn and give it back: Cut closes every
// connection and stops listening (a new connection is refused, as by a server that is down),
// Restore listens again on the same port. The server itself keeps running, untouched.
type Proxy struct {
	t      testing.TB
	to     string // the server's host:port
	addr   string // the proxy's host:port
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
	closed bool
}

// NewProxy starts a proxy to the server of url and returns it; it stops when the test ends.
func NewProxy(t testing.TB, url string) *Proxy {
	t.Helper()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{t: t, to: u.Host, addr: ln.Addr().String(), conns: map[net.Conn]bool{}}
	p.serve(ln)
	t.Cleanup(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		p.Cut()
	})
	return p
}

// URL is url with its host and port replaced by the proxy's.
func (p *Proxy) URL(url string) string {
	u, err := neturl.Parse(url)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.addr
	return u.String()
}

func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *Proxy) forward(c net.Conn) {
	s, err := net.DialTimeout("tcp", p.to, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut while dialling
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		io.Copy(dst, src)
		dst.Close()
		src.Close()
		done <- struct{}{}
	}
	go pipe(s, c)
	go pipe(c, s)
	<-done
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
}

// Cut takes the server away: every connection through the proxy is closed, and new ones are
// refused until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// Restore gives the server back: the proxy listens again on its port.
func (p *Proxy) Restore() {
	p.t.Helper()
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Errorf("the proxy cannot listen on %s again: %v", p.addr, err)
		return
	}
	p.serve(ln)
}
