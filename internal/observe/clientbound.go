package observe

import (
	"context"
	"net"
	"os"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// clientThreads measures whether cairn itself was short of CPU in the window: its threads' run
// and run-queue wait times and how busy the CPUs it may use were, at the window's edges
// (results.ClientThreads), and marks a run whose client was short of the CPUs it may use
// (client_bound: results.ClientThreads.Bound). A run on an embedded database is not marked: the
// database's work is cairn's own, and a busy client is the database at work.
type clientThreads struct {
	Base
	embedded     bool
	serverHere   bool
	start, end   schedTotals
	startOK, eOK bool
	cpus         unix.CPUSet
	stat         *CPUSampler // from the window's start
	busy         float64
	hostCPUs     int
	busyOK       bool
}

type schedTotals struct{ run, wait uint64 }

func init() {
	Register(Kind{Name: "client-threads", Order: 25, Start: func(_ context.Context, env *Env) (Observer, error) {
		if _, err := readSched(); err != nil {
			return nil, nil // no schedstat (a kernel without CONFIG_SCHEDSTATS): nothing to read
		}
		return &clientThreads{embedded: env.Target.Dialect().Embedded, serverHere: serverHere(env.Target)}, nil
	}})
}

// serverHere says whether t's server (a member's, for a composite) runs on this host, by its
// address alone: FindServer's search of every process is not needed to know that.
func serverHere(t target.Target) bool {
	if c, ok := t.(target.Composite); ok {
		for _, m := range c.Members() {
			if serverHere(m) {
				return true
			}
		}
		return false
	}
	host, _, err := net.SplitHostPort(t.Address())
	return err == nil && IsLocalHost(host)
}

// readSched sums the run and wait times of every thread of this process.
func readSched() (schedTotals, error) {
	ts, err := procfs.AllThreads(os.Getpid())
	if err != nil {
		return schedTotals{}, err
	}
	var t schedTotals
	for _, p := range ts {
		s, err := p.Schedstat()
		if err != nil {
			continue // a thread that ended while the list was read
		}
		t.run += s.RunningNanoseconds
		t.wait += s.WaitingNanoseconds
	}
	return t, nil
}

func (c *clientThreads) Window(start bool) {
	t, err := readSched()
	if start {
		c.start, c.startOK = t, err == nil
		if unix.SchedGetaffinity(0, &c.cpus) != nil {
			c.cpus = unix.CPUSet{}
		}
		c.stat = NewCPUSampler()
		return
	}
	c.end, c.eOK = t, err == nil
	if c.stat != nil {
		c.busy, c.hostCPUs, c.busyOK = c.stat.BusyOf(c.cpus)
	}
}

func (c *clientThreads) Fill(d *results.Document) {
	win := d.Window.ClientSeconds
	cpus := c.cpus.Count()
	if !c.startOK || !c.eOK || cpus == 0 || win <= 0 || c.end.run < c.start.run {
		return
	}
	run := float64(c.end.run-c.start.run) / 1e9
	wait := 0.0
	if c.end.wait > c.start.wait {
		wait = float64(c.end.wait-c.start.wait) / 1e9
	}
	can := win * float64(cpus)
	th := &results.ClientThreads{RunSeconds: run, WaitSeconds: wait, UsableCPUs: cpus, UseShare: run / can, WaitPerCPU: wait / can}
	if d.VU > 0 {
		th.VUWaitShare = wait / (float64(d.VU) * win)
	}
	if c.busyOK {
		b := c.busy
		th.CPUsBusy = &b
		th.ServerShares = c.serverHere && cpus >= c.hostCPUs
	}
	d.Client.Threads = th
	if th.Bound() && !c.embedded && !d.Interrupted {
		d.Mark(results.ClientBound, th.Text(win)+": cairn was short of the CPUs it may use; the client, not only the database, limited what was measured")
	}
}
