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

// Files are a workload's embedded SQL files. sql/standard/<file> holds the text every dialect
// shares; sql/<dialect>/<file> holds either a whole file of that dialect (where there is no standard
// one) or, next to a standard file, only the statements whose text differs there.
type Files struct {
	FS    fs.FS
	Owner string // the workload, for messages
}

// Standard is the folder of the statements every dialect shares unless it overrides them.
const Standard = "standard"

func (f Files) read(folder, file string) (string, bool) {
	b, err := fs.ReadFile(f.FS, "sql/"+folder+"/"+file)
	return string(b), err == nil
}

// Has reports whether some folder of chain, or the standard one, has file.
func (f Files) Has(chain []string, file string) bool {
	for _, d := range chain {
		if _, ok := f.read(d, file); ok {
			return true
		}
	}
	_, ok := f.read(Standard, file)
	return ok
}

// Stmts returns the statements of file for a dialect whose lookup order is chain (mariadb, then
// mysql: a dialect close to another writes only what differs). Without a standard file, that is
// the file of the first folder of chain that has one. With one, it is the standard file's
// statements in its order, each replaced by the statement of the same name in the first folder of
// chain whose file has it; a statement of a dialect that the standard file does not have (TPC-H's
// q15_before, say) comes after the standard ones, in its file's order.
func (f Files) Stmts(chain []string, file string) ([]Stmt, error) {
	std, ok := f.read(Standard, file)
	if !ok {
		for _, d := range chain {
			if text, ok := f.read(d, file); ok {
				return f.parse(d, file, text)
			}
		}
		return nil, fmt.Errorf("%s has no %s for %s", f.Owner, file, strings.Join(chain, " or "))
	}
	out, err := f.parse(Standard, file, std)
	if err != nil {
		return nil, err
	}
	at := make(map[string]int, len(out))
	for i, s := range out {
		at[s.Name] = i
	}
	// The chain's last folder first, so that a closer dialect's statement replaces its base's.
	for i := len(chain) - 1; i >= 0; i-- {
		text, ok := f.read(chain[i], file)
		if !ok {
			continue
		}
		over, err := f.parse(chain[i], file, text)
		if err != nil {
			return nil, err
		}
		for _, s := range over {
			if j, ok := at[s.Name]; ok {
				out[j] = s
				continue
			}
			at[s.Name] = len(out)
			out = append(out, s)
		}
	}
	return out, nil
}

func (f Files) parse(folder, file, text string) ([]Stmt, error) {
	s, err := Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%s sql/%s/%s: %w", f.Owner, folder, file, err)
	}
	return s, nil
}

// Map is Stmts by name.
func (f Files) Map(chain []string, file string) (map[string]string, error) {
	s, err := f.Stmts(chain, file)
	if err != nil {
		return nil, err
	}
	return Map(s), nil
}
