package workload

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Every workload keeps a meta table, cairn_<workload>_meta, of key/value rows:
//
//	state          "loading" from the start of prepare, "complete" once it has finished
//	meta           the workload's JSON description of what was prepared
//	obj:KIND:NAME  one row per object prepare created (KIND is table or routine), its value the
//	               order of creation; the row is written before the object is created
//
// Status, check and cleanup reason from these rows, never from table names alone: cleanup drops
// exactly the recorded objects, so a table of another workload (TPC-H's customer beside TPC-C's) or
// of nobody cairn knows is never dropped. Schemas prepared before objects were recorded have a
// complete state and no obj rows; their objects are the present tables with the workload's names
// that no other workload's record claims.

// Kinds of objects.
const (
	KindTable   = "table"
	KindRoutine = "routine" // a stored function (PostgreSQL) or procedure (MySQL)
)

// Object is one thing prepare creates in a database.
type Object struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// Table and Routine name objects.
func Table(name string) Object   { return Object{KindTable, name} }
func Routine(name string) Object { return Object{KindRoutine, name} }

// Footprint says how a workload's objects are named, for telling them from other workloads' and
// from objects that stand in a new prepare's way.
type Footprint struct {
	Name  string // the workload: "tpcc"
	Title string // for messages: "TPC-C"
	// Tables reports whether a table name is one the workload can create.
	Tables func(name string) bool
	// Routines are the names of its stored routines, if it has any.
	Routines []string
	// Foreign guesses who made tables of the workload's names that no cairn prepare did, for
	// messages: "pgbench -i".
	Foreign string
	// Legacy, if set, lists the objects of a schema prepared before objects were recorded, from its
	// meta record; without it they are the present objects that match the names above.
	Legacy func(meta string) []Object
}

// MetaTable is the workload's meta table.
func (f Footprint) MetaTable() string { return "cairn_" + f.Name + "_meta" }

func (f Footprint) claims(o Object) bool {
	if o.Kind == KindRoutine {
		for _, r := range f.Routines {
			if r == o.Name {
				return true
			}
		}
		return false
	}
	return o.Name == f.MetaTable() || f.Tables(o.Name)
}

var (
	fpMu       sync.Mutex
	footprints []Footprint
)

// registerFootprint makes a workload's objects known to every other workload's status and
// cleanup; Register calls it, once per workload, so that Inspect reads each meta table once.
func registerFootprint(f Footprint) {
	fpMu.Lock()
	defer fpMu.Unlock()
	for _, g := range footprints {
		if g.Name == f.Name {
			panic("footprint registered twice: " + f.Name)
		}
	}
	footprints = append(footprints, f)
}

func allFootprints() []Footprint {
	fpMu.Lock()
	defer fpMu.Unlock()
	return append([]Footprint(nil), footprints...)
}

// State of a workload's schema in a database.
type State int

const (
	StateNone     State = iota // no meta table of the workload
	StatePartial               // its meta says prepare did not finish
	StateComplete              // its meta says prepare finished
)

// Owned is a group of objects with one owner.
type Owned struct {
	Owner   *Footprint // nil: no cairn workload created them
	Objects []Object
}

// Names lists the objects' names.
func (o Owned) Names() []string {
	n := make([]string, len(o.Objects))
	for i, x := range o.Objects {
		n[i] = x.Name
	}
	return n
}

// Schema is what Inspect found of one workload in one database.
type Schema struct {
	Footprint
	Where   string // the database, for messages: host:port/dbname or the file
	State   State
	Objects []Object // the workload's own, in the order they were created
	Missing []string // own tables that are not there (dropped by hand)
	// Others are the objects with the workload's names that are not its own, by owner.
	Others []Owned

	dialect target.Dialect
	records map[string]string
	present map[string]bool // tables and routines of the database, by kind:name
	legacy  bool
	nextSeq int
}

//go:embed sql
var schemaFS embed.FS

var ident = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

var schemaFiles = sqlfile.Files{FS: schemaFS, Owner: "the schema bookkeeping"}

