package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/target/postgres"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestStudyLockFallsBack: where cairn cannot connect to the database the study lock is taken in,
// the lock is taken in the study's own database, and its note says so in one line: that database
// alone, what is not kept out, and why.
func TestStudyLockFallsBack(t *testing.T) {
	ctx := context.Background()
	tg, _ := testutil.Open(t, testutil.PG(t))
	defer postgres.SetLockDatabase("cairn_no_such_database")()
	l := tg.(target.StudyLocker)
	lock, heldBy, err := l.LockStudies(ctx, "cairn study fallback")
	if err != nil || heldBy != "" {
		t.Fatalf("lock: held by %q, %v", heldBy, err)
	}
	defer lock.Close()
	for _, w := range []string{"the study lock is held in database " + tg.Database() + " alone", "another database of " + tg.Address(),
		`database "cairn_no_such_database" does not exist`} {
		if !strings.Contains(lock.Note, w) || strings.Contains(lock.Note, "\n") {
			t.Errorf("note %q: want one line with %q", lock.Note, w)
		}
	}
	// Held in the study's own database: a second study there is kept out.
	if _, heldBy, err := l.LockStudies(ctx, "cairn study second"); err != nil || !strings.Contains(heldBy, "cairn study fallback") {
		t.Errorf("a second lock in the same database: held by %q, %v; want the first named", heldBy, err)
	}
}
