package observe

import (
	"context"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// serverCPU reads the server process's CPU at the window's edges: the document's server section,
// per transaction as the client's is counted. For a composite target (target.Composite) it reads
// every member's server once (members on one host:port share it) and sums them.
type serverCPU struct {
	Base
	servers []*Server
	srv     [2][]float64
	srvOK   [2][]bool
	note    string
	// last is the servers' CPU seconds at the last tick, at lastAt; lastOK when every one was read.
	last   float64
	lastAt time.Time
	lastOK bool
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
		return o, nil
	}})
}

func (s *Server) embedded() bool { return s.FoundBy == "embedded in cairn" }

// Tick reads the servers' CPU each second for the live figures (Second.ServerCPU): one pass over
// /proc on the monitor's goroutine, none per transaction.
func (o *serverCPU) Tick(sec *metrics.Second) {
	now, total, ok := time.Now(), 0.0, true
	for _, srv := range o.servers {
		if srv.PID == 0 || srv.embedded() || !srv.Local {
			ok = false
			break
		}
		v, err := srv.CPU()
		if err != nil {
			ok = false
			break
		}
		total += v
	}
	if ok && o.lastOK {
		if dt := now.Sub(o.lastAt).Seconds(); dt > 0 {
			sec.ServerCPU, sec.ServerCPUOK = roundTo(100*(total-o.last)/dt, 1), true
		}
	}
	o.last, o.lastAt, o.lastOK = total, now, ok
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
