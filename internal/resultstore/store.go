// Package resultstore is the results store: an SQLite file of every run, profile and study
// documents (internal/results) describe, its schema versioned by migrations, read by
// 'results list/show/compare', the report and cairn serve, and written by the result sink.
// docs/results-store.md defines it.
package resultstore

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	"modernc.org/sqlite" // the store is an SQLite file, like the embedded target
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cairn-bench/cairn/internal/results"
)

// applicationID marks a SQLite file as a cairn results store ("carn"), so that cairn never writes
// into another program's database that happens to be named results.db.
const applicationID = 0x6361726e

// migrations[i] takes the store from schema version i to i+1: SQL, or a function for what SQL
// alone cannot say. Append only: a released migration never changes, because stores written by it
// exist.
var migrations = []any{
	// v1: every run and profile, its time series and histograms.
	`PRAGMA application_id = 1667330670;
	CREATE TABLE results (
		id             INTEGER PRIMARY KEY AUTOINCREMENT,
		kind           TEXT NOT NULL CHECK (kind IN ('run', 'profile')),
		profile_id     INTEGER REFERENCES results(id) ON DELETE CASCADE,
		step_index     INTEGER,
		workload       TEXT NOT NULL,
		target_kind    TEXT NOT NULL,
		target_name    TEXT NOT NULL,
		target_version TEXT NOT NULL,
		target_address TEXT NOT NULL,
		started_at     TEXT NOT NULL,
		vu             TEXT NOT NULL,
		headline_name  TEXT NOT NULL,
		headline       REAL,
		tpm            REAL,
		main_p95_ms    REAL,
		window_seconds REAL,
		interrupted    INTEGER NOT NULL,
		config         TEXT NOT NULL,
		settings       TEXT NOT NULL,
		host           TEXT NOT NULL,
		document       BLOB NOT NULL,
		stored_at      TEXT NOT NULL
	);
	CREATE TABLE series (
		result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
		t         REAL NOT NULL,
		in_window INTEGER NOT NULL,
		txns      INTEGER NOT NULL,
		headline  INTEGER NOT NULL,
		errors    INTEGER NOT NULL,
		p95_ms    REAL NOT NULL,
		PRIMARY KEY (result_id, t)
	) WITHOUT ROWID;
	CREATE TABLE histograms (
		result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
		txn       TEXT NOT NULL,
		kind      TEXT NOT NULL,
		hdr       TEXT NOT NULL,
		PRIMARY KEY (result_id, txn, kind)
	) WITHOUT ROWID;`,
	// v2: indexes for 'results list' filters and for loading a profile's steps.
	`CREATE INDEX results_by_workload ON results(workload, target_kind, id);
	CREATE INDEX results_by_profile ON results(profile_id, step_index);`,
	// v3: studies. A study's runs refer to it through profile_id, as a profile's steps do.
	allowStudies,
	// v4: the codes of a result's mark (not_as_planned), for lists; NULL in the rows stored
	// before it, whose interrupted column says the one reason they knew (cut short).
	`ALTER TABLE results ADD COLUMN not_as_planned TEXT;`,
}

// allowStudies widens the results table's CHECK on kind to admit 'study'. SQLite cannot alter a
// CHECK, and rebuilding the table would cascade its foreign keys (the store always runs with them
// on); a looser CHECK changes nothing on disk, so the table's definition is edited in place, the
// procedure https://www.sqlite.org/lang_altertable.html#otheralter gives for it.
func allowStudies(ctx context.Context, tx *sql.Tx) error {
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&v); err != nil {
		return err
	}
	for _, q := range []string{"PRAGMA writable_schema = ON",
		`UPDATE sqlite_master SET sql = replace(sql, 'CHECK (kind IN (''run'', ''profile''))', 'CHECK (kind IN (''run'', ''profile'', ''study''))')
			WHERE type = 'table' AND name = 'results'`,
		fmt.Sprintf("PRAGMA schema_version = %d", v+1),
		"PRAGMA writable_schema = OFF"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	var sqlText string
	if err := tx.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'results'").Scan(&sqlText); err != nil {
		return err
	}
	if !strings.Contains(sqlText, "'study'") {
		return fmt.Errorf("the results table's definition is not the one cairn wrote")
	}
	return nil
}

