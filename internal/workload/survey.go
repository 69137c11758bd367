package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/cairn-bench/cairn/internal/target"
)

// Surveyed is what one database holds of a workload's schema, read as prepare, run, check and
// cleanup would read it, changing nothing: what a front end shows before it starts one of them.
type Surveyed struct {
	Where   string // host:port/dbname or the file
	Server  string // "PostgreSQL 15.4"
	Schema  *Schema
	Created bool // a SQLite file that is not there yet: a prepare creates it
	// Bytes is what the schema's tables and their indexes hold on disk (0: no schema, or a
	// database that does not say): PostgreSQL's pg_total_relation_size, SQLite's dbstat pages,
	// MySQL's and MariaDB's information_schema data_length + index_length, which is InnoDB's
	// estimate (Approx).
	Bytes  int64
	Approx bool
}

// Survey opens db (each member of a shard set), reads its server's version and inspects f's
// schema in it. A SQLite file that does not exist is not created: it is reported as such.
func Survey(ctx context.Context, db string, f Footprint) ([]Surveyed, error) {
	if path := target.MissingFile(db); path != "" {
		return []Surveyed{{Where: path, Server: "SQLite", Created: true,
			Schema: &Schema{Footprint: f, Where: path, State: StateNone}}}, nil
	}
	t, err := target.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	var out []Surveyed
	for _, m := range target.MembersOf(t) {
		v, err := m.Version(ctx)
		if err != nil {
			return nil, err
		}
		c, err := m.Conn(ctx)
		if err != nil {
			return nil, err
		}
		s, err := Inspect(ctx, c, m, f)
		var bytes int64
		if err == nil && s.State != StateNone {
			bytes, err = tableBytes(ctx, c, m.Dialect(), s.Objects)
		}
		c.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, Surveyed{Where: target.Where(m), Server: strings.TrimSpace(m.Name() + " " + v), Schema: s,
			Bytes: bytes, Approx: m.Dialect().Base == "mysql"})
	}
	return out, nil
}

// Line says it in one line: "PostgreSQL 15.4 at 127.0.0.1:5432/cairn: a complete TPC-C schema
// (9 tables; warehouses 4), prepared 2026-11-28 10:00:00 UTC".
func (s Surveyed) Line() string {
	head := s.Server + " at " + s.Where + ": "
	if s.Created {
		return head + "no such file yet (a prepare creates it)"
	}
	sc := s.Schema
	switch sc.State {
	case StateNone:
		return head + "no " + sc.Title + " schema"
	case StatePartial:
		return head + "a partial " + sc.Title + " schema (its prepare did not finish: a cleanup removes it)"
	}
	line := head + "a complete " + sc.Title + " schema (" + sc.Contents()
	if size := sc.Sizes(); size != "" {
		line += "; " + size
	}
	line += ")"
	if s.Bytes > 0 {
		about := ""
		if s.Approx {
			about = "about "
		}
		line += ", " + about + humanize.IBytes(uint64(s.Bytes)) + " on disk"
	}
	if len(sc.Missing) > 0 {
		line += ", missing " + strings.Join(sc.Missing, ", ")
	}
	return line
}

// Contents counts the schema's own objects: "9 tables and 3 routines".
func (s *Schema) Contents() string {
	var tables, routines int
	for _, o := range s.Objects {
		if o.Kind == KindRoutine {
			routines++
		} else {
			tables++
		}
	}
	what := Plural(tables, "table")
	if routines > 0 {
		what += " and " + Plural(routines, "routine")
	}
	return what
}

// Sizes names the sizes the meta record keeps, its whole numbers and flags, in key order
// ("procedures true, warehouses 4"); the stamp's fields are left out.
func (s *Schema) Sizes() string {
	js, ok := s.records["meta"]
	if !ok {
		return ""
	}
	var m map[string]any
	if json.Unmarshal([]byte(js), &m) != nil {
		return ""
	}
	var parts []string
	for k, v := range m {
		if k == "seed" || k == "load_seconds" {
			continue
		}
		switch x := v.(type) {
		case float64:
			if x == float64(int64(x)) {
				parts = append(parts, fmt.Sprintf("%s %d", k, int64(x)))
			}
		case bool:
			if x {
				parts = append(parts, k)
			}
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// tableBytes sums what the schema's tables and their indexes hold on disk.
func tableBytes(ctx context.Context, c target.Conn, d target.Dialect, objs []Object) (int64, error) {
	var sum int64
	for _, o := range objs {
		if o.Kind != KindTable {
			continue
		}
		q, err := schemaSQL(d, "table_bytes", "", o.Name)
		if err != nil || q == "" {
			return 0, err
		}
		var n int64
		if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
			return 0, fmt.Errorf("size of table %s: %w", o.Name, err)
		}
		sum += n
	}
	return sum, nil
}
