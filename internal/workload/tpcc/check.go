package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// Condition is one consistency condition's outcome.
type Condition struct {
	Number     int    // 1..12 (clause 3.3.2.N)
	Title      string // e.g. "W_YTD = sum(D_YTD)"
	Passed     bool
	Violations int64    // number of offending keys found
	Examples   []string // up to 10 offending keys, formatted like "w_id=3 d_id=7"
	Seconds    float64
}

// maxExamples is how many offending keys a Condition keeps.
const maxExamples = 10

// checkQuery is one statement of check.sql and the names of the key columns it returns.
type checkQuery struct {
	name string
	keys []string
}

var (
	keyW    = []string{"w_id"}
	keyD    = []string{"w_id", "d_id"}
	keyO    = []string{"w_id", "d_id", "o_id"}
	keyC    = []string{"w_id", "d_id", "c_id"}
	keyLine = []string{"w_id", "d_id", "o_id", "ol_number"}
)

// conditions are the twelve consistency conditions of clause 3.3.2, each one or more statements of
// check.sql (the second ones check the other direction of a one-to-one relationship).
var conditions = []struct {
	number  int
	title   string
	queries []checkQuery
}{
	{1, "W_YTD = sum(D_YTD)", []checkQuery{{"c1", keyW}}},
	{2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", []checkQuery{{"c2", keyD}}},
	{3, "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER) per district", []checkQuery{{"c3", keyD}}},
	{4, "sum(O_OL_CNT) = count(ORDER-LINE) per district", []checkQuery{{"c4", keyD}}},
	{5, "O_CARRIER_ID is null iff a NEW-ORDER row exists", []checkQuery{{"c5", keyO}, {"c5b", keyO}}},
	{6, "O_OL_CNT = count(ORDER-LINE) per order", []checkQuery{{"c6", keyO}, {"c6b", keyO}}},
	{7, "OL_DELIVERY_D is null iff O_CARRIER_ID is null", []checkQuery{{"c7", keyLine}}},
	{8, "W_YTD = sum(H_AMOUNT)", []checkQuery{{"c8", keyW}}},
	{9, "D_YTD = sum(H_AMOUNT)", []checkQuery{{"c9", keyD}}},
	{10, "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", []checkQuery{{"c10", keyC}}},
	{11, "count(ORDER) - count(NEW-ORDER) = 2100 per district", []checkQuery{{"c11", keyD}}},
	{12, "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", []checkQuery{{"c12", keyC}}},
}

// checkSelected says whether condition n runs. Conditions 1-4 are the ones the specification requires
// to be demonstrated; all adds 5-10 and 12, the other invariants of the transaction mix. Condition 11
// holds only until the first Delivery, so it runs only on a database said to be freshly loaded.
func checkSelected(n int, all, initial bool) bool {
	switch {
	case n == 11:
		return initial
	case n <= 4:
		return true
	}
	return all
}

// Check runs conditions 1-4 (all=false) or 1-10 and 12 (all=true) and returns one Condition each.
// Condition 11 is only valid on a freshly loaded database, so it is included only when initial==true.
// It returns an error only when a check cannot run; violations are reported in the Conditions.
func Check(ctx context.Context, t target.Target, all bool, initial bool) ([]Condition, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if _, err := LoadMeta(ctx, t, c); err != nil {
		return nil, err
	}
	q, err := stmtMap(t.Dialect(), "check.sql")
	if err != nil {
		return nil, err
	}
	var out []Condition
	for _, def := range conditions {
		if !checkSelected(def.number, all, initial) {
			continue
		}
		cond := Condition{Number: def.number, Title: def.title}
		start := time.Now()
		for _, cq := range def.queries {
			query, ok := q[cq.name]
			if !ok {
				return nil, fmt.Errorf("tpcc check.sql for %s has no statement %s", t.Dialect(), cq.name)
			}
			if err := runCheck(ctx, c, query, cq.keys, &cond); err != nil {
				return nil, fmt.Errorf("check condition %d (%s): %w", def.number, cq.name, err)
			}
		}
		cond.Seconds = time.Since(start).Seconds()
		cond.Passed = cond.Violations == 0
		out = append(out, cond)
	}
	return out, nil
}

// runCheck counts the rows of one check statement into cond and keeps the first few as examples.
func runCheck(ctx context.Context, c target.Conn, query string, keys []string, cond *Condition) error {
	rows, err := c.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]sql.NullInt64, len(keys))
	dest := make([]any, len(keys))
	for i := range vals {
		dest[i] = &vals[i]
	}
	var b strings.Builder
	for rows.Next() {
		cond.Violations++
		if len(cond.Examples) >= maxExamples {
			continue
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		b.Reset()
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(k)
			b.WriteByte('=')
			if vals[i].Valid {
				b.WriteString(strconv.FormatInt(vals[i].Int64, 10))
			} else {
				b.WriteString("NULL")
			}
		}
		cond.Examples = append(cond.Examples, b.String())
	}
	return rows.Err()
}
