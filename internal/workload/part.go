package workload

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/options"
)

// Parting is the run spec's group of settings that make one process the I-th of N load generators
// of one run (docs/scale.md, "Several load generators").
type Parting struct {
	Part    string `opt:"part" help:"I/N: run the I-th of N shares of the VUs (1-based), one of several load generators of one run; 'cairn results merge' makes one result of the parts"`
	StartAt string `opt:"start-at" help:"with --part: the measured window's start all parts share, RFC 3339 or @UNIX-SECONDS (default: agreed through the database)"`
	PartRun string `opt:"part-run" help:"with --part: the name all parts of one run share (default: derived from the spec)"`
}

// Part is a parsed --part: the I-th (1-based) of N.
type Part struct{ I, N int }

// ParsePart reads "I/N"; the zero Part when s is empty.
func ParsePart(s string) (Part, error) {
	if s == "" {
		return Part{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Part{}, options.Errorf("part", s, "give I/N with 1 <= I <= N, like 2/3")
	}
	return Part{I: i, N: n}, nil
}

// ParseStartAt reads an RFC 3339 time or @UNIX-SECONDS; the zero time when s is empty.
func ParseStartAt(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if u, ok := strings.CutPrefix(s, "@"); ok {
		if n, err := strconv.ParseInt(u, 10, 64); err == nil && n > 0 {
			return time.Unix(n, 0), nil
		}
	} else if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, options.Errorf("start-at", s, "give an RFC 3339 time like 2026-01-02T15:04:05Z, or @UNIX-SECONDS")
}

// Check validates the group: --start-at and --part-run only go with --part.
func (p Parting) Check() error {
	if _, err := ParsePart(p.Part); err != nil {
		return err
	}
	if _, err := ParseStartAt(p.StartAt); err != nil {
		return err
	}
	if p.Part == "" && p.StartAt != "" {
		return options.Errorf("start-at", p.StartAt, "only a part of a run (--part I/N) waits for a start time")
	}
	if p.Part == "" && p.PartRun != "" {
		return options.Errorf("part-run", p.PartRun, "only a part of a run (--part I/N) has a run name")
	}
	if len(p.PartRun) > 100 {
		return options.Errorf("part-run", p.PartRun, "at most 100 characters")
	}
	return nil
}

// IDs are the VU ids of the part's share of vus VUs numbered 0..vus-1, as one process running
// all of them would number them: a contiguous block, the first vus mod N parts one larger.
func (p Part) IDs(vus int) ([]int, error) {
	if vus < p.N {
		return nil, options.Errorf("vu", fmt.Sprint(vus), "%d parts need at least %d VUs in all", p.N, p.N)
	}
	lo, hi := (p.I-1)*vus/p.N, p.I*vus/p.N
	ids := make([]int, 0, hi-lo)
	for id := lo; id < hi; id++ {
		ids = append(ids, id)
	}
	return ids, nil
}

// SeedOf is the seed parts given none share: drawn from the run's name, never 0.
func SeedOf(run string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(run))
	return h.Sum64()>>1 | 1
}
