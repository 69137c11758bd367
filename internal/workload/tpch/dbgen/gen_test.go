package dbgen

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reference data was written by the official dbgen 2.17.3 (see its README).
const refDir = "../testdata"

func official(t *testing.T, table string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join(refDir, "official_sf0.01", table+".tbl.gz"))
	if err != nil {
		t.Fatalf("no reference data (%v)", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func generate(t testing.TB, table string, sf float64, start, count int64, opt Options) ([]byte, int64) {
	t.Helper()
	var out []byte
	var rows int64
	err := Generate(context.Background(), table, sf, start, count, opt, func(c Chunk) error {
		out = append(out, c.Buf...)
		rows += c.Rows
		c.Release()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, rows
}

// firstDiff names the first differing line, for a readable failure.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) && i < len(w); i++ {
		if !bytes.Equal(g[i], w[i]) {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

func TestSF001MatchesOfficialDbgen(t *testing.T) {
	for _, table := range Tables {
		t.Run(table, func(t *testing.T) {
			want := official(t, table)
			// Small chunks so that chunk boundaries (skipping ahead in every stream) are exercised.
			got, rows := generate(t, table, 0.01, 0, Units(table, 0.01), Options{Workers: 3, ChunkUnits: 97})
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from dbgen's: %s", table, firstDiff(got, want))
			}
			if n := int64(bytes.Count(want, []byte("\n"))); rows != n {
				t.Fatalf("%s: counted %d rows, the file has %d", table, rows, n)
			}
			if r := Rows(table, 0.01); r >= 0 && r != rows {
				t.Fatalf("%s: Rows says %d, generated %d", table, r, rows)
			}
		})
	}
}

func TestPartsConcatenateToTheWhole(t *testing.T) {
	for _, table := range []string{"nation", "supplier", "partsupp", "lineitem"} {
		whole, _ := generate(t, table, 0.01, 0, Units(table, 0.01), Options{})
		var joined []byte
		const parts = 7
		for p := 1; p <= parts; p++ {
			s, n := PartRange(table, 0.01, p, parts)
			b, _ := generate(t, table, 0.01, s, n, Options{Workers: 1})
			joined = append(joined, b...)
		}
		if !bytes.Equal(joined, whole) {
			t.Fatalf("%s: %d parts joined differ from the whole: %s", table, parts, firstDiff(joined, whole))
		}
	}
}

// TestSF1Checksums compares the md5 of every SF=1 table with the official generator's
// (checksums.txt). It formats about 1 GB; -short skips it.
func TestSF1Checksums(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the SF=1 checksum test formats about 1 GB")
	}
	want := sf1Sums(t)
	for _, table := range Tables {
		h := md5.New()
		var rows, size int64
		err := Generate(context.Background(), table, 1, 0, Units(table, 1), Options{}, func(c Chunk) error {
			h.Write(c.Buf)
			rows += c.Rows
			size += int64(len(c.Buf))
			c.Release()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%d %d %s", rows, size, hex.EncodeToString(h.Sum(nil)))
		if got != want[table] {
			t.Errorf("%s at SF=1: rows, bytes, md5 = %s; dbgen's are %s", table, got, want[table])
		}
	}
}

func sf1Sums(t *testing.T) map[string]string {
	f, err := os.Open(filepath.Join(refDir, "checksums.txt"))
	if err != nil {
		t.Fatalf("no reference checksums (%v)", err)
	}
	defer f.Close()
	out := map[string]string{}
	inSF1 := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "SF=1 ") {
			inSF1 = true
		}
		fs := strings.Fields(line)
		if inSF1 && len(fs) == 6 && Known(fs[0]) {
			out[fs[0]] = fs[1] + " " + fs[2] + " " + fs[3]
		}
	}
	if len(out) != len(Tables) {
		t.Fatalf("checksums.txt: found SF=1 sums for %d tables", len(out))
	}
	return out
}
