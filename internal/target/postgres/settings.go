package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cairn-bench/cairn/internal/target"
)

// autoOrigin marks a setting that ALTER SYSTEM had set before cairn changed it: the rest of the
// origin is the value postgresql.auto.conf held, which RestoreSetting writes back.
const autoOrigin = "auto.conf:"

// DescribeSetting implements target.Configurer from pg_settings, and pg_file_settings for what
// postgresql.auto.conf holds (which needs a superuser, as ALTER SYSTEM does).
func (t *pg) DescribeSetting(ctx context.Context, c target.Conn, name string) (target.Setting, error) {
	var s target.Setting
	var context_ string
	var min, max, unit *string
	var enum []string
	err := c.QueryRow(ctx, `SELECT name, current_setting(name), vartype, context, min_val, max_val, unit, COALESCE(enumvals, '{}')
		FROM pg_settings WHERE name = lower($1)`, name).Scan(&s.Name, &s.Value, &s.Type, &context_, &min, &max, &unit, &enum)
	if err != nil {
		if strings.Contains(err.Error(), "no rows") {
			var v string
			_ = c.QueryRow(ctx, "SHOW server_version").Scan(&v)
			return s, &target.UnknownSettingError{Name: name, Server: "PostgreSQL", Version: v, Near: t.near(ctx, c, name)}
		}
		return s, err
	}
	if min != nil {
		s.Min = *min
	}
	if max != nil {
		s.Max = *max
	}
	if unit != nil {
		s.Unit = *unit
	}
	s.Enum = enum
	switch context_ {
	case "postmaster":
		s.Restart = true
	case "internal":
		s.Fixed = true
	case "backend", "superuser-backend":
		s.NewSessions = true
	}
	var auto *string
	if err := c.QueryRow(ctx, `SELECT (SELECT setting FROM pg_file_settings WHERE name = $1 AND sourcefile LIKE '%postgresql.auto.conf'
		ORDER BY seqno DESC LIMIT 1)`, s.Name).Scan(&auto); err != nil {
		return s, fmt.Errorf("reading pg_file_settings (cairn must know what ALTER SYSTEM had set, to put it back; it needs a superuser, as ALTER SYSTEM does): %w", err)
	}
	if auto != nil {
		s.Origin = autoOrigin + *auto
	}
	return s, nil
}

func (t *pg) near(ctx context.Context, c target.Conn, name string) []string {
	rows, err := c.Query(ctx, "SELECT name FROM pg_settings")
	if err != nil {
		return nil
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			all = append(all, n)
		}
	}
	return target.Near(name, all)
}

// SetSetting implements target.Configurer: ALTER SYSTEM, then pg_reload_conf(), then the value
// this session reads once it has reloaded the configuration (pg_conf_load_time moves).
func (t *pg) SetSetting(ctx context.Context, c target.Conn, s target.Setting, value string) (string, error) {
	if err := t.alterSystem(ctx, c, s.Name, &value); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && (pe.Code == "22023" || pe.Code == "22P02") {
			return "", &target.SettingValueError{Name: s.Name, Value: value, Why: pe.Message}
		}
		return "", err
	}
	return t.reload(ctx, c, s)
}

// RestoreSetting implements target.Configurer: postgresql.auto.conf gets back the value it held,
// or loses the line cairn added (ALTER SYSTEM RESET), and the configuration is reloaded.
func (t *pg) RestoreSetting(ctx context.Context, c target.Conn, s target.Setting) error {
	var v *string
	if rest, ok := strings.CutPrefix(s.Origin, autoOrigin); ok {
		v = &rest
	}
	if err := t.alterSystem(ctx, c, s.Name, v); err != nil {
		return err
	}
	_, err := t.reload(ctx, c, s)
	return err
}

// alterSystem sets name to *value in postgresql.auto.conf, or resets it when value is nil. ALTER
// SYSTEM takes no parameters: the server's format() quotes the name and the value.
func (t *pg) alterSystem(ctx context.Context, c target.Conn, name string, value *string) error {
	var stmt string
	var err error
	if value == nil {
		err = c.QueryRow(ctx, "SELECT format('ALTER SYSTEM RESET %I', $1::text)", name).Scan(&stmt)
	} else {
		err = c.QueryRow(ctx, "SELECT format('ALTER SYSTEM SET %I = %L', $1::text, $2::text)", name, *value).Scan(&stmt)
	}
	if err != nil {
		return err
	}
	_, err = c.Exec(ctx, stmt)
	return err
}

