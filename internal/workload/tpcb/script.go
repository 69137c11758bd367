package tpcb

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// pgbench's scale units (naccounts, ntellers, nbranches in pgbench.c): one scale unit is one branch
// with ten tellers and 100,000 accounts.
const (
	AccountsPerScale = 100000
	TellersPerScale  = 10
	BranchesPerScale = 1
	// Scale32BitThreshold is pgbench's SCALE_32BIT_THRESHOLD: from this scale on, aid no longer
	// fits an int and the aid columns are bigint.
	Scale32BitThreshold = 20000
)

// The scripts' variables, in the order pgbench's \set commands draw them.
const (
	varAid = iota
	varBid
	varTid
	varDelta
	numVars
)

var varNames = [numVars]string{"aid", "bid", "tid", "delta"}

// Script is one of pgbench's built-in scripts.
type Script struct {
	Name string // as pgbench -b names it; also the transaction type in results
	Desc string // pgbench's "transaction type:" line
	// Flag is the pgbench option that selects the script ("" for the default).
	Flag  string
	Stmts []string // statement names in txn.sql, in order
	Vars  int      // how many of aid, bid, tid, delta the script draws (a prefix of that order)
}

// Scripts are pgbench's three built-in scripts (builtin_script[] in pgbench.c).
var Scripts = []Script{
	{Name: "tpcb-like", Desc: "<builtin: TPC-B (sort of)>", Vars: numVars,
		Stmts: []string{"begin", "accounts_update", "accounts_select", "tellers_update", "branches_update", "history_insert", "end"}},
	{Name: "simple-update", Desc: "<builtin: simple update>", Flag: "-N", Vars: numVars,
		Stmts: []string{"begin", "accounts_update", "accounts_select", "history_insert", "end"}},
	{Name: "select-only", Desc: "<builtin: select only>", Flag: "-S", Vars: 1,
		Stmts: []string{"accounts_select"}},
}

// ScriptNames lists the scripts' names, for messages.
func ScriptNames() []string {
	n := make([]string, len(Scripts))
	for i, s := range Scripts {
		n[i] = s.Name
	}
	return n
}

// FindScript returns the script called name. Like pgbench's -b, an unambiguous prefix ("select")
// is enough.
func FindScript(name string) (*Script, error) {
	var found *Script
	n := 0
	for i := range Scripts {
		if Scripts[i].Name == name {
			return &Scripts[i], nil
		}
		if name != "" && strings.HasPrefix(Scripts[i].Name, name) {
			found = &Scripts[i]
			n++
		}
	}
	if n == 1 {
		return found, nil
	}
	return nil, fmt.Errorf("no script %q (use %s)", name, strings.Join(ScriptNames(), ", "))
}

// Protocols of --protocol, as pgbench's -M names them.
const (
	ProtoPrepared = "prepared"
	ProtoSimple   = "simple"
)

// Stmt is one SQL command of a script, compiled for one dialect.
type Stmt struct {
	Name     string
	Class    string // workload.ClassRead, ClassWrite or ClassOther
	Text     string // as in txn.sql, with :variables
	Prepared string // the variables replaced by the dialect's placeholders
	Args     []int  // variable of each placeholder, in order
	Row      bool   // returns abalance
	pieces   []piece
}

// piece is a run of literal SQL followed by a variable (or by nothing, if v < 0): the text of a
// statement under --protocol simple is built from them without parsing it again.
type piece struct {
	lit string
	v   int
}

// AppendSimple appends the statement's text with the variables' values written in.
func (s *Stmt) AppendSimple(b []byte, vars *[numVars]int64) []byte {
	for _, p := range s.pieces {
		b = append(b, p.lit...)
		if p.v >= 0 {
			b = strconv.AppendInt(b, vars[p.v], 10)
		}
	}
	return b
}

// compile turns a statement of txn.sql into its prepared form: each :variable becomes the next
// parameter, numbered in order of appearance as pgbench's parseQuery numbers them.
func compile(dialect target.Dialect, name, text string) (*Stmt, error) {
	s := &Stmt{Name: name, Text: text}
	var prep strings.Builder
	lit := 0
	for i := 0; i < len(text); i++ {
		if text[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] >= 'a' && text[j] <= 'z' || text[j] == '_') {
			j++
		}
		v := -1
		for k, n := range varNames {
			if text[i+1:j] == n {
				v = k
			}
		}
		if v < 0 {
			return nil, fmt.Errorf("statement %s: unknown variable %q", name, text[i:j])
		}
		prep.WriteString(text[lit:i])
		s.Args = append(s.Args, v)
		prep.WriteString(dialect.Placeholder(len(s.Args)))
		s.pieces = append(s.pieces, piece{lit: text[lit:i], v: v})
		lit = j
		i = j - 1
	}
	prep.WriteString(text[lit:])
	if lit < len(text) {
		s.pieces = append(s.pieces, piece{lit: text[lit:], v: -1})
	}
	s.Prepared = prep.String()
	u := strings.ToUpper(strings.TrimSpace(text))
	switch {
	case strings.HasPrefix(u, "SELECT"):
		s.Class, s.Row = workload.ClassRead, true
	case strings.HasPrefix(u, "UPDATE"), strings.HasPrefix(u, "INSERT"), strings.HasPrefix(u, "DELETE"):
		s.Class = workload.ClassWrite
	default:
		s.Class = workload.ClassOther
	}
	return s, nil
}

// Compiled is a script with its statements compiled for one dialect.
type Compiled struct {
	*Script
	Stmts []*Stmt
	Txn   bool // the script is an explicit transaction (BEGIN … END): roll back on failure
}

// Compile reads the dialect's txn.sql and compiles the script's statements.
func Compile(dialect target.Dialect, sc *Script) (*Compiled, error) {
	m, err := stmtMap(dialect, "txn.sql")
	if err != nil {
		return nil, err
	}
	c := &Compiled{Script: sc, Txn: len(sc.Stmts) > 0 && sc.Stmts[0] == "begin"}
	for _, n := range sc.Stmts {
		text, ok := m[n]
		if !ok {
			return nil, fmt.Errorf("tpcb: %s/txn.sql lacks statement %s", dialect.Name, n)
		}
		s, err := compile(dialect, n, text)
		if err != nil {
			return nil, err
		}
		c.Stmts = append(c.Stmts, s)
	}
	return c, nil
}

// Statements are the script's statement types for the engine, in execution order.
func (c *Compiled) Statements() []workload.Statement {
	out := make([]workload.Statement, len(c.Stmts))
	for i, s := range c.Stmts {
		out[i] = workload.Statement{Name: s.Name, Class: s.Class}
	}
	return out
}

// Draw sets the script's variables as its \set commands do: aid uniform in 1..100000·scale, bid in
// 1..scale, tid in 1..10·scale, delta in -5000..5000, each inclusive and in that order. pgbench
// draws from its own PRNG (xoroshiro128**); cairn draws from a seeded PCG per VU, so that --seed
// reproduces a run. The distributions are the same.
func Draw(r *rand.Rand, scale int64, n int, vars *[numVars]int64) {
	vars[varAid] = 1 + r.Int64N(AccountsPerScale*scale)
	if n == 1 {
		return
	}
	vars[varBid] = 1 + r.Int64N(BranchesPerScale*scale)
	vars[varTid] = 1 + r.Int64N(TellersPerScale*scale)
	vars[varDelta] = -5000 + r.Int64N(10001)
}
