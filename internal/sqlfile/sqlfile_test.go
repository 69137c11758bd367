package sqlfile_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
)

// golden is every statement each dialect is sent, file by file. When SQL is shared between
// dialects, an edit in one file reaches several databases; the golden file's diff shows which.
const golden = "testdata/statements.golden"

// TestStatementsPerDialect resolves every file of every SQL tree under internal/ for every
// registered dialect and compares the statements with testdata/statements.golden;
// CAIRN_UPDATE_SQL=1 writes it anew.
func TestStatementsPerDialect(t *testing.T) {
	got := render(t)
	if os.Getenv("CAIRN_UPDATE_SQL") != "" {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w []byte
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if !bytes.Equal(g, w) {
				t.Fatalf("the statements differ from %s at line %d:\n got: %s\nwant: %s\n(run CAIRN_UPDATE_SQL=1 go test ./internal/sqlfile if the change is meant)", golden, i+1, g, w)
			}
		}
	}
}

// TestStandardStatementsRun: a statement of a standard file that every dialect overrides is text
// no database runs and no test checks.
func TestStandardStatementsRun(t *testing.T) {
	n := 0
	for _, tree := range trees(t) {
		sf := sqlfile.Files{FS: os.DirFS(tree), Owner: tree}
		ents, _ := os.ReadDir(filepath.Join(tree, "sql", sqlfile.Standard))
		for _, e := range ents {
			std, err := sf.Stmts(nil, e.Name())
			if err != nil {
				t.Fatal(err)
			}
			used := map[sqlfile.Stmt]bool{}
			for _, dn := range target.Dialects() {
				d, _ := target.DialectNamed(dn)
				got, err := sf.Stmts(d.Chain(), e.Name())
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range got {
					used[s] = true
				}
			}
			for _, s := range std {
				n++
				if !used[s] {
					t.Errorf("%s/sql/standard/%s: every dialect overrides %s; give the standard text to one of them", tree, e.Name(), s.Name)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no standard statements found")
	}
}

func TestStandardFallback(t *testing.T) {
	f := sqlfile.Files{Owner: "w", FS: fstest.MapFS{
		"sql/standard/q.sql": {Data: []byte("-- header\n-- name: a\nA\n-- name: b\nB\n-- name: c\nC\n")},
		"sql/mysql/q.sql":    {Data: []byte("-- name: b\nB mysql\n-- name: x\nX mysql\n")},
		"sql/mariadb/q.sql":  {Data: []byte("-- name: c\nC mariadb\n-- name: b\nB mariadb\n")},
		"sql/mysql/w.sql":    {Data: []byte("-- name: a\nA mysql\n")},
	}}
	for _, c := range []struct {
		chain []string
		file  string
		want  string
	}{
		{[]string{"sqlite"}, "q.sql", "a=A b=B c=C"},
		{[]string{"mysql"}, "q.sql", "a=A b=B mysql c=C x=X mysql"},
		{[]string{"mariadb", "mysql"}, "q.sql", "a=A b=B mariadb c=C mariadb x=X mysql"},
		{[]string{"mariadb", "mysql"}, "w.sql", "a=A mysql"},
		{[]string{"sqlite"}, "w.sql", "error: w has no w.sql for sqlite"},
	} {
		var got []string
		stmts, err := f.Stmts(c.chain, c.file)
		if err != nil {
			got = append(got, "error: "+err.Error())
		}
		for _, s := range stmts {
			got = append(got, s.Name+"="+s.SQL)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%v %s: got %q, want %q", c.chain, c.file, g, c.want)
		}
		if has := f.Has(c.chain, c.file); has != (err == nil) {
			t.Errorf("%v %s: Has says %v, Stmts says %v", c.chain, c.file, has, err)
		}
	}
}

// trees are the folders under internal/ with a SQL tree (a folder named sql).
func trees(t *testing.T) []string {
	var trees []string
	err := filepath.WalkDir("..", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == "sql" {
			trees = append(trees, filepath.Dir(path))
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(trees) < 5 {
		t.Fatalf("found only %d SQL trees under internal/: %v", len(trees), trees)
	}
	return trees
}

// render lists, for each SQL tree, each file any of its folders has, and each dialect, the
// statements that dialect gets.
func render(t *testing.T) []byte {
	dialects := target.Dialects()
	sort.Strings(dialects)
	var b bytes.Buffer
	for _, tree := range trees(t) {
		files := map[string]bool{}
		subs, err := os.ReadDir(filepath.Join(tree, "sql"))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range subs {
			ents, err := os.ReadDir(filepath.Join(tree, "sql", s.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				files[e.Name()] = true
			}
		}
		names := make([]string, 0, len(files))
		for f := range files {
			names = append(names, f)
		}
		sort.Strings(names)
		sf := sqlfile.Files{FS: os.DirFS(tree), Owner: tree}
		for _, file := range names {
			for _, dn := range dialects {
				d, _ := target.DialectNamed(dn)
				fmt.Fprintf(&b, "=== %s/sql %s %s\n", filepath.ToSlash(tree[3:]), file, dn)
				stmts, err := sf.Stmts(d.Chain(), file)
				if err != nil {
					fmt.Fprintf(&b, "(%v)\n", err)
					continue
				}
				for _, s := range stmts {
					fmt.Fprintf(&b, "-- name: %s\n%s\n", s.Name, s.SQL)
				}
			}
		}
	}
	return b.Bytes()
}
