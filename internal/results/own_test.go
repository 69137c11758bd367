package results

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A workload's own figures marshal where Result's former fields for them did (TPC-H's, after the
// common ones, in their order), and read back as they were written.
func TestOwnFiguresKeepTheDocument(t *testing.T) {
	// former is Result as it was when it declared TPC-H's figures itself.
	type former struct {
		Headline   *Headline `json:"headline,omitempty"`
		NOPM       *int64    `json:"nopm,omitempty"`
		TPM        *int64    `json:"tpm,omitempty"`
		TPMSource  string    `json:"tpm_source,omitempty"`
		TPMApprox  *Approx   `json:"tpm_approx,omitempty"`
		TPS        *float64  `json:"tps,omitempty"`
		QPS        *float64  `json:"qps,omitempty"`
		Power      *float64  `json:"power,omitempty"`
		Throughput *float64  `json:"throughput,omitempty"`
		QphH       *float64  `json:"qphh,omitempty"`
		GeomeanS   *float64  `json:"geomean_s,omitempty"`
	}
	f := func(v float64) *float64 { return &v }
	h := &Headline{Name: "QphH", Unit: "queries per hour × SF", Value: 20.25, Source: "client"}
	for _, c := range []struct {
		old former
		new Result
	}{
		{former{Headline: h, Power: f(40.5), Throughput: f(10), QphH: f(20.25), GeomeanS: f(0.123)},
			Result{Headline: h, Own: []OwnFigure{{"power", 40.5}, {"throughput", 10}, {"qphh", 20.25}, {"geomean_s", 0.123}}}},
		{former{Headline: h, Power: f(40.5)}, Result{Headline: h, Own: []OwnFigure{{"power", 40.5}}}},
		{former{Throughput: f(3)}, Result{Own: []OwnFigure{{"throughput", 3}}}},
		{former{TPS: f(812.5), QPS: f(16250)}, Result{TPS: f(812.5), QPS: f(16250)}},
	} {
		want, _ := json.MarshalIndent(c.old, "", "  ")
		got, err := json.MarshalIndent(c.new, "", "  ")
		if err != nil || string(got) != string(want) {
			t.Fatalf("marshals as\n%s (%v)\nwant\n%s", got, err, want)
		}
		var back Result
		if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, c.new) {
			t.Fatalf("reads back as %+v (%v), want %+v", back, err, c.new)
		}
		if again, _ := json.MarshalIndent(back, "", "  "); string(again) != string(want) {
			t.Fatalf("read and written again:\n%s\nwant\n%s", again, want)
		}
	}
	d := Document{Result: Result{Own: []OwnFigure{{"power", 40}}}}
	if d.Result.OwnValue("power") == nil || *d.Result.OwnValue("power") != 40 || d.Result.OwnValue("qphh") != nil {
		t.Errorf("OwnValue: %v %v", d.Result.OwnValue("power"), d.Result.OwnValue("qphh"))
	}
}
