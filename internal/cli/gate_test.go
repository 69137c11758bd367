package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
)

// gateDoc is a constructed oltp run whose headline is tps at vu VUs.
func gateDoc(tps float64, vu int) *results.Document {
	return &results.Document{Format: results.FormatVersion, Kind: results.KindRun, Workload: "oltp", VU: vu, MainTxn: "oltp",
		TxnOrder: []string{"oltp"}, Txns: map[string]*results.Txn{"oltp": {Count: int64(tps * 10)}},
		Result: results.Result{Headline: &results.Headline{Name: "TPS", Unit: "transactions per second", Value: tps, Source: "client"}},
		Target: results.Target{Kind: "sqlite", Name: "SQLite"}}
}

// TestRegressionGate: results compare BASE NEW --fail-on-regression PCT on constructed stored
// results exits 1 on a significant regression beyond PCT and 0 otherwise, with one PASS or FAIL
// line per gated figure saying why.
func TestRegressionGate(t *testing.T) {
	ctx := context.Background()
	store := filepath.Join(t.TempDir(), "results.db")
	s, err := resultstore.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	runs := func(tps ...float64) string { // a group of stored runs, as "id,id,…"
		var ids []string
		for _, v := range tps {
			d := gateDoc(v, 4)
			if err := s.SaveRun(ctx, d, 0); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, d.ID)
		}
		return strings.Join(ids, ",")
	}
	interval := func(tps, rel float64) string { // one stored run with its window's interval
		d := gateDoc(tps, 4)
		d.Result.Intervals = []results.FigureInterval{{Figure: "TPS", Value: tps, Half: rel * tps, Rel: rel, Of: "txns"}}
		if err := s.SaveRun(ctx, d, 0); err != nil {
			t.Fatal(err)
		}
		return d.ID
	}
	tight, tightSlow := interval(1000, 0.02), interval(800, 0.02)
	wide, wideSlow := interval(1000, 0.10), interval(930, 0.10)
	profile := func(steps map[int][]float64) string {
		p := &results.Profile{Format: results.FormatVersion, Kind: results.KindProfile, Workload: "oltp", VUs: []int{1, 2}, Repeat: 4,
			Target: results.Target{Kind: "sqlite", Name: "SQLite"}}
		if err := s.BeginProfile(ctx, p); err != nil {
			t.Fatal(err)
		}
		for _, vu := range p.VUs {
			st := &results.Step{VU: vu}
			for _, v := range steps[vu] {
				d := gateDoc(v, vu)
				d.ProfileID = p.ID
				if err := s.SaveRun(ctx, d, 0); err != nil {
					t.Fatal(err)
				}
				st.Runs = append(st.Runs, d)
			}
			p.Steps = append(p.Steps, st)
		}
		p.Summarize()
		if err := s.UpdateProfile(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	base := runs(1000, 1010, 990, 1005)
	slower := runs(800, 810, 790, 805)          // 20% down, no overlap: significant
	noisy := runs(1100, 700, 1050, 850)         // 8% down, within the spread
	close := runs(985, 995, 980, 990)           // 1.4% down, within PCT
	single, singleSlow := runs(1000), runs(500) // single runs: untestable
	pBase := profile(map[int][]float64{1: {500, 505, 495, 502}, 2: {1000, 1010, 990, 1005}})
	pNew := profile(map[int][]float64{1: {498, 503, 497, 501}, 2: {800, 810, 790, 805}})
	pSame := profile(map[int][]float64{1: {501, 499, 504, 496}, 2: {1002, 995, 1008, 992}})
	// A run that did not measure what was planned (here: the database away for 12 s of it).
	m := gateDoc(1000, 4)
	m.Mark(results.Outage, "12.0 s without service in the window, 40 failed connection attempts")
	if err := s.SaveRun(ctx, m, 0); err != nil {
		t.Fatal(err)
	}
	marked := base[:strings.LastIndexByte(base, ',')] + "," + m.ID
	s.Close()

	for _, tc := range []struct {
		name, base, new, pct string
		code, lines          int // exit code, PASS and FAIL lines
		want                 []string
	}{
		{"significant regression", base, slower, "5", ExitFailed, 1, []string{"FAIL  TPS: A 1001.2", "-20.0%, worse by more than 5% and significant (p=0.029)", "regression: 1 of 1",
			"TPS, B against A: -20.0% [", "(95%, Welch's t over the runs); effect size d = ", "TPS of A: 1,001 ±", "(95%, Student's t over 4 runs)"}},
		{"within the spread", base, noisy, "5", ExitOK, 1, []string{"PASS  TPS:", "worse by more than 5% but within the run-to-run spread (p="}},
		{"within the tolerance", base, close, "5", ExitOK, 1, []string{"PASS  TPS:", "-1.4%, within 5% of A"}},
		{"untestable", single, singleSlow, "5", ExitOK, 1, []string{"PASS  TPS: A 1000.0 → B 500.0:", "untestable: single runs have no spread"}},
		{"profile step regressed", pBase, pNew, "5", ExitFailed, 2, []string{"PASS  1 VUs TPS:", "within 5% of A", "FAIL  2 VUs TPS:", "significant (p=0.029)", "regression: 1 of 2"}},
		{"profile unchanged", pBase, pSame, "5", ExitOK, 2, []string{"PASS  1 VUs TPS:", "PASS  2 VUs TPS:"}},
		{"bad percentage", base, slower, "0", ExitUsage, 0, []string{"--fail-on-regression 0: give the largest tolerated loss"}},
		{"not as planned", marked, slower, "5", ExitUsage, 0, []string{"result " + m.ID + " did not measure what was planned (OUTAGE: 12.0 s without service"}},
		// --gate-by interval: Welch's interval of the change over the runs, wholly below -PCT or not.
		{"interval: wholly worse", base, slower, "5 --gate-by interval", ExitFailed, 1, []string{"FAIL  TPS: A 1001.2", "-20.0% [-21.5%, -18.5%] (95%, Welch's t over the runs), wholly worse than -5%"}},
		{"interval: reaches within PCT", base, noisy, "5 --gate-by interval", ExitOK, 1, []string{"PASS  TPS:", "not wholly worse than -5%"}},
		{"interval: single runs without intervals", single, singleSlow, "5 --gate-by interval", ExitOK, 1, []string{"PASS  TPS:", "no interval of the difference"}},
		// Two single runs: their windows' intervals, -20% ± 0.8·√(2·0.02²) and -7% ± 0.93·√(2·0.1²).
		{"interval: single runs apart", tight, tightSlow, "5 --gate-by interval", ExitFailed, 1, []string{"FAIL  TPS:", "-20.0% [-22.3%, -17.7%] (95%, the two runs' own windows only, approximate"}},
		{"interval: single runs overlapping", wide, wideSlow, "5 --gate-by interval", ExitOK, 1, []string{"PASS  TPS:", "-7.0% [-20.2%, +6.2%] (95%, the two runs' own windows only, approximate"}},
		{"interval: profiles", pBase, pNew, "5 --gate-by interval", ExitUsage, 0, []string{"--gate-by interval gates runs and groups of runs"}},
		{"interval: bad way", base, slower, "5 --gate-by vibes", ExitUsage, 0, []string{`--gate-by "vibes": give test (the default) or interval`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"results", "compare", tc.base, tc.new, "--results", store, "--fail-on-regression"}, strings.Fields(tc.pct)...)
			code := Main(args, &out, &errOut)
			all := out.String() + errOut.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			if n := strings.Count(out.String(), "PASS  ") + strings.Count(out.String(), "FAIL  "); n != tc.lines {
				t.Errorf("%d PASS/FAIL lines, want %d:\n%s", n, tc.lines, out.String())
			}
		})
	}
}
