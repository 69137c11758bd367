package target

import (
	"strconv"
	"sync"
)

// Dialect describes a database's SQL and what it can do. Workloads read it instead of comparing
// database names, so that a new database is described once, here, and not in every workload.
type Dialect struct {
	// Name chooses the SQL files: sql/<Name>/… in each workload, next to sql/standard/….
	Name string
	// Base is where a SQL file or statement missing under Name is looked up next (mariadb →
	// mysql), before sql/standard, so that a dialect close to another overrides only what differs.
	Base string
	// Dollar says parameters are $1, $2, … (PostgreSQL); otherwise ?.
	Dollar bool
	// SingleWriter: one writer at a time (SQLite), so loads and index builds use one connection.
	SingleWriter bool
	// Embedded: the database runs inside cairn, whose CPU is then the database's too.
	Embedded bool
	// Procedures: stored procedures or functions (TPC-C's --mode procs).
	Procedures bool
	// Partitions is how a table is hash-partitioned by warehouse: "" not at all, "tables"
	// (partitions are tables of their own, CREATE TABLE … PARTITION OF), "clause" (PARTITION BY
	// HASH … PARTITIONS n in the CREATE TABLE).
	Partitions string
	// FillFactor: tables take a fill factor (pgbench -F).
	FillFactor bool
	// BytesAsBlob: the driver stores a []byte argument as a BLOB, so text goes as a string
	// (SQLite's).
	BytesAsBlob bool
}

func (d Dialect) String() string { return d.Name }

// Placeholder is the n-th (from 1) bound parameter.
func (d Dialect) Placeholder(n int) string {
	if d.Dollar {
		return "$" + strconv.Itoa(n)
	}
	return "?"
}

// Chain is where SQL files are looked up, in order: Name, then Base and its bases.
func (d Dialect) Chain() []string {
	out := []string{d.Name}
	for b := d.Base; b != ""; {
		out = append(out, b)
		next, ok := DialectNamed(b)
		if !ok {
			break
		}
		b = next.Base
	}
	return out
}

var (
	dialectMu sync.Mutex
	dialects  = map[string]Dialect{}
)

// RegisterDialect makes a dialect known by name; target packages call it from init.
func RegisterDialect(d Dialect) {
	dialectMu.Lock()
	defer dialectMu.Unlock()
	dialects[d.Name] = d
}

// DialectNamed returns a registered dialect.
func DialectNamed(name string) (Dialect, bool) {
	dialectMu.Lock()
	defer dialectMu.Unlock()
	d, ok := dialects[name]
	return d, ok
}

// Dialects lists the registered dialects' names.
func Dialects() []string {
	dialectMu.Lock()
	defer dialectMu.Unlock()
	var out []string
	for n := range dialects {
		out = append(out, n)
	}
	return out
}
