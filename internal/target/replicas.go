package target

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// A primary with replicas (docs/tpcc.md#replicas): --db names the primary, --replica each
// replica, which serves the same database by the server's own replication. The workload sends
// the transactions --route picks to the replicas and the rest to the primary; the window's
// readings count the transactions of every server, each on its own counter.

// Routing is the option of a run that says which transactions go to the replicas, declared once
// here for the flags and for run specs.
type Routing struct {
	Route string `opt:"route" enum:"reads,primary" unset:"" help:"with --replica: reads sends the read-only transactions (TPC-C's Order-Status and Stock-Level, oltp_read_only's) to the replicas, each VU to one replica (VU i to replica i mod n); primary sends everything to the primary, the replicas only counted and their lag sampled"`
}

// RouteReads and RoutePrimary are the values of Routing.Route.
const (
	RouteReads   = "reads"
	RoutePrimary = "primary"
)

// Replicated is a primary with its replicas, opened. As the engine's target, it reads the
// window's counters of every server (Snapshot): the primary's through the engine's connection,
// each replica's through a connection of cairn's own (OwnConn), which its counter does not
// count. Everything else is the primary's.
type Replicated struct {
	Target   // the primary
	replicas []Target
	route    string

	mu    sync.Mutex
	own   []Conn // per replica, for its counter, opened on first use
	lagc  []Conn // per replica, for its lag (read on a goroutine of its own), opened on first use
	conns []Conn // the VUs' replica connections, closed with the set
}

