package observe

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// Observer is one thing cairn watches over a run, on the engine's clock: the engine calls it from
// its monitor goroutine once a second, at the window's edges and at each progress line. Embed
// Base for the calls an observer has no use for.
type Observer interface {
	// Tick adds the observer's part of one second to sec.
	Tick(sec *metrics.Second)
	// Window marks the start (true) or the end of the measured window.
	Window(start bool)
	// Interval ends a progress interval; it returns what the progress line shows of it.
	Interval() string
	// Close undoes what the observer changed and releases what it holds; it is called once, on
	// every path, after the run.
	Close(ctx context.Context) error
	// Fill writes the observer's section into the run's document, after the run (and after Close:
	// what an observer keeps for its section outlives it).
	Fill(d *results.Document)
}

// Sectioner is an observer whose section has no field of its own in the document: Watch stores
// what Section returns under extra.observations, keyed by the observer's registered name.
type Sectioner interface {
	Section() any
}

// Changer is an observer that measures each live segment of a run apart (results.Segment): Change
// tells it a study's live change was made now, planned for planned seconds into the window. The
// changes planned for one instant open one segment, whose settled part starts
// results.SettleSeconds after the last of them, as the segments' other figures do. It is called
// from the study's timers, not the engine's goroutine, and must return at once.
type Changer interface {
	Change(planned float64)
}

// Base is an observer that does nothing; observers embed it for the calls they do not need.
type Base struct{}

func (Base) Tick(*metrics.Second)        {}
func (Base) Window(bool)                 {}
func (Base) Interval() string            { return "" }
func (Base) Close(context.Context) error { return nil }
func (Base) Fill(*results.Document)      {}

// Env is what an observer starts from: the run's target and the spec's observation and binding
// settings.
type Env struct {
	Target target.Target
	Observation
	Binding
	// Note shows a line before the run (the host's warnings); nil: nowhere.
	Note func(line string)
	// Conn, when set, gives the observers' statements on Target their connection: a run of
	// terminals lends them its pooled connections (run.Lender). nil: a connection of their own.
	Conn func(ctx context.Context) (target.Conn, error)

	server *Server
	own    *ownSessions
}

// Server is where the target's server runs, found once for every observer that asks.
func (e *Env) Server() *Server {
	if e.server == nil {
		e.server = FindServer(e.Target)
	}
	return e.server
}

// conn is a connection to t, Target or one of its members, for an observer's statements, and
// the only way an observer gets one: cairn's own statements never count in the server's
// transaction counter (target.OwnConn), and those that ride a run's pooled connections (Conn)
// are counted by the engine and left out. A composite target's members keep connections of
// their own.
func (e *Env) conn(ctx context.Context, t target.Target) (target.Conn, error) {
	if _, composite := e.Target.(target.Composite); e.Conn != nil && !composite {
		return e.Conn(ctx)
	}
	c, err := target.OwnConn(ctx, t)
	if err != nil {
		return nil, err
	}
	// The session history leaves the observers' own sessions out where the server names them
	// (a run's pooled connections, above, are its terminals' too: those stay in).
	e.own.register(ctx, t, c)
	return c, nil
}

// ownSessions are the ids of the observers' own sessions on each server (host:port/db).
type ownSessions struct {
	mu  sync.Mutex
	ids map[string][]int64
}

// register adds c's session on t where the server names its sessions (target.SessionIDer);
// it says whether it sent c a statement to learn the id.
func (o *ownSessions) register(ctx context.Context, t target.Target, c target.Conn) bool {
	ider, ok := t.(target.SessionIDer)
	if !ok || o == nil {
		return false
	}
	id, err := ider.SessionID(ctx, c)
	if err != nil {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ids == nil {
		o.ids = map[string][]int64{}
	}
	o.ids[target.Where(t)] = append(o.ids[target.Where(t)], id)
	return true
}

func (o *ownSessions) of(where string) []int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]int64(nil), o.ids[where]...)
}

func (e *Env) note(line string) {
	if e.Note != nil {
		e.Note(line)
	}
}

// Kind is one registered observer.
type Kind struct {
	Name string
	// Order places the observer: observers start in rising order and close in reverse, so that a
	// server's binding comes before anything opens a connection and is restored after.
	Order int
	// Start begins observing a run; nil and no error when there is nothing to watch on it. An
	// observer that sends statements to the target opens its connections through env (its
	// conn): cairn's own statements never count in the server's transaction counter.
	Start func(ctx context.Context, env *Env) (Observer, error)
}

