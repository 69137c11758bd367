package tpcc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/outfile"
	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// FilesFormat is the version of gen's files and manifest; prepare --from refuses a newer one.
const FilesFormat = 1

// Manifest describes one part of a generated data set. gen writes it after the last of the part's
// files, so a part without one is still being written, failed, or was not copied.
type Manifest struct {
	Format         int         `json:"format"`
	Workload       string      `json:"workload"`
	Seed           uint64      `json:"seed"`
	Warehouses     int         `json:"warehouses"`
	Parts          int         `json:"parts"`
	Part           int         `json:"part"`
	FirstWarehouse int         `json:"first_warehouse"`
	LastWarehouse  int         `json:"last_warehouse"`
	LoadTime       int64       `json:"load_time"` // unix seconds in C_SINCE, H_DATE, O_ENTRY_D, OL_DELIVERY_D
	CairnVersion   string      `json:"cairn_version,omitempty"`
	Files          []FileEntry `json:"files"`
}

// FileEntry is one generated file: one table of one warehouse, or the item table.
type FileEntry struct {
	Name      string `json:"name"`
	Table     string `json:"table"`
	Warehouse int    `json:"warehouse,omitempty"`
	Rows      int64  `json:"rows"`
	Bytes     int64  `json:"bytes"`
	SHA256    string `json:"sha256"`
}

// ManifestName is the manifest of part of parts: parts of another split of the same directory
// have other names, and are refused together.
func ManifestName(part, parts int) string {
	return fmt.Sprintf("tpcc-manifest-%d-of-%d.json", part, parts)
}

func fileName(table string, wid int) string {
	if wid == 0 {
		return table + ".tsv"
	}
	return fmt.Sprintf("%s.%d.tsv", table, wid)
}

// PartWarehouses is the contiguous range of warehouses part I of P generates.
func PartWarehouses(warehouses, parts, part int) (first, last int) {
	return (part-1)*warehouses/parts + 1, part * warehouses / parts
}

// GenOptions configure GenFiles.
type GenOptions struct {
	Dir                     string
	Seed                    uint64
	Warehouses, Parts, Part int
	Workers                 int
	LoadTime                time.Time     // zero: now
	Rows                    *atomic.Int64 // rows written so far, for a progress display
}

// CheckGen validates gen's options: the split, and a seed that every part shares.
func CheckGen(o GenOptions) error {
	if o.Parts > o.Warehouses {
		return options.Errorf("parts", strconv.Itoa(o.Parts), "more parts than warehouses (%d): each part generates whole warehouses", o.Warehouses)
	}
	if o.Part < 1 || o.Part > o.Parts {
		return options.Errorf("part", strconv.Itoa(o.Part), "is outside 1..%d (--parts %d)", o.Parts, o.Parts)
	}
	if o.Parts > 1 && o.Seed == 0 {
		return options.Errorf("seed", "", "--parts %d needs --seed N, the same for every part: parts of random seeds would not make one data set", o.Parts)
	}
	return nil
}

// genJob is one table of one warehouse (or the item table), for a file or a load.
type genJob struct {
	table string
	wid   int
	gen   func(w target.RowWriter) error
}