// OpenReplicas opens each replica URL of the same kind as primary. route is Routing.Route.
func OpenReplicas(ctx context.Context, primary Target, urls []string, route string) (*Replicated, error) {
	r := &Replicated{Target: primary, route: route}
	for i, raw := range urls {
		u, err := ParseURL(raw)
		if err != nil {
			r.closeReplicas()
			return nil, urlErrorf("--replica %d: %v", i+1, err)
		}
		if IsSet(raw) {
			r.closeReplicas()
			return nil, urlErrorf("--replica %s: a replica is one database, not a shard set", Redact(raw))
		}
		t, err := lookup(u.Scheme).Open(ctx, u)
		if err != nil {
			r.closeReplicas()
			return nil, fmt.Errorf("replica %d (%s): %w", i+1, Redact(raw), err)
		}
		if t.Kind() != primary.Kind() || t.Dialect().Embedded {
			t.Close()
			r.closeReplicas()
			return nil, urlErrorf("--replica %s: a replica of a %s primary is a %s server, not %s", Redact(raw), primary.Name(), primary.Name(), t.Name())
		}
		if t.Kind() == "mysql" {
			t.Close()
			r.closeReplicas()
			return nil, urlErrorf("--replica %s: cairn reads the counters of PostgreSQL and MariaDB replicas, not yet MySQL's", Redact(raw))
		}
		if t.Address() == primary.Address() {
			t.Close()
			r.closeReplicas()
			return nil, urlErrorf("--replica %s: that is the primary's server (%s): give a replica's", Redact(raw), primary.Address())
		}
		r.replicas = append(r.replicas, t)
	}
	r.own, r.lagc = make([]Conn, len(r.replicas)), make([]Conn, len(r.replicas))
	// A replica that is not replicating (a primary given by mistake) would run the reads on
	// other data: refused before anything runs.
	for i, t := range r.replicas {
		if _, ok := t.(Lagger); !ok {
			continue
		}
		_, ok, err := r.Lag(ctx, i)
		if err == nil && !ok {
			err = urlErrorf("--replica %s: the server is not replicating (%s says none): give a replica of --db's primary", Where(t), r.LagSource(i))
		}
		if err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// Primary is the primary's target; Replicas are the replicas', in the order given.
func (r *Replicated) Primary() Target    { return r.Target }
func (r *Replicated) Replicas() []Target { return r.replicas }

// Routes reports whether read-only transactions go to the replicas ("" is reads, the default).
func (r *Replicated) Routes() bool { return r.route != RoutePrimary }

// Route is the routing policy, as Routing.Route says it.
func (r *Replicated) Route() string { return r.route }

// ReplicaConn opens a connection to the replica VU id is routed to (id mod the replicas), for
// the VU's read-only transactions, and returns that replica's index. The set closes it on Close
// unless the caller closes it first (CloseReplicaConn).
func (r *Replicated) ReplicaConn(ctx context.Context, id int) (Conn, int, error) {
	i := id % len(r.replicas)
	c, err := r.replicas[i].Conn(ctx)
	if err != nil {
		return nil, i, fmt.Errorf("replica %s: %w", Where(r.replicas[i]), err)
	}
	r.mu.Lock()
	r.conns = append(r.conns, c)
	r.mu.Unlock()
	return c, i, nil
}

// Publish makes replica connection c's session publish the transaction counts it holds, where
// the replica's counter lags (LaggingCounter: PostgreSQL holds the transactions of statements
// that touch no table, such as a VU's prepares, until a later one does): a VU calls it once its
// statements are prepared, so that they are counted before the window, not in it.
func (r *Replicated) Publish(ctx context.Context, c Conn) error {
	lc, ok := r.replicas[0].(LaggingCounter)
	if !ok {
		return nil
	}
	stmt, _, err := lc.CounterFlush(ctx, c)
	if err != nil || stmt == "" {
		return err
	}
	_, err = c.Exec(ctx, stmt, SimpleArgs(c)...)
	return err
}

// CloseConns closes the VUs' replica connections (a run's end: the next run's VUs open their own).
func (r *Replicated) CloseConns() {
	r.mu.Lock()
	conns := r.conns
	r.conns = nil
	r.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// LagSource says what Lag reads on replica i, "" when it reads nothing.
func (r *Replicated) LagSource(i int) string {
	if l, ok := r.replicas[i].(Lagger); ok {
		return l.LagSource()
	}
	return ""
}

// CloseReplicaConn closes a connection ReplicaConn opened (a VU connecting again).
func (r *Replicated) CloseReplicaConn(c Conn) {
	r.mu.Lock()
	for i, x := range r.conns {
		if x == c {
			r.conns = append(r.conns[:i], r.conns[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
	c.Close()
}

// ReplicaCounter is a target that reads its transaction counter on a connection of cairn's own
// (OwnConn), where the counter is of another database than the connection's (PostgreSQL's
// pg_stat_database, read from outside the database it counts).
type ReplicaCounter interface {
	OwnCounter(ctx context.Context, c Conn) (int64, error)
}

// Lagger is a replica that says how far it is behind its primary.
type Lagger interface {
	// Lag reads, on c (OwnConn's), how many seconds the replica's applied state is behind its
	// primary; ok is false when the server says it is not replicating.
	Lag(ctx context.Context, c Conn) (seconds float64, ok bool, err error)
	// LagSource says in words what Lag reads, for the result.
	LagSource() string
}

// ownConn returns replica i's connection for cairn's own readings in conns (own or lagc),
// opening it on first use. Each is used by one goroutine at a time: the engine's readings, the
// lag's sampler.
func (r *Replicated) ownConn(ctx context.Context, conns []Conn, i int) (Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if conns[i] == nil {
		c, err := OwnConn(ctx, r.replicas[i])
		if err != nil {
			return nil, fmt.Errorf("replica %s: %w", Where(r.replicas[i]), err)
		}
		conns[i] = c
	}
	return conns[i], nil
}

// dropOwn closes replica i's connection in conns after a failure: the next use opens another.
func (r *Replicated) dropOwn(conns []Conn, i int) {
	r.mu.Lock()
	if conns[i] != nil {
		conns[i].Close()
		conns[i] = nil
	}
	r.mu.Unlock()
}

// counter reads replica i's transaction counter.
func (r *Replicated) counter(ctx context.Context, i int) (Reading, error) {
	c, err := r.ownConn(ctx, r.own, i)
	if err != nil {
		return Reading{}, err
	}
	t := r.replicas[i]
	var rd Reading
	if oc, ok := t.(ReplicaCounter); ok {
		rd.Counter, err = oc.OwnCounter(ctx, c)
		if err == nil {
			var up Reading
			up, err = SnapshotSQL(ctx, uptimeOnly{t}, c, "")
			rd.Start = up.Start
		}
	} else {
		rd, err = Snapshot(ctx, t, c, "")
	}
	if err != nil {
		r.dropOwn(r.own, i)
		return Reading{}, fmt.Errorf("replica %s: %w", Where(t), err)
	}
	return rd, nil
}

// uptimeOnly is a target whose snapshot reads its start time only.
type uptimeOnly struct{ Target }

func (uptimeOnly) TxnCounterSQL() string { return "" }

// Snapshot implements Snapshotter: the primary's reading through c with the headline, then each
// replica's counter; Counter and Start are their sums (a restart of any server changes Start),
// Servers each server's counter, the primary's first.
func (r *Replicated) Snapshot(ctx context.Context, c Conn, headlineSQL string) (Reading, error) {
	p, err := Snapshot(ctx, r.Target, c, headlineSQL)
	if err != nil {
		return Reading{}, err
	}
	sum := p
	sum.Servers = make([]int64, 1+len(r.replicas))
	sum.Servers[0] = p.Counter
	for i := range r.replicas {
		rd, err := r.counter(ctx, i)
		if err != nil {
			return Reading{}, err
		}
		sum.Counter += rd.Counter
		sum.Start += rd.Start
		sum.NoCounter = sum.NoCounter || rd.NoCounter
		sum.Servers[1+i] = rd.Counter
	}
	return sum, nil
}

// TxnCounterName says the counter is summed over the servers.
func (r *Replicated) TxnCounterName() string {
	n := r.Target.TxnCounterName()
	if n == "" {
		return ""
	}
	return fmt.Sprintf("%s, summed over the primary and %d %s, each read on its own server", n, len(r.replicas), map[bool]string{true: "replica", false: "replicas"}[len(r.replicas) == 1])
}

// Lag reads replica i's lag; ok is false when it cannot say (not replicating, no Lagger).
func (r *Replicated) Lag(ctx context.Context, i int) (float64, bool, error) {
	l, ok := r.replicas[i].(Lagger)
	if !ok {
		return 0, false, nil
	}
	c, err := r.ownConn(ctx, r.lagc, i)
	if err != nil {
		return 0, false, err
	}
	s, ok, err := l.Lag(ctx, c)
	if err != nil {
		r.dropOwn(r.lagc, i)
	}
	return s, ok, err
}

func (r *Replicated) closeReplicas() {
	for _, t := range r.replicas {
		t.Close()
	}
	r.replicas = nil
}

// Close closes the replicas and every connection to them; the primary is its opener's.
func (r *Replicated) Close() error {
	r.mu.Lock()
	for _, c := range append(append(r.own, r.lagc...), r.conns...) {
		if c != nil {
			c.Close()
		}
	}
	r.own, r.lagc, r.conns = make([]Conn, len(r.replicas)), make([]Conn, len(r.replicas)), nil
	r.mu.Unlock()
	var errs []error
	for _, t := range r.replicas {
		errs = append(errs, t.Close())
	}
	return errors.Join(errs...)
}

// replicatedAside is a primary with replicas whose primary counts its own database's sessions
// (Aside) and publishes its counts late (LaggingCounter), as PostgreSQL does: the engine keeps
// its own statements out of the primary's count, and has the VUs publish at the window's edges.
type replicatedAside struct{ *Replicated }

func (r replicatedAside) AsideConn(ctx context.Context) (Conn, error) {
	return r.Target.(Aside).AsideConn(ctx)
}

func (r replicatedAside) CounterFlush(ctx context.Context, c Conn) (string, time.Duration, error) {
	if lc, ok := r.Target.(LaggingCounter); ok {
		return lc.CounterFlush(ctx, c)
	}
	return "", 0, nil
}

// EngineTarget is the target the engine runs on: r, with the primary's Aside and LaggingCounter
// where it has them, so that the engine treats the primary's counter as it would alone.
func (r *Replicated) EngineTarget() Target {
	if _, ok := r.Target.(Aside); ok {
		return replicatedAside{r}
	}
	return r
}

type replicatedKey struct{}

// WithReplicated tells the workload's Start that its VUs may send reads to r's replicas.
func WithReplicated(ctx context.Context, r *Replicated) context.Context {
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, replicatedKey{}, r)
}

// ReplicatedOf is the set WithReplicated gave, nil when none (or when it routes nothing).
func ReplicatedOf(ctx context.Context) *Replicated {
	r, _ := ctx.Value(replicatedKey{}).(*Replicated)
	if r == nil || !r.Routes() {
		return nil
	}
	return r
}
