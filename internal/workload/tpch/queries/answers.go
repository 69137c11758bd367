package queries

import (
	"embed"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
)

// answers holds the reference answers: answers/sf0.01/qNN.csv were computed over the official
// SF 0.01 data with the validation parameters (|-separated, a header line, NULL for null);
// answers/sf1/qN.out are the TPC's own SF 1 answers from the TPC-H kit (values rounded to two
// decimals, fields padded with blanks).
//
//go:embed answers
var answersFS embed.FS

// ErrNoReference is returned by Reference for a scale factor without reference answers.
var ErrNoReference = errors.New("no reference answers")

// Kind says how a column of an answer is compared (clause 2.1.3.5).
type Kind int

const (
	Text     Kind = iota // strings and dates: equal after trimming blanks
	Exact                // keys, counts, singleton values: equal as numbers (to 1/100)
	Qty                  // SUM(l_quantity): exact (comment 4)
	Sum                  // SUM of money: within $100 (bullet c)
	Avg                  // AVG: 0.99·v ≤ round(r,2) ≤ 1.01·v, v rounded too (bullet d)
	Ratio                // ratios: as Avg (bullet b)
	RatioSum             // a ratio of sums (Q8, Q14, Q17, comment 1): both Ratio and Sum
)

func (k Kind) String() string {
	return [...]string{"text", "exact", "quantity sum", "money sum", "average", "ratio", "ratio of sums"}[k]
}

// Column is one column of a query's answer.
type Column struct {
	Name string
	Kind Kind
}

// answerCols are the columns of each query's answer, in SELECT-list order, with how clause
// 2.1.3.5 compares them.
var answerCols = [Count + 1][]Column{
	1: {{"l_returnflag", Text}, {"l_linestatus", Text}, {"sum_qty", Qty}, {"sum_base_price", Sum},
		{"sum_disc_price", Sum}, {"sum_charge", Sum}, {"avg_qty", Avg}, {"avg_price", Avg},
		{"avg_disc", Avg}, {"count_order", Exact}},
	2: {{"s_acctbal", Exact}, {"s_name", Text}, {"n_name", Text}, {"p_partkey", Exact},
		{"p_mfgr", Text}, {"s_address", Text}, {"s_phone", Text}, {"s_comment", Text}},
	3:  {{"l_orderkey", Exact}, {"revenue", Sum}, {"o_orderdate", Text}, {"o_shippriority", Exact}},
	4:  {{"o_orderpriority", Text}, {"order_count", Exact}},
	5:  {{"n_name", Text}, {"revenue", Sum}},
	6:  {{"revenue", Sum}},
	7:  {{"supp_nation", Text}, {"cust_nation", Text}, {"l_year", Exact}, {"revenue", Sum}},
	8:  {{"o_year", Exact}, {"mkt_share", RatioSum}},
	9:  {{"nation", Text}, {"o_year", Exact}, {"sum_profit", Sum}},
	10: {{"c_custkey", Exact}, {"c_name", Text}, {"revenue", Sum}, {"c_acctbal", Exact}, {"n_name", Text}, {"c_address", Text}, {"c_phone", Text}, {"c_comment", Text}},
	11: {{"ps_partkey", Exact}, {"value", Sum}},
	// The line counts are sums of 0 and 1: counts (comment 2).
	12: {{"l_shipmode", Text}, {"high_line_count", Exact}, {"low_line_count", Exact}},
	13: {{"c_count", Exact}, {"custdist", Exact}},
	14: {{"promo_revenue", RatioSum}},
	// total_revenue comes from the view without further computation: a sum (comment 3).
	15: {{"s_suppkey", Exact}, {"s_name", Text}, {"s_address", Text}, {"s_phone", Text}, {"total_revenue", Sum}},
	16: {{"p_brand", Text}, {"p_type", Text}, {"p_size", Exact}, {"supplier_cnt", Exact}},
	17: {{"avg_yearly", RatioSum}},
	18: {{"c_name", Text}, {"c_custkey", Exact}, {"o_orderkey", Exact}, {"o_orderdate", Text},
		{"o_totalprice", Exact}, {"sum(l_quantity)", Qty}},
	19: {{"revenue", Sum}},
	20: {{"s_name", Text}, {"s_address", Text}},
	21: {{"s_name", Text}, {"numwait", Exact}},
	22: {{"cntrycode", Text}, {"numcust", Exact}, {"totacctbal", Sum}},
}

// AnswerColumns returns the columns of query q's answer and how each is compared.
func AnswerColumns(q int) []Column {
	if q < 1 || q > Count {
		return nil
	}
	return append([]Column(nil), answerCols[q]...)
}

// Answer is a reference answer.
type Answer struct {
	Query     int
	SF        float64
	Q11Scaled bool // the FRACTION rule the answer was computed with (both at SF 1)
	Source    string
	Columns   []Column
	Rows      [][]string // "NULL" for null
}