// GenFiles writes part Part's load files into Dir, Workers at a time, in the text format that
// COPY and LOAD DATA read, then the part's manifest. Every file holds exactly the rows prepare
// loads for that table and warehouse with the same seed and load time; part 1 also writes item.
func GenFiles(ctx context.Context, o GenOptions) (*Manifest, error) {
	if err := CheckGen(o); err != nil {
		return nil, err
	}
	if o.LoadTime.IsZero() {
		o.LoadTime = time.Now()
	}
	if o.Rows == nil {
		o.Rows = new(atomic.Int64)
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", o.Dir, err)
	}
	// A manifest left from an earlier run of this part would vouch for files being rewritten.
	mpath := filepath.Join(o.Dir, ManifestName(o.Part, o.Parts))
	if err := os.Remove(mpath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	first, last := PartWarehouses(o.Warehouses, o.Parts, o.Part)
	m := &Manifest{Format: FilesFormat, Workload: "tpcc", Seed: o.Seed, Warehouses: o.Warehouses, Parts: o.Parts, Part: o.Part,
		FirstWarehouse: first, LastWarehouse: last, LoadTime: o.LoadTime.UTC().Truncate(time.Second).Unix(), CairnVersion: workload.VersionOf(ctx)}
	g := &Gen{Seed: o.Seed, Load: LoadConstants(newRand(o.Seed, 0)), LoadTime: m.LoadTime}
	jobs := genJobs(g, first, last, o.Part == 1)
	m.Files = make([]FileEntry, len(jobs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var once sync.Once
	var firstErr error
	var wg sync.WaitGroup
	for range max(o.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				j := jobs[i]
				e, err := writeFile(o.Dir, j, o.Rows)
				if err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
				m.Files[i] = e
			}
		}()
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return m, outfile.WriteBytes(mpath, append(b, '\n'))
}

// genJobs lists a range's tables, the biggest first so that the tail of the work is short jobs
// spread over all workers. Of the small tables, orders goes first: its index is built once its
// last job is in (prepare), while the others load.
func genJobs(g *Gen, first, last int, items bool) []genJob {
	var jobs []genJob
	if items {
		jobs = append(jobs, genJob{"item", 0, g.Items})
	}
	for wid := first; wid <= last; wid++ {
		jobs = append(jobs,
			genJob{"order_line", wid, func(rw target.RowWriter) error { return g.OrderLines(rw, wid) }},
			genJob{"stock", wid, func(rw target.RowWriter) error { return g.Stock(rw, wid) }},
			genJob{"customer", wid, func(rw target.RowWriter) error { return g.Customers(rw, wid) }})
	}
	for wid := first; wid <= last; wid++ {
		jobs = append(jobs, genJob{"orders", wid, func(rw target.RowWriter) error { return g.Orders(rw, wid) }})
	}
	for wid := first; wid <= last; wid++ {
		jobs = append(jobs,
			genJob{"history", wid, func(rw target.RowWriter) error { return g.History(rw, wid) }},
			genJob{"new_order", wid, func(rw target.RowWriter) error { return g.NewOrders(rw, wid) }},
			genJob{"warehouse", wid, func(rw target.RowWriter) error { return g.Warehouse(rw, wid) }},
			genJob{"district", wid, func(rw target.RowWriter) error { return g.Districts(rw, wid) }})
	}
	return jobs
}

// countingHash is the tail of a file's writer: it sums and counts the bytes written.
type countingHash struct {
	h hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.h.Write(p)
	c.n += int64(len(p))
	return len(p), nil
}

func writeFile(dir string, j genJob, rows *atomic.Int64) (FileEntry, error) {
	e := FileEntry{Name: fileName(j.table, j.wid), Table: j.table, Warehouse: j.wid}
	sum := &countingHash{h: sha256.New()}
	err := outfile.Write(filepath.Join(dir, e.Name), func(w io.Writer) error {
		tw := target.NewTextRowWriter(io.MultiWriter(w, sum))
		if err := j.gen(tw); err != nil {
			return err
		}
		e.Rows = tw.Rows
		return tw.FlushBuf()
	})
	if err != nil {
		return e, err
	}
	rows.Add(e.Rows)
	e.Bytes, e.SHA256 = sum.n, hex.EncodeToString(sum.h.Sum(nil))
	return e, nil
}

// Files is a complete generated data set: every part's manifest, agreeing with each other, and
// every file they list present at its size. Checksums are verified as the files load.
type Files struct {
	Dir        string
	Seed       uint64
	Warehouses int
	Parts      int
	Manifests  []*Manifest // by part
}

// Rows is the number of rows the files hold.
func (f *Files) Rows() int64 {
	var n int64
	for _, m := range f.Manifests {
		for _, e := range m.Files {
			n += e.Rows
		}
	}
	return n
}

// OpenFiles reads and checks the manifests in dir. Every refusal is the user's to fix, in one line
// that says what is missing or wrong.
func OpenFiles(dir string) (*Files, error) {
	bad := func(format string, a ...any) error { return options.Errorf("from", dir, format, a...) }
	names, err := filepath.Glob(filepath.Join(dir, "tpcc-manifest-*-of-*.json"))
	if err != nil {
		return nil, bad("%v", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, bad("is not a directory: give the directory cairn tpcc gen --out wrote")
	}
	if len(names) == 0 {
		return nil, bad("holds no manifest (tpcc-manifest-I-of-P.json): generate the files with cairn tpcc gen --out %s", dir)
	}
	sort.Strings(names)
	var f *Files
	for _, path := range names {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, bad("%v", err)
		}
		var m Manifest
		if err := json.Unmarshal(b, &m); err != nil || m.Workload != "tpcc" || m.Parts < 1 || m.Part < 1 || m.Part > m.Parts {
			return nil, bad("%s is not a manifest cairn tpcc gen wrote", filepath.Base(path))
		}
		if m.Format > FilesFormat {
			return nil, bad("%s is of format %d, newer than this cairn reads (%d): load it with the cairn that generated it", filepath.Base(path), m.Format, FilesFormat)
		}
		if f == nil {
			f = &Files{Dir: dir, Seed: m.Seed, Warehouses: m.Warehouses, Parts: m.Parts, Manifests: make([]*Manifest, m.Parts)}
		}
		if m.Seed != f.Seed || m.Warehouses != f.Warehouses || m.Parts != f.Parts {
			return nil, bad("mixes data sets: %s is seed %d, %d warehouses in %d parts, another manifest seed %d, %d warehouses in %d parts; keep one data set per directory",
				filepath.Base(path), m.Seed, m.Warehouses, m.Parts, f.Seed, f.Warehouses, f.Parts)
		}
		f.Manifests[m.Part-1] = &m
	}
	var missing []string
	for i, m := range f.Manifests {
		if m == nil {
			missing = append(missing, strconv.Itoa(i+1))
		}
	}
	if len(missing) > 0 {
		return nil, bad("is incomplete: part %s of %d has no manifest (still generating, failed, or not copied here); run cairn tpcc gen --seed %d --warehouses %d --parts %d --part I for each",
			strings.Join(missing, ", "), f.Parts, f.Seed, f.Warehouses, f.Parts)
	}
	covered := map[string]bool{}
	for _, m := range f.Manifests {
		for _, e := range m.Files {
			if columns[e.Table] == nil {
				return nil, bad("%s lists %s, which is not a TPC-C table", ManifestName(m.Part, m.Parts), e.Name)
			}
			fi, err := os.Stat(filepath.Join(dir, e.Name))
			if err != nil {
				return nil, bad("is incomplete: %s of part %d is missing; copy it here or run cairn tpcc gen --part %d again", e.Name, m.Part, m.Part)
			}
			if fi.Size() != e.Bytes {
				return nil, bad("%s has %d bytes, part %d's manifest says %d: copy it again or run cairn tpcc gen --part %d again", e.Name, fi.Size(), m.Part, e.Bytes, m.Part)
			}
			covered[fileName(e.Table, e.Warehouse)] = true
		}
	}
	want := []string{fileName("item", 0)}
	for w := 1; w <= f.Warehouses; w++ {
		for _, t := range tables {
			if t != "item" {
				want = append(want, fileName(t, w))
			}
		}
	}
	for _, n := range want {
		if !covered[n] {
			return nil, bad("is incomplete: no manifest lists %s", n)
		}
	}
	return f, nil
}

// load streams every file into its table through loaders connections, the biggest first.
func (f *Files) load(ctx context.Context, l *workload.Loading, idx []sqlfile.Stmt) error {
	type job struct {
		part int
		e    FileEntry
	}
	var jobs []job
	for _, m := range f.Manifests {
		for _, e := range m.Files {
			jobs = append(jobs, job{m.Part, e})
		}
	}
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].e.Bytes > jobs[j].e.Bytes })
	tables := make([]string, len(jobs))
	for i, j := range jobs {
		tables[i] = j.e.Table
	}
	after, err := newAfterLoad(idx, tables)
	if err != nil {
		return err
	}
	return l.Load(ctx, len(jobs), func(ctx context.Context, c target.Conn, i int) error {
		j := jobs[i]
		if err := loadFile(ctx, l.T, c, filepath.Join(f.Dir, j.e.Name), j.part, j.e, l.Rows); err != nil {
			return fmt.Errorf("load %s from %s: %w", j.e.Table, j.e.Name, err)
		}
		return after.loaded(ctx, c, j.e.Table)
	})
}

