package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"
)

// DefaultConnectTimeout bounds a connection and its login unless --connect-timeout or the URL's
// own timeout parameter says otherwise: long enough for a loaded server, short enough that a
// wrong port does not look like a hang.
const DefaultConnectTimeout = 5 * time.Second

// Connecting is the option of every command that connects to a database, declared once here for
// the flags of those commands and for run specs.
type Connecting struct {
	ConnectTimeout time.Duration `opt:"connect-timeout" min:"100ms" max:"10m" help:"how long connecting and logging in to the database may take (a URL's own connect_timeout or timeout parameter wins)"`
}

type connectTimeoutKey struct{}

// WithConnectTimeout gives the openers the connect timeout to use for connections made with ctx;
// zero leaves the default.
func WithConnectTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, connectTimeoutKey{}, d)
}

// ConnectTimeout is the timeout set by WithConnectTimeout, or DefaultConnectTimeout.
func ConnectTimeout(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(connectTimeoutKey{}).(time.Duration); ok {
		return d
	}
	return DefaultConnectTimeout
}

// probeWait is how long Unreachable waits for each answer of the server it asks: a server on
// loopback or a LAN answers a greeting in microseconds.
const probeWait = time.Second

// Unreachable words a connection attempt to addr that did not reach a kind server (kind:
// "PostgreSQL", "MySQL/MariaDB"), for a ConnectError's message, when the driver's own error does
// not say why (a refused connection, a timeout, a reply that is not kind's protocol). It asks the
// address what it is: a MySQL server greets first, PostgreSQL answers an SSL request with one
// byte, an HTTP server answers a malformed request with an HTTP status line. timeout is the
// connect timeout the attempt had.
//
// It returns "" when the address does answer as a kind server (self: "postgres" or "mysql"), or
// when ctx is done: the driver's own error says more then.
func Unreachable(ctx context.Context, kind, self, addr string, err error, timeout time.Duration) string {
	if ctx.Err() != nil {
		return ""
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return "connection refused: nothing listens there (is the server running, and on this port?)"
	}
	if errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return "the host is unreachable (check the host in the URL and the network)"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Sprintf("the host name %q does not resolve (check the host in the URL)", dnsErr.Name)
	}
	tag, what, answered := identify(ctx, addr)
	switch {
	case tag == self:
		return ""
	case !answered:
		return fmt.Sprintf("no answer within %s (check the host, the port and any firewall; --connect-timeout waits longer)", timeout)
	case what == "":
		return fmt.Sprintf("the connection was accepted but nothing answered as a %s server within %s (check the port; a stuck server answers so too; --connect-timeout waits longer)", kind, timeout)
	}
	return fmt.Sprintf("it answered, but not as a %s server: it looks like %s (check the port and the URL's scheme)", kind, what)
}

// identify connects to addr and tells what answered, as a tag ("postgres", "mysql", "http", …)
// and in words: answered is false when nothing accepts the connection, what is "" when it is
// accepted but nothing speaks.
func identify(ctx context.Context, addr string) (tag, what string, answered bool) {
	d := net.Dialer{Timeout: probeWait}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", "", false
	}
	defer c.Close()
	buf := make([]byte, 512)
	read := func() []byte {
		_ = c.SetReadDeadline(time.Now().Add(probeWait))
		n, _ := c.Read(buf)
		return buf[:n]
	}
	// A MySQL server speaks first; read briefly before asking anything.
	_ = c.SetReadDeadline(time.Now().Add(probeWait / 4))
	n, _ := c.Read(buf)
	b := buf[:n]
	if len(b) == 0 {
		// PostgreSQL's SSLRequest, then an end of headers for an HTTP server (PostgreSQL answers the
		// request before it reads on).
		_ = c.SetWriteDeadline(time.Now().Add(probeWait))
		if _, err := c.Write([]byte("\x00\x00\x00\x08\x04\xd2\x16\x2f\r\n\r\n")); err != nil {
			return "", "", true
		}
		b = read()
		// PostgreSQL answers the SSLRequest with one byte, then reads the HTTP ending as a
		// startup packet's length and refuses it with an error message ('E'), which can come in
		// the same read.
		if len(b) >= 1 && (b[0] == 'N' || b[0] == 'S') && (len(b) == 1 || b[1] == 'E') {
			return "postgres", "PostgreSQL", true
		}
	}
	switch {
	case len(b) == 0:
		return "", "", true
	case len(b) > 5 && b[3] == 0 && b[4] == 10 && bytes.IndexByte(b[5:], 0) > 0:
		// A handshake packet: length, sequence 0, protocol 10, the version ending in a NUL.
		v := b[5:]
		return "mysql", "a MySQL or MariaDB server, version " + printable(v[:bytes.IndexByte(v, 0)]), true
	case len(b) > 7 && b[3] == 0 && b[4] == 0xff:
		// An error packet in the greeting's place (too many connections, a blocked host).
		return "mysql", "a MySQL or MariaDB server, which refused the connection: " + printable(b[7:]), true
	case bytes.HasPrefix(b, []byte("HTTP/")):
		line, _, _ := bytes.Cut(b, []byte("\r\n"))
		return "http", "an HTTP server: " + printable(line), true
	case bytes.HasPrefix(b, []byte("SSH-")):
		return "ssh", "an SSH server", true
	}
	return "other", "something else: it sent " + printable(b[:min(len(b), 16)]), true
}

// printable is b with anything but printable ASCII shown as a dot, for a message.
func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			c = '.'
		}
		out[i] = c
	}
	return string(out)
}
