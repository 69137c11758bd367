package outfile

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// CheckError is an output path that cannot be written, found before any work: a run must not
// measure for an hour and then fail to write its file. Its message starts after the path's
// option, which the front end names.
type CheckError struct{ Path, Problem string }

func (e *CheckError) Error() string { return e.Path + e.Problem }

// BadInput marks the error as the user's to fix (exit 2).
func (e *CheckError) BadInput() {}

// Check refuses a path that cannot be written: a missing directory, a directory where a file is
// wanted (dir: a directory cairn makes, where a file is in the way), no write access.
func Check(path string, dir bool) error {
	bad := func(format string, a ...any) error { return &CheckError{path, fmt.Sprintf(format, a...)} }
	fi, err := os.Stat(path)
	switch {
	case err == nil && dir && !fi.IsDir():
		return bad(" is a file, not a directory")
	case err == nil && !dir && fi.IsDir():
		return bad(" is a directory: give a file name")
	case err == nil:
		if unix.Access(path, unix.W_OK) != nil {
			return bad(" is not writable")
		}
		if dir {
			return nil
		}
	}
	// The file, or the directory to be made, goes into the nearest existing parent.
	parent := filepath.Dir(path)
	if dir {
		for {
			if _, err := os.Stat(parent); err == nil || parent == filepath.Dir(parent) {
				break
			}
			parent = filepath.Dir(parent)
		}
	}
	pi, err := os.Stat(parent)
	switch {
	case err != nil:
		return bad(": directory %s does not exist", parent)
	case !pi.IsDir():
		return bad(": %s is not a directory", parent)
	case unix.Access(parent, unix.W_OK) != nil:
		return bad(": directory %s is not writable", parent)
	}
	return nil
}
