package mysql

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
)

// waitsConsumer is performance_schema's consumer of each thread's wait in progress, off by
// default: without it events_waits_current stays empty and a session's wait cannot be seen.
const waitsConsumer = "events_waits_current"

// The session history's query lists the run database's active sessions (cairn's sampling one left
// out) with what says what each waits on now: whether InnoDB has its transaction in LOCK WAIT, the
// lock-wait event its state names (lockStates), its state, and, with performance_schema's consumer
// on (sessionsPFS), each wait in progress on its thread, innermost last. The sessions come from
// performance_schema.threads where its thread instrumentation is on, a read of memory that costs
// the server half of what information_schema.PROCESSLIST does (docs/benchmarks.md), which stays for
// servers without it. INNODB_TRX is read every time: a session waiting on a row lock says so in no
// state ("Updating", "Sending data"), and Innodb_row_lock_current_waits, which could say when to
// read it, costs the server more to read than INNODB_TRX does.
const (
	sessionsSelect = `SELECT p.ID, x.id IS NOT NULL, CASE WHEN ` + lockStateCond + ` THEN ` + lockStateEvent + ` ELSE '' END,
	COALESCE(p.STATE, '')`
	processlistFrom = `
FROM information_schema.PROCESSLIST p`
	threadsFrom = `
FROM (SELECT PROCESSLIST_ID AS ID, PROCESSLIST_DB AS DB, PROCESSLIST_COMMAND AS COMMAND, PROCESSLIST_STATE AS STATE, THREAD_ID
	FROM performance_schema.threads WHERE TYPE = 'FOREGROUND') p`
	lockWaitsJoin = `
LEFT JOIN (SELECT trx_mysql_thread_id AS id FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT') x ON x.id = p.ID`
	sessionsWhere = `
WHERE p.DB = ? AND p.COMMAND NOT IN ('Sleep', 'Daemon', 'Binlog Dump') AND p.ID <> CONNECTION_ID()`
	sessionsList    = sessionsSelect + `, '', 0` + processlistFrom + lockWaitsJoin + sessionsWhere
	sessionsThreads = sessionsSelect + `, '', 0` + threadsFrom + lockWaitsJoin + sessionsWhere
	sessionsPFS     = sessionsSelect + `, COALESCE(w.EVENT_NAME, ''), COALESCE(w.EVENT_ID, 0)` + threadsFrom + lockWaitsJoin + `
LEFT JOIN performance_schema.events_waits_current w ON w.THREAD_ID = p.THREAD_ID AND w.END_EVENT_ID IS NULL AND w.EVENT_NAME <> 'idle'` + sessionsWhere
)