// schemaSQL returns the dialect's bookkeeping statement name, with META and NAME replaced by the
// given identifiers (checked, since they are written into the SQL text).
func schemaSQL(dialect target.Dialect, name, meta, obj string) (string, error) {
	m, err := schemaFiles.Map(dialect.Chain(), "schema.sql")
	if err != nil {
		return "", err
	}
	q, ok := m[name]
	if !ok {
		return "", nil
	}
	for _, id := range []string{meta, obj} {
		if id != "" && !ident.MatchString(id) {
			return "", fmt.Errorf("%q is not a plain identifier", id)
		}
	}
	q = strings.ReplaceAll(q, "META", meta)
	return strings.ReplaceAll(q, "NAME", obj), nil
}

// LoadSession is the statement every loading connection runs first, whatever the workload: the
// dialect's session settings for a bulk load (no synchronous commit, no foreign-key checks), or ""
// where it has none.
func LoadSession(d target.Dialect) (string, error) { return schemaSQL(d, "load_session", "", "") }

func listNames(ctx context.Context, c target.Conn, q string) ([]string, error) {
	if q == "" {
		return nil, nil
	}
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, strings.ToLower(n))
	}
	return out, rows.Err()
}

func readRecords(ctx context.Context, c target.Conn, dialect target.Dialect, meta string) (map[string]string, error) {
	q, err := schemaSQL(dialect, "meta_all", meta, "")
	if err != nil {
		return nil, err
	}
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", meta, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, rows.Err()
}

// recorded returns the objects of obj: rows, in creation order.
func recorded(records map[string]string) []Object {
	type seqObj struct {
		seq int
		o   Object
	}
	var s []seqObj
	for k, v := range records {
		rest, ok := strings.CutPrefix(k, "obj:")
		if !ok {
			continue
		}
		kind, name, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(v)
		s = append(s, seqObj{n, Object{kind, name}})
	}
	sort.Slice(s, func(i, j int) bool { return s[i].seq < s[j].seq })
	out := make([]Object, len(s))
	for i, x := range s {
		out[i] = x.o
	}
	return out
}

// Inspect reads the state of f's schema in the database c is connected to, and which objects
// with f's names belong to whom.
func Inspect(ctx context.Context, c target.Conn, t target.Target, f Footprint) (*Schema, error) {
	d := t.Dialect()
	s := &Schema{Footprint: f, Where: target.Where(t), dialect: d, present: map[string]bool{}}
	tq, err := schemaSQL(d, "tables", "", "")
	if err != nil {
		return nil, err
	}
	tables, err := listNames(ctx, c, tq)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	rq, err := schemaSQL(d, "routines", "", "")
	if err != nil {
		return nil, err
	}
	routines, err := listNames(ctx, c, rq)
	if err != nil {
		return nil, fmt.Errorf("list routines: %w", err)
	}
	var all []Object
	for _, n := range tables {
		all = append(all, Table(n))
	}
	for _, n := range routines {
		all = append(all, Routine(n))
	}
	for _, o := range all {
		s.present[o.Kind+":"+o.Name] = true
	}

	// Who owns what: first the workloads that record their objects, then schemas prepared before
	// the record, which own what their names match and no record claims.
	owner := map[Object]*Footprint{}
	var legacy []*Footprint
	records := map[*Footprint]map[string]string{} // each meta table is read once
	fps := allFootprints()
	for i := range fps {
		fp := &fps[i]
		if !s.present[KindTable+":"+fp.MetaTable()] {
			continue
		}
		recs, err := readRecords(ctx, c, d, fp.MetaTable())
		if err != nil {
			return nil, err
		}
		records[fp] = recs
		owner[Table(fp.MetaTable())] = fp
		objs := recorded(recs)
		if fp.Name == f.Name {
			s.records = recs
			s.Objects = objs
			s.nextSeq = len(objs)
			s.State = StatePartial
			if recs["state"] == "complete" {
				s.State = StateComplete
			}
		}
		if len(objs) == 0 && recs["state"] == "complete" {
			legacy = append(legacy, fp)
			continue
		}
		for _, o := range objs {
			owner[o] = fp
		}
	}
	for _, fp := range legacy {
		mine := fp.claims
		if fp.Legacy != nil {
			listed := map[Object]bool{}
			for _, o := range fp.Legacy(records[fp]["meta"]) {
				listed[o] = true
			}
			mine = func(o Object) bool { return listed[o] }
		}
		for _, o := range all {
			if _, taken := owner[o]; !taken && mine(o) {
				owner[o] = fp
				if fp.Name == f.Name {
					s.Objects = append(s.Objects, o)
					s.legacy = true
				}
			}
		}
	}
	for _, o := range s.Objects {
		if o.Kind == KindTable && !s.present[KindTable+":"+o.Name] {
			s.Missing = append(s.Missing, o.Name)
		}
	}
	byOwner := map[*Footprint]*Owned{}
	var order []*Footprint
	for _, o := range all {
		if !f.claims(o) || owner[o] != nil && owner[o].Name == f.Name {
			continue
		}
		w := owner[o]
		if byOwner[w] == nil {
			byOwner[w] = &Owned{Owner: w}
			order = append(order, w)
		}
		byOwner[w].Objects = append(byOwner[w].Objects, o)
	}
	for _, w := range order {
		g := *byOwner[w]
		// Messages name them in a stable order, whatever order the catalog listed them in.
		sort.Slice(g.Objects, func(i, j int) bool { return g.Objects[i].Name < g.Objects[j].Name })
		s.Others = append(s.Others, g)
	}
	return s, nil
}