// Reference returns the reference answer of query q at scale factor sf, computed with the
// validation parameters (and, for Q11, the FRACTION rule q11Scaled). It returns an error wrapping
// ErrNoReference when there is none for sf (there are answers for SF 0.01 and SF 1).
func Reference(q int, sf float64, q11Scaled bool) (*Answer, error) {
	if q < 1 || q > Count {
		return nil, fmt.Errorf("tpch has no query %d", q)
	}
	var name string
	padded := false
	switch {
	case math.Abs(sf-0.01) < 1e-9:
		name = fmt.Sprintf("answers/sf0.01/q%02d.csv", q)
		if q == 11 && q11Scaled {
			name = "answers/sf0.01/q11_FRACTION_0.01_qgen_d_s0.01.csv"
		}
	case math.Abs(sf-1) < 1e-9:
		// 0.0001/SF = 0.0001: one answer serves both Q11 rules.
		name = fmt.Sprintf("answers/sf1/q%d.out", q)
		padded = true
	default:
		return nil, fmt.Errorf("Q%d at SF %g: %w (only SF 0.01 and SF 1)", q, sf, ErrNoReference)
	}
	b, err := answersFS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("Q%d at SF %g: %w", q, sf, err)
	}
	a := &Answer{Query: q, SF: sf, Q11Scaled: q11Scaled, Source: name, Columns: AnswerColumns(q)}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	for i, line := range lines[1:] { // lines[0] is the header
		line = strings.TrimRight(line, "\r")
		f := strings.Split(line, "|")
		if len(f) != len(a.Columns) {
			return nil, fmt.Errorf("%s line %d: %d fields, want %d", name, i+2, len(f), len(a.Columns))
		}
		if padded {
			for j := range f {
				f[j] = strings.TrimSpace(f[j])
			}
		}
		a.Rows = append(a.Rows, f)
	}
	return a, nil
}

// Mismatch is one difference between an answer and the reference. Row is 1-based; a difference
// in the number of rows has Row 0 and Column "rows".
type Mismatch struct {
	Query    int
	Row      int
	Column   string
	Expected string
	Got      string
	Rule     string // the tolerance that was not met
}

func (m Mismatch) String() string {
	if m.Row == 0 {
		return fmt.Sprintf("Q%d: %s: expected %s, got %s", m.Query, m.Column, m.Expected, m.Got)
	}
	return fmt.Sprintf("Q%d row %d column %s: expected %s, got %s (%s)", m.Query, m.Row, m.Column, m.Expected, m.Got, m.Rule)
}

// Compare checks an answer (as ScanStrings returns it) against the reference with the
// tolerances of clause 2.1.3.5, row by row in order (every query orders its rows). It returns
// nothing when the answer is valid.
func Compare(q int, ref *Answer, got [][]string) []Mismatch {
	if ref == nil {
		return []Mismatch{{Query: q, Column: "reference", Expected: "an answer", Got: "none", Rule: "reference"}}
	}
	var out []Mismatch
	cols := ref.Columns
	if len(cols) == 0 {
		cols = AnswerColumns(q)
	}
	if len(got) != len(ref.Rows) {
		out = append(out, Mismatch{Query: q, Column: "rows", Expected: fmt.Sprint(len(ref.Rows)), Got: fmt.Sprint(len(got)), Rule: "row count"})
	}
	for i := 0; i < len(got) && i < len(ref.Rows); i++ {
		want, have := ref.Rows[i], got[i]
		if len(have) != len(want) {
			out = append(out, Mismatch{Query: q, Row: i + 1, Column: "columns", Expected: fmt.Sprint(len(want)), Got: fmt.Sprint(len(have)), Rule: "column count"})
			continue
		}
		for j := range want {
			c := Column{Name: fmt.Sprintf("column %d", j+1)}
			if j < len(cols) {
				c = cols[j]
			}
			if rule, ok := match(c.Kind, want[j], have[j]); !ok {
				out = append(out, Mismatch{Query: q, Row: i + 1, Column: c.Name, Expected: want[j], Got: have[j], Rule: rule})
			}
		}
	}
	return out
}

var (
	hundred = big.NewRat(100, 1)
	lo99    = big.NewRat(99, 100)
	hi101   = big.NewRat(101, 100)
)

// match compares one value; on failure it says which rule failed.
func match(k Kind, want, got string) (string, bool) {
	want, got = strings.TrimSpace(want), strings.TrimSpace(got)
	if want == "NULL" || got == "NULL" {
		return "NULL", want == got
	}
	if k == Text {
		return "exact", want == got
	}
	v, ok1 := new(big.Rat).SetString(want)
	r, ok2 := new(big.Rat).SetString(got)
	if !ok1 || !ok2 {
		return "not a number", false
	}
	switch k {
	case Exact, Qty:
		return "exact", round2(v).Cmp(round2(r)) == 0
	case Sum:
		return "within 100", withinSum(v, r)
	case Avg, Ratio:
		return "within 1% after rounding to 0.01", withinPct(v, r)
	case RatioSum:
		if !withinPct(v, r) {
			return "within 1% after rounding to 0.01", false
		}
		return "within 100", withinSum(v, r)
	}
	return "unknown kind", false
}

// withinSum reports |r - v| ≤ 100.
func withinSum(v, r *big.Rat) bool {
	d := new(big.Rat).Sub(r, v)
	return d.Abs(d).Cmp(hundred) <= 0
}

// withinPct reports 0.99·v ≤ round(r,2) ≤ 1.01·v (the bounds swap for a negative v). v is
// rounded to 1/100 too: the spec's validation output is (the TPC's answer files are), and against
// an unrounded v the rule fails for small values, e.g. v = 0.0478 and round(v, 2) = 0.05.
func withinPct(v, r *big.Rat) bool {
	rr := round2(r)
	v = round2(v)
	a := new(big.Rat).Mul(v, lo99)
	b := new(big.Rat).Mul(v, hi101)
	if a.Cmp(b) > 0 {
		a, b = b, a
	}
	return rr.Cmp(a) >= 0 && rr.Cmp(b) <= 0
}

// round2 rounds to the nearest 1/100, halves away from zero, exactly (the value is the decimal
// text the database returned, not a binary float).
func round2(x *big.Rat) *big.Rat {
	n := new(big.Int).Mul(x.Num(), big.NewInt(100))
	d := x.Denom()
	neg := n.Sign() < 0
	n.Abs(n)
	q, m := new(big.Int).QuoRem(n, d, new(big.Int))
	if m.Lsh(m, 1).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return new(big.Rat).SetFrac(q, big.NewInt(100))
}
