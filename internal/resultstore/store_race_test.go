package resultstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// storeOpener is set in the environment of the processes TestNewStoreRace starts: each opens the
// store it names and exits.
const storeOpener = "CAIRN_TEST_OPEN_STORE"

// TestNewStoreRace: several processes creating the same new store at once all open it (they
// wait on one another rather than fail with "database is locked"), and the store they leave is
// one store of the current schema. Processes, not goroutines: SQLite's locks are per process.
func TestNewStoreRace(t *testing.T) {
	if path := os.Getenv(storeOpener); path != "" {
		// Every process waits for the same instant, so that their openings collide.
		if at, err := strconv.ParseInt(os.Getenv(storeOpener+"_AT"), 10, 64); err == nil {
			time.Sleep(time.Until(time.Unix(0, at)))
		}
		s, err := Open(context.Background(), path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		s.Close()
		os.Exit(0)
	}
	const procs, rounds = 16, 20
	for r := range rounds {
		path := filepath.Join(t.TempDir(), "results.db")
		at := strconv.FormatInt(time.Now().Add(300*time.Millisecond).UnixNano(), 10)
		var wg sync.WaitGroup
		errs := make([]string, procs)
		for i := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^TestNewStoreRace$")
				cmd.Env = append(os.Environ(), storeOpener+"="+path, storeOpener+"_AT="+at)
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Sprintf("%v: %s", err, strings.TrimSpace(string(out)))
				}
			}()
		}
		wg.Wait()
		for i, e := range errs {
			if e != "" {
				t.Errorf("round %d, process %d: %s", r+1, i+1, e)
			}
		}
		s, err := OpenReadOnly(context.Background(), path)
		if err != nil {
			t.Fatalf("round %d: %v", r+1, err)
		}
		var v int
		if err := s.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion {
			t.Errorf("round %d: schema version %d (%v), want %d", r+1, v, err, SchemaVersion)
		}
		s.Close()
	}
}
