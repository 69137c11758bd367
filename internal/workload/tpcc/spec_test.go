package tpcc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// A response-time constraint is met by a 90th percentile at or under its limit, measured: a
// type with no transaction in the window (no Delivery ran) has none, so its constraint is not
// met, the summary says why, and constraints_met is false; with a Delivery measured, the same
// run meets them all.
func TestConstraintWithNoneMeasured(t *testing.T) {
	run := func(deliveries int64) *results.Document {
		d := &results.Document{VU: 10, Txns: map[string]*results.Txn{}}
		for _, name := range TxnNames {
			d.Txns[name] = &results.Txn{Count: 40, LatencyMs: metrics.Latency{P90: 120}}
		}
		d.Txns["delivery"] = &results.Txn{Count: deliveries}
		if deliveries > 0 {
			d.Txns["delivery"].LatencyMs.P90 = 900
		}
		return d
	}
	f := specFigures(run(0), 1)
	if f.Met {
		t.Error("constraints_met with no Delivery measured")
	}
	var delivery *RTConstraint
	for i, c := range f.ResponseTime {
		if c.Txn == "delivery" {
			delivery = &f.ResponseTime[i]
		} else if !c.Met || c.Reason != "" {
			t.Errorf("%s: %+v, want met", c.Txn, c)
		}
	}
	if delivery == nil || delivery.Met || delivery.Reason != results.NoneMeasured {
		t.Fatalf("delivery's constraint %+v: want not met, none measured", delivery)
	}
	var b bytes.Buffer
	printSpec(&b, f)
	if out := b.String(); !strings.Contains(out, "delivery: none measured in the window, NOT met") || strings.Contains(out, "delivery 0 ms") {
		t.Errorf("the summary says:\n%s", out)
	}
	js, _ := json.Marshal(f)
	if !strings.Contains(string(js), `"constraints_met":false`) || !strings.Contains(string(js), `"reason":"none measured in the window"`) {
		t.Errorf("the document's spec: %s", js)
	}
	// A type missing from the run's transactions altogether is not measured either.
	d := run(0)
	delete(d.Txns, "delivery")
	if specFigures(d, 1).Met {
		t.Error("constraints_met with no delivery in the run's transactions")
	}
	if f := specFigures(run(3), 1); !f.Met {
		t.Errorf("with Deliveries measured under their limit: %+v", f.ResponseTime)
	}
}
