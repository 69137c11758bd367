package workload

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// Workload is what a benchmark gives the registry; the command line, run specs and studies are
// built from it, so adding one is a folder and a line in workload/all. Optional capabilities are
// found by type assertion, as CockroachDB's pkg/workload does: Checker (a consistency check),
// Runner (a run shape of its own, TPC-H's power and throughput tests), Summarizer (a section of
// its own in the printed summary), session.Progresser (its own live progress line), Tooler (commands of
// its own, tpch gen).
type Workload interface {
	Info() Info
	// PrepareOptions returns new prepare options with their defaults: a pointer to a struct
	// whose fields are declared for package options.
	PrepareOptions() any
	// Prepare creates the schema and loads it (ErrAlreadyPrepared when a complete one is there,
	// a MismatchError when it is of another size than opts asks for).
	Prepare(ctx context.Context, t target.Target, opts any, p Preparing) error
	// RunOptions returns new run options with their defaults, as PrepareOptions.
	RunOptions() any
	// Start checks the schema and opts against t and returns what the engine and the result
	// document need for one run with the given seed. Workloads with a Runner need not support it.
	Start(ctx context.Context, t target.Target, opts any, seed uint64) (*Run, error)
}

// Info describes a workload.
type Info struct {
	Name  string // the command: "tpcc"
	Title string // for messages: "TPC-C"
	Short string // one line for the command list
	Long  string // the command's help
	// Help is each command's one line, by command (prepare, run, profile, check, cleanup).
	Help      map[string]string
	Footprint Footprint
	// Engine lists the engine settings of the run spec this workload uses (vu, rampup,
	// duration, rate, latency-limit, max-retries, progress; seed always); nil means all.
	Engine []string
	// Defaults are the engine settings' defaults where the workload's differ (pgbench has no
	// rampup): "rampup" → "0s".
	Defaults map[string]string
	// Shorthands are one-letter flags for engine settings (pgbench's -c, -T, -P, -R, -L).
	Shorthands map[string]string
	// Profile says whether the workload runs as a profile over rising VU counts.
	Profile bool
}

// Headline kinds: how a run's headline figure is counted.
const (
	// HeadlineServer is a per-minute rate of a scalar the database counts (TPC-C's NOPM, from
	// SUM(d_next_o_id)), read at both ends of the window.
	HeadlineServer = "server"
	// HeadlineClient is transactions per second as the client counted them (sysbench, pgbench).
	HeadlineClient = "client"
)

// Run is one run's definition: what the engine drives and how the document reads it.
type Run struct {
	Types      []string // transaction types
	Main       int      // the main transaction type (latency in profiles and reports)
	Headline   string   // HeadlineServer or HeadlineClient
	HeadlineTx int      // HeadlineServer: the type whose completions the counter counts
	// HeadlineSQL is HeadlineServer's scalar (SUM(d_next_o_id)).
	HeadlineSQL string
	// HeadlineName and HeadlineUnit name the headline wherever it is shown and stored: "NOPM",
	// "New-Orders per minute" (result.headline).
	HeadlineName, HeadlineUnit string
	Statements                 []Statement // the statement types, when VUs time their statements
	Mode                       string      // for the document: procs, sql, a script's protocol …
	Pace                       bool        // keying and think times (Pacer VUs)
	// Describe is the start line's part that says what runs: "scale 10, select-only".
	Describe string
	// Labels name the types on the common progress line where the names are too long for it
	// (TPC-C's NO, PAY …); nil: the names.
	Labels []string
	// Routed are the types the VUs send to the replicas (target.Replicated), nil when they send
	// none: the result's connection groups are made of them (docs/result-format.md#replication).
	Routed []int
	NewVU  func(id int) (VU, error)
	// PartIDs, when set, chooses a part's share of the VU ids 0..vus-1 (Part.IDs otherwise): a
	// workload that gives each VU a home of its own keeps the parts' homes apart.
	PartIDs func(vus int, p Part) ([]int, error)
	// Data is the data the run reads, as its prepare recorded it (Stamp.Data): the document's
	// data, and what 'cairn run --bundle' prepares the same data again from. nil: none recorded.
	Data *results.Data
	// Finish adds the workload's own figures, extra and notes to the run's document.
	Finish func(d *results.Document)
}

