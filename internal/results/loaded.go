package results

import (
	"encoding/json"
	"io"
)

// Loaded is one stored result: exactly one of its documents is set.
type Loaded struct {
	ID      string // as asked (LoadAll)
	Run     *Document
	Profile *Profile
	Study   *Study
}

// Workload is the stored result's workload.
func (l Loaded) Workload() string {
	switch {
	case l.Run != nil:
		return l.Run.Workload
	case l.Study != nil:
		return l.Study.Workload
	}
	return l.Profile.Workload
}

// Kind is KindRun, KindProfile or KindStudy.
func (l Loaded) Kind() string {
	switch {
	case l.Run != nil:
		return KindRun
	case l.Study != nil:
		return KindStudy
	}
	return KindProfile
}

// On is the target the result was measured on.
func (l Loaded) On() Target {
	switch {
	case l.Run != nil:
		return l.Run.Target
	case l.Study != nil:
		return l.Study.Target
	}
	return l.Profile.Target
}

// Export writes a stored result as JSON (its full document) or as CSV (series: a run's
// per-second time series).
func Export(w io.Writer, l Loaded, csv, series bool) error {
	if !csv {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		switch {
		case l.Run != nil:
			return enc.Encode(l.Run)
		case l.Study != nil:
			return enc.Encode(l.Study)
		}
		return enc.Encode(l.Profile)
	}
	if l.Run != nil {
		return WriteRunCSV(w, l.ID, l.Run, series)
	}
	if l.Study != nil {
		return WriteStudyCSV(w, l.ID, l.Study)
	}
	return WriteProfileCSV(w, l.ID, l.Profile)
}
