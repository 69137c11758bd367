package observe

import (
	"context"
	"fmt"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// binding binds the server's processes to the spec's server CPUs for the run (restored at Close),
// and records both bindings; the client's was applied when the session opened.
type binding struct {
	Base
	client, server []int
	pin            *Pinning
}

func init() {
	// First: a bound server's new backends, the other observers' and the VUs', inherit its binding.
	Register(Kind{Name: "binding", Order: 10, Start: startBinding})
}

func startBinding(_ context.Context, env *Env) (Observer, error) {
	if env.ClientCPUs == "" && env.ServerCPUs == "" {
		return nil, nil
	}
	b := &binding{}
	var err error
	if env.ClientCPUs != "" {
		if b.client, err = HostCPUs("client-cpus", env.ClientCPUs); err != nil {
			return nil, err
		}
	}
	if env.ServerCPUs == "" {
		return b, nil
	}
	if b.server, err = HostCPUs("server-cpus", env.ServerCPUs); err != nil {
		return nil, err
	}
	t := env.Target
	if t.Dialect().Embedded {
		return nil, &RemoteError{Where: target.Where(t), Why: "it runs inside cairn", Inside: true}
	}
	srv := env.Server()
	if !srv.Local {
		return nil, &RemoteError{Where: target.Where(t), Why: srv.Why}
	}
	if srv.PID == 0 {
		return nil, fmt.Errorf("--server-cpus: the server at %s runs here, but %s", target.Where(t), srv.Why)
	}
	if b.pin, err = PinServer(srv.PID, b.server, fmt.Sprintf("%s's %s", t.Name(), srv.Name)); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *binding) Close(context.Context) error {
	err := b.pin.Restore()
	b.pin = nil
	return err
}

func (b *binding) Fill(d *results.Document) {
	d.Binding = &results.Binding{ClientCPUs: textfmt.FormatCPUList(b.client), ServerCPUs: textfmt.FormatCPUList(b.server)}
	if len(b.client) > 0 {
		d.Binding.ClientTopology = Topology(b.client)
	}
	if len(b.server) > 0 {
		d.Binding.ServerTopology = Topology(b.server)
	}
}
