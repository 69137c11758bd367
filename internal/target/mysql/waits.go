package mysql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
)

// innodbInstruments are InnoDB's mutex and rw-lock instruments, off by default; runInstruments
// are the instruments --waits instrument turns on: those, and the metadata-lock instrument, off by
// default on MariaDB (on in MySQL 8), without which a session stalled by LOCK TABLES on an InnoDB
// table, DDL or FLUSH TABLES WITH READ LOCK waits in no timed event at all.
const (
	innodbInstruments = `(NAME LIKE 'wait/synch/mutex/innodb/%' OR NAME LIKE 'wait/synch/rwlock/innodb/%' OR NAME LIKE 'wait/synch/sxlock/innodb/%')`
	mdlEvent          = "wait/lock/metadata/sql/mdl"
	runInstruments    = `(` + innodbInstruments + ` OR NAME = '` + mdlEvent + `')`
	tableLockEvent    = "wait/lock/table/sql/handler"
)

// lockStates maps the thread states of a session waiting for a lock that performance_schema
// times as a wait/lock event to that event: the metadata locks' (MDL: Waiting for table metadata
// lock, … backup, global read, commit lock, User lock) and the table-level locks' (thr_lock: LOCK
// TABLES on MyISAM and Aria tables). performance_schema counts such a wait only when it ends;
// the sessions in these states say how long the waits still going on have lasted.
const (
	lockStateEvent = `CASE WHEN STATE = 'Waiting for table level lock' THEN '` + tableLockEvent + `' ELSE '` + mdlEvent + `' END`
	lockStateCond  = `(STATE = 'Waiting for table level lock' OR STATE LIKE 'Waiting for %metadata lock'
	OR STATE IN ('Waiting for global read lock', 'Waiting for backup lock', 'Waiting for commit lock', 'User lock'))`
	lockStates = `FROM information_schema.PROCESSLIST WHERE ` + lockStateCond
)

// innodbCounters are the INNODB_METRICS counters of spins and lock waits that cairn reads where
// the server has them: MySQL 5.7 and 8.0 keep the rw-lock ones (some 8.0 releases keep them at
// zero), MariaDB removed them in 10.6.
var innodbCounters = []string{
	"innodb_rwlock_s_spin_waits", "innodb_rwlock_x_spin_waits", "innodb_rwlock_sx_spin_waits",
	"innodb_rwlock_s_spin_rounds", "innodb_rwlock_x_spin_rounds", "innodb_rwlock_sx_spin_rounds",
	"innodb_rwlock_s_os_waits", "innodb_rwlock_x_os_waits", "innodb_rwlock_sx_os_waits",
	"lock_row_lock_waits", "lock_deadlocks", "lock_timeouts",
}

// rowLockWait is the event of InnoDB's row-lock waits: the server's Innodb_row_lock_time (the
// waits that ended) plus how long the transactions of INNODB_TRX in LOCK WAIT have waited so far,
// so that a wait still going on at an edge of the window counts its part of the window.
// performance_schema times these waits only as part of the handler call they stall, so the
// handler event is read less Innodb_row_lock_time: both count a wait when it ends, and their
// difference is the handler calls' own time.
const (
	rowLockWait  = "innodb/row_lock_wait"
	handlerEvent = "wait/io/table/sql/handler"
)

// trxCacheLatch guards the cache behind information_schema.INNODB_TRX, INNODB_LOCKS and
// INNODB_LOCK_WAITS, and only their readers take it: cairn's own row-lock readings and session
// samples, never a workload's statement. performance_schema times every taking of it, and on a
// busy host a sampler preempted while taking it was timed for half a case's synch waits; the
// waits leave it out, and say so. MariaDB instruments it as an rwlock, MySQL 8 as an sxlock.
const trxCacheLatch = "/innodb/trx_i_s_cache_lock"

