package tpcc

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

func TestCheckSelected(t *testing.T) {
	for _, tc := range []struct {
		all, initial bool
		want         []int
	}{
		{false, false, []int{1, 2, 3, 4}},
		{false, true, []int{1, 2, 3, 4, 11}},
		{true, false, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12}},
		{true, true, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
	} {
		var got []int
		for _, c := range conditions {
			if checkSelected(c.number, tc.all, tc.initial) {
				got = append(got, c.number)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("all=%v initial=%v: conditions %v, want %v", tc.all, tc.initial, got, tc.want)
		}
	}
}

// TestCheckStatementsPresent makes sure every dialect has every statement the conditions name.
func TestCheckStatementsPresent(t *testing.T) {
	for _, d := range []string{"postgres", "mysql", "sqlite"} {
		m, err := stmtMap(testutil.Dialect(t, d), "check.sql")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range conditions {
			for _, q := range c.queries {
				n++
				if m[q.name] == "" {
					t.Errorf("%s check.sql has no statement %s", d, q.name)
				}
			}
		}
		if len(m) != n {
			t.Errorf("%s check.sql has %d statements, the conditions use %d", d, len(m), n)
		}
	}
}

// TestCheck runs the checks on every registered database.
func TestCheck(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			db, _ := testutil.Open(t, tg.URL(t))
			testCheck(t, db)
		})
	}
}

// corruption is one deliberate inconsistency: statements that make it, the offending keys each
// condition must then report (in key order; every other condition must pass), and statements that
// undo it.
type corruption struct {
	name   string
	do     []string
	want   map[int][]string
	revert []string
}

var corruptions = []corruption{
	{
		name:   "warehouse ytd",
		do:     []string{"UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1"},
		want:   map[int][]string{1: {"w_id=1"}, 8: {"w_id=1"}},
		revert: []string{"UPDATE warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 1"},
	},
	{
		name:   "district ytd",
		do:     []string{"UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 1 AND d_id = 6"},
		want:   map[int][]string{1: {"w_id=1"}, 9: {"w_id=1 d_id=6"}},
		revert: []string{"UPDATE district SET d_ytd = d_ytd - 1 WHERE d_w_id = 1 AND d_id = 6"},
	},
	{
		name:   "district next order id",
		do:     []string{"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 9"},
		want:   map[int][]string{2: {"w_id=1 d_id=9"}},
		revert: []string{"UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 1 AND d_id = 9"},
	},
	{
		name:   "new order missing in the middle of a district's range",
		do:     []string{"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 3 AND no_o_id = 2500"},
		want:   map[int][]string{3: {"w_id=1 d_id=3"}, 5: {"w_id=1 d_id=3 o_id=2500"}, 11: {"w_id=1 d_id=3"}},
		revert: []string{"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (2500, 3, 1)"},
	},
	{
		name: "new order without its order",
		do:   []string{"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (3001, 7, 1)"},
		// max(NO_O_ID) passes D_NEXT_O_ID - 1; the range 2101..3001 is still dense, so 3 holds.
		want:   map[int][]string{2: {"w_id=1 d_id=7"}, 5: {"w_id=1 d_id=7 o_id=3001"}, 11: {"w_id=1 d_id=7"}},
		revert: []string{"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 7 AND no_o_id = 3001"},
	},
	{
		name: "order line without its order",
		do: []string{`INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
			ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (3001, 8, 1, 1, 1, 1, NULL, 5, 0, 'x')`},
		want:   map[int][]string{4: {"w_id=1 d_id=8"}, 6: {"w_id=1 d_id=8 o_id=3001"}},
		revert: []string{"DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 8 AND ol_o_id = 3001"},
	},
	{
		name: "order line delivered while its order is not, and the reverse",
		do: []string{
			"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id = 10 AND ol_number = 2",
			"UPDATE order_line SET ol_delivery_d = (SELECT o_entry_d FROM orders WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 10) WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id = 2900 AND ol_number = 1",
		},
		// The second line's amount now counts as delivered for its customer, which breaks 10 and 12;
		// which customer that is depends on the load, so runCorruption fills it in.
		want: map[int][]string{7: {"w_id=1 d_id=2 o_id=10 ol_number=2", "w_id=1 d_id=2 o_id=2900 ol_number=1"}},
		revert: []string{
			"UPDATE order_line SET ol_delivery_d = (SELECT o_entry_d FROM orders WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 10) WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id = 10 AND ol_number = 2",
			"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id = 2900 AND ol_number = 1",
		},
	},
	{
		name:   "customer balances (more than ten)",
		do:     []string{"UPDATE customer SET c_balance = c_balance + 1 WHERE c_w_id = 1 AND c_d_id = 4 AND c_id BETWEEN 101 AND 125"},
		want:   map[int][]string{10: customerKeys(1, 4, 101, 125), 12: customerKeys(1, 4, 101, 125)},
		revert: []string{"UPDATE customer SET c_balance = c_balance - 1 WHERE c_w_id = 1 AND c_d_id = 4 AND c_id BETWEEN 101 AND 125"},
	},
	{
		// Last, not undone: the spec notes' example of a missing order line.
		name: "order line missing",
		do:   []string{"DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 5 AND ol_o_id = 1000 AND ol_number = 1"},
		want: map[int][]string{4: {"w_id=1 d_id=5"}, 6: {"w_id=1 d_id=5 o_id=1000"}},
	},
}

