package target

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Housekeeping tasks: what --after asks of the database between a profile's or a study's runs
// (docs/cli.md#housekeeping-between-runs). Each target says what each means on its server, or
// refuses it.
const (
	Checkpoint = "checkpoint"
	Vacuum     = "vacuum"
	Analyze    = "analyze"
	WaitPurge  = "wait-purge"
)

// HousekeepingTasks are the tasks --after takes, in the order they run when several are given.
var HousekeepingTasks = []string{WaitPurge, Vacuum, Analyze, Checkpoint}

// HousekeepTimeout bounds a task that waits for the server (InnoDB's purge, its page flushing):
// past it the wait ends, the task recorded as timed out with what it read last.
const HousekeepTimeout = 10 * time.Minute

// Housekeeper is a target that does housekeeping between runs.
type Housekeeper interface {
	// Housekeeping says why the database cannot do task ("" when it can), in words for a refusal.
	Housekeeping(task string) (refusal string)
	// Housekeep does task on c, an ordinary connection of the target's own, on tables, the
	// workload's own tables (its meta record's) and only those. It returns what to know of how it
	// went ("" when nothing): a wait that timed out, a checkpoint the server could not finish.
	Housekeep(ctx context.Context, c Conn, task string, tables []string) (note string, err error)
}

// HousekeepingError is a task the database cannot do: the user's to fix (exit 2).
type HousekeepingError struct{ Task, Server, Why string }

func (e *HousekeepingError) Error() string {
	return fmt.Sprintf("--after %s: %s cannot: %s", e.Task, e.Server, e.Why)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *HousekeepingError) BadInput() {}

// ParseHousekeeping reads --after's list ("checkpoint,vacuum"), each task once, in the order
// HousekeepingTasks runs them.
func ParseHousekeeping(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	given := map[string]bool{}
	for _, w := range strings.Split(list, ",") {
		w = strings.TrimSpace(w)
		known := false
		for _, t := range HousekeepingTasks {
			known = known || t == w
		}
		if !known {
			return nil, fmt.Errorf("%q is not a housekeeping task: use %s, or several joined by commas", w, strings.Join(HousekeepingTasks, ", "))
		}
		if given[w] {
			return nil, fmt.Errorf("%s is given twice", w)
		}
		given[w] = true
	}
	var out []string
	for _, t := range HousekeepingTasks {
		if given[t] {
			out = append(out, t)
		}
	}
	return out, nil
}

// CheckHousekeeping refuses the tasks t's database (each member of a shard set) cannot do.
func CheckHousekeeping(t Target, tasks []string) error {
	for _, m := range MembersOf(t) {
		for _, task := range tasks {
			h, ok := m.(Housekeeper)
			why := "cairn knows no housekeeping for it"
			if ok {
				why = h.Housekeeping(task)
			}
			if why != "" {
				return &HousekeepingError{Task: task, Server: m.Name(), Why: why}
			}
		}
	}
	return nil
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// QuoteTables quotes the table names with q (`"` or "`") into a comma list, refusing any name
// that is not a plain identifier: they reach the SQL text.
func QuoteTables(tables []string, q string) (string, error) {
	out := make([]string, len(tables))
	for i, n := range tables {
		if !plainIdent.MatchString(n) {
			return "", fmt.Errorf("table %q is not a plain identifier", n)
		}
		out[i] = q + n + q
	}
	return strings.Join(out, ", "), nil
}

// WaitBelow polls read once a second until it returns at most bound, or HousekeepTimeout passes
// (then a note says the last value read, what: "history list length"), or ctx ends.
func WaitBelow(ctx context.Context, what string, bound int64, read func(ctx context.Context) (int64, error)) (string, error) {
	deadline := time.Now().Add(HousekeepTimeout)
	for {
		v, err := read(ctx)
		if err != nil {
			return "", fmt.Errorf("read the %s: %w", what, err)
		}
		if v <= bound {
			return "", nil
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("timed out after %s with the %s at %d (waiting for at most %d)", HousekeepTimeout, what, v, bound), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
