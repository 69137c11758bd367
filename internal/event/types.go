package event

import (
	"slices"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// What runs: results.KindRun, KindProfile or KindStudy name it in the events below.

// Begun: a run, profile or study begins; Line says what runs. A profile's and a study's carry
// their document, stored by the sink before the first run (runs refer to its id).
type Begun struct {
	What, Line string
	Profile    *results.Profile
	Study      *results.Study
}

// Note is a line to show before a run: the host's warnings, a study's wait for its lock.
type Note struct{ Line string }

// Text is a line of what a part of cairn says as text: prepare's, a check's, a workload's own
// run's, a study's restart command's. Err: it tells what is under way (a terminal's stderr)
// rather than what was done.
type Text struct {
	Line string
	Err  bool
}

// Opened: a profile or a study was stored as ID in the store at Path before its first run, to
// be completed as it goes.
type Opened struct{ What, ID, Path string }

// StepBegun: step I of N of a profile or study begins: VU virtual users, repeat Repeat of
// Repeats; Case names a study's case.
type StepBegun struct {
	What     string
	I, N, VU int
	// Rate is the open-loop rate a capacity search's step asks for; 0: closed loop.
	Rate            float64
	Repeat, Repeats int
	Case            string
}

// StepDone: step I measured Run (a subscriber that stores it sets its ID). Profile is the
// profile it belongs to, its summary updated; nil for a study's step.
type StepDone struct {
	What    string
	I       int
	Run     *results.Document
	Profile *results.Profile
}

// Checkpoint is a study as it stands after a step and at its end (its steps naming their runs'
// ids): stored, a kill at any point leaves a document that says what happened up to there.
type Checkpoint struct{ Study *results.Study }

// Applied: a study set Name to Value and the server reads back ReadBack ("" when the setting
// was restored as found); Live: inside a run's window, on the study's schedule, At being the
// schedule's instant it was planned for (from the window's start): the changes planned for one
// instant open one live segment.
type Applied struct {
	Name, Value, ReadBack string
	Live                  bool
	At                    time.Duration
}

// Window: the engine's measured window starts (Start) or ends, on the engine's clock. At is the
// edge's planned instant, from which the per-second series counts the window: the event comes
// after the edge's readings (the VUs publishing, the observers reading), up to a second later,
// so what is timed from the window's start counts from At, not from when the event came.
type Window struct {
	Start bool
	At    time.Time
}

// Summary: the finished document, one of Run, Profile and Study. Spec is the *spec.Spec a run
// ran (the summary words its settings; this package sits below spec), nil otherwise.
type Summary struct {
	What    string
	Run     *results.Document
	Profile *results.Profile
	Study   *results.Study
	Spec    any
}

// Reasons are the reasons for the finished document's mark (results.Reason): a run's, a
// profile's, or every reason of a study's runs, each code once.
func (s Summary) Reasons() []results.Reason {
	switch {
	case s.Run != nil:
		return s.Run.NotAsPlanned
	case s.Profile != nil:
		return s.Profile.Reasons()
	case s.Study != nil:
		var rs []results.Reason
		for _, d := range s.Study.Runs() {
			for _, x := range d.NotAsPlanned {
				if !slices.ContainsFunc(rs, func(y results.Reason) bool { return y.Code == x.Code }) {
					rs = append(rs, x)
				}
			}
		}
		return rs
	}
	return nil
}

// Stored: What was stored as ID in the store at Path.
type Stored struct{ What, ID, Path string }

// NotStored: the study ID measured nothing and was removed from the store.
type NotStored struct{ What, ID string }

// Written: What's document was written to Path.
type Written struct{ What, Path string }

// Interrupted: stopped before What started; nothing was measured.
type Interrupted struct{ What string }

// Tick is one second of an engine run, published from the engine's monitor goroutine, in order,
// the last one (Phase "done") included.
type Tick struct {
	// Second is the second's figures with the observers' parts, as the time series keeps it. Its
	// CPU and Cores are shared by every subscriber: read them, do not change them.
	Second   metrics.Second
	Phase    string // "rampup", "window", "done" (the last tick)
	Elapsed  time.Duration
	InWindow time.Duration // how far into the measured window, in it
	// Txns and Errors count every transaction since the run started (the rampup's too).
	Txns, Errors int64
	// VUs is the run's virtual users; Types names the transaction types Set and Measured index.
	VUs   int
	Types []string
	// Set is this second's transactions per type (counts and latencies, rampup's and window's
	// alike); Measured, of this second's, those the measured window counts. Both are reused for
	// the next second: read them during the call, do not keep them.
	Set      *metrics.Set
	Measured []metrics.Counts
}

// Progress is one live progress sample: the engine publishes one every progress interval and one
// at the end, Line wording it as the terminal shows it.
type Progress struct {
	Elapsed  time.Duration
	Phase    string // "rampup", "window", "done"
	InWindow time.Duration
	// Headline names the run's headline figure ("NOPM", "TPS", "requests/s"). PerMinute: it is a
	// per-minute rate of one type's completions (TPC-C's NOPM), HeadlinePM its rate over the
	// interval; otherwise the headline is the interval's transactions per second (Count over
	// Interval) and HeadlinePM is 0.
	Headline  string
	PerMinute bool
	// HeadlinePM and TxnPM (TPM) are per-minute rates over the interval, counted by Source:
	// "server" (the database's counters, as the run's headline is) or "client" (cairn's own
	// count, where the database has no counter or did not answer).
	HeadlinePM float64
	TxnPM      float64
	Source     string
	P95        []float64
	Errors     int64
	Retries    int64
	Count      int64         // transactions in the interval
	Interval   time.Duration // since the previous line
	MeanMs     float64       // mean latency of the main type in the interval
	StdDevMs   float64
	LagMs      float64 // with a rate: mean schedule lag of the interval
	Late       int64
	Skipped    int64
	Waits      string // the observers' part of the line: the interval's top wait events
	// TopWaits are the wait events Waits names, their shares as it shows them.
	TopWaits []results.WaitEvent
	// Line is the sample as the progress line words it (the workload's own, or the common one).
	Line string
}

// Loading is a prepare's load as it goes: published once a second while it loads and once when
// it ends (Done). Rows of Total have been loaded in Elapsed; Total is what the prepare expects to
// load (TPC-C's order lines vary around it). Tables and Loaders count the rows per table and per
// loader (connection) where the load counts them (workload.Tally): loads through
// workload.BulkLoad do; both are empty otherwise.
type Loading struct {
	Elapsed     time.Duration
	Total, Rows int64
	Tables      []TableRows
	Loaders     []int64
	Done        bool
}

// TableRows is one table's rows loaded so far.
type TableRows struct {
	Name string
	Rows int64
}

// Rate is the rows loaded per second since the load began.
func (l Loading) Rate() float64 {
	if l.Elapsed <= 0 {
		return 0
	}
	return float64(l.Rows) / l.Elapsed.Seconds()
}

// Left estimates the time the load still takes, at its rate so far; false while there is no rate
// or once the rows expected are loaded.
func (l Loading) Left() (time.Duration, bool) {
	r := l.Rate()
	if r <= 0 || l.Rows >= l.Total {
		return 0, false
	}
	return time.Duration(float64(l.Total-l.Rows) / r * float64(time.Second)), true
}

// QueryDone: a workload's own test (TPC-H's power or throughput test) finished one timed query
// or refresh function, as Timing records it (its stream, name, seconds, rows, error). Who names
// its stream as the progress line words it ("power", "stream 2", "refresh"). Published from the
// goroutine of the stream that ran it.
type QueryDone struct {
	Who    string
	Timing results.Timing
}

func (Begun) event()       {}
func (Note) event()        {}
func (Text) event()        {}
func (Opened) event()      {}
func (StepBegun) event()   {}
func (StepDone) event()    {}
func (Checkpoint) event()  {}
func (Applied) event()     {}
func (Window) event()      {}
func (Summary) event()     {}
func (Stored) event()      {}
func (NotStored) event()   {}
func (Written) event()     {}
func (Interrupted) event() {}
func (Tick) event()        {}
func (Progress) event()    {}
func (QueryDone) event()   {}
func (Loading) event()     {}
