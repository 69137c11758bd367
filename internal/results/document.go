// Package results defines the result document every run produces (printed, written with --json,
// later stored), and builds its common part from what the engine measured.
package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/outfile"
)

// FormatVersion is the version of the document's shape (docs/result-format.md).
const FormatVersion = 3

// Document is one run's result. docs/result-format.md defines every field.
type Document struct {
	Format    int    `json:"format"`
	Kind      string `json:"kind"` // "run"
	ID        string `json:"id,omitempty"`
	ProfileID string `json:"profile_id,omitempty"` // set on the steps of a profile or a study
	// Study places a run in its study; Changes are the settings changed live in its window.
	Study   *StudyRef       `json:"study,omitempty"`
	Changes []SettingChange `json:"setting_changes,omitempty"`
	// Segments are the window's parts between live changes, with their figures (segments.go).
	Segments    []Segment `json:"segments,omitempty"`
	Cairn       Cairn     `json:"cairn"`
	Workload    string    `json:"workload"`
	MainTxn     string    `json:"main_transaction"` // the type whose latency profiles and reports show
	StartedAt   time.Time `json:"started_at"`
	Interrupted bool      `json:"interrupted"`
	// NotAsPlanned is the mark of a run that did not measure what was planned, with its reasons
	// (mark.go); absent when it did.
	NotAsPlanned []Reason `json:"not_as_planned,omitempty"`
	Target       Target   `json:"target"`
	Host         *Host    `json:"host,omitempty"`
	// Data is the data the run measured, as its prepare recorded it (bundle.go); absent for a
	// workload that records none.
	Data *Data `json:"data,omitempty"`
	// Bundle is the bundle the run was run again from ('cairn run --bundle'); absent otherwise.
	Bundle *FromBundle `json:"from_bundle,omitempty"`
	// Housekeeping is what --after did on the database between the run before this one (of its
	// profile or study) and this one, each task timed: outside every window.
	Housekeeping []Housekeeping   `json:"housekeeping_before,omitempty"`
	VU           int              `json:"vu"`
	Mode         string           `json:"mode,omitempty"`
	Seed         uint64           `json:"seed"`
	Window       Window           `json:"window"`
	Result       Result           `json:"result"`
	Txns         map[string]*Txn  `json:"transactions"`
	TxnOrder     []string         `json:"transaction_order"`
	Statements   map[string]*Stmt `json:"statements,omitempty"`
	StmtOrder    []string         `json:"statement_order,omitempty"`
	Queries      *Queries         `json:"queries,omitempty"`
	Errors       map[string]int64 `json:"errors"`
	Client       Client           `json:"client"`
	// Terminals is set when terminals were served by pooled connections (terminals.go).
	Terminals *Terminals `json:"terminals,omitempty"`
	// Outage is the time the database gave no service in the window, and the failed attempts
	// to reach it; absent when it always did.
	Outage *OutageFigures `json:"outage,omitempty"`
	// Replication is set on a primary with replicas (replication.go).
	Replication *Replication `json:"replication,omitempty"`
	// Steady is the judgement of the per-second series: warm-up end, the window's trend (steady.go).
	Steady *Steady `json:"steady,omitempty"`
	// Server, Waits and Binding are what cairn observed (docs/result-format.md#observations).
	Server     *Server           `json:"server,omitempty"`
	Waits      *Waits            `json:"waits,omitempty"`
	Binding    *Binding          `json:"binding,omitempty"`
	Config     any               `json:"config"`
	Series     []metrics.Second  `json:"timeseries"`
	Histograms map[string]string `json:"histograms"`
	// ServiceHistograms are the service times' (Txn.ServiceMs), when latency runs from an
	// intended start or a submission: open loop, terminals.
	ServiceHistograms map[string]string `json:"service_histograms,omitempty"`
	// Timings are individually timed executions, for workloads that time each query of a stream
	// (TPC-H's power and throughput tests).
	Timings []Timing `json:"timings,omitempty"`
	// Part marks one load generator's share of a run of several (merge.go), or a merged run.
	Part  *Part          `json:"part,omitempty"`
	Notes []string       `json:"notes,omitempty"`
	Extra map[string]any `json:"extra,omitempty"`
}

