// Package undo keeps the journal of what cairn changes outside its own process: a server
// process's CPU binding, performance_schema instruments, server settings. Each change is written
// to the journal before it is made and removed once it is undone, at the end of the run, on an
// error or on Ctrl-C; what a crash leaves behind, 'cairn restore' undoes.
package undo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Entry is one change not yet undone.
type Entry struct {
	ID   string    `json:"id"`
	Kind string    `json:"kind"` // "affinity", "mysql-instruments", …: the handler that undoes it
	What string    `json:"what"` // for people: "CPU binding of process 1234 (postgres)"
	DB   string    `json:"db,omitempty"`
	Made time.Time `json:"made"`
	PID  int       `json:"pid"` // the cairn process that made it
	Data json.RawMessage
	path string
}

// Handler undoes one entry. db is the database URL the user gave 'cairn restore' (with its
// password), "" when the entry concerns no database.
type Handler func(ctx context.Context, e *Entry, db string) error

var (
	mu       sync.Mutex
	handlers = map[string]Handler{}
)

// Register makes a kind of change undoable by 'cairn restore'; the package that makes the change
// registers its handler in init.
func Register(kind string, h Handler) {
	mu.Lock()
	defer mu.Unlock()
	handlers[kind] = h
}

// Dir is where the journal lives: $CAIRN_STATE, else $XDG_STATE_HOME/cairn/undo, else
// ~/.local/state/cairn/undo.
func Dir() string {
	if d := os.Getenv("CAIRN_STATE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "cairn", "undo")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "cairn-undo")
	}
	return filepath.Join(home, ".local", "state", "cairn", "undo")
}

// Record writes a change to the journal before it is made: kind names its handler, what says
// it for people, db is the redacted URL of the database it concerns (or ""), data is what the
// handler needs to undo it. The entry's Done removes it once the change is undone.
func Record(kind, what, db string, data any) (*Entry, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	e := &Entry{ID: time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:]), Kind: kind, What: what,
		DB: db, Made: time.Now().UTC().Truncate(time.Second), PID: os.Getpid(), Data: raw}
	dir := Dir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("the undo journal %s cannot be created: %w", dir, err)
	}
	e.path = filepath.Join(dir, e.ID+".json")
	out, _ := json.MarshalIndent(e, "", "  ")
	tmp := e.path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return nil, fmt.Errorf("the undo journal %s cannot be written: %w", dir, err)
	}
	if err := os.Rename(tmp, e.path); err != nil {
		return nil, err
	}
	return e, nil
}

// Done removes the entry: the change is undone.
func (e *Entry) Done() error {
	if e == nil || e.path == "" {
		return nil
	}
	err := os.Remove(e.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// Pending lists the changes not undone, oldest first.
func Pending() ([]*Entry, error) {
	files, err := filepath.Glob(filepath.Join(Dir(), "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var e Entry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("%s is not an undo entry: %w", f, err)
		}
		e.path = f
		out = append(out, &e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Alive reports whether the process that made the entry still runs: its own cleanup may still
// be coming, so restore leaves its entries alone unless forced.
func (e *Entry) Alive() bool {
	if e.PID <= 0 || e.PID == os.Getpid() {
		return false
	}
	p, err := os.FindProcess(e.PID)
	if err != nil {
		return false
	}
	return p.Signal(syscallZero) == nil
}

// Undo runs the entry's handler and removes the entry when it succeeds.
func (e *Entry) Undo(ctx context.Context, db string) error {
	mu.Lock()
	h := handlers[e.Kind]
	mu.Unlock()
	if h == nil {
		return fmt.Errorf("this cairn cannot undo %q changes (journal entry %s)", e.Kind, e.path)
	}
	if err := h(ctx, e, db); err != nil {
		return err
	}
	return e.Done()
}
