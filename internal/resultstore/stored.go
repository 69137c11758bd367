package resultstore

import (
	"context"
	"errors"
	"os"

	"github.com/cairn-bench/cairn/internal/results"
)

// LoadAll loads each id, in order.
func (s *Store) LoadAll(ctx context.Context, ids []string) ([]results.Loaded, error) {
	var out []results.Loaded
	for _, id := range ids {
		l, err := s.Load(ctx, id)
		if err != nil {
			return nil, err
		}
		l.ID = id
		out = append(out, l)
	}
	return out, nil
}

// Read loads results from the store at path, opened read-only for the time it takes.
func Read(ctx context.Context, path string, ids []string) ([]results.Loaded, error) {
	gs, err := ReadGroups(ctx, path, [][]string{ids}, false)
	if err != nil {
		return nil, err
	}
	return gs[0], nil
}

// ReadGroups loads groups of results from the store at path, opened read-only for the time it
// takes; comparing: as a comparison takes them (LoadGroups).
func ReadGroups(ctx context.Context, path string, groups [][]string, comparing bool) ([][]results.Loaded, error) {
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if comparing {
		return s.LoadGroups(ctx, groups)
	}
	out := make([][]results.Loaded, len(groups))
	for i, ids := range groups {
		if out[i], err = s.LoadAll(ctx, ids); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ListAt lists the results in the store at path (List), opened read-only for the time it
// takes; stored is false when there is no store there yet, which is no error.
func ListAt(ctx context.Context, path string, f Filter) (es []Entry, stored bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		return nil, true, err
	}
	defer s.Close()
	es, err = s.List(ctx, f)
	return es, true, err
}

// Mismatch is why results cannot be compared side by side.
type Mismatch int

const (
	OtherWorkload Mismatch = iota // Other is of another workload than First
	StudyAmong                    // Other is a study, compared with other results
	OtherKind                     // a run with a profile
	ProfileGroup                  // Group joins a profile with other results
	NotAStudy                     // one result alone that is no study
)

// MismatchError is results a comparison cannot put side by side; the front end words it.
type MismatchError struct {
	Why          Mismatch
	First, Other results.Loaded
	Group        []results.Loaded
}

func (e *MismatchError) Error() string {
	return "results " + e.First.ID + " and " + e.Other.ID + " cannot be compared"
}

// BadInput marks the error as the user's to fix.
func (e *MismatchError) BadInput() {}

// LoadGroups loads what a comparison compares: groups of ids (repeated runs, "3,4,5"), one study
// alone, or studies of one design (SameDesign). The results must be of one workload and one
// kind, a study only alone or among studies.
func (s *Store) LoadGroups(ctx context.Context, groups [][]string) ([][]results.Loaded, error) {
	var out [][]results.Loaded
	for _, ids := range groups {
		g, err := s.LoadAll(ctx, ids)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, Comparable(out)
}

// Comparable says whether groups of results can be compared side by side (one workload, runs
// with runs, profiles alone in their group), or whether one is a study to compare alone or with
// studies of its design; a MismatchError says why not.
func Comparable(out [][]results.Loaded) error {
	first := out[0][0]
	if len(out) == 1 && len(out[0]) == 1 {
		if first.Study == nil {
			return &MismatchError{Why: NotAStudy, First: first, Other: first}
		}
		return nil
	}
	if studiesAlone(out) {
		var ls []results.Loaded
		for _, g := range out {
			ls = append(ls, g[0])
		}
		return results.SameDesign(ls)
	}
	for _, g := range out {
		for _, l := range g {
			switch {
			case l.Workload() != first.Workload():
				return &MismatchError{Why: OtherWorkload, First: first, Other: l}
			case l.Study != nil:
				return &MismatchError{Why: StudyAmong, First: first, Other: l}
			case l.Kind() != first.Kind():
				return &MismatchError{Why: OtherKind, First: first, Other: l}
			case l.Profile != nil && len(g) > 1:
				return &MismatchError{Why: ProfileGroup, First: first, Other: l, Group: g}
			}
		}
	}
	return nil
}

// studiesAlone says whether every group is one study.
func studiesAlone(groups [][]results.Loaded) bool {
	for _, g := range groups {
		if len(g) != 1 || g[0].Study == nil {
			return false
		}
	}
	return true
}