// Timing is one timed query or refresh function.
type Timing struct {
	Stream  int     `json:"stream"` // 0 = power test; 1..S throughput query streams; S+1 the refresh stream
	Name    string  `json:"name"`   // "Q1".."Q22", "RF1", "RF2"
	Set     int     `json:"set,omitempty"`
	Seconds float64 `json:"seconds"`
	Rows    int     `json:"rows"`
	Error   string  `json:"error,omitempty"`
	Params  string  `json:"params,omitempty"`
}

// Upgrade fills what a document stored by an older cairn keeps elsewhere: the headline was one
// of result's figures (formerHeadline), and a workload may have kept its own figures elsewhere
// (OnUpgrade); and what it lacks that its series gives: the steady-state judgement.
func (d *Document) Upgrade() {
	if d.Result.Headline == nil {
		d.Result.Headline = d.formerHeadline()
	}
	// A run stored before the steady-state judgement is judged from its stored series, by the
	// same rules as a new one.
	if d.Kind == KindRun && d.Steady == nil && d.Result.Intervals == nil {
		d.JudgeSteady()
	}
	upgradersMu.Lock()
	f := upgraders[d.Workload]
	upgradersMu.Unlock()
	if f != nil {
		f(d)
	}
}

var (
	upgradersMu sync.Mutex
	upgraders   = map[string]func(d *Document){}
)

// OnUpgrade registers how a workload reads what an older cairn stored of its runs elsewhere:
// f gets a document read back from the store, its headline already filled in.
func OnUpgrade(workload string, f func(d *Document)) {
	upgradersMu.Lock()
	upgraders[workload] = f
	upgradersMu.Unlock()
}

// formerHeadline is the headline of a document stored before format 3, which had no
// result.headline: the figure its workload ranked by, by the names and units those used.
func (d *Document) formerHeadline() *Headline {
	r := &d.Result
	switch {
	case r.NOPM != nil:
		src := "server"
		if slices.Contains(d.Notes, "the database could not be read at an end of the window: NOPM is client-counted") {
			src = "client"
		}
		return &Headline{Name: "NOPM", Unit: "New-Orders per minute", Value: float64(*r.NOPM), Source: src, Txn: "new_order"}
	case r.TPS != nil:
		return &Headline{Name: "TPS", Unit: "transactions per second", Value: *r.TPS, Source: "client"}
	}
	// TPC-H's figures, before it named its headline.
	for _, k := range []struct{ key, name string }{{"qphh", "QphH"}, {"power", "Power"}, {"throughput", "Throughput"}} {
		if v := r.OwnValue(k.key); v != nil {
			return &Headline{Name: k.name, Unit: "queries per hour × SF", Value: *v, Source: "client"}
		}
	}
	return nil
}

// Kinds of document.
const (
	KindRun     = "run"
	KindProfile = "profile"
)

// Headline is the figure a run is ranked by, with its name and unit, as its workload named it
// ((*Document).Headline). ok is false when the run measured nothing.
func (d *Document) Headline() (name string, v float64, ok bool) {
	h := d.HeadlineFigure()
	if h == nil {
		return "", 0, false
	}
	return h.Name, h.Value, true
}

// HeadlineFigure is the run's headline: result.headline, or for a document stored before
// format 3 the figure its workload ranked by then. nil when the run measured nothing.
func (d *Document) HeadlineFigure() *Headline {
	if d.Result.Headline != nil {
		return d.Result.Headline
	}
	return d.formerHeadline()
}

// Cut says whether the measured window fell short of the planned one (Ctrl-C, an error): its
// figures cover part of a window, and are not comparable with a full run's as they are.
func (d *Document) Cut() bool {
	if d.Interrupted {
		return true
	}
	w := d.Window
	got := max(w.Seconds, w.ClientSeconds)
	// A full window ends on the engine's clock within milliseconds of its plan.
	return w.PlannedSeconds > 0 && got < 0.98*w.PlannedSeconds
}

// CutText says how much of the planned window a cut run measured: "1.75 s of 4 s".
func (d *Document) CutText() string {
	return fmt.Sprintf("%.2f s of %g s", max(d.Window.Seconds, d.Window.ClientSeconds), d.Window.PlannedSeconds)
}

// Main returns the main transaction's figures, or nil.
func (d *Document) Main() *Txn {
	if d.MainTxn != "" {
		return d.Txns[d.MainTxn]
	}
	if len(d.TxnOrder) > 0 {
		return d.Txns[d.TxnOrder[0]]
	}
	return nil
}

