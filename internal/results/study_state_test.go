package results

import (
	"strings"
	"testing"
	"time"
)

// A study stored by an older cairn (format 2) has no ended_at: it must not read as running or
// killed, nor its restore as done, since that cairn recorded neither.
func TestStudyStateOfEveryFormat(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name          string
		s             Study
		ended         bool
		state, settle string
	}{
		{"legacy", Study{Format: 2, Restored: true}, true, "older cairn", "not known"},
		{"running or killed", Study{Format: StudyFormat}, false, "not ended", "NOT restored yet"},
		{"ended, restored", Study{Format: StudyFormat, EndedAt: &now, Restored: true, RestoredAt: &now, RestoredBy: "study"}, true, "ended", "restored and read back"},
		{"ended, not restored", Study{Format: StudyFormat, EndedAt: &now}, true, "ended", "NOT all restored"},
		{"interrupted", Study{Format: StudyFormat, EndedAt: &now, Interrupted: true}, true, "interrupted", "NOT all restored"},
	}
	for _, c := range cases {
		if got := c.s.Ended(); got != c.ended {
			t.Errorf("%s: Ended() = %v, want %v", c.name, got, c.ended)
		}
		if got := c.s.State(); !strings.Contains(got, c.state) {
			t.Errorf("%s: State() = %q, want it to say %q", c.name, got, c.state)
		}
		if got := c.s.RestoreState(); !strings.Contains(got, c.settle) {
			t.Errorf("%s: RestoreState() = %q, want it to say %q", c.name, got, c.settle)
		}
	}
}