type myWaits struct {
	c        target.Conn
	pfs      bool
	rowLocks string // the query of the row-lock waits, "" where the server lacks its counters
	counters []any  // the innodbCounters this server has, as query arguments
	mutexes  bool   // MariaDB's INNODB_MUTEXES
	locks    string // the query of the lock waits going on (lockStates), "" where none is timed
	lockOn   map[string]bool
	notes    []string
	restore  []instrument
	done     func() error
	// sessions is the session history's query (sessionsPFS, sessionsThreads or sessionsList), its
	// argument the run's database; threads says it reads performance_schema.threads; consumerDone forgets the journal's entry for the events_waits_current
	// consumer turned on for the run (restored by Close), nil when it was not.
	sessions     string
	pfsSessions  bool
	threads      bool
	db           string
	consumerDone func() error
}

type instrument struct {
	Name    string `json:"name"`
	Enabled string `json:"enabled"`
	Timed   string `json:"timed"`
}

// OpenWaits implements target.Waiter from performance_schema's cumulative waits and InnoDB's
// counters, read as differences over the window.
func (t *mysqlTarget) OpenWaits(ctx context.Context, c target.Conn, o target.WaitOptions, save target.Saver) (target.WaitSource, error) {
	w, instrument := &myWaits{c: c}, o.Instrument
	var pfs int64
	if err := c.QueryRow(ctx, "SELECT @@performance_schema").Scan(&pfs); err != nil {
		return nil, err
	}
	w.pfs = pfs == 1
	if !w.pfs {
		w.notes = append(w.notes, "performance_schema is off: only InnoDB's counters are read (set performance_schema=ON in the server's configuration and restart it to see wait events)")
		if instrument {
			w.notes = append(w.notes, "--waits instrument did nothing: performance_schema is off")
		}
	} else {
		// A run killed with --waits instrument could not restore what it turned on: its journal
		// entry says what, and the next run says so before it reads (or turns on) anything.
		if n, pid, err := leftOn(ctx, c, target.Where(t)); err != nil {
			return nil, err
		} else if n > 0 {
			w.notes = append(w.notes, fmt.Sprintf("%d performance_schema instruments a cairn that did not finish (pid %d, --waits instrument) turned on are still on: 'cairn restore --db URL' turns them off", n, pid))
		}
		if instrument {
			if err := w.instrument(ctx, t, save); err != nil {
				return nil, err
			}
		}
		var on, all, innodbOff, synchOn int64
		if err := c.QueryRow(ctx, `SELECT SUM(ENABLED = 'YES' AND TIMED = 'YES'), COUNT(*), SUM(`+innodbInstruments+` AND ENABLED <> 'YES'),
			SUM(NAME LIKE 'wait/synch/%' AND ENABLED = 'YES' AND TIMED = 'YES')
			FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/%'`).Scan(&on, &all, &innodbOff, &synchOn); err != nil {
			return nil, err
		}
		w.notes = append(w.notes, fmt.Sprintf("performance_schema: %d of %d wait instruments on and timed", on, all),
			"trx_i_s_cache_lock is left out of the waits: only readers of INNODB_TRX take it, cairn's own readings among them")
		if synchOn == 0 {
			w.notes = append(w.notes, "none of the server's wait/synch instruments is on: synch waits are not measured (--waits instrument turns InnoDB's on for the run)")
		}
		if innodbOff > 0 && !instrument {
			w.notes = append(w.notes, fmt.Sprintf("%d InnoDB mutex and rw-lock instruments are off: --waits instrument turns them on for the run", innodbOff))
		}
		var consumer string
		if err := c.QueryRow(ctx, "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'global_instrumentation'").Scan(&consumer); err == nil && consumer != "YES" {
			w.notes = append(w.notes, "performance_schema's global_instrumentation consumer is off: its summaries do not count")
		}
		if err := w.openLocks(ctx, t, instrument); err != nil {
			return nil, err
		}
	}
	if o.History {
		if err := w.openSessions(ctx, t, instrument, save); err != nil {
			_ = w.Close(ctx)
			return nil, err
		}
	}
	args := make([]any, len(innodbCounters))
	for i, n := range innodbCounters {
		args[i] = n
	}
	rows, err := c.Query(ctx, "SELECT NAME FROM information_schema.INNODB_METRICS WHERE NAME IN (?"+strings.Repeat(", ?", len(args)-1)+")", args...)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		have[n] = true
		w.counters = append(w.counters, n)
	}
	rows.Close()
	if !have["innodb_rwlock_s_spin_waits"] {
		w.notes = append(w.notes, "INNODB_METRICS has no rw-lock spin counters on this server (MariaDB removed them in 10.6)")
	}
	var n int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME = 'INNODB_MUTEXES'").Scan(&n); err == nil && n > 0 {
		w.mutexes = true
	}
	status := t.statusTable()
	w.rowLocks = `SELECT
		(SELECT CAST(VARIABLE_VALUE AS SIGNED) FROM ` + status + ` WHERE VARIABLE_NAME = 'Innodb_row_lock_waits'),
		(SELECT CAST(VARIABLE_VALUE AS SIGNED) FROM ` + status + ` WHERE VARIABLE_NAME = 'Innodb_row_lock_time'),
		(SELECT COALESCE(SUM(TIMESTAMPDIFF(MICROSECOND, trx_wait_started, NOW(6))), 0) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT')`
	var waits, ms *int64
	var waiting float64
	if err := c.QueryRow(ctx, w.rowLocks).Scan(&waits, &ms, &waiting); err != nil || waits == nil || ms == nil {
		w.rowLocks = ""
		why := "no Innodb_row_lock_time"
		if err != nil {
			why = err.Error()
		}
		w.notes = append(w.notes, "InnoDB's row-lock waits are not read: "+why)
	}
	return w, nil
}