// TotalErrors is the number of failed transactions in the window.
func (d *Document) TotalErrors() int64 {
	var n int64
	for _, t := range d.Txns {
		n += t.Errors
	}
	return n
}

// Cairn identifies the program that measured.
type Cairn struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	// Commit is the version-control revision the binary was built from, and Modified that its
	// tree had uncommitted changes (Go's build information: vcs.revision, vcs.modified); absent
	// when the build recorded none (go run, go test, -buildvcs=false, a build outside a checkout).
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// Text is the cairn that measured, in words: "0.4.0 go1.26.8 (commit 1a2b3c4d5e6f, modified)".
func (c Cairn) Text() string {
	t := strings.TrimSpace(c.Version + " " + c.Go)
	if c.Commit != "" {
		t += " (commit " + c.Commit[:min(12, len(c.Commit))]
		if c.Modified {
			t += ", modified"
		}
		t += ")"
	}
	return t
}

// ThisCairn is this binary as results record it: version, Go version and the commit it was built
// from.
func ThisCairn(version string) Cairn {
	c := Cairn{Version: version, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				c.Commit = s.Value
			case "vcs.modified":
				c.Modified = s.Value == "true"
			}
		}
	}
	return c
}

// Target describes the database measured. A target made of several databases (a set of shards)
// says so in Members, one entry per database; its own fields then describe the set.
type Target struct {
	Kind     string            `json:"kind"`
	Name     string            `json:"name"`
	Version  string            `json:"version"`
	Address  string            `json:"address"`
	Database string            `json:"database"`
	Settings map[string]string `json:"settings,omitempty"`
	Members  []Target          `json:"members,omitempty"`
}

// Window is the measured interval.
type Window struct {
	Seconds        float64   `json:"seconds"`         // between the two database snapshots
	ClientSeconds  float64   `json:"client_seconds"`  // the span the client's counts cover
	PlannedSeconds float64   `json:"planned_seconds"` // --duration
	RampupSeconds  float64   `json:"rampup_seconds"`
	Start          time.Time `json:"start"`
	End            time.Time `json:"end"`
	// UntilSteady says how a rampup until steady (--rampup-until-steady) ended; RampupSeconds
	// is then the rampup it lasted. Absent for a fixed rampup.
	UntilSteady *UntilSteady `json:"until_steady,omitempty"`
	// InFlight is what was still running when the window ended; absent if the window never started.
	InFlight *InFlight `json:"in_flight,omitempty"`
}

// UntilSteady is how a rampup until steady ended (docs/steady-state.md#rampup-until-steady).
type UntilSteady struct {
	// MinSeconds is --rampup, the rampup's least length; BoundSeconds --rampup-until-steady.
	MinSeconds   float64 `json:"min_seconds"`
	BoundSeconds float64 `json:"bound_seconds"`
	// Ended: "steady", the warm-up of the headline's throughput was judged over at
	// JudgedSeconds since the run's start, ending at WarmupEndSeconds, and the window started at
	// the next tick; "bound", the rampup reached its bound without that judgement; "stopped", the
	// run stopped in the rampup before either.
	Ended            string   `json:"ended"`
	JudgedSeconds    *float64 `json:"judged_seconds,omitempty"`
	WarmupEndSeconds *float64 `json:"warmup_end_seconds,omitempty"`
}

// InFlight counts the transactions under way at the window's end. Their latency is in no figure of
// the window, which counts a transaction when it ends; those that completed after it are in each
// type's after_window.
type InFlight struct {
	AtEnd    int     `json:"at_end"`
	OldestMs float64 `json:"oldest_ms"` // how long the oldest had run when the window ended
	// Unfinished of them were still running when cairn stopped waiting for the VUs.
	Unfinished         int     `json:"unfinished,omitempty"`
	UnfinishedOldestMs float64 `json:"unfinished_oldest_ms,omitempty"`
}

