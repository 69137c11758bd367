// Package queries holds everything about TPC-H's SQL: the schema of the eight tables, their keys
// and indexes, the 22 queries for each dialect, the substitution parameters of clause 2.4.N.3
// (random, qgen-style, and the validation values), the query order of each stream (Appendix A),
// the reference answers and the comparison of an answer against them with the tolerances of
// clause 2.1.3.5.
//
// The SQL lives in sql/standard/*.sql (the text every dialect shares) and sql/<dialect>/*.sql (a
// dialect's own files, or its statements that differ from the standard ones), split into named
// statements by internal/sqlfile. A query is rendered by replacing :1, :2, … with its parameters
// as text, as qgen does.
package queries

import (
	"context"
	"embed"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
)

//go:embed sql
var sqlFS embed.FS

// Count is the number of queries.
const Count = 22

// Tables lists the eight tables in load order (parents before children).
var Tables = []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// columns are the tables' columns in the order dbgen writes them in its .tbl files.
var columns = map[string][]string{
	"region":   {"r_regionkey", "r_name", "r_comment"},
	"nation":   {"n_nationkey", "n_name", "n_regionkey", "n_comment"},
	"supplier": {"s_suppkey", "s_name", "s_address", "s_nationkey", "s_phone", "s_acctbal", "s_comment"},
	"customer": {"c_custkey", "c_name", "c_address", "c_nationkey", "c_phone", "c_acctbal", "c_mktsegment", "c_comment"},
	"part": {"p_partkey", "p_name", "p_mfgr", "p_brand", "p_type", "p_size", "p_container",
		"p_retailprice", "p_comment"},
	"partsupp": {"ps_partkey", "ps_suppkey", "ps_availqty", "ps_supplycost", "ps_comment"},
	"orders": {"o_orderkey", "o_custkey", "o_orderstatus", "o_totalprice", "o_orderdate",
		"o_orderpriority", "o_clerk", "o_shippriority", "o_comment"},
	"lineitem": {"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber", "l_quantity",
		"l_extendedprice", "l_discount", "l_tax", "l_returnflag", "l_linestatus", "l_shipdate",
		"l_commitdate", "l_receiptdate", "l_shipinstruct", "l_shipmode", "l_comment"},
}

// Columns returns the columns of table in dbgen's .tbl order, or nil for an unknown table.
func Columns(table string) []string {
	c := columns[table]
	if c == nil {
		return nil
	}
	return append([]string(nil), c...)
}

var sqlFiles = sqlfile.Files{FS: sqlFS, Owner: "tpch"}

// Schema returns the CREATE TABLE statements, one per table, named after the table. The tables
// have no keys, so that loading is fast; Indexes adds them afterwards.
func Schema(d target.Dialect) ([]sqlfile.Stmt, error) { return sqlFiles.Stmts(d.Chain(), "schema.sql") }

// Indexes returns the statements that add the primary keys and the foreign-key indexes after the
// load (and update the planner's statistics where a dialect needs it).
func Indexes(d target.Dialect) ([]sqlfile.Stmt, error) {
	return sqlFiles.Stmts(d.Chain(), "indexes.sql")
}

// Cleanup returns the statements that drop the tables (and anything the queries may leave).
func Cleanup(d target.Dialect) ([]sqlfile.Stmt, error) {
	return sqlFiles.Stmts(d.Chain(), "cleanup.sql")
}

// query is one query of one dialect: statements before the answer, the answer, statements after.
type query struct {
	before, answer, after string
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*[Count + 1]query{}
)

// load returns the parsed queries of a dialect, indexed 1..22.
func load(d target.Dialect) (*[Count + 1]query, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if qs := cache[d.Name]; qs != nil {
		return qs, nil
	}
	list, err := sqlFiles.Stmts(d.Chain(), "queries.sql")
	if err != nil {
		return nil, err
	}
	qs, err := parseQueryList(d.Name, list)
	if err != nil {
		return nil, err
	}
	cache[d.Name] = qs
	return qs, nil
}

