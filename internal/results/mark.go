package results

import (
	"fmt"
	"strings"
)

// The mark of a result that did not measure what was planned: one field, not_as_planned, with
// its reasons (docs/result-format.md#not_as_planned). Its figures are not comparable with those
// of a result measured as planned as they are: every place that shows the result shows the
// mark, and the regression gate refuses a marked result. Later causes add codes here.
const (
	// CutShort: the window measured less than planned (Ctrl-C, SIGTERM, an error, an outage
	// longer than --max-outage); a profile or study that stopped before its last step.
	CutShort = "cut_short"
	// OverPlan: the window ran longer than planned by more than OverPlanTolerance.
	OverPlan = "over_plan"
	// Outage: the database gave no service for part of the window (Outage).
	Outage = "outage"
	// PartMissing: one part of a run measured by several load generators; the run is its parts
	// merged ('cairn results merge').
	PartMissing = "part_missing"
	// StepFailed: a step of a profile failed; the steps before it are all it measured.
	StepFailed = "step_failed"
	// ClientBound: cairn itself was short of CPU in the window (ClientThreads.Bound).
	ClientBound = "client_bound"
)

// Reason is one cause of the mark: its code and what it was, in words.
type Reason struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// Label is the reason's name as results show it: "CUT SHORT".
func (r Reason) Label() string { return strings.ToUpper(strings.ReplaceAll(r.Code, "_", " ")) }

// String is the reason as one line shows it: "CUT SHORT: window 1.75 s of 4 s planned".
func (r Reason) String() string { return r.Label() + ": " + r.Text }

// MarkText is the reasons on one line: "CUT SHORT: …; OUTAGE: …"; "" for none.
func MarkText(rs []Reason) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, "; ")
}

// MarkCodes are the reasons' codes, in order: "cut_short,outage".
func MarkCodes(rs []Reason) string {
	var codes []string
	for _, r := range rs {
		codes = append(codes, r.Code)
	}
	return strings.Join(codes, ",")
}

func hasReason(rs []Reason, code string) bool {
	for _, r := range rs {
		if r.Code == code {
			return true
		}
	}
	return false
}

// addReason adds a reason to rs, or replaces the text of the one with its code.
func addReason(rs []Reason, code, text string) []Reason {
	for i, r := range rs {
		if r.Code == code {
			rs[i].Text = text
			return rs
		}
	}
	return append(rs, Reason{Code: code, Text: text})
}

// Mark adds a reason to the run's mark (or replaces the text of its code's).
func (d *Document) Mark(code, text string) { d.NotAsPlanned = addReason(d.NotAsPlanned, code, text) }

// Marked reports whether the run did not measure what was planned.
func (d *Document) Marked() bool { return len(d.NotAsPlanned) > 0 }

// MarkedWith reports whether the run's mark has the reason code.
func (d *Document) MarkedWith(code string) bool { return hasReason(d.NotAsPlanned, code) }

// OverPlanTolerance is how much longer than planned a window may run before it is over plan,
// at least: each edge may wait up to a second (run.EdgeWait) for the VUs to meet it. A longer
// window is over plan when it also exceeds the plan by more than OverPlanShare of it.
const (
	OverPlanTolerance = 1.0  // seconds
	OverPlanShare     = 0.02 // of the planned window
)

// MarkWindow marks what the window's own figures say: cut short (it measured less than 98% of
// the plan, or was interrupted) or over plan (beyond the tolerance). why says what cut it, when
// known ("interrupted").
func (d *Document) MarkWindow(why string) {
	w := d.Window
	if d.Cut() {
		t := "window " + d.CutText() + " planned"
		if w.PlannedSeconds == 0 {
			t = "stopped before it ended: the figures cover what ran" // a run of its own shape (TPC-H)
		}
		if why != "" {
			t += ", " + why
		}
		d.Mark(CutShort, t)
	}
	if w.PlannedSeconds > 0 && w.Seconds > w.PlannedSeconds+max(OverPlanTolerance, OverPlanShare*w.PlannedSeconds) {
		d.Mark(OverPlan, fmt.Sprintf("window %.2f s, %g s planned: its edges' readings came %.2f s late", w.Seconds, w.PlannedSeconds, w.Seconds-w.PlannedSeconds))
	}
}

// upgradeMark gives a document stored before the mark existed the mark its own fields say:
// its cut short (and its over plan).
func (d *Document) upgradeMark() {
	if d.NotAsPlanned != nil {
		return
	}
	why := ""
	if d.Interrupted {
		why = "interrupted"
	}
	d.MarkWindow(why)
}

// Mark adds a reason to the profile's mark.
func (p *Profile) Mark(code, text string) { p.NotAsPlanned = addReason(p.NotAsPlanned, code, text) }

// Reasons are the profile's own and its runs': a profile is not as planned when any of
// its runs is not.
func (p *Profile) Reasons() []Reason {
	rs := append([]Reason(nil), p.NotAsPlanned...)
	if p.Interrupted {
		rs = addReason(rs, CutShort, "stopped before its last step: the steps below are all that ran")
	}
	for _, st := range p.Steps {
		for _, d := range st.Runs {
			for _, r := range d.NotAsPlanned {
				if r.Code != PartMissing && !hasReason(rs, r.Code) {
					rs = append(rs, Reason{Code: r.Code, Text: fmt.Sprintf("the run at %d VUs: %s", st.VU, r.Text)})
				}
			}
		}
	}
	return rs
}
