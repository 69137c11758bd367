package tpcc

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
)

// CeilingPerWarehouse is the most tpmC a warehouse can give with its 10 terminals keying and
// thinking as clause 5.2.5.7 says (the specification's 12.86).
const CeilingPerWarehouse = 12.86

// TerminalsPerWarehouse is the specification's count (clause 4.2.2).
const TerminalsPerWarehouse = 10

// rtLimitMs are the 90th-percentile response-time constraints of clause 5.2.5.3, in ms. cairn
// runs the Delivery whole while the terminal waits, so its bound is the deferred execution's 80 s.
var rtLimitMs = [5]float64{5000, 5000, 5000, 80000, 20000}

// SpecFigures is a keying and thinking run against the specification (extra.tpcc.spec).
type SpecFigures = results.SpecFigures

// RTConstraint is one type's 90th-percentile response time against its limit.
type RTConstraint = results.RTConstraint

func specFigures(d *results.Document, warehouses int) *SpecFigures {
	f := &SpecFigures{Ceiling: CeilingPerWarehouse * float64(warehouses), Met: true}
	if h := d.HeadlineFigure(); h != nil {
		f.TpmC = h.Value
	}
	f.EfficiencyPct = 100 * f.TpmC / f.Ceiling
	terminals := d.VU
	if d.Terminals != nil {
		terminals = d.Terminals.Terminals
		if d.Terminals.Of > 0 {
			terminals = d.Terminals.Of // a part's: tpmC is the whole run's, counted by the database
		}
	}
	f.TerminalsPerWarehouse = float64(terminals) / float64(warehouses)
	for i, name := range TxnNames {
		c := RTConstraint{Txn: name, LimitMs: rtLimitMs[i]}
		// A type never measured has no 90th percentile to meet its constraint with (a window
		// without a Delivery): it is not met, not met at 0 ms.
		if t := d.Txns[name]; t == nil || t.Count == 0 {
			c.Reason = results.NoneMeasured
		} else {
			c.P90Ms, c.Met = t.LatencyMs.P90, t.LatencyMs.P90 <= rtLimitMs[i]
		}
		f.Met = f.Met && c.Met
		f.ResponseTime = append(f.ResponseTime, c)
	}
	return f
}

func printSpec(w io.Writer, f *SpecFigures) {
	fmt.Fprintf(w, "efficiency: %.0f tpmC of the spec's ceiling of %.0f (12.86 per warehouse): %.1f%%", f.TpmC, f.Ceiling, f.EfficiencyPct)
	if f.TerminalsPerWarehouse != TerminalsPerWarehouse {
		fmt.Fprintf(w, " (%.3g terminals per warehouse; the ceiling assumes %d)", f.TerminalsPerWarehouse, TerminalsPerWarehouse)
	}
	fmt.Fprintln(w)
	var parts []string
	for _, c := range f.ResponseTime {
		parts = append(parts, c.Verdict())
	}
	fmt.Fprintf(w, "response-time constraints (90th percentile, clause 5.2.5.3): %s\n", strings.Join(parts, ", "))
}

// merged adds TPC-C's own figures to a run merged from its parts: the schema's and the run's
// constants (every part's are the same), the deliveries skipped in all, and the run against the
// specification again, from the merged headline and latencies.
func merged(m *results.Document, parts []*results.Document) {
	// The merged headline is NOPM again in result.nopm, for the readers of documents before
	// format 3, as each part wrote it.
	if parts[0].Result.NOPM != nil && m.Result.Headline != nil {
		nopm := int64(m.Result.Headline.Value)
		m.Result.NOPM = &nopm
	}
	x, ok := extraOf(parts[0])
	if !ok {
		return
	}
	var skips int64
	for _, d := range parts {
		switch s := d.Extra["delivery_skipped_districts"].(type) {
		case int64:
			skips += s
		case float64:
			skips += int64(s)
		}
	}
	if x.Spec != nil {
		x.Spec = specFigures(m, x.Warehouses)
	}
	m.Extra = map[string]any{"delivery_skipped_districts": skips, "tpcc": x}
}

// extraOf is the document's extra.tpcc, from a run in hand or read back from the store.
func extraOf(d *results.Document) (Extra, bool) {
	switch x := d.Extra["tpcc"].(type) {
	case Extra:
		return x, true
	case nil:
		return Extra{}, false
	default:
		var e Extra
		b, err := json.Marshal(x)
		if err != nil || json.Unmarshal(b, &e) != nil {
			return Extra{}, false
		}
		return e, true
	}
}
