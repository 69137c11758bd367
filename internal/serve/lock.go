package serve

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// StoreBusyError is a results store another cairn serve serves: its job records, queue and the
// jobs it runs are that process's, and a second service would mark them interrupted, rewrite
// their records, put back what they are changing and hand out their ids again.
type StoreBusyError struct {
	Store string
	PID   int // 0: not known
}

func (e *StoreBusyError) Error() string {
	who, stop := "another cairn serve", "stop it first"
	if e.PID > 0 {
		who = fmt.Sprintf("cairn serve pid %d", e.PID)
		stop = fmt.Sprintf("stop it first (kill -TERM %d)", e.PID)
	}
	return fmt.Sprintf("results store %s is served by %s: %s, or give this one another --results", e.Store, who, stop)
}

// BadInput marks the error as the user's to fix.
func (e *StoreBusyError) BadInput() {}

// lockStore takes the service's exclusive lock on its results store, a flock on a file in the
// job folder beside it, held until the service ends (the kernel drops it if the process dies,
// so a killed service leaves no stale lock), with the pid written in it for the next to name.
func lockStore(store, dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("job records %s: %w", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "serve.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("job records %s: %w", dir, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			b, _ := io.ReadAll(io.LimitReader(f, 64))
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return nil, &StoreBusyError{Store: store, PID: pid}
		}
		return nil, fmt.Errorf("job records %s: lock: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("job records %s: %w", dir, err)
	}
	return f, nil
}
