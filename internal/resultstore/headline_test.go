package resultstore

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// Documents stored before format 3 have no result.headline: their headline is read from the
// figure their workload ranked by, under the name and unit it had, and a store reading them back
// fills it in.
func TestHeadlineOfEarlierDocuments(t *testing.T) {
	for _, c := range []struct {
		result, notes string
		want          results.Headline
	}{
		{`{"nopm": 35124, "tpm": 81590}`, `[]`, results.Headline{Name: "NOPM", Unit: "New-Orders per minute", Value: 35124, Source: "server", Txn: "new_order"}},
		{`{"nopm": 120}`, `["the database could not be read at an end of the window: NOPM is client-counted"]`,
			results.Headline{Name: "NOPM", Unit: "New-Orders per minute", Value: 120, Source: "client", Txn: "new_order"}},
		{`{"tps": 812.5, "qps": 16250}`, `[]`, results.Headline{Name: "TPS", Unit: "transactions per second", Value: 812.5, Source: "client"}},
		{`{"power": 40, "throughput": 10, "qphh": 20}`, `[]`, results.Headline{Name: "QphH", Unit: "queries per hour × SF", Value: 20, Source: "client"}},
		{`{"power": 40}`, `[]`, results.Headline{Name: "Power", Unit: "queries per hour × SF", Value: 40, Source: "client"}},
	} {
		var d results.Document
		if err := json.Unmarshal([]byte(`{"format": 2, "kind": "run", "workload": "w", "result": `+c.result+`, "notes": `+c.notes+`}`), &d); err != nil {
			t.Fatal(err)
		}
		if name, v, ok := d.Headline(); !ok || name != c.want.Name || v != c.want.Value {
			t.Errorf("%s: Headline() = %s %v %v", c.result, name, v, ok)
		}
		if h := d.HeadlineFigure(); h == nil || *h != c.want {
			t.Errorf("%s: headline %+v, want %+v", c.result, h, c.want)
		}
		ctx := context.Background()
		s, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SaveRun(ctx, &d, 0); err != nil {
			t.Fatal(err)
		}
		got, _, err := s.Get(ctx, d.ID)
		s.Close()
		if err != nil || got.Result.Headline == nil || *got.Result.Headline != c.want {
			t.Errorf("%s: read back from the store: %+v, %v", c.result, got.Result.Headline, err)
		}
	}
	var none results.Document
	if h := none.HeadlineFigure(); h != nil {
		t.Errorf("a run that measured nothing: headline %+v", h)
	}
}
