// Package sqlfile splits the embedded .sql files into named statements. A statement starts at a
// line "-- name: NAME" and runs to the next such line; other comment lines before the first name
// are the file's header. (Twenty lines do not justify a dependency such as dotsql, whose API wants
// to execute statements itself.)
package sqlfile

import (
	"fmt"
	"io/fs"
	"strings"
)

// Stmt is one named statement.
type Stmt struct {
	Name string
	SQL  string
}

// Parse returns the statements in file order.
func Parse(text string) ([]Stmt, error) {
	var out []Stmt
	var cur *Stmt
	var b strings.Builder
	flush := func() {
		if cur != nil {
			cur.SQL = strings.TrimSpace(b.String())
			out = append(out, *cur)
		}
		b.Reset()
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(t, "-- name:"); ok {
			flush()
			name = strings.TrimSpace(name)
			if name == "" || seen[name] {
				return nil, fmt.Errorf("sqlfile: empty or repeated name %q", name)
			}
			seen[name] = true
			cur = &Stmt{Name: name}
			continue
		}
		if cur == nil {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	flush()
	return out, nil
}

// Map returns the statements by name.
func Map(stmts []Stmt) map[string]string {
	m := make(map[string]string, len(stmts))
	for _, s := range stmts {
		m[s.Name] = s.SQL
	}
	return m
}

// Files are a workload's embedded SQL files, one folder per dialect (sql/<dialect>/<file>).
type Files struct {
	FS    fs.FS
	Owner string // the workload, for messages
}

// Find reads file from the first folder of chain that has it: a dialect close to another
// (mariadb, then mysql) overrides only the files that differ.
func (f Files) Find(chain []string, file string) (string, error) {
	for _, d := range chain {
		if b, err := fs.ReadFile(f.FS, "sql/"+d+"/"+file); err == nil {
			return string(b), nil
		}
	}
	return "", fmt.Errorf("%s has no %s for %s", f.Owner, file, strings.Join(chain, " or "))
}

// Has reports whether some folder of chain has file.
func (f Files) Has(chain []string, file string) bool {
	_, err := f.Find(chain, file)
	return err == nil
}

// Stmts parses file from the first folder of chain that has it.
func (f Files) Stmts(chain []string, file string) ([]Stmt, error) {
	text, err := f.Find(chain, file)
	if err != nil {
		return nil, err
	}
	return Parse(text)
}

// Map is Stmts by name.
func (f Files) Map(chain []string, file string) (map[string]string, error) {
	s, err := f.Stmts(chain, file)
	if err != nil {
		return nil, err
	}
	return Map(s), nil
}
