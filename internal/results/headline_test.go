package results

import (
	"encoding/json"
	"testing"
)

// A document's headline is the one it names, whatever its other figures: the generic layers take
// the name from the document.
func TestHeadlineNamedByTheDocument(t *testing.T) {
	tps, nopm := 50.0, int64(9)
	d := &Document{Result: Result{Headline: &Headline{Name: "ops", Unit: "operations per second", Value: 7, Source: "client"}, TPS: &tps, NOPM: &nopm}}
	if name, v, ok := d.Headline(); name != "ops" || v != 7 || !ok {
		t.Errorf("Headline() = %s %v %v", name, v, ok)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back Document
	if err := json.Unmarshal(b, &back); err != nil || back.Result.Headline == nil || *back.Result.Headline != *d.Result.Headline {
		t.Errorf("round trip: %s", b)
	}
	p := &Profile{Steps: []*Step{{VU: 1, Runs: []*Document{d}}}}
	if p.HeadlineName() != "ops" || p.HeadlineUnit() != "operations per second" {
		t.Errorf("profile headline %q %q", p.HeadlineName(), p.HeadlineUnit())
	}
}