// Decode reads the "meta" record into m.
func (s *Schema) Decode(m any) error {
	js, ok := s.records["meta"]
	if !ok {
		return fmt.Errorf("%s holds no description of the %s schema", s.MetaTable(), s.Title)
	}
	return json.Unmarshal([]byte(js), m)
}

// InTheWay returns the objects among want that exist but are not f's own, by owner: a new prepare
// must not start over them.
func (s *Schema) InTheWay(want []Object) []Owned {
	wanted := map[Object]bool{}
	for _, o := range want {
		wanted[o] = true
	}
	var out []Owned
	for _, g := range s.Others {
		var hit []Object
		for _, o := range g.Objects {
			if wanted[o] {
				hit = append(hit, o)
			}
		}
		if len(hit) > 0 {
			out = append(out, Owned{Owner: g.Owner, Objects: hit})
		}
	}
	// Objects with f's names that no footprint claims are not in Others when f's Tables does not
	// match them (oltp's planned sbtestN is matched): look them up directly.
	for _, o := range want {
		if s.present[o.Kind+":"+o.Name] && !s.owns(o) && !inOwned(out, o) {
			out = append(out, Owned{Objects: []Object{o}})
		}
	}
	return out
}

func (s *Schema) owns(o Object) bool {
	for _, x := range s.Objects {
		if x == o {
			return true
		}
	}
	return false
}

func inOwned(g []Owned, o Object) bool {
	for _, x := range g {
		for _, y := range x.Objects {
			if y == o {
				return true
			}
		}
	}
	return false
}

// InTheWayError words objects that stand in a prepare's way.
type InTheWayError struct {
	Where   string
	Title   string
	Foreign string // Footprint.Foreign
	Blocked []Owned
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *InTheWayError) BadInput() {}

func (e *InTheWayError) Error() string {
	var parts []string
	for _, g := range e.Blocked {
		names := strings.Join(g.Names(), ", ")
		if g.Owner != nil {
			parts = append(parts, fmt.Sprintf("%s holds %s tables %s: use another database, or 'cairn %s cleanup'", e.Where, g.Owner.Title, names, g.Owner.Name))
		} else {
			parts = append(parts, fmt.Sprintf("%s holds %s that cairn did not create%s: use another database, or drop them yourself", e.Where, Words(g.Objects), e.hint()))
		}
	}
	return strings.Join(parts, "; ")
}

func (e *InTheWayError) hint() string {
	if e.Foreign == "" {
		return ""
	}
	return " (" + e.Foreign + "'s?)"
}

