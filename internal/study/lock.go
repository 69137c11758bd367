package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/resultstore"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
)

// Lock takes the server's study lock for a study that changes the server (its settings or the
// CPUs it runs on), on a session of its own that holds it until the lock is closed. The lock
// lives on the server, so a study started from another state directory, another host or on
// another database of the server sees it; the undo journal, which is per state directory,
// cannot. Another study holding it is a *target.LockedError; note is told how the lock falls
// short of the server, when it does. nil, nil when the study changes nothing on the server or
// the server keeps no such lock (SQLite).
func Lock(ctx context.Context, t target.Target, st *Study, note func(string)) (*target.StudyLock, error) {
	l, ok := t.(target.StudyLocker)
	if !ok || !st.changesServer() {
		return nil, nil
	}
	host, _ := os.Hostname()
	lock, heldBy, err := l.LockStudies(ctx, fmt.Sprintf("cairn study %s, pid %d on %s", st.Name, os.Getpid(), host))
	if err != nil {
		return nil, err
	}
	if heldBy != "" {
		return nil, &target.LockedError{Where: t.Address(), HeldBy: heldBy}
	}
	if lock.Note != "" && note != nil {
		note(lock.Note)
	}
	return lock, nil
}

// changesServer says whether the study changes its server: a setting, or the CPUs it runs on.
func (st *Study) changesServer() bool {
	for _, n := range st.SettingNames() {
		if !IsHost(n) {
			return true
		}
	}
	for _, l := range st.ServerCPUs {
		if l != "" {
			return true
		}
	}
	return false
}

// MarkRestored updates the stored study whose settings a journal entry kept, once a restore
// after a crash has undone the entry (by names it: "cairn study restore"): it reads every setting
// back on the server, and the document says restored, and when, only if each equals its value
// as found. It returns the study's id, "" when the entry names no stored study.
func MarkRestored(ctx context.Context, e *undo.Entry, db, by string) (string, error) {
	var j journalEntry
	if e.Kind != target.SettingsUndoKind || json.Unmarshal(e.Data, &j) != nil || j.Study == "" || j.Results == "" {
		return "", nil
	}
	if _, err := os.Stat(j.Results); err != nil {
		return "", fmt.Errorf("study %s's results store %s: %w", j.Study, j.Results, err)
	}
	store, err := resultstore.Open(ctx, j.Results)
	if err != nil {
		return "", err
	}
	defer store.Close()
	l, err := store.Load(ctx, j.Study)
	if err != nil {
		return "", err
	}
	st := l.Study
	if st == nil {
		return "", fmt.Errorf("result %s in %s is not a study", j.Study, j.Results)
	}
	t, err := target.Open(ctx, db)
	if err != nil {
		return "", err
	}
	defer t.Close()
	cf, ok := t.(target.Configurer)
	if !ok {
		return "", fmt.Errorf("%s: cairn cannot read its settings", t.Name())
	}
	c, err := t.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	var differ []string
	for _, x := range j.Settings {
		now, err := cf.DescribeSetting(ctx, c, x.Name)
		if err != nil {
			return "", err
		}
		if now.Value != x.Value {
			differ = append(differ, fmt.Sprintf("%s reads %s, not %s", x.Name, now.Value, x.Value))
		}
	}
	// The rest of what the study changed on this host (a CPU governor, a server's binding) is
	// journaled apart, under the same cairn's pid.
	pending, err := undo.Pending()
	if err != nil {
		return "", err
	}
	for _, p := range pending {
		if p.PID == e.PID && p.ID != e.ID {
			differ = append(differ, p.What+" is still to restore ('cairn restore')")
		}
	}
	var why error
	if len(differ) == 0 {
		st.MarkRestored(time.Now(), by)
	} else {
		st.Restored = false
		why = errors.New(strings.Join(differ, "; "))
	}
	if err := store.UpdateStudy(ctx, st); err != nil {
		return "", err
	}
	if why != nil {
		return j.Study, fmt.Errorf("study %s is not marked restored: %w", j.Study, why)
	}
	return j.Study, nil
}
