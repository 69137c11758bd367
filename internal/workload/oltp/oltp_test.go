package oltp

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

func TestLookup(t *testing.T) {
	for in, want := range map[string]string{
		"read-write": "read-write", "oltp_read_write": "read-write", "oltp_read_write.lua": "read-write",
		"point_select": "point-select", "OLTP_POINT_SELECT": "point-select", "update-non-index": "update-non-index",
		"distinct_ranges": "distinct-ranges",
	} {
		w, err := Lookup(in)
		if err != nil || w.Name != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", in, w, err, want)
		}
	}
	_, err := Lookup("read-mostly")
	var ue *options.Error
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "point-select") {
		t.Errorf("unknown workload: %v", err)
	}
}

func mustLookup(t *testing.T, name string) *Workload {
	t.Helper()
	w, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestOptionsValidate(t *testing.T) {
	rw := mustLookup(t, "read-write")
	ro := mustLookup(t, "read-only")
	bad := []struct {
		w   *Workload
		mod func(*Options)
		msg string
	}{
		{rw, func(o *Options) { o.ReadOnlyTrx = true }, "read-only only"},
		{ro, func(o *Options) { o.ReadOnlyTrx, o.SkipTrx = true, true }, "exclude"},
		{rw, func(o *Options) { o.RangeSize = 0 }, "range-size"},
		{rw, func(o *Options) { o.PointSelects = -2 }, "point-selects"},
		{rw, func(o *Options) { o.Protocol = "binary" }, "protocol"},
		{rw, func(o *Options) { o.Dist.Type = "normal" }, "dist"},
	}
	for _, b := range bad {
		rs := &RunSpec{Workload: b.w.Name, Options: DefaultOptions()}
		b.mod(&rs.Options)
		// The declared ranges and values first (as flags and specs check them), then the rules
		// between options.
		err := options.Check(rs, nil)
		if err == nil {
			err = rs.Validate(nil)
		}
		var ue *options.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%+v: got %v, want an option error about %s", rs.Options, err, b.msg)
		}
	}
	o := DefaultOptions()
	o.ReadOnlyTrx = true
	if err := o.Validate(ro); err != nil {
		t.Errorf("read-only --read-only-trx: %v", err)
	}
}

