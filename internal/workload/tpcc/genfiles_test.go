package tpcc

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// kindWriter records which RowWriter method each column of the first row came through.
type kindWriter struct {
	kinds string
	done  bool
}

func (k *kindWriter) add(c byte) {
	if !k.done {
		k.kinds += string(c)
	}
}
func (k *kindWriter) Int(int64)    { k.add('i') }
func (k *kindWriter) Money(int64)  { k.add('m') }
func (k *kindWriter) Fixed4(int64) { k.add('f') }
func (k *kindWriter) Str([]byte)   { k.add('s') }
func (k *kindWriter) Text(string)  { k.add('s') }
func (k *kindWriter) Time(int64)   { k.add('t') }
func (k *kindWriter) Null()        { k.add('?') }
func (k *kindWriter) EndRow() error {
	k.done = true
	return nil
}

// The kinds that replay a file into SQLite are those the generator writes, column for column
// (the first row of each table has no NULL).
func TestKindsAreTheGenerators(t *testing.T) {
	g := testGen(3)
	for _, j := range genJobs(g, 1, 1, true) {
		var k kindWriter
		if err := j.gen(&k); err != nil {
			t.Fatal(err)
		}
		if k.kinds != kinds[j.table] || len(k.kinds) != len(columns[j.table]) {
			t.Errorf("%s: the generator writes %q (%d columns of %d), kinds says %q", j.table, k.kinds, len(k.kinds), len(columns[j.table]), kinds[j.table])
		}
	}
}

var _ target.RowWriter = (*kindWriter)(nil)

// tableSums hashes every table's rows in order: each row's columns as text, NULL as "~".
func tableSums(t *testing.T, url string) map[string]string {
	t.Helper()
	tg, c := testutil.Open(t, url)
	ctx := context.Background()
	out := map[string]string{}
	for _, table := range tableNames {
		my := tg.Kind() != "postgres" && tg.Kind() != "sqlite"
		var cols []string
		for _, col := range columns[table] {
			typ := "TEXT"
			if my {
				typ = "CHAR"
			}
			cols = append(cols, fmt.Sprintf("COALESCE(CAST(%s AS %s), '~')", col, typ))
		}
		row := strings.Join(cols, " || '|' || ")
		if my {
			row = "CONCAT_WS('|', " + strings.Join(cols, ", ") + ")"
		}
		rs, err := c.Query(ctx, fmt.Sprintf("SELECT %s AS r FROM %s ORDER BY 1", row, table))
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		h := sha256.New()
		n := 0
		for rs.Next() {
			var s string
			if err := rs.Scan(&s); err != nil {
				t.Fatal(err)
			}
			h.Write([]byte(s))
			h.Write([]byte{'\n'})
			n++
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		rs.Close()
		if n == 0 {
			t.Fatalf("%s: no rows in %s", url, table)
		}
		out[table] = fmt.Sprintf("%d rows, %x", n, h.Sum(nil)[:8])
	}
	return out
}

// Files that gen writes in two parts, loaded with prepare --from, give every table exactly the
// rows prepare loads itself with the same seed and load time, on every target.
func TestGenFilesLoadAsPrepare(t *testing.T) {
	const seed, warehouses = 9, 2
	lt := time.Unix(1_700_000_000, 0)
	dir := t.TempDir()
	for part := 1; part <= 2; part++ {
		if _, err := GenFiles(context.Background(), GenOptions{Dir: dir, Seed: seed, Warehouses: warehouses, Parts: 2, Part: part, Workers: 2, LoadTime: lt}); err != nil {
			t.Fatal(err)
		}
	}
	files, err := OpenFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range testutil.Targets() {
		t.Run(tt.Name, func(t *testing.T) {
			url := tt.URL(t)
			var a, b string
			if strings.HasPrefix(url, "sqlite:") {
				a, b = url, testutil.SQLite(t)
			} else {
				base := url[strings.LastIndexByte(url, '/')+1:]
				if i := strings.IndexByte(base, '?'); i >= 0 {
					base = base[:i]
				}
				dbs := testutil.Databases(t, url, base+"_gen_a", base+"_gen_b")
				a, b = dbs[0], dbs[1]
			}
			ctx := context.Background()
			ta, _ := testutil.Open(t, a)
			if _, err := Prepare(ctx, ta, PrepareOptions{Warehouses: warehouses, Loaders: 2, Seed: seed, LoadTime: lt}); err != nil {
				t.Fatal(err)
			}
			tb, _ := testutil.Open(t, b)
			m, err := Prepare(ctx, tb, PrepareOptions{Loaders: 2, From: files})
			if err != nil {
				t.Fatal(err)
			}
			if m.Warehouses != warehouses || m.Seed != seed {
				t.Errorf("prepare --from recorded %d warehouses, seed %d", m.Warehouses, m.Seed)
			}
			sa, sb := tableSums(t, a), tableSums(t, b)
			for _, table := range tableNames {
				if sa[table] != sb[table] {
					t.Errorf("%s: prepare loads %s, prepare --from %s", table, sa[table], sb[table])
				}
			}
			t.Logf("%v", sb)
		})
	}
}

// prepare --from refuses, in one line naming what to do, a directory that is not one whole data
// set, and a file that changed after gen wrote it takes its rows back.
func TestFromRefusesIncompleteOrForeignFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gen := func(part int, seed uint64) {
		t.Helper()
		if _, err := GenFiles(ctx, GenOptions{Dir: dir, Seed: seed, Warehouses: 2, Parts: 2, Part: part, Workers: 2}); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(want string) {
		t.Helper()
		_, err := OpenFiles(dir)
		var oe *options.Error
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("OpenFiles: %v, want a bad-input line with %q", err, want)
		}
	}
	for _, o := range []GenOptions{{Warehouses: 2, Parts: 3, Part: 1, Seed: 1}, {Warehouses: 4, Parts: 2, Part: 3, Seed: 1}, {Warehouses: 4, Parts: 2, Part: 1}} {
		if err := CheckGen(o); err == nil {
			t.Errorf("gen %+v: no error", o)
		}
	}
	refused("holds no manifest")
	gen(1, 9)
	refused("is incomplete: part 2 of 2 has no manifest")
	gen(2, 10)
	refused("mixes data sets")
	gen(2, 9)
	if _, err := OpenFiles(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "stock.2.tsv")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	refused("stock.2.tsv of part 2 is missing")
	os.WriteFile(path, b[:len(b)-1], 0o644)
	refused("stock.2.tsv has")
	b[len(b)-2] ^= 1 // the last letter of the last S_DATA
	os.WriteFile(path, b, 0o644)
	files, err := OpenFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	tg, c := testutil.Open(t, testutil.SQLite(t))
	_, err = Prepare(ctx, tg, PrepareOptions{Loaders: 1, From: files})
	var oe *options.Error
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "stock.2.tsv differs from part 2's manifest") {
		t.Fatalf("prepare --from a changed file: %v", err)
	}
	var n int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM stock WHERE s_w_id = 2").Scan(&n); err != nil || n != 0 {
		t.Errorf("the changed file left %d rows (%v)", n, err)
	}
	m, _ := json.Marshal(Manifest{Format: FilesFormat + 1, Workload: "tpcc", Seed: 9, Warehouses: 2, Parts: 2, Part: 2})
	os.WriteFile(filepath.Join(dir, ManifestName(2, 2)), m, 0o644)
	refused("newer than this cairn reads")
}