// Result holds the headline and the other figures; which are set depends on the workload.
type Result struct {
	Headline *Headline `json:"headline,omitempty"`
	// NOPM is TPC-C's headline again, as documents before format 3 held it; TPC-C still writes
	// it for the readers of those.
	NOPM      *int64 `json:"nopm,omitempty"`
	TPM       *int64 `json:"tpm,omitempty"`
	TPMSource string `json:"tpm_source,omitempty"`
	// TPMApprox, when set, says TPM is approximate and by how much at most.
	TPMApprox *Approx  `json:"tpm_approx,omitempty"`
	TPS       *float64 `json:"tps,omitempty"`
	QPS       *float64 `json:"qps,omitempty"`
	// Intervals are the 95% intervals of the headline figures of a single run (steady.go).
	Intervals []FigureInterval `json:"intervals,omitempty"`
	// Own are the workload's own figures, after these (own.go).
	Own []OwnFigure `json:"-"`
}

// Headline is the figure a run is ranked by, named by its workload: TPC-C's NOPM, pgbench's and
// sysbench's TPS, TPC-H's QphH.
type Headline struct {
	Name  string  `json:"name"` // "NOPM", "TPS", "QphH"
	Unit  string  `json:"unit"` // "New-Orders per minute"
	Value float64 `json:"value"`
	// Source says who counted it: "server" (the database, read at both ends of the window) or
	// "client" (cairn).
	Source string `json:"source"`
	// Txn is the transaction type whose completions it counts, when it counts one type: the
	// time series' headline counts are that type's.
	Txn string `json:"transaction,omitempty"`
}

// OutageFigures is the time the database gave no service inside the measured window, and the
// failed attempts to reach it (docs/result-format.md#outage). Time without service runs from a
// connection lost (a statement failed for its connection, or a connection could not be opened)
// to the next answer of the database: a transaction completed, or a connection opened.
type OutageFigures struct {
	// Seconds is the time without service in the window; Spans each stretch of it, in seconds
	// since the run's start, clipped to the window.
	Seconds float64      `json:"seconds"`
	Spans   []OutageSpan `json:"spans"`
	// ConnectFailures are the VUs' attempts to open a connection, after losing theirs, that
	// failed inside the window.
	ConnectFailures int64 `json:"connect_failures"`
	// MaxSeconds is --max-outage (0: no limit); Aborted, that the run stopped because one
	// stretch without service lasted longer.
	MaxSeconds float64 `json:"max_outage_seconds"`
	Aborted    bool    `json:"aborted,omitempty"`
}

