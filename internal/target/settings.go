package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/undo"
)

// Setting is a server setting as the server describes it, and what is needed to put it back as
// it was found.
type Setting struct {
	Name  string   `json:"name"`  // as the server spells it
	Value string   `json:"value"` // as the server shows it
	Type  string   `json:"type"`  // "bool", "integer", "real", "enum", "string"
	Min   string   `json:"min,omitempty"`
	Max   string   `json:"max,omitempty"`
	Enum  []string `json:"enum,omitempty"`
	Unit  string   `json:"unit,omitempty"`
	// Restart: a change takes effect only when the server restarts.
	Restart bool `json:"restart,omitempty"`
	// Fixed: the server does not let it be changed at all (compiled in, or read-only).
	Fixed bool `json:"fixed,omitempty"`
	// NewSessions: a change reaches only the sessions opened after it.
	NewSessions bool `json:"new_sessions,omitempty"`
	// Origin is the target's own note of where the value came from, for RestoreSetting
	// (PostgreSQL: "auto" when ALTER SYSTEM had set it before cairn did).
	Origin string `json:"origin,omitempty"`
}

// Configurer is a target whose server settings cairn can read, change and put back (studies).
// Names reach SQL only once the server has said they exist; values only as bound values, or
// quoted by the server itself.
type Configurer interface {
	// DescribeSetting says what the server says of the setting now; an *UnknownSettingError when
	// it has none of that name.
	DescribeSetting(ctx context.Context, c Conn, name string) (Setting, error)
	// SetSetting changes the setting for the whole server and returns the value the server reads
	// back once the change has taken effect (a setting that needs a restart: once it is pending).
	// A value the server refuses is an *SettingValueError.
	SetSetting(ctx context.Context, c Conn, s Setting, value string) (string, error)
	// RestoreSetting puts s back as DescribeSetting found it, value and origin.
	RestoreSetting(ctx context.Context, c Conn, s Setting) error
}

// StudyLocker is a server that keeps the lock a study holds over it for its whole life: held by a
// session on the server itself, so every cairn that asks that server sees it, whatever its state
// directory or host, and whatever database of the server it names: settings are the server's
// (docs/studies.md names the lock).
type StudyLocker interface {
	// LockStudies takes the lock on a session of its own, held until the lock is closed; who
	// tells other sessions what holds it. When another session holds it, it returns that session
	// described ("cairn study x, pid 123 on h; backend pid 456 from 127.0.0.1 since 12:00:01")
	// and takes nothing.
	LockStudies(ctx context.Context, who string) (lock *StudyLock, heldBy string, err error)
}

// StudyLock is a study lock held: the sessions that hold it (one per server).
type StudyLock struct {
	// Note, when not "", says how the lock falls short of its server (on PostgreSQL, held in the
	// study's own database only); the study shows it before it starts.
	Note  string
	conns []heldLock
}

// heldLock is one session holding the lock and the statement that lets it go.
type heldLock struct {
	c       Conn
	release string
	args    []any
}

// HeldBy is a lock held by the session c, let go by release (with args) before the session ends:
// a server frees a session's lock only once it has seen the session end, a moment after the
// client closed it, and the next study, started at once, would find it still held.
func HeldBy(c Conn, note, release string, args ...any) *StudyLock {
	return &StudyLock{Note: note, conns: []heldLock{{c, release, args}}}
}

// Join adds the sessions and notes of another lock (a shard set's next server's).
func (l *StudyLock) Join(o *StudyLock, where string) {
	l.conns = append(l.conns, o.conns...)
	if o.Note != "" {
		l.Note = strings.TrimPrefix(l.Note+"; "+where+": "+o.Note, "; ")
	}
}

// Close ends the lock's sessions, which releases it; it is safe to call again.
func (l *StudyLock) Close() error {
	if l == nil {
		return nil
	}
	var errs []error
	for _, h := range l.conns {
		// A lock that cannot be let go this way (the server gone) goes with its session.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = h.c.Exec(ctx, h.release, h.args...)
		cancel()
		errs = append(errs, h.c.Close())
	}
	l.conns = nil
	return errors.Join(errs...)
}

// LockedError is a study, or a restore of one's settings, refused because another study holds
// the server's study lock.
type LockedError struct {
	Where, HeldBy string
	Restore       bool // a restore: it would change the settings of the study that runs
}

func (e *LockedError) Error() string {
	if e.Restore {
		return fmt.Sprintf("another study is running on %s (%s): wait for it to end, then restore; now its settings would be changed under it", e.Where, e.HeldBy)
	}
	return fmt.Sprintf("another study is running on %s (%s): wait for it to end; meanwhile its settings would be read here as the server's own", e.Where, e.HeldBy)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *LockedError) BadInput() {}

// UnknownSettingError is a setting the server does not have.
type UnknownSettingError struct {
	Name, Server string
	Version      string   // the server's version, "" where not known
	Near         []string // names the server has that look like it
}

// Error names the server and its version, and for a setting of the catalog the servers and
// versions that have it: `MariaDB 10.11 has no setting "innodb_spin_wait_pause_multiplier": MySQL
// 8.0.16 or later has it`.
func (e *UnknownSettingError) Error() string {
	who := e.Server
	if v := MajorMinor(e.Server, e.Version); v != "" {
		who += " " + v
	}
	msg := fmt.Sprintf("%s has no setting %q", who, e.Name)
	if w := whoHas(e.Name); w != "" {
		return msg + ": " + w
	}
	if len(e.Near) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(e.Near, ", "))
	}
	return msg
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *UnknownSettingError) BadInput() {}