// SchemaVersion is the store schema this cairn writes.
var SchemaVersion = len(migrations)

// Store is the local results database.
type Store struct {
	db   *sql.DB
	Path string
	// version is the store's schema version: a store opened read-only may be older than this
	// cairn's (SchemaVersion), and lack the columns added since.
	version int
}

// Error is a problem with the store file itself (foreign, newer, unreadable): a usage error,
// because the user chose the file.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// BadInput marks the error as the user's to fix (exit 2).
func (e *Error) BadInput() {}

// NotFoundError is an unknown result id.
type NotFoundError struct {
	ID   string
	Path string
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *NotFoundError) BadInput() {}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no result %s in %s (see 'cairn results list')", e.ID, e.Path)
}

// DefaultPath is $CAIRN_RESULTS, else $XDG_DATA_HOME/cairn/results.db, else
// ~/.local/share/cairn/results.db.
func DefaultPath() string {
	if p := os.Getenv("CAIRN_RESULTS"); p != "" {
		return p
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "cairn", "results.db")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "results.db"
	}
	return filepath.Join(home, ".local", "share", "cairn", "results.db")
}

// Open opens the store at path, creating it (and its directory) if needed and upgrading an
// older schema. A file that is not a cairn store, or one written by a newer cairn, is refused
// before anything is written to it.
func Open(ctx context.Context, path string) (*Store, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, &Error{fmt.Sprintf("results store %s is a directory: give a file path with --results", path)}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, &Error{fmt.Sprintf("results store %s: cannot create its directory (%v): give a writable --results, or --no-store to run without storing", path, errors.Unwrap(err))}
	}
	if err := writable(path); err != nil {
		return nil, err
	}
	// Nothing is opened on a full disk: SQLite would fail half-way and leave a WAL index that
	// breaks every reader of the store until space is freed.
	if err := diskFull(path); err != nil {
		return nil, err
	}
	// busy_timeout makes a second writer wait for the first instead of failing; _txlock=immediate
	// takes the write lock at BEGIN, so two writers never deadlock upgrading read locks, and the
	// identity check in migrate cannot race with another process creating the store. Nothing in
	// the DSN writes to the file: WAL is switched on only once the file is known to be ours.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, &Error{fmt.Sprintf("results store %s: %v", path, err)}
	}
	s := &Store{db: db, Path: path, version: SchemaVersion}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, orDiskFull(path, err)
	}
	// WAL lets 'results list' read while a run writes.
	if err := switchToWAL(ctx, db); err != nil {
		db.Close()
		return nil, orDiskFull(path, fmt.Errorf("results store %s: %w", path, err))
	}
	return s, nil
}

// switchToWAL puts the store in WAL mode, waiting on other processes as busy_timeout would. Two
// processes switching a new store at once each hold a read lock and want the write lock; SQLite
// refuses one of them at once (SQLITE_BUSY) rather than call its busy handler into a deadlock, so
// the refused one tries again until the other has switched.
func switchToWAL(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(30 * time.Second) // busy_timeout's
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		_, err := db.ExecContext(ctx, "PRAGMA journal_mode = WAL")
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// writable checks, before anything is measured, that the store and its directory (where SQLite
// keeps the WAL and its index) can be written.
func writable(path string) error {
	for _, p := range []string{path, filepath.Dir(path)} {
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := unix.Access(p, unix.W_OK); err != nil {
			what := "the store"
			if p != path {
				what = "its directory " + p
			}
			return &Error{fmt.Sprintf("results store %s: no write access to %s (%v): give a writable --results, or --no-store to run without storing", path, what, err)}
		}
	}
	return nil
}

// OpenReadOnly opens an existing store for reading only: it creates, upgrades and writes
// nothing, so a store on read-only media or in another user's directory can still be listed,
// shown, compared and reported.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, &Error{fmt.Sprintf("no results store at %s: runs and profiles create it (or give --results)", path)}
	} else if fi.IsDir() {
		return nil, &Error{fmt.Sprintf("results store %s is a directory: give a file path with --results", path)}
	}
	// mode=ro needs the WAL index (-shm) to exist or be creatable; where neither holds (read-only
	// media, a directory cairn may not write), immutable=1 reads the file as it stands. On a full
	// disk, where SQLite would make a WAL index it cannot fill, a store without WAL content is
	// read as it stands at once.
	modes := []string{"mode=ro", "immutable=1"}
	if diskFull(path) != nil && walEmpty(path) {
		modes = modes[1:]
	}
	var lastErr error
	for _, mode := range modes {
		db, err := sql.Open("sqlite", "file:"+path+"?"+mode+"&_pragma=busy_timeout(30000)")
		if err != nil {
			return nil, &Error{fmt.Sprintf("results store %s: %v", path, err)}
		}
		s := &Store{db: db, Path: path}
		if lastErr = s.check(ctx); lastErr == nil {
			return s, nil
		}
		db.Close()
		var se *Error
		if errors.As(lastErr, &se) && !strings.Contains(se.Msg, "cannot be read") {
			return nil, lastErr // foreign or newer: trying another mode changes nothing
		}
	}
	return nil, orDiskFull(path, lastErr)
}

