package results

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Wait groups: every wait event falls in one (docs/waits.md#groups). Synch waits are the
// server's own latches and mutexes, which a workload's I/O and handler time otherwise hide.
const (
	WaitSynch = "synch"
	WaitIO    = "io"
	WaitLock  = "lock"
	WaitOther = "other"
)

// WaitGroups is the order groups are shown in.
var WaitGroups = []string{WaitSynch, WaitIO, WaitLock, WaitOther}

// WaitGroupShare is one group's part of the window's waits, as its events' shares summed.
type WaitGroupShare struct {
	Group   string  `json:"group"`
	Samples int64   `json:"samples,omitempty"`
	Count   int64   `json:"count,omitempty"`
	TimeMs  float64 `json:"time_ms,omitempty"`
	Share   float64 `json:"share"`
}

// WaitGroupOf is the group of an event, from its name and class: performance_schema's
// wait/synch/…, InnoDB's mutex and rw-lock counters and PostgreSQL's LWLock are synch;
// wait/io/… and IO are io; wait/lock/…, InnoDB's row-lock waits, Lock and BufferPin are lock.
func WaitGroupOf(e WaitEvent) string {
	switch {
	case strings.HasPrefix(e.Name, "wait/synch/"), e.Class == "innodb_mutexes", e.Class == "LWLock":
		return WaitSynch
	case e.Class == "innodb_metrics":
		if strings.HasPrefix(e.Name, "innodb_metrics/lock_") {
			return WaitLock
		}
		return WaitSynch
	case strings.HasPrefix(e.Name, "wait/io/"), e.Class == "IO":
		return WaitIO
	case strings.HasPrefix(e.Name, "wait/lock/"), strings.HasPrefix(e.Class, "lock/"), e.Class == "Lock", e.Class == "BufferPin":
		return WaitLock
	}
	return WaitOther
}

// GroupWaits sums events by group, in WaitGroups order, leaving out groups without events.
func GroupWaits(evs []WaitEvent) []WaitGroupShare {
	m := map[string]*WaitGroupShare{}
	for _, e := range evs {
		g := WaitGroupOf(e)
		s := m[g]
		if s == nil {
			s = &WaitGroupShare{Group: g}
			m[g] = s
		}
		s.Samples += e.Samples
		s.Count += e.Count
		s.TimeMs += e.TimeMs
		s.Share += e.Share
	}
	var out []WaitGroupShare
	for _, g := range WaitGroups {
		if s := m[g]; s != nil {
			s.TimeMs = math.Round(s.TimeMs*1000) / 1000
			s.Share = math.Round(s.Share*1e4) / 1e4
			out = append(out, *s)
		}
	}
	return out
}

// GroupAlone is a group's events with each one's share of the group alone (of its samples, or of
// its timed waits' time), ranked; untimed events come after, by count.
func GroupAlone(evs []WaitEvent, group string) []WaitEvent {
	var in []WaitEvent
	var total float64
	for _, e := range evs {
		if WaitGroupOf(e) != group {
			continue
		}
		in = append(in, e)
		if e.Samples > 0 {
			total += float64(e.Samples)
		} else {
			total += e.TimeMs
		}
	}
	for i := range in {
		in[i].Share = 0
		if total > 0 {
			v := in[i].TimeMs
			if in[i].Samples > 0 {
				v = float64(in[i].Samples)
			}
			in[i].Share = math.Round(1e4*v/total) / 1e4
		}
	}
	sort.SliceStable(in, func(i, j int) bool {
		a, b := in[i], in[j]
		if a.Share != b.Share {
			return a.Share > b.Share
		}
		return a.Samples+a.Count > b.Samples+b.Count
	})
	return in
}

// ByGroup is the window's waits by group: as stored, or summed from the stored events for a
// document written before groups were (its events may be cut to the top 50).
func (w *Waits) ByGroup() []WaitGroupShare {
	if w == nil {
		return nil
	}
	if len(w.Groups) > 0 {
		return w.Groups
	}
	return GroupWaits(w.Events)
}

// SynchAlone is the window's synch waits, each with its share of the synch waits alone.
func (w *Waits) SynchAlone() []WaitEvent {
	if w == nil {
		return nil
	}
	if w.Synch != nil {
		return w.Synch
	}
	return GroupAlone(w.Events, WaitSynch)
}

// GroupsText is the groups and their shares: "io 98.8%, synch 1.1%, lock 0%, other 0.1%".
func GroupsText(gs []WaitGroupShare) string {
	parts := make([]string, 0, len(gs))
	for _, g := range gs {
		switch {
		case g.Share > 0:
			parts = append(parts, fmt.Sprintf("%s %s%%", g.Group, strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", 100*g.Share), "0"), ".")))
		case g.Count > 0:
			parts = append(parts, fmt.Sprintf("%s ×%d (untimed)", g.Group, g.Count))
		}
	}
	return strings.Join(parts, ", ")
}
