package resultstore

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// minFree is the space the store's filesystem must have for cairn to open it for writing: SQLite
// makes a WAL index (-shm, 32 KiB) and the WAL before the first page is written. With less, it
// fails half-way and leaves a 3-byte -shm that every reader, the sqlite3 shell too, then fails
// on until space is freed.
const minFree = 1 << 20

// DiskFullError is a store on a filesystem without space to write it. Not the user's input: a
// run that cannot store its result has failed (exit 1).
type DiskFullError struct {
	Path string
	Free uint64 // bytes the filesystem has free for cairn
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("results store %s: the disk is full (%s free on %s, cairn needs 1 MiB): free some space, or give another --results (or --no-store)",
		e.Path, kib(e.Free), filepath.Dir(e.Path))
}

func kib(b uint64) string {
	if b < 1024 {
		return fmt.Sprintf("%d bytes", b)
	}
	return fmt.Sprintf("%d KiB", b/1024)
}

// freeSpace is the space the filesystem of path's directory has for an unprivileged writer.
func freeSpace(path string) (uint64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(filepath.Dir(path), &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}

// diskFull is a DiskFullError when the store's filesystem is (nearly) full, else nil.
func diskFull(path string) error {
	if free, ok := freeSpace(path); ok && free < minFree {
		return &DiskFullError{Path: path, Free: free}
	}
	return nil
}

// orDiskFull words an error of the store as a full disk when that is what it is: SQLite says
// "disk I/O error" when it cannot extend its WAL index, "database or disk is full" when it
// cannot extend a file.
func orDiskFull(path string, err error) error {
	if err == nil {
		return nil
	}
	if full := diskFull(path); full != nil {
		return full
	}
	return err
}

// walEmpty reports a store with no WAL content: its file alone is the whole store, so it can be
// read as it stands (immutable) without SQLite making a WAL index.
func walEmpty(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return err != nil || fi.Size() == 0
}