// check verifies that the file is a cairn store of a schema this cairn can read.
func (s *Store) check(ctx context.Context) error {
	var app, v int
	err := s.db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app)
	if err == nil {
		err = s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	}
	switch {
	case err != nil:
		return s.unreadable(err)
	case app != applicationID:
		return &Error{fmt.Sprintf("%s is not a cairn results store: choose another file with --results", s.Path)}
	case v > SchemaVersion:
		return &Error{fmt.Sprintf("results store %s has schema version %d, written by a newer cairn (this one reads up to %d): upgrade cairn, or choose another file with --results", s.Path, v, SchemaVersion)}
	}
	s.version = v
	return nil
}

// migrate checks, under the write lock, that the file is a cairn store of a schema this cairn
// knows (or an empty file), and applies the pending migrations, each in its own transaction. Two
// processes opening an old or new store at once thus upgrade or create it once.
func (s *Store) migrate(ctx context.Context) error {
	for {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return s.unreadable(err)
		}
		var app, v, tables int
		err = tx.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app)
		if err == nil {
			err = tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
		}
		if err == nil {
			err = tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables)
		}
		if err != nil {
			tx.Rollback()
			return s.unreadable(err)
		}
		switch {
		case app != applicationID && tables > 0:
			tx.Rollback()
			return &Error{fmt.Sprintf("%s is a SQLite database of another program, not a cairn results store: choose another file with --results", s.Path)}
		case v > SchemaVersion:
			tx.Rollback()
			return &Error{fmt.Sprintf("results store %s has schema version %d, written by a newer cairn (this one reads up to %d): upgrade cairn, or choose another file with --results", s.Path, v, SchemaVersion)}
		case v == SchemaVersion:
			return tx.Rollback()
		}
		switch m := migrations[v].(type) {
		case string:
			_, err = tx.ExecContext(ctx, m)
		case func(context.Context, *sql.Tx) error:
			err = m(ctx, tx)
		}
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("results store %s: upgrade to schema %d: %w", s.Path, v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("results store %s: upgrade to schema %d: %w", s.Path, v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("results store %s: upgrade to schema %d: %w", s.Path, v+1, err)
		}
	}
}

