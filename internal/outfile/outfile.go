// Package outfile writes the files cairn is asked to write (-o, --json, --png, --out): through the
// path the user named, never renamed over it. A symlink's target, a FIFO or a device (/dev/stdout,
// /dev/null) receives the bytes as a shell redirection would give them, and a write that fails (a
// full disk, /dev/full) is an error rather than a new regular file where the device was.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// OpenError is a path cairn cannot open for writing: a missing directory, a directory, no
// permission. It is the user's to fix (exit 2).
type OpenError struct {
	Path string
	Err  error
}

func (e *OpenError) Error() string { return fmt.Sprintf("cannot write to %s: %v", e.Path, e.Err) }
func (e *OpenError) Unwrap() error { return e.Err }
func (e *OpenError) BadInput()     {}

// Write gives fn a buffered writer to path. The file is opened only when the first bytes reach it
// (or when fn returns without writing any), so an fn that fails before it has written leaves an
// existing file as it was. A file that Write created is removed when writing it fails.
func Write(path string, fn func(w io.Writer) error) error {
	f := &lazy{path: path}
	bw := bufio.NewWriterSize(f, 64<<10)
	err := fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && f.file == nil {
		err = f.open()
	}
	if f.file != nil {
		if cerr := f.file.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", path, unwrapPath(cerr))
		}
		if err != nil && f.created {
			os.Remove(path)
		}
	}
	return err
}

// WriteBytes writes b to path, as Write does.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// lazy opens path on its first write.
type lazy struct {
	path    string
	file    *os.File
	created bool
}

func (l *lazy) open() error {
	// O_EXCL first tells a file made here, which a failure removes, from one that was there.
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		l.file, l.created = f, true
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		// Not O_CREATE: a name that exists is written through as it is. A dangling symlink is
		// the exception: its target is created, as a shell redirection would.
		f, err = os.OpenFile(l.path, os.O_WRONLY|os.O_TRUNC, 0)
		if errors.Is(err, fs.ErrNotExist) {
			f, err = os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		}
	}
	if err != nil {
		return &OpenError{Path: l.path, Err: unwrapPath(err)}
	}
	l.file = f
	return nil
}

func (l *lazy) Write(p []byte) (int, error) {
	if l.file == nil {
		if err := l.open(); err != nil {
			return 0, err
		}
	}
	n, err := l.file.Write(p)
	if err != nil {
		err = fmt.Errorf("write %s: %w", l.path, unwrapPath(err))
	}
	return n, err
}

// unwrapPath drops the *fs.PathError around an error, whose text would name the path again.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
