package session

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// openReplicas opens the spec's replicas beside its primary t, nil when it names none.
func openReplicas(ctx context.Context, t target.Target, replicas, route string) (*target.Replicated, error) {
	if replicas == "" {
		return nil, nil
	}
	if _, set := t.(target.Composite); set {
		return nil, fmt.Errorf("--replica: a primary with replicas is one database, and --db names a shard set")
	}
	return target.OpenReplicas(ctx, t, target.SetURLs(replicas), route)
}

// routed checks that a workload given replicas to send reads to sends some.
func (se *Session) routed(def *workload.Run) error {
	if se.rep != nil && se.rep.Routes() && len(def.Routed) == 0 {
		return inputf("--replica: %s sends no transactions to replicas; --route primary runs everything on the primary and counts the replicas", se.W.Info().Title)
	}
	return nil
}

// lagSampler reads each replica's lag once a second while a run runs, on the replica's own
// connection (target.Replicated.Lag).
type lagSampler struct {
	rep  *target.Replicated
	at   [][]time.Time
	lag  [][]float64
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

func startLag(ctx context.Context, rep *target.Replicated) *lagSampler {
	n := len(rep.Replicas())
	l := &lagSampler{rep: rep, at: make([][]time.Time, n), lag: make([][]float64, n), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			for i := 0; i < n; i++ {
				if s, ok, err := rep.Lag(ctx, i); err == nil && ok {
					l.at[i], l.lag[i] = append(l.at[i], time.Now()), append(l.lag[i], s)
				}
			}
			select {
			case <-l.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return l
}

// Stop ends the sampling and waits for it.
func (l *lagSampler) Stop() {
	l.once.Do(func() { close(l.stop) })
	<-l.done
}

// replicationOf is the document's replication section: the connection groups' figures from the
// window's histograms and counts, each server's TPM from its own counter, each replica's lag. A
// server-counted TPM becomes the sum of the servers' (each rounded down), so that it is theirs
// exactly.
func replicationOf(d *results.Document, out *run.Outcome, def *workload.Run, rep *target.Replicated, lag *lagSampler) *results.Replication {
	r := &results.Replication{Route: target.RouteReads}
	if !rep.Routes() {
		r.Route = target.RoutePrimary
	}
	group := func(name string, types []int) {
		g := results.ReplicaGroup{Group: name}
		h := metrics.NewHist()
		for _, i := range types {
			g.Types = append(g.Types, def.Types[i])
			if w := out.Window; w != nil {
				g.Transactions += w.Counts[i].Count
				g.Errors += w.Counts[i].Errors
				h.Merge(w.Lat[i])
			}
		}
		if s := d.Window.ClientSeconds; s > 0 {
			g.PerMinute = float64(g.Transactions) / (s / 60)
		}
		g.LatencyMs = metrics.Summarize(h)
		r.Groups = append(r.Groups, g)
	}
	var primary []int
	for i := range def.Types {
		if !slices.Contains(def.Routed, i) {
			primary = append(primary, i)
		}
	}
	group("primary", primary)
	if rep.Routes() && len(def.Routed) > 0 {
		group("replicas", def.Routed)
	}
	n := 1 + len(rep.Replicas())
	counted := out.WindowStarted && out.Start.OK && out.End.OK && !out.Restarted && !out.Start.NoCounter && !out.End.NoCounter &&
		len(out.Start.Servers) == n && len(out.End.Servers) == n && d.Window.Seconds > 0 && rep.TxnCounterSQL() != ""
	var sum int64
	for i := 0; i < n; i++ {
		s := results.ReplicaServer{Role: "primary", Address: rep.Primary().Address()}
		if i > 0 {
			s.Role, s.Address = "replica", rep.Replicas()[i-1].Address()
			s.Lag = lagOf(d, out, lag, i-1, rep.LagSource(i-1))
		}
		if counted {
			c := out.End.Servers[i] - out.Start.Servers[i]
			if i == 0 {
				c -= out.OwnTxns
			}
			tpm := int64(math.Floor(float64(c) / (d.Window.Seconds / 60)))
			s.TPM = &tpm
			sum += tpm
		}
		r.Servers = append(r.Servers, s)
	}
	if counted && d.Result.TPM != nil {
		d.Result.TPM = &sum
	}
	return r
}

// lagOf is replica i's lag samples, their times from the run's start.
func lagOf(d *results.Document, out *run.Outcome, lag *lagSampler, i int, source string) *results.ReplicaLag {
	if lag == nil || source == "" {
		return nil
	}
	l := &results.ReplicaLag{Source: source, AtS: []float64{}, Seconds: []float64{}}
	from, to := d.Window.RampupSeconds, d.Window.RampupSeconds+d.Window.Seconds
	var max, total float64
	var in int
	for k, at := range lag.at[i] {
		a := secs(at.Sub(out.StartedAt))
		v := math.Round(lag.lag[i][k]*1000) / 1000
		l.AtS, l.Seconds = append(l.AtS, a), append(l.Seconds, v)
		if a >= from && a <= to {
			max, total, in = math.Max(max, v), total+v, in+1
		}
	}
	if in > 0 {
		mean := math.Round(total/float64(in)*1000) / 1000
		l.MaxS, l.MeanS = &max, &mean
	}
	return l
}