var (
	regMu sync.Mutex
	kinds []Kind
)

// Register adds an observer; observer files call it from init. A new observer is one file and
// this one call: Watch starts every registered observer for every engine run.
func Register(k Kind) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, o := range kinds {
		if o.Name == k.Name {
			panic("observer registered twice: " + k.Name)
		}
	}
	kinds = append(kinds, k)
	sort.SliceStable(kinds, func(i, j int) bool { return kinds[i].Order < kinds[j].Order })
}

func registered() []Kind {
	regMu.Lock()
	defer regMu.Unlock()
	return append([]Kind(nil), kinds...)
}

type named struct {
	name string
	Observer
}

// Watch observes one run of a target with every registered observer, and the ones a front end
// adds. Start it before the run's VUs connect (a bound server's new backends inherit its
// binding), Close it after, on every path.
type Watch struct {
	list []named
	own  *ownSessions
}

// Own leaves c, a connection cairn opened on t for statements of its own outside the observers
// (the engine's monitor), out of the session history as the observers' own are; it says
// whether it sent c a statement (run.SessionOwner).
func (w *Watch) Own(ctx context.Context, t target.Target, c target.Conn) bool {
	return w.own.register(ctx, t, c)
}

// RemoteError is server CPUs asked for a server cairn cannot bind; Inside: the database runs
// inside cairn, whose own binding is its client CPUs. The front end words it as its option.
type RemoteError struct {
	Where, Why string
	Inside     bool
}

func (e *RemoteError) Error() string {
	return fmt.Sprintf("server CPUs: the server at %s is not a process cairn can bind (%s): cairn binds only a server on this host", e.Where, e.Why)
}

// BadInput marks the error as the user's to fix.
func (e *RemoteError) BadInput() {}

// Start starts every registered observer on env; when one fails, those started are closed.
func Start(ctx context.Context, env Env) (*Watch, error) {
	env.own = &ownSessions{}
	w := &Watch{own: env.own}
	for _, k := range registered() {
		o, err := k.Start(ctx, &env)
		if err != nil {
			return nil, errors.Join(err, w.Close(ctx))
		}
		if o != nil {
			w.list = append(w.list, named{k.Name, o})
		}
	}
	return w, nil
}

// Add adds an observer of the front end's own (a study's schedule of live changes), last.
func (w *Watch) Add(name string, o Observer) { w.list = append(w.list, named{name, o}) }

// Tick adds every observer's part of one second.
func (w *Watch) Tick(sec *metrics.Second) {
	for _, o := range w.list {
		o.Tick(sec)
	}
}

// Window marks the start (true) or end of the measured window.
func (w *Watch) Window(start bool) {
	for _, o := range w.list {
		o.Window(start)
	}
}

// Interval ends a progress interval; it returns what the observers show of it on the progress line.
func (w *Watch) Interval() string {
	var parts []string
	for _, o := range w.list {
		if s := o.Interval(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "  ")
}

// TopWaits are the wait events the last interval's line names, with their shares (none: no
// observer reads waits).
func (w *Watch) TopWaits() []results.WaitEvent {
	for _, o := range w.list {
		if t, ok := o.Observer.(interface{ TopWaits() []results.WaitEvent }); ok {
			return t.TopWaits()
		}
	}
	return nil
}

// Change tells the observers that measure live segments apart (Changer) that a live change was
// made now, planned for planned seconds into the window.
func (w *Watch) Change(planned float64) {
	for _, o := range w.list {
		if c, ok := o.Observer.(Changer); ok {
			c.Change(planned)
		}
	}
}

// Close closes the observers in reverse order, each once; it is safe to call again.
func (w *Watch) Close(ctx context.Context) error {
	var errs []error
	for i := len(w.list) - 1; i >= 0; i-- {
		errs = append(errs, w.list[i].Close(ctx))
		w.list[i].Observer = closed{w.list[i].Observer}
	}
	return errors.Join(errs...)
}

// closed is an observer after Close: it still fills its section.
type closed struct{ Observer }

func (closed) Close(context.Context) error { return nil }

// Fill writes what was observed into the run's document: each observer's section.
func (w *Watch) Fill(d *results.Document) {
	for _, o := range w.list {
		o.Fill(d)
		inner := o.Observer
		if c, ok := inner.(closed); ok {
			inner = c.Observer
		}
		if s, ok := inner.(Sectioner); ok {
			if v := s.Section(); v != nil {
				results.SetSection(d, o.name, v)
			}
		}
	}
}

func roundTo(v float64, places int) float64 { return round(v, places) }
