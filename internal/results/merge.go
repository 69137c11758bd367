package results

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// Part marks a run measured by several load generators (docs/scale.md, "Several load
// generators"): on a part's document, which share it ran and the database's counters at its
// window's edges; on the merged document, the parts it was made of.
type Part struct {
	I   int    `json:"i,omitempty"` // 1-based; 0 on a merged document
	N   int    `json:"n"`
	Run string `json:"run"` // the name every part of the run was given, or derived from the spec
	// StartAt is the window's start all parts agreed on.
	StartAt time.Time `json:"start_at"`
	// Start and End are the database's counters as this part read them at its window's edges.
	Start *Edge `json:"start,omitempty"`
	End   *Edge `json:"end,omitempty"`
	// OwnTxns are the transactions of this part's own statements in the server's counter.
	OwnTxns   int64 `json:"own_txns,omitempty"`
	Restarted bool  `json:"restarted,omitempty"`
	// Parts, on a merged document, are the parts' result ids and what each cost its client.
	Parts []PartClient `json:"parts,omitempty"`
}

// Edge is one reading of the database's counters.
type Edge struct {
	At       time.Time `json:"at"`
	Headline int64     `json:"headline"`
	Counter  int64     `json:"counter"`
	// NoCounter: the server answered without its transaction counter (Counter is not one), so a
	// merge counts TPM on the clients.
	NoCounter bool `json:"no_counter,omitempty"`
}