// reload asks the server to reload its configuration and waits until this session has: the
// value read then is what new and running sessions see. A setting that needs a restart reads as
// what the file now holds.
func (t *pg) reload(ctx context.Context, c target.Conn, s target.Setting) (string, error) {
	var before time.Time
	if err := c.QueryRow(ctx, "SELECT pg_conf_load_time()").Scan(&before); err != nil {
		return "", err
	}
	if _, err := c.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return "", err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var at time.Time
		var now string
		var fileErr *string
		if err := c.QueryRow(ctx, `SELECT pg_conf_load_time(), current_setting($1),
			(SELECT error FROM pg_file_settings WHERE name = $1 AND error IS NOT NULL LIMIT 1)`, s.Name).Scan(&at, &now, &fileErr); err != nil {
			return "", err
		}
		if fileErr != nil && !s.Restart {
			return "", fmt.Errorf("the server did not take %s: %s", s.Name, *fileErr)
		}
		if at.After(before) {
			if s.Restart || s.NewSessions {
				var file *string
				if err := c.QueryRow(ctx, `SELECT (SELECT setting FROM pg_file_settings WHERE name = $1 ORDER BY seqno DESC LIMIT 1)`, s.Name).Scan(&file); err != nil {
					return "", err
				}
				if file != nil {
					return *file, nil
				}
			}
			return now, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the server did not reload its configuration within 10 s of pg_reload_conf()")
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// StudyLockKey is the session-level advisory lock (pg_try_advisory_lock) a study holds on the
// server for its whole life: the bytes of "cairnstd".
const StudyLockKey int64 = 0x636169726e737464

// StudyLockDatabase is the database the study lock is taken in, whatever database the study
// names: an advisory lock is one database's, the settings a study changes are the server's, and
// every server has this database (initdb makes it) that every cairn can agree on.
const StudyLockDatabase = "postgres"

// lockDatabase is StudyLockDatabase; a test names one cairn cannot connect to.
var lockDatabase = StudyLockDatabase

// LockStudies implements target.StudyLocker with a session-level advisory lock in database
// postgres; the session's application_name says who holds it, for pg_stat_activity and the next
// study to read. Where cairn cannot connect to postgres (dropped, or CONNECT not granted), the
// lock is taken in the study's own database, and the lock's note says what that leaves out.
func (t *pg) LockStudies(ctx context.Context, who string) (*target.StudyLock, string, error) {
	var c target.Conn
	note := ""
	if t.db != lockDatabase {
		cfg := t.cfg.Copy()
		cfg.Database = lockDatabase
		lt := &pg{cfg: cfg, addr: t.addr, db: lockDatabase, sslmode: t.sslmode}
		var err error
		if c, err = lt.Conn(ctx); err != nil {
			why := err.Error()
			var ce *target.ConnectError
			if errors.As(err, &ce) {
				why = ce.Msg
			}
			note = fmt.Sprintf("the study lock is held in database %s alone, so a study of another database of %s is not kept out (cairn cannot connect to database %s: %s)",
				t.db, t.addr, lockDatabase, why)
		}
	}
	if c == nil {
		var err error
		if c, err = t.Conn(ctx); err != nil {
			return nil, "", err
		}
	}
	heldBy, err := lockStudies(ctx, c, who)
	if err != nil || heldBy != "" {
		c.Close()
		return nil, heldBy, err
	}
	return target.HeldBy(c, note, "SELECT pg_advisory_unlock($1)", StudyLockKey), "", nil
}

func lockStudies(ctx context.Context, c target.Conn, who string) (string, error) {
	if _, err := c.Exec(ctx, "SELECT set_config('application_name', $1, false)", who); err != nil {
		return "", err
	}
	var ok bool
	if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", StudyLockKey).Scan(&ok); err != nil {
		return "", fmt.Errorf("taking the study lock: %w", err)
	}
	if ok {
		return "", nil
	}
	// A bigint key is shown in pg_locks split in two: classid its high 32 bits, objid its low.
	var pid int
	var app, from string
	var since time.Time
	err := c.QueryRow(ctx, `SELECT a.pid, a.application_name, COALESCE(host(a.client_addr), 'a local socket'), a.backend_start
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.classid = ($1::bigint)::oid AND l.objid = ($2::bigint)::oid
		AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
		StudyLockKey>>32, StudyLockKey&0xffffffff).Scan(&pid, &app, &from, &since)
	if err != nil {
		return "a session that has just ended: try again", nil
	}
	if app == "" {
		app = "a session that did not name itself"
	}
	return fmt.Sprintf("%s; backend pid %d from %s since %s", app, pid, from, since.UTC().Format("15:04:05 MST")), nil
}
