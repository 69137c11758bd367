package study

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/undo"
)

// TestStudyLockIsTheServers: the study lock is the server's, not one database's. While a study
// of one database holds it, a study of another database of the same server is refused, plan and
// run alike, in one line naming the holder, and so is a restore of settings on that server;
// once the lock is let go, the other study plans. On PostgreSQL and MariaDB.
func TestStudyLockIsTheServers(t *testing.T) {
	for _, c := range []struct{ name, scheme, setting, value string }{
		{"postgres", "postgres", "work_mem", "7MB"},
		{"mariadb", "mysql", "innodb_spin_wait_delay", "7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			a := testutil.URL(t, c.scheme)
			u, err := url.Parse(a)
			if err != nil {
				t.Fatal(err)
			}
			b := testutil.Databases(t, a, strings.TrimPrefix(u.Path, "/")+"_lock")[0]
			study := func(name, db string) *Study {
				return read(t, fmt.Sprintf("name: %s\nworkload: tpcb\ndb: %s\nvu: [1]\nduration: 1s\nsettings: {%s: [%q]}\n", name, db, c.setting, c.value))
			}
			ta, err := target.Open(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			defer ta.Close()
			var notes []string
			lock, err := Lock(ctx, ta, study("holder", a), func(l string) { notes = append(notes, l) })
			if err != nil || lock == nil {
				t.Fatalf("the first study's lock: %v %v", lock, err)
			}
			defer lock.Close()
			if len(notes) > 0 {
				t.Errorf("the lock fell short of the server: %q", notes)
			}

			refused := func(what string, err error, restore bool) {
				t.Helper()
				var le *target.LockedError
				switch {
				case !errors.As(err, &le):
					t.Errorf("%s on another database while a study holds the server: %v, want it refused", what, err)
				case le.Restore != restore || !strings.Contains(err.Error(), "another study is running on "+ta.Address()) ||
					c.name == "postgres" && !strings.Contains(err.Error(), "cairn study holder, pid") || strings.Contains(err.Error(), "\n"):
					t.Errorf("%s refused as %q: want one line naming the server and the holder", what, err)
				}
			}
			_, err = Preview(ctx, study("second", b))
			refused("study plan", err, false)
			_, err = Begin(ctx, study("second", b), Config{Version: "test"})
			refused("study run", err, false)

			// A restore of the server's settings (after a crash, say) would change them under the
			// study that runs: refused, and left in the journal.
			t.Setenv("CAIRN_STATE", t.TempDir())
			tb, cb := testutil.Open(t, b)
			now, err := tb.(target.Configurer).DescribeSetting(ctx, cb, c.setting)
			if err != nil {
				t.Fatal(err)
			}
			e, err := undo.Record(target.SettingsUndoKind, c.setting+" on "+tb.Address(), tb.Address(),
				target.SettingsUndo{Where: tb.Address(), Settings: []target.Setting{now}})
			if err != nil {
				t.Fatal(err)
			}
			refused("restore", e.Undo(ctx, b), true)
			if pending, _ := undo.Pending(); len(pending) != 1 {
				t.Errorf("the refused restore's entry: %d pending, want it kept", len(pending))
			}

			lock.Close()
			if err := e.Undo(ctx, b); err != nil {
				t.Errorf("restore once the lock is let go: %v", err)
			}
			if _, err := Preview(ctx, study("second", b)); err != nil {
				t.Errorf("plan once the lock is let go: %v", err)
			}
		})
	}
}