func (s *Store) unreadable(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "not a database") {
		return &Error{fmt.Sprintf("%s is not a cairn results store (%v): choose another file with --results", s.Path, err)}
	}
	return &Error{fmt.Sprintf("results store %s cannot be read: %v", s.Path, err)}
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// SaveRun stores a run (a step of a profile when d.ProfileID is set, at position step) and sets
// d.ID. The document, its time series and its histograms are written in one transaction.
func (s *Store) SaveRun(ctx context.Context, d *results.Document, step int) error {
	d.Kind = results.KindRun
	name, v, ok := d.Headline()
	var headline, tpm, p95 any
	if ok {
		headline = v
	}
	if d.Result.TPM != nil {
		tpm = float64(*d.Result.TPM)
	}
	if m := d.Main(); m != nil && m.Count > 0 {
		p95 = m.LatencyMs.P95
	}
	var profile, stepIndex any
	if d.ProfileID != "" {
		pid, err := strconv.ParseInt(d.ProfileID, 10, 64)
		if err != nil {
			return fmt.Errorf("profile id %q: %w", d.ProfileID, err)
		}
		profile, stepIndex = pid, step
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		id, err := insertRow(ctx, tx, row{kind: results.KindRun, profile: profile, step: stepIndex, workload: d.Workload,
			target: d.Target, started: d.StartedAt, vu: strconv.Itoa(d.VU), headlineName: name, headline: headline,
			tpm: tpm, p95: p95, window: d.Window.Seconds, interrupted: d.Cut(), config: d.Config, host: d.Host,
			marks: results.MarkCodes(d.NotAsPlanned)})
		if err != nil {
			return err
		}
		d.ID = strconv.FormatInt(id, 10)
		for _, p := range d.Series {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO series VALUES (?, ?, ?, ?, ?, ?, ?)`,
				id, p.T, p.Window, p.Txns, p.Headline, p.Errors, p.P95ms); err != nil {
				return err
			}
		}
		for txn, h := range d.Histograms {
			if _, err := tx.ExecContext(ctx, `INSERT INTO histograms VALUES (?, ?, 'latency', ?)`, id, txn, h); err != nil {
				return err
			}
		}
		return setDocument(ctx, tx, id, d)
	})
}

// BeginProfile stores a profile before its first step, so that steps can refer to it, and sets p.ID.
func (s *Store) BeginProfile(ctx context.Context, p *results.Profile) error {
	p.Kind = results.KindProfile
	return s.tx(ctx, func(tx *sql.Tx) error {
		id, err := insertRow(ctx, tx, profileRow(p))
		if err != nil {
			return err
		}
		p.ID = strconv.FormatInt(id, 10)
		return setDocument(ctx, tx, id, results.StripRuns(p))
	})
}

// UpdateProfile rewrites a stored profile's summary after a step or at the end. Its steps' runs
// are stored as runs of their own (SaveRun) and are not repeated in the profile's document.
func (s *Store) UpdateProfile(ctx context.Context, p *results.Profile) error {
	r := profileRow(p)
	id, err := strconv.ParseInt(p.ID, 10, 64)
	if err != nil {
		return fmt.Errorf("profile id %q: %w", p.ID, err)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		cfg, _ := json.Marshal(r.config)
		host, _ := json.Marshal(r.host)
		// The headline's name too: a profile is begun before any step has measured one.
		if _, err := tx.ExecContext(ctx, `UPDATE results SET headline = ?, tpm = ?, main_p95_ms = ?, interrupted = ?,
			config = ?, host = ?, vu = ?, not_as_planned = ?, headline_name = ? WHERE id = ?`,
			r.headline, r.tpm, r.p95, r.interrupted, string(cfg), string(host), r.vu, r.marks, r.headlineName, id); err != nil {
			return err
		}
		return setDocument(ctx, tx, id, results.StripRuns(p))
	})
}

// BeginStudy stores a study before its first run, so that runs can refer to it, and sets st.ID.
func (s *Store) BeginStudy(ctx context.Context, st *results.Study) error {
	st.Kind = results.KindStudy
	return s.tx(ctx, func(tx *sql.Tx) error {
		id, err := insertRow(ctx, tx, studyRow(st))
		if err != nil {
			return err
		}
		st.ID = strconv.FormatInt(id, 10)
		return setDocument(ctx, tx, id, st.Stripped())
	})
}

// UpdateStudy rewrites a stored study after a run or at the end; its runs are rows of their own.
func (s *Store) UpdateStudy(ctx context.Context, st *results.Study) error {
	r := studyRow(st)
	id, err := strconv.ParseInt(st.ID, 10, 64)
	if err != nil {
		return fmt.Errorf("study id %q: %w", st.ID, err)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE results SET headline = ?, tpm = ?, main_p95_ms = ?, interrupted = ?,
			headline_name = ? WHERE id = ?`, r.headline, r.tpm, r.p95, r.interrupted, r.headlineName, id); err != nil {
			return err
		}
		return setDocument(ctx, tx, id, st.Stripped())
	})
}

