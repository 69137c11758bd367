package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// A results store on a full filesystem: a run says the disk is full in one line and exits 1,
// before measuring, and leaves no WAL index behind; the store stays readable by cairn while the
// disk is full, and by cairn and the sqlite3 shell once space is freed, when runs store again.
func TestStoreOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small filesystem needs root (CI runs as root)")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=2m"); err != nil {
		t.Fatalf("mount a 2 MiB tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	store := filepath.Join(dir, "results.db")
	bench := testutil.SQLite(t)
	if code, _, stderr := cairn(t, "tpcb", "prepare", "--db", bench, "--results", store); code != 0 {
		t.Fatalf("prepare: %s", stderr)
	}
	run := []string{"tpcb", "run", "--db", bench, "--duration", "1s", "--rampup", "0s", "--results", store}
	if code, _, stderr := cairn(t, run...); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	// Fill the filesystem.
	fill := filepath.Join(dir, "fill")
	f, err := os.Create(fill)
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()

	code, out, stderr := cairn(t, run...)
	if code != ExitFailed || !strings.Contains(stderr, "the disk is full") || strings.Contains(out, "progress") {
		t.Errorf("a run on a full disk: exit %d, %q, %q", code, stderr, out)
	}
	oneCleanLine(t, stderr)
	for _, x := range []string{"-shm", "-wal"} {
		if fi, err := os.Stat(store + x); err == nil {
			t.Errorf("the run on a full disk left %s of %d bytes", x, fi.Size())
		}
	}
	code, out, stderr = cairn(t, "results", "list", "--results", store)
	if code != 0 || !strings.Contains(out, "tpcb") {
		t.Errorf("results list on a full disk: exit %d %s %s", code, out, stderr)
	}

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	if sq, err := exec.LookPath("sqlite3"); err == nil {
		b, err := exec.Command(sq, store, "SELECT count(*) FROM results").CombinedOutput()
		if err != nil || strings.TrimSpace(string(b)) != "1" {
			t.Errorf("sqlite3 once space is freed: %v %s", err, b)
		}
	} else {
		t.Log("no sqlite3 shell: the store is read by cairn alone")
	}
	if code, _, stderr := cairn(t, run...); code != 0 {
		t.Errorf("a run once space is freed: exit %d %s", code, stderr)
	}
	code, out, _ = cairn(t, "results", "list", "--results", store)
	if code != 0 || strings.Count(out, "tpcb") != 2 {
		t.Errorf("results list once space is freed: exit %d\n%s", code, out)
	}
}
