package workload

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// A prepare is declared, not written: a workload says what it creates, the sizes it was asked
// for, how its rows are loaded and what follows the load (CockroachDB's pkg/workload declares a
// generator's Tables and loads them with one loader), and Prepare does the rest the same way for
// every workload: it begins the schema's record (refusing objects in the way and a partial
// schema), compares the sizes with a complete schema's, sets up the load's connections, creates
// the tables, loads them, runs the steps after the load and writes the meta record.

// Stamp is the part of a workload's meta record that Prepare writes: when the prepare ran, and
// how long it took. A workload's Meta embeds it.
type Stamp struct {
	PreparedAt   time.Time `json:"prepared_at"` // to the second
	CairnVersion string    `json:"cairn_version"`
	// LoadSeconds is the time from creating the tables to the end of the prepare, or to the last
	// row loaded where the workload times the steps after the load apart (Prep.AfterSeconds).
	LoadSeconds float64 `json:"load_seconds"`
}

func (s *Stamp) stamp() *Stamp { return s }

// Data is the data a run reads, as the stamp and the given prepare options (those that make the
// same data again, by option name) record it: the result document's data.
func (s *Stamp) Data(prepare map[string]string) *results.Data {
	return &results.Data{PreparedAt: s.PreparedAt, CairnVersion: s.CairnVersion, Prepare: prepare}
}

type versionKey struct{}

// WithVersion makes a context whose prepares record cairn's version v in their Stamp: the session
// gives its own (the one path from the front end's version to the data's record).
func WithVersion(ctx context.Context, v string) context.Context {
	return context.WithValue(ctx, versionKey{}, v)
}

// VersionOf is the cairn version ctx carries (WithVersion), or "".
func VersionOf(ctx context.Context) string {
	v, _ := ctx.Value(versionKey{}).(string)
	return v
}

// Stamped is a meta record that embeds a Stamp.
type Stamped interface{ stamp() *Stamp }

// Create is an object a prepare creates and the statement that creates it.
type Create struct {
	Object
	SQL string
}

// Step is what a prepare does after the load: its phase is reported first (none when ""), then
// its objects are created (recorded as the workload's), then Run runs.
type Step struct {
	Phase  string
	Create []Create
	Run    func(ctx context.Context, l *Loading) error
}

// ExecStep is a step that runs q on the prepare's own connection and drains any rows it returns
// (MySQL's ANALYZE TABLE returns some); its error names the phase ("analyze: …").
func ExecStep(phase, q string) Step {
	return Step{Phase: phase, Run: func(ctx context.Context, l *Loading) error {
		if err := ExecAll(ctx, l.C, q); err != nil {
			return fmt.Errorf("%s: %w", phase, err)
		}
		return nil
	}}
}

// Size is one size a prepare was asked for, beside the complete schema's (SizeOf).
type Size struct {
	differs           bool
	have, asked, flag string
}

// SizeOf compares a size asked for with a complete schema's: asked's zero value asks for none
// (any size will do). word words a value for the message ("2 warehouses"), flag is the option
// that asks ("warehouses").
func SizeOf[T comparable](asked, have T, flag string, word func(T) string) Size {
	var zero T
	if asked == zero || asked == have {
		return Size{}
	}
	return Size{differs: true, have: word(have), asked: word(asked), flag: fmt.Sprintf("--%s %v", flag, asked)}
}

// Prep declares one prepare of a workload whose meta record is an M; Prepare runs it.
type Prep[M any] struct {
	Footprint Footprint
	// Meta is the record written when the prepare completes, its Stamp filled by Prepare. The
	// load and the steps may still fill it in (TPC-H's row counts).
	Meta *M
	// Sizes compares the sizes asked for with those of a complete schema (have, decoded from its
	// record); the first that differs is a MismatchError. Nil: any size will do.
	Sizes func(have *M) []Size
	// Tables are created in order before the load, after TablesPhase is reported (a phase named
	// "" is not).
	Tables      []Create
	TablesPhase string
	// Load fills the tables, after LoadPhase is reported.
	Load      func(ctx context.Context, l *Loading) error
	LoadPhase string
	// After are the steps after the load, in order: keys, indexes, routines, statistics.
	After []Step
	// AfterSeconds, when set, receives the time of the steps after the load, and the Stamp's
	// LoadSeconds then ends with the load (TPC-H's load_seconds and index_seconds).
	AfterSeconds *float64
	Loaders      int           // connections to load on (one where the target has a single writer)
	Rows         *atomic.Int64 // rows loaded so far, for a progress display (nil: counted for nobody)
	Phase        func(string)  // called with each phase's name (nil: nobody listens)
}