// SettingValueError is a value the server refuses for a setting.
type SettingValueError struct {
	Name, Value, Why string
}

func (e *SettingValueError) Error() string {
	return fmt.Sprintf("%s = %s: %s", e.Name, e.Value, e.Why)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *SettingValueError) BadInput() {}

// CheckSettingValue checks a value against what the server says of the setting (its type, range
// and allowed values), without changing anything; "" when it passes.
func CheckSettingValue(s Setting, value string) string {
	switch s.Type {
	case "bool":
		switch strings.ToLower(value) {
		case "on", "off", "true", "false", "yes", "no", "1", "0":
			return ""
		}
		return "not a boolean (use on or off)"
	case "enum":
		for _, e := range s.Enum {
			if strings.EqualFold(e, value) {
				return ""
			}
		}
		return "not one of " + strings.Join(s.Enum, ", ")
	case "integer", "real":
		n, unit, ok := splitNumber(value)
		if !ok {
			return "not a number"
		}
		if unit != "" {
			return "" // the server converts units; it checks the range itself when the value is set
		}
		if s.Min != "" {
			if lo, _, ok := splitNumber(s.Min); ok && n < lo {
				return fmt.Sprintf("below the server's minimum %s", s.Min)
			}
		}
		if s.Max != "" {
			if hi, _, ok := splitNumber(s.Max); ok && n > hi {
				return fmt.Sprintf("above the server's maximum %s", s.Max)
			}
		}
		if s.Type == "integer" && n != float64(int64(n)) {
			return "not a whole number"
		}
	}
	return ""
}

// splitNumber reads "128", "-1", "0.5", "16MB" into the number and its unit.
func splitNumber(v string) (float64, string, bool) {
	i := 0
	for i < len(v) && (v[i] == '-' || v[i] == '+' || v[i] == '.' || (v[i] >= '0' && v[i] <= '9') || v[i] == 'e' && i > 0) {
		i++
	}
	var n float64
	if _, err := fmt.Sscan(v[:i], &n); err != nil || i == 0 {
		return 0, "", false
	}
	unit := strings.TrimSpace(v[i:])
	for _, r := range unit {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return 0, "", false
		}
	}
	return n, unit, true
}

// Near returns the names in all that look like name (same words in another order, or one
// containing the other), for "did you mean".
func Near(name string, all []string) []string {
	name = strings.ToLower(name)
	var out []string
	for _, n := range all {
		l := strings.ToLower(n)
		if strings.Contains(l, name) || strings.Contains(name, l) && len(l) > 5 {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

// SettingsUndo is the journal entry of settings cairn changed on a server: Where says which (its
// address: settings belong to the server, not to one database), Settings what they were before.
type SettingsUndo struct {
	Where    string    `json:"where"`
	Settings []Setting `json:"settings"`
}

// SettingsUndoKind is the undo journal's kind for server settings.
const SettingsUndoKind = "settings"

func init() {
	undo.Register(SettingsUndoKind, func(ctx context.Context, e *undo.Entry, db string) error {
		var d SettingsUndo
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		if db == "" {
			return fmt.Errorf("give --db for %s to restore its settings", d.Where)
		}
		t, done, err := OpenWhere(ctx, db, d.Where, Target.Address)
		if err != nil {
			return err
		}
		defer done()
		// A study that runs on the server now (on any of its databases, from any host) would have
		// its settings changed under it.
		if l, ok := t.(StudyLocker); ok {
			lock, heldBy, err := l.LockStudies(ctx, fmt.Sprintf("cairn restore, pid %d", os.Getpid()))
			if err != nil {
				return err
			}
			if heldBy != "" {
				return &LockedError{Where: d.Where, HeldBy: heldBy, Restore: true}
			}
			defer lock.Close()
		}
		return RestoreSettings(ctx, t, d.Settings)
	})
}

// RestoreSettings puts every setting back as it was found, and reads each back.
func RestoreSettings(ctx context.Context, t Target, settings []Setting) error {
	cf, ok := t.(Configurer)
	if !ok {
		return fmt.Errorf("%s: cairn cannot change its settings", t.Name())
	}
	c, err := t.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var errs []error
	for _, s := range settings {
		if err := cf.RestoreSetting(ctx, c, s); err != nil {
			errs = append(errs, fmt.Errorf("%s back to %s: %w", s.Name, s.Value, err))
			continue
		}
		now, err := cf.DescribeSetting(ctx, c, s.Name)
		if err != nil {
			errs = append(errs, err)
		} else if now.Value != s.Value && !s.Restart {
			errs = append(errs, fmt.Errorf("%s reads %s after its restore, not %s", s.Name, now.Value, s.Value))
		}
	}
	return errors.Join(errs...)
}

// PendingSettings returns the journal's entries of settings changed on the target at where and
// not restored yet: a study refuses to start while there are any.
func PendingSettings(where string) ([]*undo.Entry, error) {
	all, err := undo.Pending()
	if err != nil {
		return nil, err
	}
	var out []*undo.Entry
	for _, e := range all {
		if e.Kind != SettingsUndoKind {
			continue
		}
		var d SettingsUndo
		if json.Unmarshal(e.Data, &d) == nil && d.Where == where {
			out = append(out, e)
		}
	}
	return out, nil
}