// PartClient is one part of a merged run: its result id, VUs and client CPU.
type PartClient struct {
	I           int     `json:"i"`
	ID          string  `json:"id"`
	VU          int     `json:"vu"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	CPUusPerTxn float64 `json:"cpu_us_per_txn"`
	Hostname    string  `json:"hostname,omitempty"`
	// PeakRSSBytes is the part's client process's peak memory.
	PeakRSSBytes int64 `json:"peak_rss_bytes,omitempty"`
}

// MergeError is a set of documents that are not the parts of one run.
type MergeError struct{ Msg string }

func (e *MergeError) Error() string { return e.Msg }

// BadInput marks the error as the user's to fix (exit 2).
func (e *MergeError) BadInput() {}

func mergef(format string, a ...any) error { return &MergeError{Msg: fmt.Sprintf(format, a...)} }

// withoutPart is a part's config with its part number left out, and its prepare step (each part
// draws its own load seed, and at most one prepares): what every part of a run shares.
func withoutPart(config any) string {
	m, _ := config.(map[string]any)
	c := map[string]any{}
	for k, v := range m {
		if k != "part" && k != "prepare" {
			c[k] = v
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// Merge makes one run of the documents of every part of a run: transactions counted over the
// parts, latency histograms merged (exactly: each part stores its histograms), the headline counted
// once by the database between the earliest window-start reading and the latest window-end
// reading of the parts, each part's client CPU kept. It refuses documents that are not all the
// parts of one run, a missing part among them, and a part that did not measure the whole window.
func Merge(parts []Loaded) (*Document, error) {
	if len(parts) < 2 {
		return nil, mergef("merge needs the results of at least two parts of a run, got %d", len(parts))
	}
	var ds []*Document
	for _, l := range parts {
		d := l.Run
		if d == nil || d.Part == nil || d.Part.I == 0 {
			return nil, mergef("result %s is not a part of a run (one run with --part I/N)", l.ID)
		}
		ds = append(ds, d)
	}
	first := ds[0]
	seen := map[int]string{}
	for i, d := range ds {
		p := d.Part
		switch {
		case p.Run != first.Part.Run:
			return nil, mergef("result %s is a part of run %q, result %s of run %q: merge the parts of one run", parts[i].ID, p.Run, parts[0].ID, first.Part.Run)
		case p.N != first.Part.N || withoutPart(d.Config) != withoutPart(first.Config) || d.Workload != first.Workload:
			return nil, mergef("results %s and %s ran different specs: merge the parts of one run", parts[0].ID, parts[i].ID)
		case seen[p.I] != "":
			return nil, mergef("results %s and %s are both part %d/%d", seen[p.I], parts[i].ID, p.I, p.N)
		}
		seen[p.I] = parts[i].ID
	}
	var missing []string
	for i := 1; i <= first.Part.N; i++ {
		if seen[i] == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.Part.N))
		}
	}
	if len(missing) > 0 {
		return nil, mergef("run %q has %d parts, and part %s is not among the results: a merge of some parts would count their VUs' transactions against the whole database's, so cairn refuses it (run the whole run again)",
			first.Part.Run, first.Part.N, strings.Join(missing, ", "))
	}
	slices.SortFunc(ds, func(a, b *Document) int { return a.Part.I - b.Part.I })
	for _, d := range ds {
		// A part cut short is a missing part for the rest of the window: the database counted
		// the other parts' transactions there, without its VUs'.
		if d.Cut() {
			why := ""
			if d.Interrupted {
				why = ", interrupted"
			}
			return nil, mergef("part %d/%d (result %s) of run %q measured only %s planned%s: a merged run must be measured by every part over the whole window, so cairn refuses it (run the whole run again)",
				d.Part.I, d.Part.N, seen[d.Part.I], first.Part.Run, d.CutText(), why)
		}
	}
	ids := make(map[*Document]string, len(ds))
	for _, d := range ds {
		ids[d] = seen[d.Part.I]
	}
	return merge(ds, ids)
}

func merge(ds []*Document, ids map[*Document]string) (*Document, error) {
	first := ds[0]
	m := &Document{Format: FormatVersion, Kind: KindRun, Cairn: first.Cairn, Workload: first.Workload, MainTxn: first.MainTxn,
		StartedAt: first.StartedAt, Target: first.Target, Mode: first.Mode, Seed: first.Seed, TxnOrder: first.TxnOrder,
		Txns: map[string]*Txn{}, Errors: map[string]int64{}, Histograms: map[string]string{}, Config: first.Config}
	m.Part = &Part{N: first.Part.N, Run: first.Part.Run, StartAt: first.Part.StartAt}
	if c, ok := m.Config.(map[string]any); ok {
		cc := map[string]any{}
		for k, v := range c {
			if k != "part" {
				cc[k] = v
			}
		}
		m.Config = cc
	}
	hists, err := mergeHists(ds, ids, "latency", func(d *Document) map[string]string { return d.Histograms })
	if err != nil {
		return nil, err
	}
	svc, err := mergeHists(ds, ids, "service-time", func(d *Document) map[string]string { return d.ServiceHistograms })
	if err != nil {
		return nil, err
	}
	var cpu float64
	var start, end *Edge
	serverOK := true
	counterOK := true // every part read the server's transaction counter at both edges
	var own int64
	for _, d := range ds {
		m.VU += d.VU
		m.Interrupted = m.Interrupted || d.Interrupted
		if d.StartedAt.Before(m.StartedAt) {
			m.StartedAt = d.StartedAt
		}
		m.Window.ClientSeconds = max(m.Window.ClientSeconds, d.Window.ClientSeconds)
		m.Window.PlannedSeconds = d.Window.PlannedSeconds
		m.Window.RampupSeconds = max(m.Window.RampupSeconds, d.Window.RampupSeconds)
		for name, t := range d.Txns {
			mt := m.Txns[name]
			if mt == nil {
				mt = &Txn{}
				m.Txns[name] = mt
			}
			mt.Count += t.Count
			mt.Rollbacks += t.Rollbacks
			mt.Errors += t.Errors
			mt.Retries += t.Retries
			mt.Late += t.Late
			mt.Skipped += t.Skipped
		}
		for k, v := range d.Errors {
			m.Errors[k] += v
		}
		if f := d.Window.InFlight; f != nil {
			if m.Window.InFlight == nil {
				m.Window.InFlight = &InFlight{}
			}
			g := m.Window.InFlight
			g.AtEnd += f.AtEnd
			g.OldestMs = max(g.OldestMs, f.OldestMs)
			g.Unfinished += f.Unfinished
			g.UnfinishedOldestMs = max(g.UnfinishedOldestMs, f.UnfinishedOldestMs)
		}
		if q := d.Queries; q != nil {
			if m.Queries == nil {
				m.Queries = &Queries{}
			}
			m.Queries.Reads += q.Reads
			m.Queries.Writes += q.Writes
			m.Queries.Other += q.Other
			m.Queries.Total += q.Total
		}
		cpu += d.Client.CPUSeconds
		m.Client.Reconnects += d.Client.Reconnects
		// The parts' processes together: each held its peak at some moment, so the sum bounds
		// what they held at any one.
		m.Client.PeakRSSBytes += d.Client.PeakRSSBytes
		pc := PartClient{I: d.Part.I, ID: ids[d], VU: d.VU, CPUSeconds: d.Client.CPUSeconds, CPUusPerTxn: d.Client.CPUusPerTxn,
			PeakRSSBytes: d.Client.PeakRSSBytes}
		if d.Host != nil {
			pc.Hostname = d.Host.Hostname
		}
		m.Part.Parts = append(m.Part.Parts, pc)
		p := d.Part
		if p.Start == nil || p.End == nil || p.Restarted {
			serverOK = false
			continue
		}
		own += p.OwnTxns
		counterOK = counterOK && !p.Start.NoCounter && !p.End.NoCounter
		if start == nil || p.Start.At.Before(start.At) {
			start = p.Start
		}
		if end == nil || p.End.At.After(end.At) {
			end = p.End
		}
	}
	var total int64
	for name, t := range m.Txns {
		total += t.Count
		if h := hists[name]; h != nil {
			t.LatencyMs = metrics.Summarize(h)
			m.Histograms[name] = EncodeHist(h)
		}
		if h := svc[name]; h != nil {
			l := metrics.Summarize(h)
			t.ServiceMs = &l
			if m.ServiceHistograms == nil {
				m.ServiceHistograms = map[string]string{}
			}
			m.ServiceHistograms[name] = EncodeHist(h)
		}
		if m.Window.ClientSeconds > 0 {
			t.PerMinute = float64(t.Count) / (m.Window.ClientSeconds / 60)
		}
	}
	for _, t := range m.Txns {
		if total > 0 {
			t.Percentage = 100 * float64(t.Count) / float64(total)
		}
	}
	m.Client.CPUSeconds = cpu
	if total > 0 {
		m.Client.CPUusPerTxn = cpu * 1e6 / float64(total)
	}
	if m.Queries != nil && m.Window.ClientSeconds > 0 {
		m.Queries.PerSec = float64(m.Queries.Total) / m.Window.ClientSeconds
		m.Result.QPS = &m.Queries.PerSec
	}
	if m.Terminals, err = mergeTerminals(ds, ids, m); err != nil {
		return nil, err
	}
	m.Series = mergeSeries(ds, m.StartedAt)
	m.Notes = append(m.Notes, fmt.Sprintf("merged from %d parts (results %s): transactions summed, latency histograms merged, the time series summed on one clock; per-statement latencies, the server's observations and the hosts' CPU are each part's",
		len(ds), strings.Join(partIDs(m.Part.Parts), ", ")))
	fh := first.HeadlineFigure()
	switch {
	case fh == nil:
	case fh.Source == "client" && fh.Txn == "":
		if m.Window.ClientSeconds > 0 {
			tps := float64(total) / m.Window.ClientSeconds
			m.Result.TPS = &tps
			m.Result.Headline = &Headline{Name: fh.Name, Unit: fh.Unit, Value: tps, Source: "client"}
		}
	case serverOK && start != nil && end.At.After(start.At):
		// One database counts every part's transactions: read once, between the earliest reading
		// at a window's start and the latest at a window's end.
		m.Window.Start, m.Window.End = start.At, end.At
		m.Window.Seconds = end.At.Sub(start.At).Seconds()
		mins := m.Window.Seconds / 60
		m.Result.Headline = &Headline{Name: fh.Name, Unit: fh.Unit, Source: "server", Txn: fh.Txn,
			Value: math.Floor(float64(end.Headline-start.Headline) / mins)}
		if first.Result.TPM != nil && strings.HasPrefix(first.Result.TPMSource, "server") && counterOK {
			tpm := int64(math.Floor(float64(end.Counter-start.Counter-own) / mins))
			m.Result.TPM, m.Result.TPMSource = &tpm, first.Result.TPMSource
		}
	default:
		m.Window.Seconds = m.Window.ClientSeconds
		if t := m.Txns[fh.Txn]; t != nil && m.Window.ClientSeconds > 0 {
			m.Result.Headline = &Headline{Name: fh.Name, Unit: fh.Unit, Source: "client", Txn: fh.Txn,
				Value: math.Floor(float64(t.Count-t.Rollbacks) / (m.Window.ClientSeconds / 60))}
		}
		m.Notes = append(m.Notes, "a part could not read the database at an end of its window: "+fh.Name+" is client-counted")
	}
	if m.Result.TPM == nil && m.Window.ClientSeconds > 0 && first.Result.TPM != nil {
		tpm := int64(math.Floor(float64(total) / (m.Window.ClientSeconds / 60)))
		m.Result.TPM, m.Result.TPMSource = &tpm, "client: committed and rolled-back transactions counted by cairn"
		if !counterOK {
			m.Result.TPMSource = "client: a part could not read the server's transaction counter"
			m.Notes = append(m.Notes, "a part could not read the server's transaction counter at an edge of its window: TPM is client-counted")
		}
	}
	if m.Window.Start.IsZero() {
		m.Window.Start = first.Part.StartAt
	}
	m.Outage = mergeOutages(ds, m.StartedAt)
	m.MarkWindow("")
	if o := m.Outage; o != nil && o.Seconds > 0 {
		m.Mark(Outage, o.Text())
	}
	mergersMu.Lock()
	f := mergers[m.Workload]
	mergersMu.Unlock()
	if f != nil {
		f(m, ds)
	}
	return m, nil
}

var (
	mergersMu sync.Mutex
	mergers   = map[string]func(m *Document, parts []*Document){}
)

// OnMerge registers what a workload adds to a merged run of its parts (its own figures, extra):
// f gets the merged document, complete but for that, and the parts' documents.
func OnMerge(workload string, f func(m *Document, parts []*Document)) {
	mergersMu.Lock()
	mergers[workload] = f
	mergersMu.Unlock()
}

// mergeOutages puts the parts' stretches without service on the merged run's clock (start) and
// joins those that overlap: the run had no service where any part had none; the failed
// connection attempts are summed. nil when no part had an outage.
func mergeOutages(ds []*Document, start time.Time) *OutageFigures {
	var o *OutageFigures
	var spans []OutageSpan
	for _, d := range ds {
		po := d.Outage
		if po == nil {
			continue
		}
		if o == nil {
			o = &OutageFigures{MaxSeconds: po.MaxSeconds, Spans: []OutageSpan{}}
		}
		o.ConnectFailures += po.ConnectFailures
		o.Aborted = o.Aborted || po.Aborted
		off := d.StartedAt.Sub(start).Seconds()
		for _, s := range po.Spans {
			spans = append(spans, OutageSpan{From: s.From + off, To: s.To + off})
		}
	}
	if o == nil {
		return nil
	}
	slices.SortFunc(spans, func(a, b OutageSpan) int { return cmpFloat(a.From, b.From) })
	var total float64
	for _, s := range spans {
		if n := len(o.Spans); n > 0 && s.From <= o.Spans[n-1].To {
			o.Spans[n-1].To = max(o.Spans[n-1].To, s.To)
			continue
		}
		o.Spans = append(o.Spans, s)
	}
	for _, s := range o.Spans {
		total += s.To - s.From
	}
	o.Seconds = math.Round(total*1000) / 1000
	return o
}

// mergeHists merges the parts' histograms of each transaction type that get returns of each;
// nil when a part has none (a document of an older cairn, or a run that kept none).
func mergeHists(ds []*Document, ids map[*Document]string, what string, get func(*Document) map[string]string) (map[string]*hdrhistogram.Histogram, error) {
	out := map[string]*hdrhistogram.Histogram{}
	for _, d := range ds {
		hs := get(d)
		if len(hs) == 0 {
			return nil, nil
		}
		for name, enc := range hs {
			h, err := DecodeHist(enc)
			if err != nil {
				return nil, fmt.Errorf("result %s: %s's %s histogram: %w", ids[d], name, what, err)
			}
			if out[name] == nil {
				out[name] = metrics.NewHist()
			}
			out[name].Merge(h)
		}
	}
	return out, nil
}

// mergeTerminals is the terminals of the parts together: counted, their waits for a connection
// merged from the histograms, their measured menu, keying and think times averaged, weighted by
// each part's transactions of the type. nil unless every part ran terminals.
func mergeTerminals(ds []*Document, ids map[*Document]string, m *Document) (*Terminals, error) {
	for _, d := range ds {
		if d.Terminals == nil {
			return nil, nil
		}
	}
	waits, err := mergeHists(ds, ids, "connection-wait", func(d *Document) map[string]string { return d.Terminals.Histograms })
	if err != nil {
		return nil, err
	}
	t := &Terminals{Txns: map[string]*TerminalTxn{}}
	for _, d := range ds {
		t.Terminals += d.Terminals.Terminals
		t.Connections += d.Terminals.Connections
	}
	mean := func(name string, get func(*TerminalTxn) *float64) *float64 {
		var sum, weight float64
		for _, d := range ds {
			tt := d.Terminals.Txns[name]
			if tt == nil || get(tt) == nil || d.Txns[name] == nil {
				continue
			}
			w := float64(d.Txns[name].Count)
			sum += *get(tt) * w
			weight += w
		}
		if weight == 0 {
			return nil
		}
		v := math.Round(sum/weight*1000) / 1000
		return &v
	}
	for _, name := range m.TxnOrder {
		tt := &TerminalTxn{MenuMs: mean(name, func(x *TerminalTxn) *float64 { return x.MenuMs }),
			KeyingS: mean(name, func(x *TerminalTxn) *float64 { return x.KeyingS }),
			ThinkS:  mean(name, func(x *TerminalTxn) *float64 { return x.ThinkS })}
		if h := waits[name]; h != nil {
			tt.WaitMs = metrics.Summarize(h)
			if t.Histograms == nil {
				t.Histograms = map[string]string{}
			}
			t.Histograms[name] = EncodeHist(h)
		}
		t.Txns[name] = tt
	}
	return t, nil
}

// mergeSeries puts the parts' seconds on one clock, that of the earliest part's start (start).
// A part's series has two seconds that end at the window's edges (the rampup's last, at the
// window's start, and the window's last, at its end), and between them ticks due at whole seconds
// of its clock, late on a loaded host but never early. The parts share the window's start, so
// their edge seconds fall on the same instants of the merged clock, within the milliseconds their
// clocks are apart: each edge is one merged point, at the latest part's instant. A part's other
// second, which ended T seconds after its own start, s seconds after start, goes to the merged
// point ⌊T + s + 0.1⌋ of its side of the window (the tenth of a second allows for the parts'
// clocks starting milliseconds apart): the whole second it was due at. A point in the window and
// one outside it are never one, so the merged window's seconds count the parts' window seconds.
// A merged second sums its parts' transactions, headline transactions and errors, and has the
// highest of their 95th percentiles, an upper bound of its own (no more than 5% of every part's
// transactions that second were slower). The hosts' CPU of each second is each part's.
func mergeSeries(ds []*Document, start time.Time) []metrics.Second {
	type key struct {
		whole  int // the whole second a tick was due at, where it is no edge
		edge   int // 1: the rampup's last second, ending at the window's start; 2: the window's last
		window bool
	}
	at := map[key]*metrics.Second{}
	for _, d := range ds {
		off := d.StartedAt.Sub(start).Seconds()
		first, last := -1, -1
		for i, p := range d.Series {
			if p.Window {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		for i, p := range d.Series {
			t := p.T + off
			k := key{window: p.Window}
			switch {
			case first > 0 && i == first-1:
				k.edge = 1
			case i == last:
				k.edge = 2
			default:
				k.whole = int(math.Floor(t + 0.1))
			}
			s := at[k]
			if s == nil {
				s = &metrics.Second{T: float64(k.whole), Window: p.Window}
				at[k] = s
			}
			if k.edge > 0 {
				s.T = max(s.T, math.Round(t*1000)/1000)
			}
			s.Txns += p.Txns
			s.Headline += p.Headline
			s.Errors += p.Errors
			s.P95ms = max(s.P95ms, p.P95ms)
		}
	}
	out := make([]metrics.Second, 0, len(at))
	for _, s := range at {
		out = append(out, *s)
	}
	// At one instant, the side before the window's start comes first.
	slices.SortFunc(out, func(a, b metrics.Second) int {
		if a.T != b.T {
			return cmp.Compare(a.T, b.T)
		}
		switch {
		case a.Window == b.Window:
			return 0
		case !a.Window:
			return -1
		}
		return 1
	})
	return out
}

func partIDs(ps []PartClient) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

// DecodeHist reads a histogram EncodeHist wrote.
func DecodeHist(s string) (*hdrhistogram.Histogram, error) {
	return hdrhistogram.Decode([]byte(s))
}
