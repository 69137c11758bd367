package observe

import (
	"context"

	"github.com/cairn-bench/cairn/internal/results"
)

// serverCPU reads the server process's CPU at the window's edges: the document's server section,
// per transaction as the client's is counted.
type serverCPU struct {
	Base
	server *Server
	srv    [2]float64
	srvOK  [2]bool
	note   string
}

func init() {
	Register(Kind{Name: "server-cpu", Order: 30, Start: func(_ context.Context, env *Env) (Observer, error) {
		if env.Off() {
			return nil, nil
		}
		return &serverCPU{server: env.Server()}, nil
	}})
}

func (s *Server) embedded() bool { return s.FoundBy == "embedded in cairn" }

func (o *serverCPU) Window(start bool) {
	i := 0
	if !start {
		i = 1
	}
	if o.server.PID > 0 && !o.server.embedded() {
		v, err := o.server.CPU()
		o.srv[i], o.srvOK[i] = v, err == nil
		if err != nil {
			o.note = err.Error()
		}
	}
}

func (o *serverCPU) Fill(d *results.Document) {
	srv := o.server
	s := &results.Server{PID: srv.PID, Process: srv.Name, FoundBy: srv.FoundBy}
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
	if o.srvOK[0] && o.srvOK[1] {
		s.CPUSeconds = roundTo(o.srv[1]-o.srv[0], 3)
		if c := d.Client; c.CPUusPerTxn > 0 && c.CPUSeconds > 0 {
			txns := c.CPUSeconds * 1e6 / c.CPUusPerTxn
			s.CPUusPerTxn = roundTo(s.CPUSeconds*1e6/txns, 1)
		}
	} else if s.Where == "local" && s.Note == "" && o.note != "" {
		s.Note = o.note
	}
	d.Server = s
}