// Words names objects for messages: "tables customer, orders and routine tpcc_neword".
func Words(objs []Object) string {
	var tables, routines []string
	for _, o := range objs {
		if o.Kind == KindRoutine {
			routines = append(routines, o.Name)
		} else {
			tables = append(tables, o.Name)
		}
	}
	var w []string
	if len(tables) > 0 {
		w = append(w, pluralWord(len(tables), "table", "tables")+" "+strings.Join(tables, ", "))
	}
	if len(routines) > 0 {
		w = append(w, pluralWord(len(routines), "routine", "routines")+" "+strings.Join(routines, ", "))
	}
	return strings.Join(w, " and ")
}

func pluralWord(n int, one, many string) string { return textfmt.PluralWord(n, one, many) }

// Plural counts a word for messages: "1 warehouse", "4 warehouses" (textfmt.Plural, named here
// for the workloads' own messages).
func Plural(n int, word string) string { return textfmt.Plural(n, word) }

// PartialError is a schema whose own meta says its prepare did not finish, or whose tables were
// dropped by hand.
type PartialError struct{ S *Schema }

// BadInput marks the error as the user's to fix (exit 2).
func (e *PartialError) BadInput() {}

func (e *PartialError) Error() string {
	s := e.S
	if len(s.Missing) > 0 && s.State == StateComplete {
		return fmt.Sprintf("%s holds a damaged %s schema: tables %s are gone: run 'cairn %s cleanup', then prepare again",
			s.Where, s.Title, strings.Join(s.Missing, ", "), s.Name)
	}
	what := "nothing yet"
	if len(s.Objects) > 0 {
		what = Words(s.Objects)
	}
	return fmt.Sprintf("%s holds a partial %s schema: its prepare did not finish (it created %s): run 'cairn %s cleanup' first, which drops only those",
		s.Where, s.Title, what, s.Name)
}

// NoneError is a database without the workload's schema.
type NoneError struct{ S *Schema }

// BadInput marks the error as the user's to fix (exit 2).
func (e *NoneError) BadInput() {}

func (e *NoneError) Error() string {
	s := e.S
	for _, g := range s.Others {
		if g.Owner == nil {
			hint := ""
			if s.Foreign != "" {
				hint = ", " + s.Foreign + "'s?"
			}
			return fmt.Sprintf("%s holds no %s schema (%s there were not created by cairn%s): run 'cairn %s prepare' in another database",
				s.Where, s.Title, Words(g.Objects), hint, s.Name)
		}
	}
	return fmt.Sprintf("%s holds no %s schema: run 'cairn %s prepare' first", s.Where, s.Title, s.Name)
}

// Ready returns nil when the schema is complete and whole, and otherwise the error that says why
// a run or check cannot use it.
func (s *Schema) Ready() error {
	switch {
	case s.State == StateNone:
		return &NoneError{s}
	case s.State == StatePartial || len(s.Missing) > 0:
		return &PartialError{s}
	}
	return nil
}

// IsSchemaError reports the errors of Ready and InTheWay: the database is not in a state the
// command can work with, which is the user's to fix (exit 2).
func IsSchemaError(err error) bool {
	var a *NoneError
	var b *PartialError
	var c *InTheWayError
	var d *MismatchError
	return errors.As(err, &a) || errors.As(err, &b) || errors.As(err, &c) || errors.As(err, &d)
}

// Begin starts a prepare on an empty schema: it refuses objects in the way, creates the meta table
// and marks the schema as loading.
func (s *Schema) Begin(ctx context.Context, c target.Conn, want []Object) error {
	if s.State != StateNone {
		return fmt.Errorf("internal: Begin on a %s schema that is not empty", s.Title)
	}
	if blocked := s.InTheWay(want); len(blocked) > 0 {
		return &InTheWayError{Where: s.Where, Title: s.Title, Foreign: s.Foreign, Blocked: blocked}
	}
	q, err := schemaSQL(s.dialect, "meta_create", s.MetaTable(), "")
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, q); err != nil {
		return fmt.Errorf("create %s: %w", s.MetaTable(), err)
	}
	s.records = map[string]string{}
	s.State = StatePartial
	return s.put(ctx, c, "state", "loading")
}

