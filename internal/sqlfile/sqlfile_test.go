package sqlfile_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

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

// render lists, for each folder named sql under internal/ (a workload's SQL tree), each file any
// of its dialect folders has, and each dialect, the statements that dialect gets.
func render(t *testing.T) []byte {
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
	dialects := target.Dialects()
	sort.Strings(dialects)
	var b bytes.Buffer
	for _, tree := range trees {
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
