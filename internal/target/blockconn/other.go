//go:build !linux

package blockconn

import (
	"context"
	"net"
)

// Dialer returns the standard dialer: blocking sockets are used on Linux only.
func Dialer(perCPU int) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
}
