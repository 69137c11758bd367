package target

import (
	"context"
	"net"
	"testing"
)

// TestIdentifyPostgreSQLInOneRead: PostgreSQL answers the probe's SSLRequest with 'N' and then
// refuses the rest of the probe with an error message; the two can arrive in one read, as this
// listener on loopback sends them (a real server does so now and then: TestWrongPort failed on
// it). Either way the port is named PostgreSQL's.
func TestIdentifyPostgreSQLInOneRead(t *testing.T) {
	for _, reply := range []string{"N", "NE\x00\x00\x00\x55SFATAL\x00"} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			buf := make([]byte, 12)
			n := 0
			for n < len(buf) { // the whole probe first, so that the reply is one write
				m, err := c.Read(buf[n:])
				if err != nil {
					return
				}
				n += m
			}
			_, _ = c.Write([]byte(reply))
			_, _ = c.Read(buf)
		}()
		tag, what, answered := identify(context.Background(), l.Addr().String())
		l.Close()
		if tag != "postgres" || !answered {
			t.Errorf("reply %q: identified as %q (%s), answered %v; want PostgreSQL", reply, tag, what, answered)
		}
	}
}