// openLocks learns which lock-wait events are timed, so that Read adds the waits for them still
// going on, and says where the metadata locks' are not.
func (w *myWaits) openLocks(ctx context.Context, t *mysqlTarget, instrument bool) error {
	rows, err := w.c.Query(ctx, "SELECT NAME, ENABLED = 'YES' AND TIMED = 'YES' FROM performance_schema.setup_instruments WHERE NAME IN (?, ?)", mdlEvent, tableLockEvent)
	if err != nil {
		return err
	}
	w.lockOn = map[string]bool{}
	have := false
	for rows.Next() {
		var name string
		var on bool
		if err := rows.Scan(&name, &on); err != nil {
			rows.Close()
			return err
		}
		have = have || name == mdlEvent
		if on {
			w.lockOn[name] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	switch {
	case !have:
		w.notes = append(w.notes, "this server has no "+mdlEvent+" instrument: waits for metadata locks (LOCK TABLES on InnoDB tables, DDL, FLUSH TABLES WITH READ LOCK) are not measured")
	case !w.lockOn[mdlEvent] && instrument:
		w.notes = append(w.notes, mdlEvent+" is still off: waits for metadata locks are not measured")
	case !w.lockOn[mdlEvent]:
		w.notes = append(w.notes, mdlEvent+" is off: waits for metadata locks (LOCK TABLES on InnoDB tables, DDL, FLUSH TABLES WITH READ LOCK) are not measured (--waits instrument turns it on for the run)")
	}
	if len(w.lockOn) > 0 {
		// MariaDB times a state to the microsecond; MySQL's PROCESSLIST only to the second.
		ms := "SUM(TIME) * 1000"
		if t.kind == "mariadb" {
			ms = "SUM(TIME_MS)"
		}
		w.locks = "SELECT " + lockStateEvent + ", " + ms + " " + lockStates + " GROUP BY 1"
	}
	return nil
}

// instrument turns on the runInstruments that are off, recording first which were.
func (w *myWaits) instrument(ctx context.Context, t *mysqlTarget, save target.Saver) error {
	rows, err := w.c.Query(ctx, "SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments WHERE "+runInstruments+" AND (ENABLED <> 'YES' OR TIMED <> 'YES')")
	if err != nil {
		return err
	}
	for rows.Next() {
		var in instrument
		if err := rows.Scan(&in.Name, &in.Enabled, &in.Timed); err != nil {
			rows.Close()
			return err
		}
		w.restore = append(w.restore, in)
	}
	rows.Close()
	if len(w.restore) == 0 {
		w.notes = append(w.notes, "--waits instrument: InnoDB's mutex and rw-lock instruments and the metadata-lock instrument were on already")
		return nil
	}
	done, err := save("mysql-instruments", instrumentsUndo{Where: target.Where(t), Rows: w.restore})
	if err != nil {
		return err
	}
	w.done = done
	if _, err := w.c.Exec(ctx, "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE "+runInstruments); err != nil {
		_ = w.Close(ctx)
		return fmt.Errorf("turn on the wait instruments: %w", err)
	}
	w.notes = append(w.notes, fmt.Sprintf("--waits instrument turned on %d instruments for the run, InnoDB's mutexes and rw-locks and the metadata locks' (restored after it)", len(w.restore)))
	return nil
}

// leftOn counts the instruments the journal says a cairn that is no longer running turned on at
// where and did not restore, that are still not as it found them, and names the last such cairn.
func leftOn(ctx context.Context, c target.Conn, where string) (n, pid int, err error) {
	pending, err := undo.Pending()
	if err != nil {
		return 0, 0, err
	}
	for _, e := range pending {
		var d instrumentsUndo
		if e.Kind != "mysql-instruments" || e.Alive() || json.Unmarshal(e.Data, &d) != nil || d.Where != where {
			continue
		}
		for _, in := range d.Rows {
			var on int
			if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME = ? AND (ENABLED <> ? OR TIMED <> ?)", in.Name, in.Enabled, in.Timed).Scan(&on); err != nil {
				return 0, 0, err
			}
			if on > 0 {
				n++
				pid = e.PID
			}
		}
	}
	return n, pid, nil
}

// instrumentsUndo is the journal's record of instruments cairn turned on.
type instrumentsUndo struct {
	Where string       `json:"where"`
	Rows  []instrument `json:"rows"`
}

func restoreInstruments(ctx context.Context, c target.Conn, rows []instrument) error {
	for _, in := range rows {
		if _, err := c.Exec(ctx, "UPDATE performance_schema.setup_instruments SET ENABLED = ?, TIMED = ? WHERE NAME = ?", in.Enabled, in.Timed, in.Name); err != nil {
			return fmt.Errorf("restore the instrument %s: %w", in.Name, err)
		}
	}
	return nil
}

func init() {
	registerUndo("mysql-instruments", "instruments", func(b []byte) (string, func(context.Context, target.Conn) error, error) {
		var d instrumentsUndo
		err := json.Unmarshal(b, &d)
		return d.Where, func(ctx context.Context, c target.Conn) error { return restoreInstruments(ctx, c, d.Rows) }, err
	})
}

// registerUndo registers the restore of a performance_schema change the undo journal keeps:
// decode reads an entry's data into where the change was made and how to undo it on a connection
// there (cairn restore --db).
func registerUndo(kind, what string, decode func(data []byte) (where string, restore func(context.Context, target.Conn) error, err error)) {
	undo.Register(kind, func(ctx context.Context, e *undo.Entry, db string) error {
		where, restore, err := decode(e.Data)
		if err != nil {
			return err
		}
		if db == "" {
			return fmt.Errorf("give --db for %s to restore its %s", where, what)
		}
		t, done, err := target.OpenWhere(ctx, db, where, target.Where)
		if err != nil {
			return err
		}
		defer done()
		c, err := t.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		return restore(ctx, c)
	})
}

func (w *myWaits) Sampled() bool { return false }

func (w *myWaits) Describe() string {
	src := "information_schema.INNODB_METRICS"
	if w.pfs {
		src = "performance_schema.events_waits_summary_global_by_event_name and " + src
	}
	if w.rowLocks != "" {
		src += ", InnoDB's row-lock waits (Innodb_row_lock_time, INNODB_TRX)"
	}
	if w.locks != "" {
		src += ", the lock waits going on (information_schema.PROCESSLIST)"
	}
	return src + ", server-wide, differences over the window"
}

func (w *myWaits) Read(ctx context.Context) ([]target.Wait, error) {
	var out []target.Wait
	var lockWaits, lockMs int64
	if w.rowLocks != "" {
		var waitingUs float64
		if err := w.c.QueryRow(ctx, w.rowLocks).Scan(&lockWaits, &lockMs, &waitingUs); err != nil {
			return nil, err
		}
		out = append(out, target.Wait{Name: rowLockWait, Class: "lock/row", Count: lockWaits, TimeMs: float64(lockMs) + waitingUs/1e3})
	}
	if w.pfs {
		rows, err := w.c.Query(ctx, "SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name WHERE COUNT_STAR > 0 AND EVENT_NAME <> 'idle'")
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var name string
			var n int64
			var ps float64 // picoseconds
			if err := rows.Scan(&name, &n, &ps); err != nil {
				rows.Close()
				return nil, err
			}
			if strings.HasPrefix(name, "wait/synch/") && strings.HasSuffix(name, trxCacheLatch) {
				continue
			}
			ms := ps / 1e9
			if name == handlerEvent {
				ms -= float64(lockMs)
			}
			out = append(out, target.Wait{Name: name, Class: waitClass(name), Count: n, TimeMs: ms})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if out, err = w.addLocksGoingOn(ctx, out); err != nil {
			return nil, err
		}
	}
	if len(w.counters) > 0 {
		rows, err := w.c.Query(ctx, "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN (?"+strings.Repeat(", ?", len(w.counters)-1)+")", w.counters...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var name string
			var n int64
			if err := rows.Scan(&name, &n); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, target.Wait{Name: "innodb_metrics/" + name, Class: "innodb_metrics", Count: n})
		}
		rows.Close()
	}
	if w.mutexes {
		rows, err := w.c.Query(ctx, "SELECT NAME, SUM(OS_WAITS) FROM information_schema.INNODB_MUTEXES GROUP BY NAME")
		if err == nil {
			for rows.Next() {
				var name string
				var n int64
				if rows.Scan(&name, &n) == nil {
					out = append(out, target.Wait{Name: "innodb_mutexes/" + name, Class: "innodb_mutexes", Count: n})
				}
			}
			rows.Close()
		}
	}
	return out, nil
}