// Loading is what a prepare's load and the steps after it work with.
type Loading struct {
	T       target.Target
	C       target.Conn   // the prepare's own connection (its record's)
	Loaders int           // connections for parallel work: at least 1, and 1 on a single writer
	Rows    *atomic.Int64 // rows loaded so far: loaders add to it (BulkLoad does)
	session string
}

// Session sets a loading connection up for a bulk load: the dialect's LoadSession statement.
func (l *Loading) Session(ctx context.Context, c target.Conn) error {
	if l.session == "" {
		return nil
	}
	if _, err := c.Exec(ctx, l.session); err != nil {
		return fmt.Errorf("load session settings: %w", err)
	}
	return nil
}

// Load runs load jobs 0..n-1 on l.Loaders connections, each set up for a bulk load (Parallel).
func (l *Loading) Load(ctx context.Context, n int, job func(ctx context.Context, c target.Conn, i int) error) error {
	return Parallel(ctx, l.T, l.Loaders, n, l.Session, job)
}

// Parallel runs jobs 0..n-1 on l.Loaders connections with no load session: keys and indexes.
func (l *Loading) Parallel(ctx context.Context, n int, job func(ctx context.Context, c target.Conn, i int) error) error {
	return Parallel(ctx, l.T, l.Loaders, n, nil, job)
}

// Prepare runs a declared prepare against t. It returns the meta record written, or with
// ErrAlreadyPrepared or a MismatchError the complete schema's that was there.
func Prepare[M any, PM interface {
	*M
	Stamped
}](ctx context.Context, t target.Target, p Prep[M]) (*M, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var want []Object
	for _, x := range p.Tables {
		want = append(want, x.Object)
	}
	for _, st := range p.After {
		for _, x := range st.Create {
			want = append(want, x.Object)
		}
	}
	existing := new(M)
	s, err := BeginPrepare(ctx, c, t, p.Footprint, want, existing)
	if errors.Is(err, ErrAlreadyPrepared) {
		if p.Sizes != nil {
			for _, z := range p.Sizes(existing) {
				if z.differs {
					return existing, &MismatchError{S: s, Have: z.have, Asked: z.asked, Flag: z.flag}
				}
			}
		}
		return existing, err
	}
	if err != nil {
		return nil, err
	}
	phase := func(name string) {
		if p.Phase != nil && name != "" {
			p.Phase(name)
		}
	}
	l := &Loading{T: t, C: c, Loaders: max(p.Loaders, 1), Rows: p.Rows}
	if t.Dialect().SingleWriter {
		l.Loaders = 1 // one writer at a time is all SQLite allows
	}
	if l.Rows == nil {
		l.Rows = new(atomic.Int64)
	}
	if l.session, err = LoadSession(t.Dialect()); err != nil {
		return nil, err
	}
	start := time.Now()
	stamp := PM(p.Meta).stamp()
	stamp.PreparedAt, stamp.CairnVersion = start.UTC().Truncate(time.Second), VersionOf(ctx)

	phase(p.TablesPhase)
	if err := create(ctx, s, c, p.Tables); err != nil {
		return nil, err
	}
	phase(p.LoadPhase)
	if err := p.Load(ctx, l); err != nil {
		return nil, err
	}
	loaded := time.Now()
	for _, st := range p.After {
		phase(st.Phase)
		if err := create(ctx, s, c, st.Create); err != nil {
			return nil, err
		}
		if st.Run != nil {
			if err := st.Run(ctx, l); err != nil {
				return nil, err
			}
		}
	}
	stamp.LoadSeconds = time.Since(start).Seconds()
	if p.AfterSeconds != nil {
		stamp.LoadSeconds = loaded.Sub(start).Seconds()
		*p.AfterSeconds = time.Since(loaded).Seconds()
	}
	if err := s.Complete(ctx, c, p.Meta); err != nil {
		return nil, err
	}
	return p.Meta, nil
}

func create(ctx context.Context, s *Schema, c target.Conn, objs []Create) error {
	for _, x := range objs {
		if err := s.Create(ctx, c, x.Object, x.SQL); err != nil {
			return err
		}
	}
	return nil
}

// PrepareSizer is a workload that says about how many rows a prepare with opts (its prepare
// options) loads, before it runs: a study's plan says what the schemas it prepares cost.
type PrepareSizer interface {
	PrepareRows(opts any) int64
}
