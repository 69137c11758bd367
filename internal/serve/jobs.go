package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/outfile"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/session"
	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
)

// Job states.
const (
	Queued      = "queued"
	Running     = "running"
	Done        = "done"
	Failed      = "failed"
	Stopped     = "stopped"
	Interrupted = "interrupted" // cairn serve ended while it ran (a crash, a kill)
)

// Job is what the API says of a job, and what the job file keeps of it.
type Job struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	State     string     `json:"state"`
	Workload  string     `json:"workload"`
	Target    string     `json:"target"`
	CreatedAt time.Time  `json:"created_at"`
	StartedAt *time.Time `json:"started_at,omitempty"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	ResultID  string     `json:"result_id,omitempty"`
	// NotAsPlanned is the mark of the job's result: why it did not measure what was planned.
	NotAsPlanned []results.Reason `json:"not_as_planned,omitempty"`
	Error        string           `json:"error,omitempty"`
	Spec         string           `json:"spec"`
}

// Event is one server-sent event of a job: its name and its JSON data.
type Event struct {
	Name string
	Data []byte
}

// maxEvents bounds the events a job keeps for a client that connects late: the first ones (what
// runs, the settings) and the newest; ticks in between are dropped.
const maxEvents = 4000

// running is a job with what it holds while it lives in this process.
type running struct {
	Job
	key     string // the target it loads: host:port, or the SQLite file
	waits   []wait // the last progress interval's top waits, when observed
	binds   bool   // binds cairn's threads to client CPUs: the binding is the process's
	do      func(ctx context.Context, o session.Options) error
	ctx     context.Context
	cancel  context.CancelFunc
	stopped bool
	events  []Event
	subs    map[chan Event]struct{}
	log     bytes.Buffer
	logFile *os.File
	ended   chan struct{}
}

// manager holds the jobs: it queues them by target, runs them, persists their records and logs,
// and fans their events out to the clients watching.
type manager struct {
	cfg     Config
	env     target.Env // how the jobs' specs are read: only a password's ${VAR}, of those allowed
	dir     string     // the job records and logs: beside the results store
	mu      sync.Mutex
	jobs    map[string]*running
	order   []*running // oldest first
	next    int
	changed chan struct{} // closed and replaced whenever a job starts or ends
	wg      sync.WaitGroup
	ctx     context.Context // cancelled when the service stops: every job stops as on Ctrl-C
}

func newManager(ctx context.Context, cfg Config) (*manager, error) {
	m := &manager{cfg: cfg, env: cfg.env(), dir: jobDir(cfg.Store), jobs: map[string]*running{}, next: 1, changed: make(chan struct{}), ctx: ctx}
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		return nil, fmt.Errorf("job records %s: %w", m.dir, err)
	}
	b, err := os.ReadFile(filepath.Join(m.dir, "jobs.json"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("job records: %w", err)
	}
	var old []Job
	if len(b) > 0 {
		if err := json.Unmarshal(b, &old); err != nil {
			return nil, fmt.Errorf("job records %s: %w", filepath.Join(m.dir, "jobs.json"), err)
		}
	}
	var dbs []string
	for _, j := range old {
		r := &running{Job: j, ended: make(chan struct{})}
		close(r.ended)
		if j.State == Running || j.State == Queued {
			r.State, r.Error = Interrupted, "cairn serve ended before the job did"
			now := time.Now().UTC()
			r.EndedAt = &now
			if j.State == Running {
				if db, err := jobDB(j.Kind, j.Spec, m.env); err == nil {
					dbs = append(dbs, db)
				}
			}
		}
		if b, err := os.ReadFile(m.logPath(j.ID)); err == nil {
			r.log.Write(b)
		}
		m.jobs[j.ID] = r
		m.order = append(m.order, r)
		if n, err := strconv.Atoi(strings.TrimPrefix(j.ID, "j")); err == nil && n >= m.next {
			m.next = n + 1
		}
	}
	if len(dbs) > 0 {
		m.restore(ctx, dbs)
	}
	return m, m.save()
}

// restore undoes, as 'cairn restore' does, what the jobs a previous cairn serve ran left
// changed: the journal holds it, the spec's ${VAR} gives the password.
func (m *manager) restore(ctx context.Context, dbs []string) {
	pending, err := undo.Pending()
	if err != nil {
		fmt.Fprintf(m.cfg.Log, "cairn serve: the undo journal: %v\n", err)
		return
	}
	for _, e := range pending {
		db := ""
		for _, d := range dbs {
			if r := target.Redact(d); r == e.DB || strings.HasPrefix(e.DB, hostOf(d)) {
				db = d
				break
			}
		}
		study.Restore(ctx, []*undo.Entry{e}, db, "cairn serve", false, func(r study.Restored) bool {
			switch {
			case r.Running:
			case r.Err != nil:
				fmt.Fprintf(m.cfg.Log, "cairn serve: left: %s: %v ('cairn restore --db URL' puts it back)\n", r.What, r.Err)
			default:
				fmt.Fprintf(m.cfg.Log, "cairn serve: restored: %s (changed by cairn pid %d)\n", r.What, r.PID)
			}
			return true
		})
	}
}

func hostOf(db string) string {
	u, err := target.ParseURL(db)
	if err != nil || u.Parsed == nil {
		return "\x00"
	}
	return u.Parsed.Host
}

// jobDir is the folder of a store's job records, logs and lock.
func jobDir(store string) string { return store + ".jobs" }

func (m *manager) logPath(id string) string { return filepath.Join(m.dir, id+".log") }

func (m *manager) eventsPath(id string) string { return filepath.Join(m.dir, id+".events.json") }

// kept is an event as a job's events file keeps it.
type kept struct {
	Name string          `json:"event"`
	Data json.RawMessage `json:"data"`
}

// saveEvents keeps a job's events, as its page replays them (the bounded buffer), beside its
// log when it ends: its page draws the same charts after serve restarts. The caller holds mu.
func (m *manager) saveEvents(r *running) {
	out := make([]kept, len(r.events))
	for i, e := range r.events {
		out[i] = kept{Name: e.Name, Data: e.Data}
	}
	b, err := json.Marshal(out)
	if err == nil {
		err = outfile.WriteBytes(m.eventsPath(r.ID), append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintf(m.cfg.Log, "cairn serve: job %s's events: %v\n", r.ID, err)
	}
}

// readEvents reads the events a job kept when it ended; none when it kept none (a job that
// ran when serve was killed, or one of a serve before they were kept).
func (m *manager) readEvents(id string) []Event {
	b, err := os.ReadFile(m.eventsPath(id))
	if err != nil {
		return nil
	}
	var in []kept
	if err := json.Unmarshal(b, &in); err != nil {
		fmt.Fprintf(m.cfg.Log, "cairn serve: job %s's events %s: %v\n", id, m.eventsPath(id), err)
		return nil
	}
	out := make([]Event, len(in))
	for i, e := range in {
		out[i] = Event{Name: e.Name, Data: e.Data}
	}
	return out
}

// save writes every job's record; the caller holds mu or is alone.
func (m *manager) save() error {
	out := make([]Job, len(m.order))
	for i, r := range m.order {
		out[i] = r.Job
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteBytes(filepath.Join(m.dir, "jobs.json"), append(b, '\n'))
}

func (m *manager) saveLocked() {
	if err := m.save(); err != nil {
		fmt.Fprintf(m.cfg.Log, "cairn serve: job records: %v\n", err)
	}
}

// add queues a checked job and starts its goroutine.
func (m *manager) add(r *running) Job {
	m.mu.Lock()
	r.ID = "j" + strconv.Itoa(m.next)
	m.next++
	r.State = Queued
	r.CreatedAt = time.Now().UTC()
	r.subs = map[chan Event]struct{}{}
	r.ended = make(chan struct{})
	r.ctx, r.cancel = context.WithCancel(m.ctx)
	if f, err := os.OpenFile(m.logPath(r.ID), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
		r.logFile = f
	}
	m.jobs[r.ID] = r
	m.order = append(m.order, r)
	m.publishLocked(r, "state", map[string]string{"state": r.State, "result_id": "", "error": ""})
	m.saveLocked()
	j := r.Job
	m.mu.Unlock()
	m.wg.Add(1)
	go m.run(r)
	return j
}

// turn reports whether r may start now, and if not, which job it waits for: the jobs queued
// before it on its target go first (FIFO), one load per target, and a job that binds client
// CPUs runs alone.
func (m *manager) turn(r *running) (bool, *running) {
	for _, o := range m.order {
		if o == r {
			break
		}
		if o.State == Queued && (o.key == r.key || o.binds || r.binds) {
			return false, o
		}
	}
	for _, o := range m.order {
		if o.State == Running && (o.key == r.key || o.binds || r.binds) {
			return false, o
		}
	}
	return true, nil
}

func (m *manager) run(r *running) {
	defer m.wg.Done()
	ctx := r.ctx
	defer r.cancel()
	m.mu.Lock()
	said := ""
	for {
		ok, waits := m.turn(r)
		if ok {
			break
		}
		if waits.ID != said {
			said = waits.ID
			why := "on " + waits.Target
			if waits.binds || r.binds {
				why = "(a job that binds client CPUs runs alone)"
			}
			m.logLocked(r, fmt.Sprintf("queued: waiting for job %s %s", waits.ID, why))
		}
		ch := m.changed
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		m.mu.Lock()
		if ctx.Err() != nil {
			m.endLocked(r, Stopped, "stopped before it started")
			m.mu.Unlock()
			return
		}
	}
	now := time.Now().UTC()
	r.State, r.StartedAt = Running, &now
	m.stateLocked(r)
	m.mu.Unlock()

	o := session.Options{Store: m.cfg.Store, Version: m.cfg.Version, Subscribers: []event.Subscriber{&events{m: m, r: r}}}
	if m.cfg.JobMetrics != nil {
		jm := m.cfg.JobMetrics(r.ID, r.Workload, r.Target)
		o.Subscribers = append(o.Subscribers, jm)
		defer jm.Done()
	}
	procs := runtime.GOMAXPROCS(0)
	err := r.do(ctx, o)
	if r.binds {
		// The binding, and the GOMAXPROCS it set, are the process's: before the next job starts,
		// cairn runs on every CPU again, with the Ps blocking sockets had reserved before.
		if berr := session.BindSelf(nil); berr != nil {
			fmt.Fprintf(m.cfg.Log, "cairn serve: after job %s: %v\n", r.ID, berr)
		}
		runtime.GOMAXPROCS(procs)
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	state, msg := Done, ""
	switch {
	case err == nil && r.stopped:
		state = Stopped
	case err == nil:
	case errors.Is(err, session.ErrInterrupted) || errors.Is(err, context.Canceled) && ctx.Err() != nil:
		state = Stopped
	case ctx.Err() != nil:
		// Stopped, and something went wrong on the way out (a setting not restored): say what.
		state, msg = Stopped, oneLine(err.Error())
		m.logLocked(r, "cairn: "+msg)
	default:
		state, msg = Failed, oneLine(err.Error())
		m.logLocked(r, "cairn: "+msg)
	}
	m.endLocked(r, state, msg)
}

// endLocked ends a job: its final state, its record saved, its watchers told, the next job
// in the queue woken.
func (m *manager) endLocked(r *running, state, msg string) {
	now := time.Now().UTC()
	r.State, r.Error, r.EndedAt = state, msg, &now
	m.stateLocked(r)
	m.saveEvents(r)
	for c := range r.subs {
		close(c)
	}
	r.subs = nil
	if r.logFile != nil {
		r.logFile.Close()
	}
	close(r.ended)
}

// stateLocked publishes a change of state, saves the records and wakes the queue.
func (m *manager) stateLocked(r *running) {
	m.publishLocked(r, "state", map[string]string{"state": r.State, "result_id": r.ResultID, "error": r.Error})
	m.saveLocked()
	close(m.changed)
	m.changed = make(chan struct{})
}

func (m *manager) logLocked(r *running, line string) {
	r.log.WriteString(line + "\n")
	if r.logFile != nil {
		r.logFile.WriteString(line + "\n")
	}
	m.publishLocked(r, "log", map[string]string{"line": line})
}

// publishLocked keeps an event for late clients and sends it to the watching ones; a client
// too slow to take it is dropped (it reconnects and is replayed the events kept).
func (m *manager) publishLocked(r *running, name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	e := Event{Name: name, Data: b}
	if len(r.events) >= maxEvents {
		// Keep the first quarter (what runs, its settings) and drop the oldest after it.
		copy(r.events[maxEvents/4:], r.events[maxEvents/4+1:])
		r.events = r.events[:len(r.events)-1]
	}
	r.events = append(r.events, e)
	for c := range r.subs {
		select {
		case c <- e:
		default:
			close(c)
			delete(r.subs, c)
		}
	}
}

// watch returns the events so far and a channel of those to come, closed when the job ends;
// nil when it has ended.
func (m *manager) watch(id string) (past []Event, live chan Event, ok bool) {
	m.mu.Lock()
	r := m.jobs[id]
	if r == nil {
		m.mu.Unlock()
		return nil, nil, false
	}
	past = append(past, r.events...)
	if r.subs != nil {
		live = make(chan Event, 256)
		r.subs[live] = struct{}{}
		m.mu.Unlock()
		return past, live, true
	}
	b, _ := json.Marshal(map[string]string{"state": r.State, "result_id": r.ResultID, "error": r.Error})
	old := r.events == nil // a job of a previous service
	m.mu.Unlock()
	if old {
		// Its kept events are read when asked for, not held.
		past = m.readEvents(id)
	}
	if len(past) == 0 || past[len(past)-1].Name != "state" {
		past = append(past, Event{Name: "state", Data: b})
	}
	return past, nil, true
}

func (m *manager) unwatch(id string, c chan Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.jobs[id]; r != nil && r.subs != nil {
		if _, ok := r.subs[c]; ok {
			delete(r.subs, c)
			close(c)
		}
	}
}

// busy reports whether a job of this service is queued or running on a target.
func (m *manager) busy(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.order {
		if r.key == key && (r.State == Queued || r.State == Running) {
			return true
		}
	}
	return false
}

func (m *manager) get(id string) (Job, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.jobs[id]
	if r == nil {
		return Job{}, false
	}
	return r.Job, true
}

func (m *manager) list() []Job {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Job, 0, len(m.order))
	for i := len(m.order) - 1; i >= 0; i-- {
		out = append(out, m.order[i].Job)
	}
	return out
}

func (m *manager) logText(id string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.jobs[id]
	if r == nil {
		return nil, false
	}
	return append([]byte(nil), r.log.Bytes()...), true
}

// stop stops a job as Ctrl-C does: what it measured is kept and stored, settings and bindings
// restored. A queued job ends without starting.
func (m *manager) stop(id string) (Job, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.jobs[id]
	if r == nil {
		return Job{}, false
	}
	if r.cancel != nil && (r.State == Running || r.State == Queued) {
		r.stopped = true
		r.cancel()
	}
	return r.Job, true
}

// wait waits for every job's goroutine: after the service's context ends, each has stopped as
// on Ctrl-C and kept what it measured.
func (m *manager) wait() { m.wg.Wait() }