// loadFile loads one file in one bulk load. Servers whose bulk format is the text format get the
// file's lines as they are; SQLite gets every value replayed through its writer. The checksum is
// verified as the bytes pass, and a file that differs from its manifest takes its rows back.
func loadFile(ctx context.Context, t target.Target, c target.Conn, path string, part int, e FileEntry, progress *atomic.Int64) error {
	kind := kinds[e.Table]
	return workload.RetryLoad(ctx, t, func() error {
		var added int64
		_, err := c.BulkLoad(ctx, e.Table, columns[e.Table], func(w target.RowWriter) error {
			fh, err := os.Open(path)
			if err != nil {
				return err
			}
			defer fh.Close()
			tw, raw := w.(*target.TextRowWriter)
			h := sha256.New()
			buf := make([]byte, 256<<10)
			var have int
			var lines int64
			for {
				n, rerr := io.ReadFull(fh, buf[have:])
				h.Write(buf[have : have+n])
				have += n
				end := bytes.LastIndexByte(buf[:have], '\n') + 1
				if end == 0 && have == len(buf) {
					return fmt.Errorf("%s: a line longer than %d bytes: not a file cairn tpcc gen wrote", path, len(buf))
				}
				block := buf[:end]
				k := int64(bytes.Count(block, []byte{'\n'}))
				if raw {
					if err := tw.WriteLines(block); err != nil {
						return err
					}
				} else {
					ln := lines
					for line := range bytes.Lines(block) {
						ln++
						if err := replay(w, kind, line[:len(line)-1]); err != nil {
							return fmt.Errorf("%s line %d: %w", path, ln, err)
						}
					}
				}
				lines += k
				progress.Add(k)
				added += k
				have = copy(buf, buf[end:have])
				if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
					break
				}
				if rerr != nil {
					return rerr
				}
			}
			if have > 0 || lines != e.Rows || hex.EncodeToString(h.Sum(nil)) != e.SHA256 {
				return options.Errorf("from", filepath.Dir(path), "%s differs from part %d's manifest (checksum or rows): it changed after cairn tpcc gen wrote it; copy it again or run cairn tpcc gen --part %d again",
					filepath.Base(path), part, part)
			}
			return nil
		})
		if err != nil {
			progress.Add(-added)
		}
		return err
	})
}

