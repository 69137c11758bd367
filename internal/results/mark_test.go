package results

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A document stored before the mark existed is read with the mark its own fields say: an
// interrupted run's cut short, a window that ran beyond the plan's tolerance over plan; a full
// window none. A document with its mark keeps it as written.
func TestMarkOfEarlierDocuments(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"format": 3, "kind": "run", "interrupted": true, "window": {"seconds": 1.75, "client_seconds": 1.75, "planned_seconds": 4}}`,
			"[CUT SHORT: window 1.75 s of 4 s planned, interrupted]"},
		{`{"format": 2, "kind": "run", "interrupted": false, "window": {"seconds": 29.8, "client_seconds": 10, "planned_seconds": 10}}`,
			"[OVER PLAN: window 29.80 s, 10 s planned: its edges' readings came 19.80 s late]"},
		// Within the tolerance: a second at most, or 2% of a long window.
		{`{"format": 3, "kind": "run", "window": {"seconds": 10.9, "client_seconds": 10, "planned_seconds": 10}}`, "[]"},
		{`{"format": 3, "kind": "run", "window": {"seconds": 3640, "client_seconds": 3600, "planned_seconds": 3600}}`, "[]"},
		{`{"format": 3, "kind": "run", "window": {"seconds": 10, "client_seconds": 10, "planned_seconds": 10},
			"not_as_planned": [{"code": "outage", "text": "12.0 s without service"}]}`, "[OUTAGE: 12.0 s without service]"},
	} {
		var d Document
		if err := json.Unmarshal([]byte(c.doc), &d); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(d.NotAsPlanned); got != c.want && !(got == "[]" && c.want == "[]") {
			t.Errorf("%s\n  marked %s, want %s", c.doc, got, c.want)
		}
		if d.Marked() != (c.want != "[]") {
			t.Errorf("%s: Marked() %v", c.doc, d.Marked())
		}
	}
}