func (s *Schema) put(ctx context.Context, c target.Conn, k, v string) error {
	q, err := schemaSQL(s.dialect, "meta_put", s.MetaTable(), "")
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, q, k, v); err != nil {
		return fmt.Errorf("write %s: %w", s.MetaTable(), err)
	}
	s.records[k] = v
	return nil
}

func (s *Schema) forget(ctx context.Context, c target.Conn, k string) error {
	q, err := schemaSQL(s.dialect, "meta_delete", s.MetaTable(), "")
	if err != nil {
		return err
	}
	_, err = c.Exec(ctx, q, k)
	delete(s.records, k)
	return err
}

// Create records o as the workload's, then runs the statement that creates it. If the statement
// fails, the record is taken back, so cleanup never drops an object of that name that was there
// already or made by someone else.
func (s *Schema) Create(ctx context.Context, c target.Conn, o Object, stmt string) error {
	if !ident.MatchString(o.Name) {
		return fmt.Errorf("internal: %q is not a plain identifier", o.Name)
	}
	key := "obj:" + o.Kind + ":" + o.Name
	if err := s.put(ctx, c, key, strconv.Itoa(s.nextSeq)); err != nil {
		return err
	}
	s.nextSeq++
	if _, err := c.Exec(ctx, stmt); err != nil {
		_ = s.forget(context.WithoutCancel(ctx), c, key)
		return fmt.Errorf("create %s %s: %w", o.Kind, o.Name, err)
	}
	s.Objects = append(s.Objects, o)
	return nil
}

// Record returns the workload's own record k, or "" when there is none.
func (s *Schema) Record(k string) string { return s.records[k] }

// SetRecord writes the workload's own record k, or removes it when v is "". Keys "state", "meta"
// and "obj:…" are the schema's.
func (s *Schema) SetRecord(ctx context.Context, c target.Conn, k, v string) error {
	if k == "state" || k == "meta" || strings.HasPrefix(k, "obj:") {
		return fmt.Errorf("internal: record %q is the schema's own", k)
	}
	if v == "" {
		return s.forget(ctx, c, k)
	}
	return s.put(ctx, c, k, v)
}

// PutMeta writes m as the "meta" record.
func (s *Schema) PutMeta(ctx context.Context, c target.Conn, m any) error {
	js, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return s.put(ctx, c, "meta", string(js))
}

// Complete writes m as the "meta" record, then marks prepare complete: the order matters, as a
// "complete" state promises a readable description.
func (s *Schema) Complete(ctx context.Context, c target.Conn, m any) error {
	if err := s.PutMeta(ctx, c, m); err != nil {
		return err
	}
	if err := s.put(ctx, c, "state", "complete"); err != nil {
		return err
	}
	s.State = StateComplete
	return nil
}

// Cleanup drops the objects the schema's record says the workload created, newest first, then its
// meta table; nothing else. It returns what it dropped (nothing when there was no schema).
func (s *Schema) Cleanup(ctx context.Context, c target.Conn) ([]Object, error) {
	if s.State == StateNone {
		return nil, nil
	}
	var dropped []Object
	for i := len(s.Objects) - 1; i >= 0; i-- {
		o := s.Objects[i]
		stmt := "drop_" + o.Kind
		q, err := schemaSQL(s.dialect, stmt, "", o.Name)
		if err != nil {
			return dropped, err
		}
		if q == "" {
			continue
		}
		if _, err := c.Exec(ctx, q); err != nil {
			return dropped, fmt.Errorf("drop %s %s: %w", o.Kind, o.Name, err)
		}
		dropped = append(dropped, o)
	}
	q, err := schemaSQL(s.dialect, "drop_table", "", s.MetaTable())
	if err != nil {
		return dropped, err
	}
	if _, err := c.Exec(ctx, q); err != nil {
		return dropped, fmt.Errorf("drop %s: %w", s.MetaTable(), err)
	}
	dropped = append(dropped, Table(s.MetaTable()))
	if q, err := schemaSQL(s.dialect, "after_cleanup", "", ""); err == nil && q != "" {
		if _, err := c.Exec(ctx, q); err != nil {
			return dropped, fmt.Errorf("after cleanup: %w", err)
		}
	}
	s.State, s.Objects, s.records = StateNone, nil, nil
	return dropped, nil
}