// studyRow lists a study by its first case's peak, as a profile is listed by its own; a study
// with live changes by none.
func studyRow(st *results.Study) row {
	vus := make([]string, len(st.VUs))
	for i, v := range st.VUs {
		vus[i] = strconv.Itoa(v)
	}
	r := row{kind: results.KindStudy, workload: st.Workload, target: st.Target, started: st.StartedAt, vu: strings.Join(vus, ","),
		headlineName: st.Headline, interrupted: st.Interrupted, config: st.Config, host: st.Host}
	// A study with live changes has no one figure: each run's mixes the live values.
	if len(st.Cases) > 0 && len(st.Schedule) == 0 {
		pr := profileRow(st.Cases[0].Profile)
		r.headline, r.tpm, r.p95 = pr.headline, pr.tpm, pr.p95
	}
	return r
}

func profileRow(p *results.Profile) row {
	vus := make([]string, len(p.VUs))
	for i, v := range p.VUs {
		vus[i] = strconv.Itoa(v)
	}
	r := row{kind: results.KindProfile, workload: p.Workload, target: p.Target, started: p.StartedAt, vu: strings.Join(vus, ","),
		headlineName: p.HeadlineName(), interrupted: p.Interrupted, config: p.Config, host: p.Host, marks: results.MarkCodes(p.Reasons())}
	// A profile's headline in lists is its peak step's.
	for _, st := range p.Steps {
		if st.VU == p.Marks.Peak && st.Summary.Headline.N > 0 {
			r.headline, r.tpm, r.p95 = st.Summary.Headline.Mean, st.Summary.TPM.Mean, st.Summary.P95ms.Mean
		}
	}
	return r
}

type row struct {
	kind               string
	profile, step      any
	workload           string
	target             results.Target
	started            time.Time
	vu, headlineName   string
	headline, tpm, p95 any
	window             float64
	interrupted        bool
	config             any
	host               *results.Host
	marks              string // the mark's codes (MarkCodes)
}

