package observe

import (
	"context"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// serverCPU reads the server process's CPU at the window's edges: the document's server section,
// per transaction as the client's is counted. For a composite target (target.Composite) it reads
// every member's server once (members on one host:port share it) and sums them. Each second its
// own goroutine reads them again for the live figures (Second.ServerCPU), which Tick takes: the
// run's clock never waits for /proc (see live).
type serverCPU struct {
	Base
	servers []*Server
	srv     [2][]float64
	srvOK   [2][]bool
	note    string
	// rate is the servers' CPU over the live sampler's last second, in percent of one CPU, when
	// rateOK; stop ends the sampler, done says it ended.
	mu     sync.Mutex
	rate   float64
	rateOK bool
	stop   chan struct{}
	done   chan struct{}
}

// serversOf are the servers t's work runs on: its own, or each distinct one of its members'.
func serversOf(env *Env) []*Server {
	c, ok := env.Target.(target.Composite)
	if !ok {
		return []*Server{env.Server()}
	}
	var out []*Server
	seen := map[string]bool{}
	for _, m := range c.Members() {
		if a := m.Address(); !seen[a] {
			seen[a] = true
			out = append(out, FindServer(m))
		}
	}
	return out
}

func init() {
	Register(Kind{Name: "server-cpu", Order: 30, Start: func(_ context.Context, env *Env) (Observer, error) {
		if env.Off() {
			return nil, nil
		}
		o := &serverCPU{servers: serversOf(env)}
		for i := range o.srv {
			o.srv[i], o.srvOK[i] = make([]float64, len(o.servers)), make([]bool, len(o.servers))
		}
		if o.liveable() {
			o.stop, o.done = make(chan struct{}), make(chan struct{})
			go o.live()
		}
		return o, nil
	}})
}

func (s *Server) embedded() bool { return s.FoundBy == "embedded in cairn" }

// liveable says whether every server is a local process whose CPU can be read.
func (o *serverCPU) liveable() bool {
	for _, srv := range o.servers {
		if srv.PID == 0 || srv.embedded() || !srv.Local {
			return false
		}
	}
	return len(o.servers) > 0
}

// live reads the servers' CPU each second for the live figures. Not on the run's clock: a reading
// costs a pass over /proc per server (its threads' children files, Server.CPU), hundreds of system
// calls for a server with a thread per connection, and on the clock's goroutine each call could
// wait for a P that the VUs hold in their raw system calls (internal/target/blockconn). At 40
// VUs × 8 connections on 4 MariaDB servers that made ticks come 13–20 s apart.
func (o *serverCPU) live() {
	defer close(o.done)
	tk := time.NewTicker(time.Second)
	defer tk.Stop()
	var last float64
	var lastAt time.Time
	lastOK := false
	for {
		now, total, ok := time.Now(), 0.0, true
		for _, srv := range o.servers {
			v, err := srv.CPU()
			if err != nil {
				ok = false
				break
			}
			total += v
		}
		if ok && lastOK {
			if dt := now.Sub(lastAt).Seconds(); dt > 0 {
				o.mu.Lock()
				o.rate, o.rateOK = roundTo(100*(total-last)/dt, 1), true
				o.mu.Unlock()
			}
		} else if !ok {
			o.mu.Lock()
			o.rateOK = false
			o.mu.Unlock()
		}
		last, lastAt, lastOK = total, now, ok
		select {
		case <-o.stop:
			return
		case <-tk.C:
		}
	}
}

// Tick gives the second the servers' CPU over the live sampler's last second.
func (o *serverCPU) Tick(sec *metrics.Second) {
	o.mu.Lock()
	sec.ServerCPU, sec.ServerCPUOK = o.rate, o.rateOK
	o.mu.Unlock()
}

// Close stops the live sampler.
func (o *serverCPU) Close(context.Context) error {
	if o.stop != nil {
		close(o.stop)
		<-o.done
		o.stop = nil
	}
	return nil
}

func (o *serverCPU) Window(start bool) {
	i := 0
	if !start {
		i = 1
	}
	for j, srv := range o.servers {
		if srv.PID > 0 && !srv.embedded() {
			v, err := srv.CPU()
			o.srv[i][j], o.srvOK[i][j] = v, err == nil
			if err != nil {
				o.note = err.Error()
			}
		}
	}
}

// section is one server's part, its CPU over the window when both edges were read.
func (o *serverCPU) section(j int) (s *results.Server, ok bool) {
	srv := o.servers[j]
	s = &results.Server{PID: srv.PID, Process: srv.Name, FoundBy: srv.FoundBy}
	switch {
	case srv.embedded():
		s.Where, s.PID, s.Process, s.FoundBy = "embedded", 0, "", ""
		s.Note = "SQLite runs inside cairn: its CPU is the client's"
	case !srv.Local:
		s.Where, s.Note = "remote", "remote"
	default:
		s.Where = "local"
		if srv.PID == 0 {
			s.Note = srv.Why
		}
	}
	if o.srvOK[0][j] && o.srvOK[1][j] {
		s.CPUSeconds = roundTo(o.srv[1][j]-o.srv[0][j], 3)
		return s, true
	}
	if s.Where == "local" && s.Note == "" && o.note != "" {
		s.Note = o.note
	}
	return s, false
}

func (o *serverCPU) Fill(d *results.Document) {
	s, ok := o.section(0)
	if len(o.servers) > 1 {
		// Several servers: each is a member; the sum stands only when every one was read.
		all := &results.Server{Where: s.Where}
		ok = true
		for j := range o.servers {
			m, mok := o.section(j)
			all.Members = append(all.Members, *m)
			all.CPUSeconds += m.CPUSeconds
			ok = ok && mok
			if m.Where != all.Where {
				all.Where = "mixed"
			}
		}
		all.CPUSeconds = roundTo(all.CPUSeconds, 3)
		if !ok {
			all.CPUSeconds = 0
			all.Note = "not every member's server could be read: no sum"
		}
		s = all
	}
	if ok {
		if c := d.Client; c.CPUusPerTxn > 0 && c.CPUSeconds > 0 {
			txns := c.CPUSeconds * 1e6 / c.CPUusPerTxn
			s.CPUusPerTxn = roundTo(s.CPUSeconds*1e6/txns, 1)
		}
	}
	d.Server = s
}
