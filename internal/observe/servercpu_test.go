package observe

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// composite is a set of member targets, as a shard set is: the server's CPU is each member's
// server's, once per host:port, summed.
type composite struct {
	target.Target
	members []target.Target
}

func (c composite) Members() []target.Target { return c.members }

func TestServerCPUOfACompositeSumsItsServers(t *testing.T) {
	ctx := context.Background()
	var members []target.Target
	for _, u := range []string{testutil.PG(t), testutil.MySQL(t), testutil.PG(t)} {
		m, err := target.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		members = append(members, m)
	}
	env := Env{Target: composite{members[0], members}}
	w, err := Start(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	w.Window(true)
	// Work for each server, so that each has CPU of its own in the window.
	for _, m := range members[:2] {
		c, err := m.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline); {
			var n int64
			if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.columns").Scan(&n); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
	}
	w.Window(false)
	d := &results.Document{}
	w.Fill(d)
	s := d.Server
	if s == nil || len(s.Members) != 2 {
		t.Fatalf("server section %+v: want the two distinct servers as members (the third member shares the first's)", s)
	}
	var sum float64
	for _, m := range s.Members {
		if m.Where != "local" || m.PID == 0 || m.CPUSeconds <= 0 {
			t.Errorf("member %+v: want a local server with CPU in the window", m)
		}
		sum += m.CPUSeconds
	}
	if s.Members[0].PID == s.Members[1].PID {
		t.Errorf("both members found the same process %d", s.Members[0].PID)
	}
	if d := s.CPUSeconds - sum; d > 0.002 || d < -0.002 {
		t.Errorf("cpu_seconds %.3f, want the members' sum %.3f", s.CPUSeconds, sum)
	}
}