func insertRow(ctx context.Context, tx *sql.Tx, r row) (int64, error) {
	cfg, err := json.Marshal(r.config)
	if err != nil {
		return 0, err
	}
	settings, _ := json.Marshal(r.target.Settings)
	host, _ := json.Marshal(r.host)
	res, err := tx.ExecContext(ctx, `INSERT INTO results (kind, profile_id, step_index, workload, target_kind,
		target_name, target_version, target_address, started_at, vu, headline_name, headline, tpm, main_p95_ms,
		window_seconds, interrupted, config, settings, host, document, stored_at, not_as_planned)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, x'', ?, ?)`,
		r.kind, r.profile, r.step, r.workload, r.target.Kind, r.target.Name, r.target.Version, r.target.Address,
		r.started.UTC().Format(time.RFC3339Nano), r.vu, r.headlineName, r.headline, r.tpm, r.p95, r.window,
		r.interrupted, string(cfg), string(settings), string(host), time.Now().UTC().Format(time.RFC3339Nano), r.marks)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// setDocument stores the document gzip-compressed: histograms and series make it tens of KB.
func setDocument(ctx context.Context, tx *sql.Tx, id int64, doc any) error {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(doc); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE results SET document = ? WHERE id = ?`, buf.Bytes(), id)
	return err
}

func (s *Store) tx(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return orDiskFull(s.Path, fmt.Errorf("results store %s: %w", s.Path, err))
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		var se *Error
		var nf *NotFoundError
		if errors.As(err, &se) || errors.As(err, &nf) {
			return err
		}
		return orDiskFull(s.Path, fmt.Errorf("results store %s: %w", s.Path, err))
	}
	if err := tx.Commit(); err != nil {
		return orDiskFull(s.Path, fmt.Errorf("results store %s: %w", s.Path, err))
	}
	return nil
}

// Entry is one line of 'results list'.
type Entry struct {
	ID            int64
	Kind          string
	ProfileID     int64 // of a step; 0 otherwise
	Workload      string
	TargetKind    string
	TargetName    string
	TargetVersion string
	StartedAt     time.Time
	VU            string
	HeadlineName  string
	Headline      *float64
	TPM           *float64
	MainP95ms     *float64
	WindowSeconds float64
	// Interrupted: a run whose window was cut short of its plan (Ctrl-C, an error), a profile or
	// study that stopped before its last step.
	Interrupted bool
	// NotAsPlanned are the codes of the result's mark (mark.go); a result stored before the mark
	// existed has cut_short when it was interrupted.
	NotAsPlanned []string
	// Live: a study that changed settings inside its runs' windows, which has no one figure
	// (an older cairn stored its first case's peak, across the live values, as one).
	Live bool
}

// markColumn is the column of the mark's codes (schema version 4).
const markColumn = "not_as_planned"

// Filter selects entries for List.
type Filter struct {
	Workload string
	Target   string // target kind: sqlite, postgres, mysql, mariadb
	Limit    int
	Steps    bool // include the runs that are steps of profiles
}

// List returns the newest entries first.
func (s *Store) List(ctx context.Context, f Filter) ([]Entry, error) {
	q := `SELECT id, kind, COALESCE(profile_id, 0), workload, target_kind, target_name, target_version, started_at,
		vu, headline_name, headline, tpm, main_p95_ms, COALESCE(window_seconds, 0), interrupted,
		kind = 'study' AND COALESCE(json_array_length(config, '$.schedule'), 0) > 0, ` + markColumn + ` FROM results WHERE 1 = 1`
	if s.version < 4 {
		q = strings.Replace(q, markColumn, "NULL", 1) // a store older than the mark, opened read-only
	}
	var args []any
	if f.Workload != "" {
		q += " AND workload = ?"
		args = append(args, f.Workload)
	}
	if f.Target != "" {
		q += " AND target_kind = ?"
		args = append(args, f.Target)
	}
	if !f.Steps {
		q += " AND profile_id IS NULL"
	}
	q += " ORDER BY id DESC"
	if f.Limit > 0 {
		q += " LIMIT " + strconv.Itoa(f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", s.Path, err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var started string
		var marks sql.NullString
		if err := rows.Scan(&e.ID, &e.Kind, &e.ProfileID, &e.Workload, &e.TargetKind, &e.TargetName, &e.TargetVersion,
			&started, &e.VU, &e.HeadlineName, &e.Headline, &e.TPM, &e.MainP95ms, &e.WindowSeconds, &e.Interrupted, &e.Live, &marks); err != nil {
			return nil, err
		}
		switch {
		case marks.Valid && marks.String != "":
			e.NotAsPlanned = strings.Split(marks.String, ",")
		case !marks.Valid && e.Interrupted && e.Kind != results.KindStudy:
			e.NotAsPlanned = []string{results.CutShort}
		}
		e.StartedAt, _ = time.Parse(time.RFC3339Nano, started)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Load loads a run, a profile (with its steps' runs) or a study (with its runs).
func (s *Store) Load(ctx context.Context, id string) (results.Loaded, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return results.Loaded{}, &NotFoundError{ID: strconv.Quote(id), Path: s.Path}
	}
	var kind string
	if err := s.db.QueryRowContext(ctx, `SELECT kind FROM results WHERE id = ?`, n).Scan(&kind); errors.Is(err, sql.ErrNoRows) {
		return results.Loaded{}, &NotFoundError{ID: id, Path: s.Path}
	} else if err != nil {
		return results.Loaded{}, fmt.Errorf("results store %s: %w", s.Path, err)
	}
	if kind == results.KindStudy {
		st, err := s.getStudy(ctx, n)
		return results.Loaded{Study: st}, err
	}
	d, p, err := s.Get(ctx, id)
	return results.Loaded{Run: d, Profile: p}, err
}

func (s *Store) getStudy(ctx context.Context, n int64) (*results.Study, error) {
	var blob []byte
	if err := s.db.QueryRowContext(ctx, `SELECT document FROM results WHERE id = ?`, n).Scan(&blob); err != nil {
		return nil, fmt.Errorf("results store %s: %w", s.Path, err)
	}
	st := &results.Study{}
	if err := decodeBlob(blob, st); err != nil {
		return nil, fmt.Errorf("results store %s: study %d: %w", s.Path, n, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT document FROM results WHERE profile_id = ? ORDER BY step_index, id`, n)
	if err != nil {
		return nil, fmt.Errorf("results store %s: %w", s.Path, err)
	}
	defer rows.Close()
	for _, c := range st.Cases {
		for _, step := range c.Profile.Steps {
			step.Runs = nil
		}
	}
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		d := &results.Document{}
		if err := decodeBlob(b, d); err != nil {
			return nil, fmt.Errorf("results store %s: a run of study %d: %w", s.Path, n, err)
		}
		d.Upgrade()
		st.Place(d)
	}
	return st, rows.Err()
}