// replay sends one text-format line to w, each value through the method its column's kind names.
func replay(w target.RowWriter, kind string, line []byte) error {
	for i := 0; i < len(kind); i++ {
		j := bytes.IndexByte(line, '\t')
		last := i == len(kind)-1
		if last != (j < 0) {
			return fmt.Errorf("not the %d columns of the table", len(kind))
		}
		f := line
		if !last {
			f, line = line[:j], line[j+1:]
		}
		if string(f) == `\N` {
			w.Null()
			continue
		}
		var err error
		switch kind[i] {
		case 'i':
			var v int64
			v, err = strconv.ParseInt(string(f), 10, 64)
			w.Int(v)
		case 'm':
			var v int64
			v, err = parseFixed(f, 2)
			w.Money(v)
		case 'f':
			var v int64
			v, err = parseFixed(f, 4)
			w.Fixed4(v)
		case 't':
			var tm time.Time
			tm, err = time.Parse(time.DateTime, string(f))
			w.Time(tm.Unix())
		default:
			w.Str(unescape(f))
		}
		if err != nil {
			return fmt.Errorf("column %d: %w", i+1, err)
		}
	}
	return w.EndRow()
}

// parseFixed reads a decimal with exactly places digits after the point, as target.AppendFixed
// writes it, in units of 10^-places.
func parseFixed(b []byte, places int) (int64, error) {
	s := string(b)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	ip, fp, ok := strings.Cut(s, ".")
	if !ok || len(fp) != places {
		return 0, fmt.Errorf("%q is not a decimal with %d places", b, places)
	}
	v, err := strconv.ParseInt(ip+fp, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a decimal with %d places", b, places)
	}
	if neg {
		v = -v
	}
	return v, nil
}

// unescape undoes the text format's backslash escapes.
func unescape(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i == len(b)-1 {
			out = append(out, b[i])
			continue
		}
		i++
		switch b[i] {
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		default:
			out = append(out, b[i])
		}
	}
	return out
}
