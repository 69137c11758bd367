package report

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// withStacks gives a run the on-CPU profile perf would store for a MariaDB server answering
// point selects, folded root first; spin is the share of samples spinning in ut_delay under a
// latch, which grows with contention. The functions are ranked as the observer ranks them.
func withStacks(d *results.Document, spin float64) *results.Document {
	const samples = 10000
	conn := "start_thread;handle_one_connection;do_command;dispatch_command"
	spinN := int64(spin * samples)
	rest := samples - spinN
	folded := map[string]int64{
		conn + ";mysql_execute_command;mysql_select;JOIN::exec;sub_select;row_search_mvcc":                             rest * 30 / 100,
		conn + ";mysql_execute_command;mysql_select;JOIN::exec;sub_select;row_search_mvcc;btr_cur_search_to_nth_level": rest * 20 / 100,
		conn + ";mysql_execute_command;mysql_select;JOIN::optimize":                                                    rest * 10 / 100,
		conn + ";mysql_parse;MYSQLparse":            rest * 15 / 100,
		conn + ";net_send_ok;__send;tcp_sendmsg":    rest * 15 / 100,
		"start_thread;[mariadbd];srv_master_thread": rest*10/100 - 3,
		// A thin stack, far under a thousandth: too narrow to draw.
		conn + ";mysql_parse;lex_start": 3,
	}
	if spinN > 0 {
		folded[conn+";mysql_execute_command;mysql_select;JOIN::exec;sub_select;row_search_mvcc;rw_lock_s_lock_spin;ut_delay"] = spinN
	}
	var fs []results.FoldedStack
	for st, n := range folded {
		fs = append(fs, results.FoldedStack{Stack: st, Count: n})
	}
	slices.SortFunc(fs, func(a, b results.FoldedStack) int {
		if a.Count != b.Count {
			return int(b.Count - a.Count)
		}
		return strings.Compare(a.Stack, b.Stack)
	})
	var total int64
	self := map[string]int64{}
	for _, f := range fs {
		total += f.Count
		self[f.Stack[strings.LastIndexByte(f.Stack, ';')+1:]] += f.Count
	}
	s := &results.Stacks{Event: "cpu-clock", Hz: 99, PIDs: []int{4242}, Seconds: 25, Samples: total, Folded: fs}
	for n, c := range self {
		s.Functions = append(s.Functions, results.StackFunction{Name: n, Self: math.Round(10000*float64(c)/float64(total)) / 100})
	}
	slices.SortFunc(s.Functions, func(a, b results.StackFunction) int {
		if a.Self != b.Self {
			if a.Self > b.Self {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	results.SetSection(d, "stacks", s)
	return d
}

// The flame graph lays each frame over its samples, callees above their caller and within it,
// frames too narrow to see left out; the same names get the same colours.
func TestFlameGraph(t *testing.T) {
	d := withStacks(testRun(t, "40", maria, 8, 1, 1), 0.3)
	c := flameChart(profileOf("A", d), "run-flame-1", "t")
	if c == nil {
		t.Fatal("no flame graph for a run with stacks")
	}
	f := c.Flame
	if f.Samples != f.Width || f.Depth != 11 {
		t.Errorf("samples %d, width %d, depth %d", f.Samples, f.Width, f.Depth)
	}
	var roots int64
	byPath := map[int]FlameNode{} // the last node seen at each depth: the parent of the next one up
	for _, n := range f.Nodes {
		if n.Depth == 0 {
			roots += n.Value
		} else {
			p := byPath[n.Depth-1]
			if n.Start < p.Start || n.Start+n.Value > p.Start+p.Value {
				t.Errorf("%s [%d, %d) is not within its caller %s [%d, %d)", n.Name, n.Start, n.Start+n.Value, p.Name, p.Start, p.Start+p.Value)
			}
		}
		byPath[n.Depth] = n
		if n.Name == "lex_start" {
			t.Errorf("a frame of 3 samples in %d was drawn", f.Width)
		}
		if n.Color != warm(n.Name) || !strings.HasPrefix(n.Color, "#") || len(n.Color) != 7 {
			t.Errorf("%s coloured %s", n.Name, n.Color)
		}
		if n.Name == "ut_delay" && (n.Value != 3000 || n.Self != 3000) {
			t.Errorf("ut_delay: %d samples, %d self", n.Value, n.Self)
		}
	}
	if roots != f.Width {
		t.Errorf("the roots cover %d of %d samples", roots, f.Width)
	}
	if warm("[mariadbd]") != "#c8c8c8" {
		t.Error("an unnamed frame is not grey")
	}
	// No profile, no graph.
	if flameChart(profileOf("B", testRun(t, "41", maria, 8, 1, 1)), "x", "t") != nil {
		t.Error("a run without stacks got a flame graph")
	}
}

// The differential view: ut_delay gains what the rest loses, in percentage points of each run's
// samples, in the table and in the colours of the graph.
func TestFlameDiff(t *testing.T) {
	a := profileOf("#1", withStacks(testRun(t, "1", maria, 8, 1, 1), 0.05))
	b := profileOf("#2", withStacks(testRun(t, "2", maria, 8, 1, 2), 0.35))
	tb := shareDiff(a, b)
	if tb == nil || len(tb.Rows) == 0 {
		t.Fatal("no differential table")
	}
	// The gains first, then the largest loss first.
	first, loss := tb.Rows[0], tb.Rows[1]
	if first.Name != "ut_delay" || first.A != "5%" || first.B != "35%" || first.Delta != "+30.00" || !first.Gain {
		t.Errorf("first row %+v", first)
	}
	if loss.Name != "row_search_mvcc" || loss.Gain || loss.Delta != "-9.00" {
		t.Errorf("largest loss %+v", loss)
	}
	for i := 1; i < len(tb.Rows); i++ {
		if tb.Rows[i].Gain && !tb.Rows[i-1].Gain {
			t.Errorf("a gain after a loss at row %d", i)
		}
	}
	c := flameDiffChart(a, b, "runs-flame-diff", "t")
	if c == nil || !c.Flame.Diff {
		t.Fatal("no differential flame graph")
	}
	for _, n := range c.Flame.Nodes {
		switch n.Name {
		case "ut_delay":
			if *n.Base != 5 || n.Color != "#d62728" { // the largest gain: full red
				t.Errorf("ut_delay: base %v, colour %s", *n.Base, n.Color)
			}
		case "MYSQLparse":
			if r, g, bl := hexRGB(n.Color); !(bl > r && bl > g) {
				t.Errorf("MYSQLparse lost share but is coloured %s", n.Color)
			}
		}
	}
	if shareDiff(a, nil) != nil || flameDiffChart(nil, b, "x", "t") != nil {
		t.Error("a differential view with one side missing")
	}
}

func hexRGB(s string) (r, g, b int) {
	var v [3]int
	for i := range v {
		for _, ch := range s[1+2*i : 3+2*i] {
			v[i] = v[i]*16 + strings.IndexRune("0123456789abcdef", ch)
		}
	}
	return v[0], v[1], v[2]
}

// A profile's top functions have a column per step and a study's a column per case and VU count,
// so that ut_delay's rise reads along its row; two runs get a differential table.
func TestTopFunctions(t *testing.T) {
	p := testProfile(t, "20", maria, 1, 2, 3)
	for i, st := range p.Steps {
		for _, d := range st.Runs {
			withStacks(d, 0.1*float64(i))
		}
	}
	tb := stepFunctions(p, "P")
	if tb == nil || strings.Join(tb.Cols, " ") != "1 VU 2 VUs 4 VUs" {
		t.Fatalf("table %+v", tb)
	}
	var row *funcRow
	for i := range tb.Rows {
		if tb.Rows[i].Name == "ut_delay" {
			row = &tb.Rows[i]
		}
	}
	if row == nil {
		t.Fatal("ut_delay is not listed")
	}
	var cells []string
	for _, c := range row.Cells {
		cells = append(cells, c.Text)
	}
	if got := strings.Join(cells, " "); got != "0 10% 20%" {
		t.Errorf("ut_delay per step: %s", got)
	}
	if tb.Rows[0].Name != "row_search_mvcc" || tb.Rows[0].Cells[0].Shade != "0.45" {
		t.Errorf("first row %+v", tb.Rows[0])
	}

	st := testStudy(t, "30", maria)
	st.Schedule = nil // without live changes, each case's peak step has its flame graph
	for ci, c := range st.Cases {
		for _, s := range c.Profile.Steps {
			for _, d := range s.Runs {
				withStacks(d, 0.05+0.25*float64(ci))
			}
		}
	}
	ct := caseFunctions(st)
	if ct == nil || len(ct.Cols) != 6 || len(ct.Groups) != 2 || ct.Groups[0].Span != 3 || ct.Groups[1].Name != "innodb_adaptive_hash_index=OFF" {
		t.Fatalf("study table %+v", ct)
	}
	ids := chartIDs(Charts([]Item{{Study: st}}))
	if !slices.Contains(ids, "profile-flame-1") || !slices.Contains(ids, "profile-flame-2") || ids[len(ids)-1] != "study-flame-diff" {
		t.Errorf("study charts %v", ids)
	}
	fns, diff := stackViews([]Item{{Study: st}}, []string{"study 30"})
	if len(fns) != 1 || diff == nil || diff.Rows[0].Name != "ut_delay" || diff.Rows[0].Delta != "+25.00" {
		t.Errorf("study views: %d tables, diff %+v", len(fns), diff)
	}

	// Two runs: one column each and their differential table; a run without stacks, none.
	r1 := withStacks(testRun(t, "12", maria, 8, 1, 1), 0.05)
	r2 := withStacks(testRun(t, "13", maria, 8, 1, 2), 0.35)
	fns, diff = stackViews([]Item{{Run: r1}, {Run: r2}}, []string{"#12", "#13"})
	if len(fns) != 1 || strings.Join(fns[0].Cols, " ") != "#12 #13" || diff == nil || diff.A != "#12" || diff.B != "#13" {
		t.Errorf("runs views: %+v, diff %+v", fns, diff)
	}
	if fns, diff := stackViews([]Item{{Run: testRun(t, "14", maria, 8, 1, 1)}}, []string{"#14"}); fns != nil || diff != nil {
		t.Errorf("a run without stacks got %+v, %+v", fns, diff)
	}
}

// The page shows the flame graphs among the charts and the tables in the details; a run without
// a profile shows neither.
func TestHTMLStacks(t *testing.T) {
	r1 := withStacks(testRun(t, "12", maria, 8, 1, 1), 0.05)
	r2 := withStacks(testRun(t, "13", maria, 8, 1, 2), 0.35)
	var b bytes.Buffer
	if err := HTML(&b, []Item{{Run: r1}, {Run: r2}}, "stacks"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`data-chart-id="run-flame-1"`, `data-chart-id="run-flame-2"`, `data-chart-id="runs-flame-diff"`,
		"Server on-CPU profile", "Top server functions per run", "Server functions whose self share changed most, from #12 MariaDB 10.11.6 to #13 MariaDB 10.11.6",
		`<td class="n gain">&#43;30.00</td>`, "rgba(225, 87, 89, 0.45)"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// A function's name is perf's text: it reaches the page escaped, in the tables and the chart data.
	evil := withStacks(testRun(t, "18", maria, 8, 1, 3), 0.2)
	sec := results.StacksOf(evil)
	sec.Folded[0].Stack += `;</script><script>alert("x")</script>`
	sec.Functions[0].Name = `</script><script>alert("x")</script>`
	b.Reset()
	if err := HTML(&b, []Item{{Run: evil}}, "evil"); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "<script>alert") || strings.Count(out, "<script") != 2 {
		t.Error("a function's name reached the page unescaped")
	} else if !strings.Contains(out, "&lt;/script&gt;&lt;script&gt;alert") || !strings.Contains(out, `\u003c/script\u003e\u003cscript\u003ealert`) {
		t.Error("the function's name is missing from the table or the chart data")
	}
	b.Reset()
	if err := HTML(&b, []Item{{Run: testRun(t, "14", maria, 8, 1, 1)}}, "plain"); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "flame") && strings.Contains(out, `data-chart-id="run-flame`) || strings.Contains(out, "Server on-CPU profile") {
		t.Error("a run without stacks shows a flame graph or a profile section")
	}
}

// observedProfile is a MariaDB profile whose runs recorded stacks and running threads.
func observedProfile(t testing.TB) *results.Profile {
	p := testProfile(t, "22", maria, 1, 1, 8)
	for i, st := range p.Steps {
		for _, d := range st.Runs {
			withRunning(withStacks(d, 0.1*float64(i)))
		}
	}
	return p
}
