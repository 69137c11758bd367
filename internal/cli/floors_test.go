package cli

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// floors places every package of the tree on a floor (docs/adding-a-workload.md, "Floors"): a
// package imports only packages on lower floors, so no arrow climbs back up. A new package gets
// a floor here; the test fails until it has one.
var floors = map[string]int{
	"cli":                   100, // front ends
	"serve":                 98,
	"serve/ui":              97, // the web UI's files, mounted by the front end
	"session":               95, // a run's life: what a front end asks for, run by one code path
	"study":                 80, // a study's plan and settings, applied and restored
	"report":                62, // draws documents, in summary's words where it says what they say
	"run":                   60, // the engine
	"summary":               60, // words documents for people
	"spec":                  55,
	"workload/all":          53,
	"workload/fanout":       52,
	"workload/oltp":         52,
	"workload/tpcb":         52,
	"workload/tpcc":         52,
	"workload/tpch":         52,
	"workload/tpch/queries": 51,
	"workload":              50, // the workload contract
	"diagnosis":             45, // a document read as a DBA would: the diagnosis line, stack shifts
	"observe":               40,
	"testutil":              36,
	"target/all":            35,
	"target/mysql":          33,
	"target/postgres":       33,
	"target/sqlite":         33,
	"target/blockconn":      32,
	"target/sqlconn":        32,
	"openmetrics":           34, // /metrics: a subscriber of the events
	"sink":                  34, // where every run, profile and study is kept: a subscriber
	"event":                 31, // a run's life as typed events on one bus
	"target":                30, // the database contract
	"resultstore":           31, // the results store (SQLite)
	"results":               30, // the documents
	"options":               10, // foundations
	"metrics":               10,
	"outfile":               10,
	"undo":                  10,
	"sqlfile":               10,
	"workload/tpch/dbgen":   10,
	"textfmt":               10,
	"steady":                10, // a series' warm-up, interval and drift: arithmetic only
}

// maxChain is the most packages one import chain may pass through, cmd/cairn included: each is
// a layer a reader crosses to follow a run: cmd/cairn → cli → serve → report → summary → spec →
// observe → results → metrics is the longest.
const maxChain = 9

func TestNoImportClimbsAFloor(t *testing.T) {
	imports := internalImports(t)
	for pkg, ims := range imports {
		fl, ok := floors[pkg]
		if !ok {
			t.Errorf("internal/%s has no floor: place it in floors (and in docs/adding-a-workload.md)", pkg)
			continue
		}
		for im := range ims {
			if f, ok := floors[im]; ok && f >= fl {
				t.Errorf("internal/%s (floor %d) imports internal/%s (floor %d): an arrow climbs back up", pkg, fl, im, f)
			}
		}
	}
}

// The longest import chain, cmd/cairn → cli → … (non-test imports), is at most maxChain packages.
func TestLongestImportChain(t *testing.T) {
	imports := internalImports(t)
	depth := map[string]int{}
	next := map[string]string{}
	var walk func(p string) int
	walk = func(p string) int {
		if d, ok := depth[p]; ok {
			return d
		}
		depth[p] = 0 // an import cycle does not build: it cannot occur here
		d := 1
		for im := range imports[p] {
			if n := 1 + walk(im); n > d {
				d, next[p] = n, im
			}
		}
		depth[p] = d
		return d
	}
	// cmd/cairn imports cli: one more layer above it.
	if n := 1 + walk("cli"); n > maxChain {
		chain := []string{"cmd/cairn"}
		for p := "cli"; p != ""; p = next[p] {
			chain = append(chain, p)
		}
		t.Errorf("the longest import chain passes %d packages, more than %d: %s", n, maxChain, strings.Join(chain, " → "))
	}
}

// internalImports are the packages under internal/ and what of internal/ each imports (tests left out).
func internalImports(t *testing.T) map[string]map[string]bool {
	const mod = "github.com/cairn-bench/cairn/internal/"
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, mod) {
				imports[pkg][strings.TrimPrefix(p, mod)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 10 {
		t.Fatalf("found %d packages under internal/: the walk is wrong", len(imports))
	}
	return imports
}