// Label is the progress line's name of type i.
func (r *Run) Label(i int) string {
	if i < len(r.Labels) && r.Labels[i] != "" {
		return r.Labels[i]
	}
	return r.Types[i]
}

// Preparing is how prepare reports to whoever asked for it.
type Preparing interface {
	// Say prints a line of prepare's own output.
	Say(format string, a ...any)
	// Load starts the load's progress display: total rows, and the counter the loaders add to.
	Load(total int64, rows *atomic.Int64)
	// Loaded ends it.
	Loaded()
}

// Checker is a workload with a consistency check. The check prints its own lines; a violated
// condition is an error of type *CheckFailed.
type Checker interface {
	CheckOptions() any
	Check(ctx context.Context, t target.Target, opts any, w io.Writer) error
}

// CheckFailed is a check that ran and found violations.
type CheckFailed struct{ Msg string }

func (e *CheckFailed) Error() string { return e.Msg }

// Tester is a workload whose run is timed tests of its own rather than the engine's VUs over a
// window (TPC-H's power and throughput tests). Tests checks the options against the database
// and plans the tests; the session then runs them inside the same observers, ticks, events and
// document builder as an engine run, and the workload adds only its own figures (Tested.Finish).
type Tester interface {
	// Tests plans the tests; nil and no error when there is nothing to measure (TPC-H's
	// --validate, which Tests runs, its report written to w).
	Tests(ctx context.Context, t target.Target, opts any, seed uint64, w io.Writer) (*Tests, error)
}

// Tests are a workload's tests, checked and ready to run.
type Tests struct {
	Line string // what runs, the run's first line
	Mode string // the document's mode
	VUs  int    // connections running tests at once
	// Order names the timings in the order the document lists them; Main is its main one.
	Order []string
	Main  string
	// Run runs the tests: done hears each timing as it ends, from the goroutine that timed it,
	// with who naming its stream as the progress line words it. It returns what was measured
	// (nil: nothing) and the error that ended or failed the tests.
	Run func(ctx context.Context, done func(who string, tm results.Timing)) (*Tested, error)
}

// Tested is what a workload's tests measured.
type Tested struct {
	Timings []results.Timing
	// Seconds is the tests' own measured time (the sum of the tests' spans).
	Seconds     float64
	Interrupted bool
	// Finish adds the workload's own figures to the document the session built: its headline,
	// own figures, section and notes.
	Finish func(d *results.Document)
}

// Summarizer prints a workload's own section of the summary, from the document and the spec that
// ran (its engine settings and options; either may be nil for a document stored without a spec).
// With replaces, the section replaces the common summary (TPC-H's per-query table) rather than
// following it (pgbench's report).
type Summarizer interface {
	Summary(w io.Writer, d *results.Document, e *Engine, opts any)
	Replaces() bool
}

// Tool is a command of a workload's own that is not a prepare, run, check or cleanup.
type Tool struct {
	Name, Short, Long string
	Options           func() any
	Run               func(ctx context.Context, opts any, p Preparing) error
}

// Tooler is a workload with commands of its own (tpch gen).
type Tooler interface{ Tools() []Tool }

var (
	regMu     sync.Mutex
	workloads = map[string]Workload{}
)

// Register adds a workload; workload packages call it from init, and workload/all links them.
func Register(w Workload) {
	regMu.Lock()
	defer regMu.Unlock()
	name := w.Info().Name
	if _, dup := workloads[name]; dup {
		panic("workload registered twice: " + name)
	}
	workloads[name] = w
	registerFootprint(w.Info().Footprint)
}

// Get returns a registered workload.
func Get(name string) (Workload, error) {
	regMu.Lock()
	defer regMu.Unlock()
	if w, ok := workloads[name]; ok {
		return w, nil
	}
	var names []string
	for n := range workloads {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, &UnknownError{Name: name, Known: names}
}

// All lists the registered workloads by name.
func All() []Workload {
	regMu.Lock()
	defer regMu.Unlock()
	var out []Workload
	for _, w := range workloads {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Info().Name < out[j].Info().Name })
	return out
}

// RandomSeed draws a seed for runs and loads given none; it is printed and stored.
func RandomSeed() uint64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) >> 1
}

// UnknownError is a workload name nobody registered.
type UnknownError struct {
	Name  string
	Known []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown workload %q (use %v)", e.Name, e.Known)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *UnknownError) BadInput() {}