// addLocksGoingOn adds to each timed lock-wait event how long the sessions waiting for it now have
// waited, so that, as with the row locks, a wait still going on at an edge of the window counts
// its part of the window: performance_schema counts it only when it ends.
func (w *myWaits) addLocksGoingOn(ctx context.Context, out []target.Wait) ([]target.Wait, error) {
	if w.locks == "" {
		return out, nil
	}
	rows, err := w.c.Query(ctx, w.locks)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var ms float64
		if err := rows.Scan(&name, &ms); err != nil {
			return nil, err
		}
		if !w.lockOn[name] {
			continue
		}
		i := slices.IndexFunc(out, func(e target.Wait) bool { return e.Name == name })
		if i < 0 {
			out = append(out, target.Wait{Name: name, Class: waitClass(name)})
			i = len(out) - 1
		}
		out[i].TimeMs += ms
	}
	return out, rows.Err()
}

// waitClass is an event's kind from its name: wait/synch/mutex/innodb/… is "mutex",
// wait/io/file/… "io/file", wait/lock/table/… "lock/table".
func waitClass(name string) string {
	p := strings.Split(name, "/")
	switch {
	case len(p) >= 3 && p[1] == "synch":
		return p[2]
	case len(p) >= 3:
		return p[1] + "/" + p[2]
	case len(p) == 2:
		return p[1]
	}
	return name
}

func (w *myWaits) Notes() []string { return w.notes }

// Close restores the instruments and the consumer OpenWaits turned on.
func (w *myWaits) Close(ctx context.Context) error {
	var errs []error
	if w.consumerDone != nil {
		if err := restoreConsumers(ctx, w.c, []consumer{{Name: waitsConsumer, Enabled: "NO"}}); err != nil {
			errs = append(errs, err)
		} else {
			errs = append(errs, w.consumerDone())
			w.consumerDone = nil
		}
	}
	if len(w.restore) > 0 && w.done != nil {
		if err := restoreInstruments(ctx, w.c, w.restore); err != nil {
			errs = append(errs, err)
		} else {
			w.restore = nil
			errs = append(errs, w.done())
		}
	}
	return errors.Join(errs...)
}