func customerKeys(w, d, from, to int) []string {
	var s []string
	for c := from; c <= to; c++ {
		s = append(s, fmt.Sprintf("w_id=%d d_id=%d c_id=%d", w, d, c))
	}
	return s
}

func testCheck(t *testing.T, tg target.Target) {
	ctx := t.Context()
	if _, err := Cleanup(ctx, tg); err != nil { // a previous run that died may have left tables
		t.Fatalf("cleanup before: %v", err)
	}

	// No schema: a schema error (the user's to fix), not a check failure.
	_, err := Check(ctx, tg, true, true)
	if !workload.IsSchemaError(err) || !strings.Contains(err.Error(), "cairn tpcc prepare") {
		t.Fatalf("Check on an empty database: err = %v, want a schema error naming 'cairn tpcc prepare'", err)
	}

	start := time.Now()
	if _, err := Prepare(ctx, tg, PrepareOptions{Warehouses: 1, Loaders: 2, Seed: 42}); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	t.Cleanup(func() {
		if _, err := Cleanup(context.Background(), tg); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	t.Logf("%s: prepared 1 warehouse in %.1fs", tg.Name(), time.Since(start).Seconds())

	// Freshly loaded: every condition holds, 11 included.
	conds, err := Check(ctx, tg, true, true)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	var nums []int
	total := 0.0
	for _, c := range conds {
		nums = append(nums, c.Number)
		total += c.Seconds
		t.Logf("%s: condition %2d %-62s %-6v %.3fs", tg.Name(), c.Number, c.Title, c.Passed, c.Seconds)
		if !c.Passed || c.Violations != 0 || len(c.Examples) != 0 {
			t.Errorf("fresh load: condition %d (%s) failed: %d violations, e.g. %v", c.Number, c.Title, c.Violations, c.Examples)
		}
	}
	t.Logf("%s: all 12 conditions in %.2fs", tg.Name(), total)
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; !slices.Equal(nums, want) {
		t.Fatalf("conditions checked %v, want %v", nums, want)
	}

	c, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exec := func(stmts []string) {
		t.Helper()
		for _, s := range stmts {
			if _, err := c.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	for _, cr := range corruptions {
		exec(cr.do)
		want := cr.want
		if strings.HasPrefix(cr.name, "order line delivered") {
			// The customer of order (1, 2, 2900) now has a delivered amount on record.
			var cid int64
			if err := c.QueryRow(ctx, "SELECT o_c_id FROM orders WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 2900").Scan(&cid); err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprintf("w_id=1 d_id=2 c_id=%d", cid)
			want = map[int][]string{7: want[7], 10: {key}, 12: {key}}
		}
		conds, err := Check(ctx, tg, true, true)
		if err != nil {
			t.Fatalf("%s: check: %v", cr.name, err)
		}
		for _, got := range conds {
			keys := want[got.Number]
			n := int64(len(keys))
			ex := keys[:min(len(keys), maxExamples)]
			if got.Passed != (n == 0) || got.Violations != n || !slices.Equal(got.Examples, ex) {
				t.Errorf("%s: condition %d: passed=%v violations=%d examples=%q; want passed=%v violations=%d examples=%q",
					cr.name, got.Number, got.Passed, got.Violations, got.Examples, n == 0, n, ex)
			}
		}
		exec(cr.revert)
	}

	// The required subset only.
	conds, err = Check(ctx, tg, false, false)
	if err != nil {
		t.Fatal(err)
	}
	nums = nums[:0]
	for _, c := range conds {
		nums = append(nums, c.Number)
	}
	if !slices.Equal(nums, []int{1, 2, 3, 4}) {
		t.Errorf("all=false: conditions %v, want [1 2 3 4]", nums)
	}
	if conds[3].Passed || conds[3].Violations != 1 {
		t.Errorf("all=false: condition 4 after the last corruption: %+v", conds[3])
	}
}