// ErrAlreadyPrepared is returned by BeginPrepare when the schema is complete.
var ErrAlreadyPrepared = errors.New("already prepared")

// BeginPrepare inspects f's schema before a prepare. A complete schema is decoded into existing
// and reported as ErrAlreadyPrepared; a partial one, or objects of want that are not f's, are
// errors; an empty one is begun (meta table created, state "loading"), ready for Create.
func BeginPrepare(ctx context.Context, c target.Conn, t target.Target, f Footprint, want []Object, existing any) (*Schema, error) {
	s, err := Inspect(ctx, c, t, f)
	if err != nil {
		return nil, err
	}
	switch {
	case s.State == StateComplete && len(s.Missing) == 0:
		if err := s.Decode(existing); err != nil {
			return s, &PartialError{s}
		}
		return s, ErrAlreadyPrepared
	case s.State != StateNone:
		return s, &PartialError{s}
	}
	return s, s.Begin(ctx, c, want)
}

// Load inspects f's schema for a run or a check and decodes its description into m; the error
// says why the schema cannot be used.
func Load(ctx context.Context, c target.Conn, t target.Target, f Footprint, m any) (*Schema, error) {
	s, err := Inspect(ctx, c, t, f)
	if err != nil {
		return nil, err
	}
	if err := s.Ready(); err != nil {
		return s, err
	}
	if err := s.Decode(m); err != nil {
		return s, &PartialError{s}
	}
	return s, nil
}

// ReadMeta reads the description of f's complete schema in t's database, on a connection of its
// own, for a run; the error says why the schema cannot be used.
func ReadMeta[M any](ctx context.Context, t target.Target, f Footprint) (*M, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	m := new(M)
	if _, err := Load(ctx, c, t, f, m); err != nil {
		return nil, err
	}
	return m, nil
}

// MismatchError is a prepare asked for another size than the complete schema has: asked-for
// sizes are never ignored.
type MismatchError struct {
	S     *Schema
	Have  string // "1 warehouse"
	Asked string // "2 warehouses"
	Flag  string // the option that asked: "--warehouses 2"
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *MismatchError) BadInput() {}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s already holds a %s schema of %s, not %s as %s asks: run 'cairn %s cleanup' first to prepare %s, or leave out %s",
		e.S.Where, e.S.Title, e.Have, e.Asked, e.Flag, e.S.Name, e.Asked, e.Flag)
}

// CleanupSchema drops what f's record says it created in t's database, and nothing else; it
// returns the schema as it was before.
func CleanupSchema(ctx context.Context, t target.Target, f Footprint) (*Schema, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s, err := Inspect(ctx, c, t, f)
	if err != nil {
		return nil, err
	}
	before := *s
	before.Objects = append([]Object(nil), s.Objects...)
	_, err = s.Cleanup(ctx, c)
	return &before, err
}

// CleanupReport says what a cleanup of s (the schema as it was before, from CleanupSchema) did:
// what it dropped, or that there was nothing, and what it left alone.
func (s *Schema) CleanupReport(f Footprint) []string {
	var out []string
	if s.State == StateNone {
		out = append(out, fmt.Sprintf("%s holds no %s schema: nothing to drop", s.Where, f.Title))
	} else {
		out = append(out, fmt.Sprintf("dropped the %s schema at %s: %s and its meta table %s", f.Title, s.Where, s.Contents(), f.MetaTable()))
	}
	for _, g := range s.Others {
		if g.Owner != nil {
			out = append(out, fmt.Sprintf("left alone: %s's %s", g.Owner.Title, Words(g.Objects)))
		} else {
			out = append(out, fmt.Sprintf("left alone: %s, which cairn did not create", Words(g.Objects)))
		}
	}
	return out
}
