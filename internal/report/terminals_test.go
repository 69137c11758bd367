package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// terminalsRun is a run of 100 TPC-C terminals keying and thinking over 10 pooled connections on
// 10 warehouses, as read back from the store: its terminals' section, its figures against the
// specification (Stock-Level's 90th percentile over its 20 s limit, so that a constraint is
// missed), the client's peak memory.
func terminalsRun(t testing.TB) *results.Document {
	d := testRun(t, "17", pg, 10, 1, 8)
	rng := rand.New(rand.NewPCG(8, 9))
	d.Client.PeakRSSBytes = 61 << 20
	d.Window.ClientSeconds = 25
	d.Terminals = &results.Terminals{Terminals: 100, Connections: 10, Txns: map[string]*results.TerminalTxn{}, Histograms: map[string]string{}}
	keying := []float64{18, 3, 2, 2, 2}
	think := []float64{11.8, 11.7, 9.8, 4.9, 4.8}
	sp := &results.SpecFigures{TpmC: 126, Ceiling: 128.6, EfficiencyPct: 97.98, TerminalsPerWarehouse: 10, Met: false}
	for i, name := range tpccTypes {
		h := latencies(rng, 500, 900)
		k, th, menu := keying[i]+0.002, think[i], 0.04
		d.Terminals.Txns[name] = &results.TerminalTxn{WaitMs: metrics.Summarize(h), MenuMs: &menu, KeyingS: &k, ThinkS: &th}
		d.Terminals.Histograms[name] = encode(t, h)
		limit := []float64{5000, 5000, 5000, 80000, 20000}[i]
		p90 := d.Txns[name].LatencyMs.P90
		if name == "stock_level" {
			p90 = 25400
		}
		sp.ResponseTime = append(sp.ResponseTime, results.RTConstraint{Txn: name, P90Ms: p90, LimitMs: limit, Met: p90 <= limit})
	}
	d.Extra = map[string]any{"tpcc": map[string]any{"warehouses": 10, "spec": sp}}
	nopm, tpm := int64(126), int64(291)
	d.Result.NOPM, d.Result.TPM = &nopm, &tpm
	return d
}

// The report shows a run of terminals as the summary does: beside the run's figures, the
// terminals over their connections, the efficiency and whether the response-time constraints
// held (naming the one missed); the client's peak memory and CPU; in the details, a table per
// type of the 90th percentile against its limit, the wait for a connection and the measured
// menu, keying and think times.
func TestTerminalsSection(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, []Item{{Run: terminalsRun(t)}}, ""); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<th>terminals</th><td>100 over 10 pooled connections</td>",
		"<th>efficiency</th><td>98.0%: 126 tpmC of the specification&#39;s ceiling of 129 (12.86 per warehouse)</td>",
		"<th>response-time constraints (90th percentile, clause 5.2.5.3)</th><td>NOT met: stock_level 25,400 ms &gt; 20 s</td>",
		"<th>client peak RSS</th><td>61.0 MiB</td>",
		"<th>client CPU over the window</th><td>12.8% of one core</td>",
		"Terminals (100 over 10 connections): response time from submission",
		`<td>stock_level</td><td class="n">25,400</td><td class="n">20</td><td class="warn">NOT met</td>`,
		`<td class="n">18</td><td class="n">11.8</td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if n := strings.Count(page, `<td class="n">0.04</td>`); n != 5 {
		t.Errorf("%d rows with the measured menu time, want one per type", n)
	}
	// A type with no transaction measured has no 90th percentile: its constraint is not met, and
	// the report says why rather than showing 0 ms.
	d := terminalsRun(t)
	sp := d.Extra["tpcc"].(map[string]any)["spec"].(*results.SpecFigures)
	for i, c := range sp.ResponseTime {
		if c.Txn == "delivery" {
			sp.ResponseTime[i] = results.RTConstraint{Txn: c.Txn, LimitMs: c.LimitMs, Reason: results.NoneMeasured}
		}
	}
	b.Reset()
	if err := HTML(&b, []Item{{Run: d}}, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<td>NOT met: delivery: none measured in the window, stock_level 25,400 ms &gt; 20 s</td>",
		`<td>delivery</td><td class="n">–</td><td class="n">80</td><td class="warn">NOT met: none measured in the window</td>`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// A run without terminals has neither the figures nor the table.
	b.Reset()
	if err := HTML(&b, []Item{{Run: testRun(t, "12", pg, 8, 1, 1)}}, ""); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "pooled connections") || strings.Contains(s, "efficiency") {
		t.Error("a run without terminals shows a terminals section")
	}
}