func TestStatementTypes(t *testing.T) {
	cases := []struct {
		workload string
		mod      func(*Options)
		want     string
	}{
		{"point-select", nil, "point_select"},
		{"read-only", nil, "point_select simple_range sum_range order_range distinct_range begin commit"},
		{"read-only", func(o *Options) { o.SkipTrx = true }, "point_select simple_range sum_range order_range distinct_range"},
		{"read-only", func(o *Options) { o.RangeSelects = false }, "point_select begin commit"},
		{"read-write", nil, "point_select simple_range sum_range order_range distinct_range index_update non_index_update delete insert begin commit index_update_no_row non_index_update_no_row delete_no_row"},
		{"write-only", nil, "index_update non_index_update delete insert begin commit index_update_no_row non_index_update_no_row delete_no_row"},
		{"update-index", nil, "index_update index_update_no_row"},
		{"update-non-index", nil, "non_index_update non_index_update_no_row"},
		{"insert", nil, "insert"},
		{"delete", nil, "delete delete_no_row"},
		{"simple-ranges", func(o *Options) { o.RangeSelects = false }, "simple_range"},
		{"sum-ranges", nil, "sum_range"},
		{"order-ranges", nil, "order_range"},
		{"distinct-ranges", nil, "distinct_range"},
	}
	for _, c := range cases {
		o := DefaultOptions()
		if c.mod != nil {
			c.mod(&o)
		}
		list, idx := mustLookup(t, c.workload).Statements(o)
		var got []string
		for i, s := range list {
			got = append(got, s.Name)
			if idx[stIndex(s.Name)] != i {
				t.Errorf("%s: index of %s is %d, want %d", c.workload, s.Name, idx[stIndex(s.Name)], i)
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: statements %q, want %q", c.workload, strings.Join(got, " "), c.want)
		}
	}
}

func stIndex(name string) int {
	for i, s := range StmtTypes {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// TestStatementText pins the statements of oltp_common.lua's stmt_defs, per dialect, as sent.
func TestStatementText(t *testing.T) {
	sysbench := map[string]string{
		"point_select":     "SELECT c FROM sbtest3 WHERE id=?",
		"simple_range":     "SELECT c FROM sbtest3 WHERE id BETWEEN ? AND ?",
		"sum_range":        "SELECT SUM(k) FROM sbtest3 WHERE id BETWEEN ? AND ?",
		"order_range":      "SELECT c FROM sbtest3 WHERE id BETWEEN ? AND ? ORDER BY c",
		"distinct_range":   "SELECT DISTINCT c FROM sbtest3 WHERE id BETWEEN ? AND ? ORDER BY c",
		"index_update":     "UPDATE sbtest3 SET k=k+1 WHERE id=?",
		"non_index_update": "UPDATE sbtest3 SET c=? WHERE id=?",
		"delete":           "DELETE FROM sbtest3 WHERE id=?",
		"insert":           "INSERT INTO sbtest3 (id, k, c, pad) VALUES (?, ?, ?, ?)",
	}
	insertAuto := map[string]string{
		"postgres": "INSERT INTO sbtest3 (k, c, pad) VALUES ($1, $2, $3)",
		"mysql":    "INSERT INTO sbtest3 (id, k, c, pad) VALUES (0, ?, ?, ?)",
		"sqlite":   "INSERT INTO sbtest3 (k, c, pad) VALUES (?, ?, ?)",
	}
	control := map[string][4]string{ // begin, begin_read, begin_read_only, commit
		"postgres": {"BEGIN", "BEGIN", "START TRANSACTION READ ONLY", "COMMIT"},
		"mysql":    {"BEGIN", "BEGIN", "START TRANSACTION READ ONLY", "COMMIT"},
		"sqlite":   {"BEGIN IMMEDIATE", "BEGIN", "BEGIN", "COMMIT"},
	}
	for _, d := range []string{"postgres", "mysql", "sqlite"} {
		q, err := stmtMap(testutil.Dialect(t, d), "txn.sql")
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range sysbench {
			if d == "postgres" {
				// The pgsql driver numbers the placeholders.
				for n := 1; strings.Contains(want, "?"); n++ {
					want = strings.Replace(want, "?", fmt.Sprintf("$%d", n), 1)
				}
			}
			if got := forTable(q[name], 3, 0); got != want {
				t.Errorf("%s %s: %q, want %q", d, name, got, want)
			}
		}
		if got := forTable(q["insert_auto"], 3, 0); got != insertAuto[d] {
			t.Errorf("%s insert_auto: %q, want %q", d, got, insertAuto[d])
		}
		for i, name := range []string{"begin", "begin_read", "begin_read_only", "commit"} {
			if q[name] != control[d][i] {
				t.Errorf("%s %s: %q, want %q", d, name, q[name], control[d][i])
			}
		}
		if s, err := workload.LoadSession(testutil.Dialect(t, d)); err != nil || s == "" {
			t.Errorf("%s: no load session (%v)", d, err)
		}
		m, err := stmtMap(testutil.Dialect(t, d), "schema.sql")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"create_table", "create_index", "analyze"} {
			if m[n] == "" {
				t.Errorf("%s/schema.sql has no %s", d, n)
			}
		}
	}
}

// TestLiteral checks --protocol simple's text: the prepared statement with its values written in.
func TestLiteral(t *testing.T) {
	for _, d := range []string{"postgres", "mysql", "sqlite"} {
		o := DefaultOptions()
		o.Protocol = ProtocolSimple
		v, err := NewVU(0, testutil.Dialect(t, d), VUOptions{Workload: mustLookup(t, "read-write"), Options: o, Tables: 12, TableSize: 1000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		v.set(42, 141)
		copy(v.cbuf, strings.Repeat("1", len(CTemplate)))
		copy(v.padbuf, strings.Repeat("2", len(PadTemplate)))
		c, pad := strings.Repeat("1", 119), strings.Repeat("2", 59)
		for k, want := range map[sqlKind]string{
			sqlPointSelect:    "SELECT c FROM sbtest12 WHERE id=42",
			sqlDistinctRange:  "SELECT DISTINCT c FROM sbtest12 WHERE id BETWEEN 42 AND 141 ORDER BY c",
			sqlNonIndexUpdate: "UPDATE sbtest12 SET c='" + c + "' WHERE id=42",
			sqlInsert:         "INSERT INTO sbtest12 (id, k, c, pad) VALUES (42, 141, '" + c + "', '" + pad + "')",
		} {
			if got := v.literal(k, 12); got != want {
				t.Errorf("%s %s: %q, want %q", d, sqlNames[k], got, want)
			}
		}
	}
}

// TestDraw checks an event's inputs: one table per op, the op's count of keys, all in range, and
// the same inputs for the same seed; drawing allocates nothing.
func TestDraw(t *testing.T) {
	o := DefaultOptions()
	o.PointSelects, o.DeleteInserts = 7, 2
	mk := func() *VU {
		v, err := NewVU(3, testutil.Dialect(t, "postgres"), VUOptions{Workload: mustLookup(t, "read-write"), Options: o, Tables: 4, TableSize: 500, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v1, v2 := mk(), mk()
	tables := map[int]bool{}
	for e := 0; e < 500; e++ {
		v1.Next()
		v2.Next()
		if len(v1.phases) != 8 {
			t.Fatalf("%d ops per read-write event, want 8", len(v1.phases))
		}
		for i, p := range v1.phases {
			q := v2.phases[i]
			if p.table != q.table || fmt.Sprint(p.ids, p.ks) != fmt.Sprint(q.ids, q.ks) || fmt.Sprint(p.cs) != fmt.Sprint(q.cs) {
				t.Fatal("the same seed drew different events")
			}
			tables[p.table] = true
			if p.table < 1 || p.table > 4 {
				t.Fatalf("table %d", p.table)
			}
			if want := o.count(p.op); p.n != want || len(p.ids) != want {
				t.Fatalf("op %d: %d statements, want %d", p.op, p.n, want)
			}
			for j := range p.ids {
				if p.op != opInsert && (p.ids[j] < 1 || p.ids[j] > 500) {
					t.Fatalf("id %d outside the table", p.ids[j])
				}
			}
		}
	}
	if len(tables) != 4 {
		t.Errorf("tables drawn: %v, want all 4", tables)
	}
	if n := testing.AllocsPerRun(1000, func() { v1.Next() }); n != 0 {
		t.Errorf("Next allocates %.1f times per event", n)
	}
}

// rowCollector is a RowWriter that keeps rows as text.
type rowCollector struct {
	rows []string
	cur  []string
}

func (r *rowCollector) Int(v int64)        { r.cur = append(r.cur, fmt.Sprint(v)) }
func (r *rowCollector) Money(c int64)      { r.cur = append(r.cur, fmt.Sprint(c)) }
func (r *rowCollector) Fixed4(v int64)     { r.cur = append(r.cur, fmt.Sprint(v)) }
func (r *rowCollector) Str(b []byte)       { r.cur = append(r.cur, string(b)) }
func (r *rowCollector) Text(s string)      { r.cur = append(r.cur, s) }
func (r *rowCollector) Time(unixSec int64) {}
func (r *rowCollector) Null()              { r.cur = append(r.cur, "NULL") }
func (r *rowCollector) EndRow() error {
	r.rows = append(r.rows, strings.Join(r.cur, "|"))
	r.cur = r.cur[:0]
	return nil
}

func TestGenRows(t *testing.T) {
	var a rowCollector
	if err := GenRows(&a, 5, 1, 20000, 1, 3); err != nil {
		t.Fatal(err)
	}
	// The data of a seed never changes: these rows are what --seed 5 has always loaded.
	want := "1|10055|17808496257-82188314268-74450162337-12755649305-90907364735-99890430419-82951405877-23406051357-72549729416-78501351385|85167329817-66387019584-80100642962-00204504346-42615259784"
	if a.rows[0] != want {
		t.Errorf("first row of seed 5:\n%s\nwant\n%s", a.rows[0], want)
	}
	if !strings.HasPrefix(a.rows[1], "2|10034|45422023564-") {
		t.Errorf("second row of seed 5: %s", a.rows[1])
	}
	// A chunk's rows do not depend on which other chunks were generated.
	var whole, part rowCollector
	if err := GenRows(&whole, 8, 2, 250000, 100001, 100010); err != nil {
		t.Fatal(err)
	}
	if err := GenRows(&part, 8, 2, 250000, 100001, 100005); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(part.rows) != fmt.Sprint(whole.rows[:5]) {
		t.Error("a chunk's rows depend on where the generation stopped")
	}
	var other rowCollector
	if err := GenRows(&other, 8, 3, 250000, 100001, 100005); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(other.rows) == fmt.Sprint(part.rows) {
		t.Error("two tables got the same rows")
	}
}
