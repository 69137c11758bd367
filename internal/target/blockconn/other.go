//go:build !linux

package blockconn

import (
	"context"
	"errors"
	"net"
)

// Transport is the standard dialer: blocking sockets are used on Linux only.
type Transport struct{}

// New returns the standard dialer's transport.
func New(perCPU, concurrency int) *Transport { return &Transport{} }

// Dial dials with Go's standard dialer.
func (*Transport) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// DialPolled is Dial: see Poller.
func (tr *Transport) DialPolled(ctx context.Context, network, addr string) (net.Conn, error) {
	return tr.Dial(ctx, network, addr)
}

// CanPoll says whether Poller works here.
const CanPoll = false

// Poller is not implemented off Linux: no connection there offers its socket to poll.
type Poller struct{}

// Wait fails: see Poller.
func (*Poller) Wait(fds []int) error { return errors.New("blockconn: no poll off Linux") }

// Ready is false: see Poller.
func (*Poller) Ready(i int) bool { return false }

// ReservePollers does nothing: see Poller.
func ReservePollers(int) {}

// Reserved is false: see Poller.
func (*Poller) Reserved() bool { return false }

// Close does nothing: see Poller.
func (*Poller) Close() {}
