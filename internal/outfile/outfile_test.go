package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	boom := errors.New("render failed")

	// A failure before the first byte leaves an existing file as it was.
	old := filepath.Join(dir, "old.txt")
	os.WriteFile(old, []byte("before"), 0o644)
	if err := Write(old, func(io.Writer) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Write returned %v, want %v", err, boom)
	}
	if b, _ := os.ReadFile(old); string(b) != "before" {
		t.Errorf("a failed write changed the existing file to %q", b)
	}

	// A file Write created is removed when writing it fails.
	made := filepath.Join(dir, "new.txt")
	if err := Write(made, func(w io.Writer) error {
		w.Write([]byte(strings.Repeat("x", 1<<20)))
		return boom
	}); !errors.Is(err, boom) {
		t.Errorf("Write returned %v, want %v", err, boom)
	}
	if _, err := os.Lstat(made); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed write left %s behind (%v)", made, err)
	}

	// Nothing written is an empty file, not no file.
	empty := filepath.Join(dir, "empty.txt")
	if err := Write(empty, func(io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Errorf("empty output: %v %v", fi, err)
	}

	// A dangling symlink: its target is created, the link stays.
	target, link := filepath.Join(dir, "target.txt"), filepath.Join(dir, "link.txt")
	os.Symlink(target, link)
	if err := WriteBytes(link, []byte("through")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "through" {
		t.Errorf("the symlink's target holds %q", b)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}

	// A path that cannot be opened is the user's to fix.
	var oe *OpenError
	if err := WriteBytes(filepath.Join(dir, "none", "x.txt"), []byte("x")); !errors.As(err, &oe) {
		t.Errorf("missing directory: %v, want an OpenError", err)
	}

	// A full device: the write fails, naming the path and the cause, and the device stays.
	full := filepath.Join(dir, "full")
	if err := unix.Mknod(full, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 7))); err != nil {
		t.Skipf("cannot make a device node (mknod needs CAP_MKNOD): %v", err)
	}
	err := WriteBytes(full, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "write "+full+": no space left on device") {
		t.Errorf("writing to a full device: %v", err)
	}
	if fi, err := os.Lstat(full); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("%s is no longer a device (%v)", full, err)
	}
}
