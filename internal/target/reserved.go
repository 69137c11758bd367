package target

import (
	"context"
	"os"
	"path/filepath"
)

type reservedKey struct{}

// WithReserved marks files no target may open as a database: cairn's own results store, which a
// benchmark's tables (and its WAL, its settings) would turn into something else.
func WithReserved(ctx context.Context, what string, paths ...string) context.Context {
	r := reservedFiles{what: what}
	if old, ok := ctx.Value(reservedKey{}).(reservedFiles); ok {
		r.paths = append(r.paths, old.paths...)
	}
	r.paths = append(r.paths, paths...)
	return context.WithValue(ctx, reservedKey{}, r)
}

type reservedFiles struct {
	what  string
	paths []string
}

// CheckReserved refuses a file database (every member of a set) that is a file ctx reserves: the
// same file (device and inode: a symbolic or hard link, another spelling of the path), or, when
// neither is there yet, the same absolute path.
func CheckReserved(ctx context.Context, db string) error {
	r, ok := ctx.Value(reservedKey{}).(reservedFiles)
	if !ok {
		return nil
	}
	members, err := ExpandSet(db)
	if err != nil {
		return nil // the URL's own check says what is wrong with it
	}
	for _, m := range members {
		u, err := ParseURL(m)
		if err != nil || u.Path == "" {
			continue
		}
		for _, p := range r.paths {
			if sameFile(u.Path, p) {
				return urlErrorf("--db %s is %s (%s): benchmark another file", Redact(m), r.what, p)
			}
		}
	}
	return nil
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	switch {
	case errA == nil && errB == nil:
		return os.SameFile(fa, fb)
	case errA == nil || errB == nil:
		return false
	}
	return absPath(a) == absPath(b)
}

// absPath is a path made absolute, its directory's symbolic links resolved where it exists.
func absPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}