// parseQueryList sorts the statements of a queries.sql: qN is the answer of query N, qN_before and
// qN_after run before and after it.
func parseQueryList(dialect string, list []sqlfile.Stmt) (*[Count + 1]query, error) {
	qs := new([Count + 1]query)
	for name, sql := range sqlfile.Map(list) {
		base, part, _ := strings.Cut(name, "_")
		var n int
		if _, err := fmt.Sscanf(base, "q%d", &n); err != nil || n < 1 || n > Count || fmt.Sprintf("q%d", n) != base {
			return nil, fmt.Errorf("tpch queries.sql for %s: unexpected statement name %q", dialect, name)
		}
		switch part {
		case "":
			qs[n].answer = sql
		case "before":
			qs[n].before = sql
		case "after":
			qs[n].after = sql
		default:
			return nil, fmt.Errorf("tpch queries.sql for %s: unexpected statement name %q", dialect, name)
		}
	}
	for n := 1; n <= Count; n++ {
		if qs[n].answer == "" {
			return nil, fmt.Errorf("tpch queries.sql for %s has no q%d", dialect, n)
		}
	}
	return qs, nil
}

func get(d target.Dialect, q int) (query, error) {
	if q < 1 || q > Count {
		return query{}, fmt.Errorf("tpch has no query %d (1..%d)", q, Count)
	}
	qs, err := load(d)
	if err != nil {
		return query{}, err
	}
	return qs[q], nil
}

// Render returns the executable text of query q for a dialect with parameters p substituted, as
// an ordered list of statements. Exactly one of them returns the answer rows: the one at index
// AnswerIndex(dialect, q); the others (a view created before it and dropped after it, say) return
// none. With the current SQL every query is a single statement (Q15 is written with a common
// table expression rather than a view).
func Render(d target.Dialect, q int, p Params) ([]string, error) {
	qq, err := get(d, q)
	if err != nil {
		return nil, err
	}
	if p.Query != 0 && p.Query != q {
		return nil, fmt.Errorf("tpch: parameters of Q%d given for Q%d", p.Query, q)
	}
	var out []string
	for _, s := range []string{qq.before, qq.answer, qq.after} {
		if s == "" {
			continue
		}
		r, err := substitute(s, p)
		if err != nil {
			return nil, fmt.Errorf("tpch Q%d: %w", q, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// AnswerIndex returns which statement of Render(dialect, q, …) returns the answer rows.
func AnswerIndex(d target.Dialect, q int) (int, error) {
	qq, err := get(d, q)
	if err != nil {
		return 0, err
	}
	if qq.before != "" {
		return 1, nil
	}
	return 0, nil
}

// substitute replaces :N with p.Values[N-1] and :s with the stream number, as qgen does. A colon
// followed by anything else (or preceded by another colon, as in PostgreSQL's ::type) is kept.
func substitute(sql string, p Params) (string, error) {
	var b strings.Builder
	b.Grow(len(sql) + 64)
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		if c != ':' || i+1 >= len(sql) || (i > 0 && sql[i-1] == ':') || sql[i+1] == ':' {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
			j++
		}
		if j > i+1 {
			var n int
			fmt.Sscanf(sql[i+1:j], "%d", &n)
			if n < 1 || n > len(p.Values) {
				return "", fmt.Errorf("no value for parameter :%d (have %d)", n, len(p.Values))
			}
			b.WriteString(p.Values[n-1])
			i = j - 1
			continue
		}
		if sql[i+1] == 's' && (i+2 >= len(sql) || !isWord(sql[i+2])) {
			fmt.Fprintf(&b, "%d", p.Stream)
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Execute renders query q with p, runs its statements on c in order and returns the answer rows
// as strings (see ScanStrings). Statements after the answer (dropping a view) run even when the
// answer fails, so that a failed query leaves nothing behind.
func Execute(ctx context.Context, c target.Conn, d target.Dialect, q int, p Params) ([][]string, error) {
	stmts, err := Render(d, q, p)
	if err != nil {
		return nil, err
	}
	ai, err := AnswerIndex(d, q)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for i, s := range stmts {
		if i != ai {
			if _, err := c.Exec(ctx, s); err != nil {
				return nil, fmt.Errorf("Q%d statement %d: %w", q, i+1, err)
			}
			continue
		}
		rows, err = queryStrings(ctx, c, s, len(AnswerColumns(q)))
		if err != nil {
			// Clean up even when ctx was what ended the answer (a query timeout).
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			for _, t := range stmts[i+1:] {
				c.Exec(cctx, t)
			}
			cancel()
			return nil, fmt.Errorf("Q%d: %w", q, err)
		}
	}
	return rows, nil
}

func queryStrings(ctx context.Context, c target.Conn, sql string, ncols int) ([][]string, error) {
	r, err := c.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	return ScanStrings(r, ncols) // closes r
}
