package report

import (
	"bytes"
	"fmt"
	"html"
	"strings"
	"testing"
)

// A run whose warm-up reached into its window shows it: the throughput and p95 charts shade the
// window's seconds from its start to where the series settled, and the figures carry their 95%
// intervals, both as the document's steady section and result.intervals say (docs/steady-state.md).
func TestSteadyShown(t *testing.T) {
	d := testRun(t, "12", pg, 8, 1, 1)
	// A warm-up that lasts to 12 s, 7 s past the 5 s rampup: the server still filling its cache.
	for i := range d.Series {
		if d.Series[i].T < 12 {
			d.Series[i].Txns /= 3
			d.Series[i].Headline /= 3
		}
	}
	d.Result.Headline = nil // the fixture's headline is NOPM from result.nopm (formerHeadline)
	d.JudgeSteady()
	st := d.Steady
	if st == nil || st.ShortBySeconds <= 0 {
		t.Fatalf("the constructed warm-up was not found past the rampup: %+v", st)
	}
	cs := Charts([]Item{{Run: d}})
	for _, id := range []string{"run-throughput", "run-p95"} {
		found := false
		for _, c := range cs {
			if c.ID != id {
				continue
			}
			for _, b := range c.Bands {
				if b.Label == "still warming up" && b.From == st.WindowStartSeconds && b.To == st.FromSeconds {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%s: no band from %v to %v shading the warm-up in the window", id, st.WindowStartSeconds, st.FromSeconds)
		}
	}
	var b bytes.Buffer
	if err := HTML(&b, []Item{{Run: d}}, "steady"); err != nil {
		t.Fatal(err)
	}
	out := html.UnescapeString(b.String())
	for _, name := range []string{"NOPM", "TPM"} {
		iv := d.Result.Interval(name)
		if iv == nil {
			t.Fatalf("no interval of %s: %+v", name, d.Result.Intervals)
		}
		if want := fmt.Sprintf("±%.1f%% (95%%", 100*iv.Rel); !strings.Contains(out, want) {
			t.Errorf("the report lacks %s's interval %q", name, want)
		}
	}
	if want := fmt.Sprintf("the 5 s rampup was %.0f s short", st.ShortBySeconds); !strings.Contains(out, want) {
		i := strings.Index(out, "steady state")
		t.Errorf("the report lacks %q: %s", want, out[i:min(len(out), i+300)])
	}
}