// openSessions chooses how the session history sees each session's wait: performance_schema's
// waits in progress where its consumer is on (with instrument, turned on for the run after
// recording that it was off), the processlist's state otherwise.
func (w *myWaits) openSessions(ctx context.Context, t *mysqlTarget, instrument bool, save target.Saver) error {
	w.db, w.sessions = t.dbname, sessionsList
	if !w.pfs {
		w.notes = append(w.notes, "session history: performance_schema is off, so the sessions are information_schema.PROCESSLIST's and each one's wait is its state there (row and metadata locks named as waits)")
		return nil
	}
	rows, err := w.c.Query(ctx, "SELECT NAME, ENABLED FROM performance_schema.setup_consumers WHERE NAME IN ('global_instrumentation', 'thread_instrumentation', ?)", waitsConsumer)
	if err != nil {
		return err
	}
	on := map[string]bool{}
	for rows.Next() {
		var name, enabled string
		if err := rows.Scan(&name, &enabled); err != nil {
			rows.Close()
			return err
		}
		on[name] = enabled == "YES"
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// A run killed with --waits instrument could not turn the consumer off: the journal says so.
	if pid, err := consumerLeftOn(ctx, w.c, target.Where(t)); err != nil {
		return err
	} else if pid > 0 {
		w.notes = append(w.notes, fmt.Sprintf("performance_schema's %s consumer a cairn that did not finish (pid %d, --waits instrument) turned on is still on: 'cairn restore --db URL' turns it off", waitsConsumer, pid))
	}
	switch {
	case !on["global_instrumentation"] || !on["thread_instrumentation"]:
		w.notes = append(w.notes, "session history: performance_schema's global_instrumentation or thread_instrumentation consumer is off, so the sessions are information_schema.PROCESSLIST's and each one's wait is its state there")
		return nil
	case on[waitsConsumer]:
	case !instrument:
		w.sessions, w.threads = sessionsThreads, true
		w.notes = append(w.notes, "session history: performance_schema's "+waitsConsumer+" consumer is off, so each session's wait is its state in performance_schema.threads (row and metadata locks named as waits; --waits instrument turns the consumer on for the run)")
		return nil
	default:
		done, err := save("mysql-consumers", consumersUndo{Where: target.Where(t), Rows: []consumer{{Name: waitsConsumer, Enabled: "NO"}}})
		if err != nil {
			return err
		}
		if _, err := w.c.Exec(ctx, "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = ?", waitsConsumer); err != nil {
			_ = done()
			return fmt.Errorf("turn on the %s consumer: %w", waitsConsumer, err)
		}
		w.consumerDone = done
		w.notes = append(w.notes, "--waits instrument turned on performance_schema's "+waitsConsumer+" consumer for the session history (restored after the run)")
	}
	w.sessions, w.threads, w.pfsSessions = sessionsPFS, true, true
	return nil
}

// SessionID implements target.SessionIDer.
func (t *mysqlTarget) SessionID(ctx context.Context, c target.Conn) (int64, error) {
	var id int64
	err := c.QueryRow(ctx, "SELECT CONNECTION_ID()").Scan(&id)
	return id, err
}

// Sessions implements target.SessionSampler: one Wait per event, counting the sessions in it now.
// A session whose transaction InnoDB has in LOCK WAIT waits on innodb/row_lock_wait, one whose
// state is a lock wait on that lock's event, else on its innermost wait in progress, or on "CPU"
// with none; with the processlist alone, on its state ("state/Sending data", class "state").
func (w *myWaits) Sessions(ctx context.Context, own []int64) ([]target.Wait, error) {
	q, args := w.sessions, []any{w.db}
	if len(own) > 0 {
		q += " AND p.ID NOT IN (?" + strings.Repeat(", ?", len(own)-1) + ")"
		for _, id := range own {
			args = append(args, id)
		}
	}
	rows, err := w.c.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type now struct {
		name string
		id   int64
	}
	sessions := map[int64]now{}
	var order []int64
	for rows.Next() {
		var pid, eventID int64
		var rowLock bool
		var lockEvent, state, event string
		if err := rows.Scan(&pid, &rowLock, &lockEvent, &state, &event, &eventID); err != nil {
			return nil, err
		}
		var name string
		switch {
		case rowLock:
			name = rowLockWait
		case lockEvent != "":
			name = lockEvent
		case w.pfsSessions && event != "":
			name = event
		case w.pfsSessions:
			name = "CPU"
		case state == "":
			name = "state/none"
		default:
			name = "state/" + state
		}
		s, seen := sessions[pid]
		if !seen {
			order = append(order, pid)
		}
		// Nested waits in progress: the innermost, the latest begun, is what the session waits on.
		if !seen || (s.name == "CPU" || eventID > s.id) && name != "CPU" {
			sessions[pid] = now{name, eventID}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	count := map[string]int64{}
	var names []string
	for _, pid := range order {
		n := sessions[pid].name
		if count[n] == 0 {
			names = append(names, n)
		}
		count[n]++
	}
	out := make([]target.Wait, 0, len(names))
	for _, n := range names {
		out = append(out, target.Wait{Name: n, Class: sessionClass(n), Count: count[n]})
	}
	return out, nil
}

func (w *myWaits) DescribeSessions() string {
	from := "information_schema.PROCESSLIST's"
	if w.threads {
		from = "performance_schema.threads'"
	}
	if w.pfsSessions {
		return from + " active sessions of database " + w.db + " with performance_schema.events_waits_current (each one's innermost wait in progress, else CPU), InnoDB's lock waits (INNODB_TRX) and the lock states, sampled"
	}
	return from + " active sessions of database " + w.db + " by state, InnoDB's lock waits (INNODB_TRX) and the lock states named as waits, sampled"
}

// sessionClass is the wait class of a session's event: "lock/row" for InnoDB's row locks,
// "CPU", "state" for a processlist state, and waitClass's for performance_schema's events.
func sessionClass(name string) string {
	switch {
	case name == rowLockWait:
		return "lock/row"
	case name == "CPU":
		return "CPU"
	case len(name) > 6 && name[:6] == "state/":
		return "state"
	}
	return waitClass(name)
}

// consumerLeftOn names the last cairn no longer running that the journal says turned consumers on
// at where and did not restore them, one of which is still not as it found it; 0 if none.
func consumerLeftOn(ctx context.Context, c target.Conn, where string) (int, error) {
	pending, err := undo.Pending()
	if err != nil {
		return 0, err
	}
	pid := 0
	for _, e := range pending {
		var d consumersUndo
		if e.Kind != "mysql-consumers" || e.Alive() || json.Unmarshal(e.Data, &d) != nil || d.Where != where {
			continue
		}
		for _, r := range d.Rows {
			var n int
			if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM performance_schema.setup_consumers WHERE NAME = ? AND ENABLED <> ?", r.Name, r.Enabled).Scan(&n); err != nil {
				return 0, err
			}
			if n > 0 {
				pid = e.PID
			}
		}
	}
	return pid, nil
}

// consumersUndo is the journal's record of performance_schema consumers cairn turned on.
type consumersUndo struct {
	Where string     `json:"where"`
	Rows  []consumer `json:"rows"`
}

type consumer struct {
	Name    string `json:"name"`
	Enabled string `json:"enabled"`
}

func restoreConsumers(ctx context.Context, c target.Conn, rows []consumer) error {
	for _, r := range rows {
		if _, err := c.Exec(ctx, "UPDATE performance_schema.setup_consumers SET ENABLED = ? WHERE NAME = ?", r.Enabled, r.Name); err != nil {
			return fmt.Errorf("restore the consumer %s: %w", r.Name, err)
		}
	}
	return nil
}

func init() {
	registerUndo("mysql-consumers", "performance_schema consumers", func(b []byte) (string, func(context.Context, target.Conn) error, error) {
		var d consumersUndo
		err := json.Unmarshal(b, &d)
		return d.Where, func(ctx context.Context, c target.Conn) error { return restoreConsumers(ctx, c, d.Rows) }, err
	})
}
