package cli

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/sink"
)

// Only the front end speaks to the terminal: no package below cli writes to os.Stdout or
// os.Stderr (a web service has none), and cli itself stays flag binding and wording, under
// 1,500 lines of non-test Go.
func TestOnlyTheFrontEndHasATerminal(t *testing.T) {
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if filepath.Dir(path) == filepath.Join("..", "cli") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" && (sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr") {
					t.Errorf("%s uses os.%s: return it, or take a writer from the front end", path, sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("*.go")
	lines := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += strings.Count(string(b), "\n")
	}
	if lines >= 1500 {
		t.Errorf("internal/cli holds %d lines of non-test Go, want under 1500: what is not flag binding or wording belongs below it", lines)
	}
}

// The layers below return typed errors and data; only the command line words them as its flags,
// keeping the context they were wrapped in and their exit code.
func TestLowerLayersLeaveFlagsToTheCLI(t *testing.T) {
	ce := &run.CapacityError{VUs: 5, Where: "127.0.0.1:5432", Free: 3, Desc: "max_connections 3"}
	we := &sink.WriteError{Path: "/x/run.json", Err: errors.New("no space left on device")}
	for _, c := range []struct {
		err      error
		want     string
		badInput bool
	}{
		{fmt.Errorf("study run 1 (A, 5 VUs): %w", ce),
			"study run 1 (A, 5 VUs): --vu 5: 127.0.0.1:5432 accepts 3 more connections (max_connections 3), and cairn needs one per VU and one for the snapshots: use --vu 2 or fewer", true},
		{&run.CapacityError{VUs: 40, Where: "127.0.0.1:5432", Free: 12, Desc: "max_connections 30, 19 in use", Pooled: true},
			"--connections 40: 127.0.0.1:5432 has room for 12 (max_connections 30, 19 in use): use --connections 12 or fewer", true},
		{we, "write --json: no space left on device", false},
		{&observe.RemoteError{Where: "/x/cairn.db", Why: "SQLite runs inside cairn", Inside: true},
			"--server-cpus: the server at /x/cairn.db is not a process cairn can bind (SQLite runs inside cairn: use --client-cpus): cairn binds only a server on this host", true},
	} {
		var inner interface{ Error() string } = c.err
		for errors.Unwrap(inner.(error)) != nil {
			inner = errors.Unwrap(inner.(error))
		}
		if strings.Contains(inner.Error(), "--") {
			t.Errorf("%T words a flag below the command line: %q", inner, inner.Error())
		}
		got := flagged(c.err)
		var bi badInput
		if got.Error() != c.want || errors.As(got, &bi) != c.badInput {
			t.Errorf("flagged: %q (bad input %v), want %q (%v)", got, errors.As(got, &bi), c.want, c.badInput)
		}
	}
}