// Get loads a run or a profile (with its steps' runs). Exactly one of the results is non-nil.
func (s *Store) Get(ctx context.Context, id string) (*results.Document, *results.Profile, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return nil, nil, &NotFoundError{ID: strconv.Quote(id), Path: s.Path}
	}
	var kind string
	var blob []byte
	err = s.db.QueryRowContext(ctx, `SELECT kind, document FROM results WHERE id = ?`, n).Scan(&kind, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, &NotFoundError{ID: id, Path: s.Path}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("results store %s: %w", s.Path, err)
	}
	if kind == results.KindStudy {
		return nil, nil, &Error{fmt.Sprintf("result %d is a study", n)}
	}
	if kind == results.KindRun {
		d := &results.Document{}
		if err := decodeBlob(blob, d); err != nil {
			return nil, nil, fmt.Errorf("results store %s: result %d: %w", s.Path, n, err)
		}
		d.Upgrade()
		return d, nil, nil
	}
	p := &results.Profile{}
	if err := decodeBlob(blob, p); err != nil {
		return nil, nil, fmt.Errorf("results store %s: profile %d: %w", s.Path, n, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT document FROM results WHERE profile_id = ? ORDER BY step_index, id`, n)
	if err != nil {
		return nil, nil, fmt.Errorf("results store %s: %w", s.Path, err)
	}
	defer rows.Close()
	byVU := map[int]*results.Step{}
	for _, st := range p.Steps {
		byVU[st.VU] = st
	}
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, nil, err
		}
		d := &results.Document{}
		if err := decodeBlob(b, d); err != nil {
			return nil, nil, fmt.Errorf("results store %s: a step of profile %d: %w", s.Path, n, err)
		}
		st := byVU[d.VU]
		if st == nil {
			// A step whose summary was not written yet (the profile was interrupted).
			st = &results.Step{VU: d.VU}
			byVU[d.VU] = st
			p.Steps = append(p.Steps, st)
		}
		st.Runs = append(st.Runs, d)
	}
	return nil, p, rows.Err()
}

func decodeBlob(blob []byte, v any) error {
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		return err
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Remove deletes a run or a profile with its steps. A step alone cannot be removed: the profile's
// figures and marks were computed from it.
func (s *Store) Remove(ctx context.Context, id string) error {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return &NotFoundError{ID: strconv.Quote(id), Path: s.Path}
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		var parent sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT profile_id FROM results WHERE id = ?`, n).Scan(&parent)
		if errors.Is(err, sql.ErrNoRows) {
			return &NotFoundError{ID: id, Path: s.Path}
		}
		if err != nil {
			return err
		}
		if parent.Valid {
			what := results.KindProfile
			_ = tx.QueryRowContext(ctx, `SELECT kind FROM results WHERE id = ?`, parent.Int64).Scan(&what)
			return &Error{fmt.Sprintf("run %d is a step of %s %d: remove the %s ('cairn results rm %d')", n, what, parent.Int64, what, parent.Int64)}
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM results WHERE id = ?`, n)
		return err
	})
}
