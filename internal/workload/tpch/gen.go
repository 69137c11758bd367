// Package tpch is the TPC-H-derived analytic workload: dbgen's data (package dbgen), loaded
// through each target's bulk path, the 22 queries per dialect (package queries), the power and
// throughput tests with the refresh functions, and the spec's Power@Size, Throughput@Size and
// QphH@Size, which cairn labels as not audited. docs/tpch.md defines every figure.
package tpch

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/outfile"
	"github.com/cairn-bench/cairn/internal/workload/tpch/dbgen"
)

// ParseSF checks a --sf value: a positive decimal number small enough that every scaled table
// still has a row (dbgen itself accepts fractional scale factors such as 0.01 and 0.1).
func ParseSF(s string) (float64, error) {
	sf, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(sf) || math.IsInf(sf, 0) {
		return 0, options.Errorf("sf", strconv.Quote(s), "is not a number: give a scale factor such as 1, 10 or 0.01")
	}
	if sf <= 0 {
		return 0, options.Errorf("sf", s, "the scale factor must be positive (1 is about 1 GB; 0.01 is the smallest usual one)")
	}
	// dbgen scales by whole thousandths below 1 and by integers from 1 on; it silently truncates
	// anything finer (1.5 gives SF 1's data), so such values are refused rather than relabelled.
	if sf < 0.001 {
		return 0, options.Errorf("sf", s, "too small: dbgen's smallest scale factor is 0.001")
	}
	if sf < 1 && math.Abs(sf*1000-math.Round(sf*1000)) > 1e-6 {
		return 0, options.Errorf("sf", s, "below 1, dbgen scales in steps of 0.001 (use e.g. 0.01 or 0.125)")
	}
	if sf > 1 && sf != math.Trunc(sf) {
		return 0, options.Errorf("sf", s, "from 1 on, dbgen takes whole scale factors only (use e.g. 1, 10 or 30)")
	}
	if sf > 100000 {
		return 0, options.Errorf("sf", s, "the largest scale factor the TPC defines is 100000")
	}
	return sf, nil
}

// ParseTables checks a --tables list; empty means all eight, in dbgen's order.
func ParseTables(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return append([]string(nil), dbgen.Tables...), nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		if !dbgen.Known(n) {
			return nil, options.Errorf("tables", "", "unknown table %q (the tables are %s)", n, strings.Join(dbgen.Tables, ", "))
		}
		want[n] = true
	}
	var out []string
	for _, n := range dbgen.Tables {
		if want[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

// CheckParts validates --parts and --part.
func CheckParts(part, parts int) error {
	if parts < 1 {
		return options.Errorf("parts", strconv.Itoa(parts), "need at least 1")
	}
	if part < 1 || part > parts {
		return options.Errorf("part", strconv.Itoa(part), "is outside 1..%d (--parts %d)", parts, parts)
	}
	return nil
}

// AllTables lists the eight tables in dbgen's order.
func AllTables() []string { return append([]string(nil), dbgen.Tables...) }

// ExpectedRows estimates the rows of the tables at sf (lineitem's count is known only after
// generating it; about 4.0 lines per order), for progress displays.
func ExpectedRows(tables []string, sf float64) int64 {
	var n int64
	for _, t := range tables {
		if r := dbgen.Rows(t, sf); r >= 0 {
			n += r
		} else {
			n += int64(float64(dbgen.Units(t, sf)) * 4.0008)
		}
	}
	return n
}

// FileStat describes one generated file.
type FileStat struct {
	Table   string
	Path    string
	Rows    int64
	Bytes   int64
	Seconds float64
}

// GenOptions configure GenFiles.
type GenOptions struct {
	SF          float64
	Tables      []string
	Part, Parts int
	Workers     int
	Updates     int           // also write dbgen's update sets 1..Updates (-U): TABLE.tbl.uN, delete.N
	Rows        *atomic.Int64 // rows written so far, for a progress display
}

// GenFiles writes dbgen-identical .tbl files into dir: TABLE.tbl, or TABLE.tbl.PART when the data
// set is split into parts (dbgen's naming for -C/-S).
func GenFiles(ctx context.Context, dir string, o GenOptions) ([]FileStat, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if o.Rows == nil {
		o.Rows = new(atomic.Int64)
	}
	dbgen.Warm()
	var out []FileStat
	for _, table := range o.Tables {
		name := table + ".tbl"
		if o.Parts > 1 {
			name += "." + strconv.Itoa(o.Part)
		}
		path := filepath.Join(dir, name)
		st, err := genFile(ctx, path, table, o)
		if err != nil {
			return out, err
		}
		out = append(out, st)
	}
	for n := 1; n <= o.Updates; n++ {
		for _, table := range []string{"orders", "lineitem", "delete"} {
			t0 := time.Now()
			var b []byte
			var rows int64
			name := fmt.Sprintf("%s.tbl.u%d", table, n)
			if table == "delete" {
				name = fmt.Sprintf("delete.%d", n)
				for _, k := range dbgen.DeleteKeys(o.SF, n) {
					b = strconv.AppendInt(b, k, 10)
					b = append(b, '|', '\n')
					rows++
				}
			} else {
				b, rows = dbgen.AppendRefresh(nil, table, o.SF, n)
			}
			path := filepath.Join(dir, name)
			if err := outfile.WriteBytes(path, b); err != nil {
				return out, err
			}
			out = append(out, FileStat{Table: name, Path: path, Rows: rows, Bytes: int64(len(b)), Seconds: time.Since(t0).Seconds()})
		}
	}
	return out, nil
}

func genFile(ctx context.Context, path, table string, o GenOptions) (FileStat, error) {
	t0 := time.Now()
	st := FileStat{Table: table, Path: path}
	start, count := dbgen.PartRange(table, o.SF, o.Part, o.Parts)
	err := outfile.Write(path, func(w io.Writer) error {
		return dbgen.Generate(ctx, table, o.SF, start, count, dbgen.Options{Workers: o.Workers}, func(c dbgen.Chunk) error {
			defer c.Release()
			if _, err := w.Write(c.Buf); err != nil {
				return err
			}
			st.Rows += c.Rows
			st.Bytes += int64(len(c.Buf))
			o.Rows.Add(c.Rows)
			return nil
		})
	})
	st.Seconds = time.Since(t0).Seconds()
	return st, err
}