// OutageSpan is one stretch without service, in seconds since the run's start.
type OutageSpan struct {
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// Text says it in a line: "30.2 s without service in the window (15.1–45.3 s of the run), 57 failed connection attempts".
func (o *OutageFigures) Text() string {
	var spans []string
	for i, s := range o.Spans {
		if i == 3 {
			spans = append(spans, fmt.Sprintf("and %d more", len(o.Spans)-3))
			break
		}
		spans = append(spans, fmt.Sprintf("%.1f–%.1f s", s.From, s.To))
	}
	t := fmt.Sprintf("%.1f s without service in the window", o.Seconds)
	if len(spans) > 0 {
		t += " (" + strings.Join(spans, ", ") + " of the run)"
	}
	t += fmt.Sprintf(", %d failed connection attempt", o.ConnectFailures)
	if o.ConnectFailures != 1 {
		t += "s"
	}
	return t
}

// Approx is the range a figure's true value lies in, and why it is not exact.
type Approx struct {
	Min int64  `json:"min"`
	Max int64  `json:"max"`
	Why string `json:"why"`
}

// TPMText writes TPM for a result line: "~660" when it is approximate.
func (r *Result) TPMText() string {
	if r.TPM == nil {
		return ""
	}
	if r.TPMApprox != nil {
		return fmt.Sprintf("~%d", *r.TPM)
	}
	return fmt.Sprint(*r.TPM)
}

// Txn is one transaction type's counts and latency in the window.
type Txn struct {
	Count      int64            `json:"count"`
	Rollbacks  int64            `json:"rollbacks"`
	Errors     int64            `json:"errors"`
	Retries    int64            `json:"retries"`
	PerMinute  float64          `json:"per_minute"`
	LatencyMs  metrics.Latency  `json:"latency_ms"`
	ServiceMs  *metrics.Latency `json:"service_ms,omitempty"`
	Percentage float64          `json:"mix_percent"`
	Late       int64            `json:"late,omitempty"`    // latency above --latency-limit
	Skipped    int64            `json:"skipped,omitempty"` // open loop: not sent, already later than the limit
	// AfterWindow are the transactions in flight at the window's end that completed after it.
	AfterWindow *AfterWindow `json:"after_window,omitempty"`
}

// AfterWindow is one type's transactions that were in flight at the window's end and completed
// after it: counted nowhere else, and their latency in no other figure.
type AfterWindow struct {
	Count     int64           `json:"count"`
	Errors    int64           `json:"errors"`
	LatencyMs metrics.Latency `json:"latency_ms"`
}

// Stmt is one statement type's count and latency in the window.
type Stmt struct {
	Class     string          `json:"class"` // read, write or other
	Count     int64           `json:"count"`
	PerSecond float64         `json:"per_second"`
	LatencyMs metrics.Latency `json:"latency_ms"`
}

// Queries counts statements by class in the window, as sysbench does.
type Queries struct {
	Reads  int64   `json:"reads"`
	Writes int64   `json:"writes"`
	Other  int64   `json:"other"`
	Total  int64   `json:"total"`
	PerSec float64 `json:"per_second"`
}

// Client is what the driver itself cost.
type Client struct {
	CPUSeconds      float64  `json:"cpu_seconds"`
	CPUusPerTxn     float64  `json:"cpu_us_per_txn"`
	HostCPUusPerTxn *float64 `json:"host_cpu_us_per_txn,omitempty"`
	ShareOfOthers   *float64 `json:"cpu_share_of_rest_of_host,omitempty"`
	Reconnects      int64    `json:"reconnects"`
	Cores           int      `json:"host_cores"`
	// PeakRSSBytes is the client process's peak resident memory (VmHWM) at the run's end.
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
	// Threads is what cairn's own threads ran and waited for a CPU in the window (client.go).
	Threads *ClientThreads `json:"threads,omitempty"`
	// IssueLag is how late the VUs issued their transactions in the window (client.go).
	IssueLag *IssueLag `json:"issue_lag,omitempty"`
	// Clock is how late the run's clock came to the window's ticks and edges (client.go).
	Clock *ClientClock `json:"clock,omitempty"`
}

// EncodeHist serializes a histogram in HdrHistogram's compressed V2 format, which the library
// already returns as base64 text ("HISTF…"), so that percentiles can be recomputed and runs merged.
func EncodeHist(h *hdrhistogram.Histogram) string {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// WriteJSON writes the document through path, indented.
func (d *Document) WriteJSON(path string) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteBytes(path, append(b, '\n'))
}

// decodeConfig reads a stored config keeping its numbers exact: a run's seed is a 63-bit integer,
// which a float64 would round.
func decodeConfig(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// UnmarshalJSON reads a document, its config with exact numbers.
func (d *Document) UnmarshalJSON(b []byte) error {
	type plain Document
	var aux struct {
		*plain
		Config json.RawMessage `json:"config"`
	}
	aux.plain = (*plain)(d)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	d.Config = decodeConfig(aux.Config)
	d.upgradeMark()
	return nil
}

// WindowCPU averages the per-second CPU shares of the window's seconds: the host's and each
// core's. ok is false when none was recorded.
func (d *Document) WindowCPU() (metrics.CPUShare, []metrics.CPUShare, bool) {
	var host metrics.CPUShare
	var cores []metrics.CPUShare
	n := 0
	for _, s := range d.Series {
		if !s.Window || s.CPU == nil {
			continue
		}
		n++
		for i := range host {
			host[i] += s.CPU[i]
		}
		if len(cores) < len(s.Cores) {
			cores = append(cores, make([]metrics.CPUShare, len(s.Cores)-len(cores))...)
		}
		for c := range s.Cores {
			for i := range cores[c] {
				cores[c][i] += s.Cores[c][i]
			}
		}
	}
	if n == 0 {
		return host, nil, false
	}
	for i := range host {
		host[i] /= float64(n)
	}
	for c := range cores {
		for i := range cores[c] {
			cores[c][i] /= float64(n)
		}
	}
	return host, cores, true
}

// Housekeeping is one housekeeping task done between two runs (docs/cli.md#housekeeping-between-runs):
// on which database, how long it took, and what to know of how it went.
type Housekeeping struct {
	Task     string  `json:"task"`
	Database string  `json:"database"` // host:port/dbname or the file
	Seconds  float64 `json:"seconds"`
	Note     string  `json:"note,omitempty"`
}
