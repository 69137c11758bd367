package tpcc

import (
	"github.com/cairn-bench/cairn/internal/testutil"
	"math"
	"math/rand/v2"
	"testing"
)

func TestNURandRangeAndSkew(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []struct{ a, x, y int }{{aCLast, 0, 999}, {aCID, 1, 3000}, {aItem, 1, 100000}}
	for _, c := range cases {
		hits := make([]int, c.y+1)
		for i := 0; i < 200000; i++ {
			v := NURand(r, c.a, 17, c.x, c.y)
			if v < c.x || v > c.y {
				t.Fatalf("NURand(%d,%d,%d) = %d out of range", c.a, c.x, c.y, v)
			}
			hits[v]++
		}
		// Non-uniform: the most frequent value must be far above the uniform expectation.
		mx := 0
		for _, h := range hits {
			mx = max(mx, h)
		}
		uniformMean := 200000.0 / float64(c.y-c.x+1)
		if float64(mx) < 2*uniformMean {
			t.Errorf("NURand(%d) looks uniform: max bucket %d vs mean %.1f", c.a, mx, uniformMean)
		}
	}
}

func TestNURandFormula(t *testing.T) {
	// With A = 0 the OR term is just random(x,y), so NURand is a shifted uniform: ((u + C) % n) + x.
	r1 := rand.New(rand.NewPCG(5, 5))
	r2 := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 1000; i++ {
		got := NURand(r1, 0, 7, 1, 10)
		_ = uniform(r2, 0, 0)
		u := uniform(r2, 1, 10)
		if want := ((u + 7) % 10) + 1; got != want {
			t.Fatalf("NURand(0,1,10) with C=7: got %d want %d", got, want)
		}
	}
}

func TestCDelta(t *testing.T) {
	for load := 0; load <= 255; load++ {
		for run := 0; run <= 255; run++ {
			d := int(math.Abs(float64(load - run)))
			want := d >= 65 && d <= 119 && d != 96 && d != 112
			if ValidCDelta(load, run) != want {
				t.Fatalf("ValidCDelta(%d,%d) = %v", load, run, !want)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 1000; i++ {
		l := LoadConstants(r)
		c := RunConstants(r, l)
		if !ValidCDelta(l.CLast, c.CLast) {
			t.Fatalf("run C_LAST %d invalid against load %d", c.CLast, l.CLast)
		}
		if c.CID < 0 || c.CID > aCID || c.Item < 0 || c.Item > aItem || c.CLast > aCLast {
			t.Fatalf("run constants out of range: %+v", c)
		}
	}
}

func TestLastName(t *testing.T) {
	for n, want := range map[int]string{371: "PRICALLYOUGHT", 40: "BARPRESBAR", 0: "BARBARBAR", 999: "EINGEINGEING"} {
		if got := LastName(n); got != want {
			t.Errorf("LastName(%d) = %s, want %s", n, got, want)
		}
		if got := string(appendLastName(nil, n)); got != want {
			t.Errorf("appendLastName(%d) = %s", n, got)
		}
	}
}

func TestDeck(t *testing.T) {
	d := NewDeck(rand.New(rand.NewPCG(9, 9)))
	for pass := 0; pass < 50; pass++ {
		var n [5]int
		for i := 0; i < 23; i++ {
			n[d.Next()]++
		}
		if n != [5]int{10, 10, 1, 1, 1} {
			t.Fatalf("pass %d of the deck dealt %v, want 10/10/1/1/1", pass, n)
		}
	}
	// Shuffled: two passes are not always in the same order.
	d1 := NewDeck(rand.New(rand.NewPCG(1, 1)))
	a := make([]int, 23)
	b := make([]int, 23)
	for i := range a {
		a[i] = d1.Next()
	}
	for i := range b {
		b[i] = d1.Next()
	}
	if equal(a, b) {
		t.Fatal("two passes of the deck came out identical: not shuffled")
	}
}

func equal(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestChooseExactlyAndPermutation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 7))
	c := chooseExactly(r, 3000, 300)
	n := 0
	for _, b := range c {
		if b {
			n++
		}
	}
	if n != 300 {
		t.Fatalf("chooseExactly chose %d, want 300", n)
	}
	p := permutation(r, 3000)
	seen := make([]bool, 3001)
	for _, v := range p {
		if v < 1 || v > 3000 || seen[v] {
			t.Fatalf("permutation has %d twice or out of range", v)
		}
		seen[v] = true
	}
}

func TestExpandRows(t *testing.T) {
	q := "SELECT x FROM t WHERE a = $1 AND (b, c) IN ({{row (?, ?)}}) FOR UPDATE"
	got, _ := ExpandRows(testutil.Dialect(t, "postgres"), q, 3)
	want := "SELECT x FROM t WHERE a = $1 AND (b, c) IN (($2, $3), ($4, $5), ($6, $7)) FOR UPDATE"
	if got != want {
		t.Fatalf("postgres:\n got %s\nwant %s", got, want)
	}
	got, _ = ExpandRows(testutil.Dialect(t, "mysql"), "SELECT 1 WHERE a IN ({{row ?}})", 2)
	if got != "SELECT 1 WHERE a IN (?, ?)" {
		t.Fatalf("mysql: got %s", got)
	}
	// Several sections, {{each}} joined by spaces, and a ? between sections numbered in text order.
	q = "UPDATE t SET a = CASE k {{each WHEN ? THEN ?}} END, b = b + ? WHERE k IN ({{row ?}}) AND z = $1"
	got, _ = ExpandRows(testutil.Dialect(t, "postgres"), q, 2)
	want = "UPDATE t SET a = CASE k WHEN $2 THEN $3 WHEN $4 THEN $5 END, b = b + $6 WHERE k IN ($7, $8) AND z = $1"
	if got != want {
		t.Fatalf("postgres, sections:\n got %s\nwant %s", got, want)
	}
	if _, err := ExpandRows(testutil.Dialect(t, "mysql"), "SELECT {{row ?", 2); err == nil {
		t.Fatal("an unterminated template expanded without error")
	}
}
