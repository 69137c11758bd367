package session

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// build makes a run's result document from what the engine measured: the common part (window,
// transactions, histograms, series, client CPU, statements), then the headline the workload
// declared (a server-counted per-minute rate, or client-counted transactions per second), then the
// workload's own figures and notes.
func build(out *run.Outcome, cfg run.Config, def *workload.Run, t target.Target, targetVersion string,
	settings map[string]string, version string, host *results.Host) *results.Document {
	d := fromOutcome(out, def.Types, runtime.NumCPU())
	d.MainTxn = def.Types[def.Main]
	d.Mode = def.Mode
	d.Cairn = results.ThisCairn(version)
	d.Target = results.Target{Kind: t.Kind(), Name: t.Name(), Version: targetVersion, Address: t.Address(),
		Database: t.Database(), Settings: settings}
	d.Host = host
	d.Data = def.Data
	d.VU = cfg.VUs
	if c := out.Clock; out.WindowStarted {
		ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
		cc := &results.ClientClock{Ticks: c.Ticks, TickMaxMs: ms(c.TickMax), StartLateMs: ms(c.StartLate)}
		if c.Ticks > 0 {
			cc.TickMeanMs = ms(c.TickSum) / float64(c.Ticks)
		}
		if c.Ended {
			end := ms(c.EndLate)
			cc.EndLateMs = &end
		}
		d.Client.Clock = cc
	}
	if l := out.IssueLag; l != nil && l.N > 0 && d.Window.ClientSeconds > 0 {
		d.Client.IssueLag = &results.IssueLag{Transactions: l.N, MeanMs: float64(l.Sum) / float64(l.N) / 1e6,
			MaxMs: float64(l.Max) / 1e6, VUShare: l.Sum.Seconds() / runningVUSeconds(out, cfg, d.Window.ClientSeconds)}
	}
	d.Seed = cfg.Seed
	d.Window.RampupSeconds = cfg.Rampup.Seconds()
	if cfg.UntilSteady > 0 {
		d.Window.UntilSteady = untilSteadyOf(out, cfg)
		if out.WindowStarted {
			d.Window.RampupSeconds = secs(out.WindowStartsAt.Sub(out.StartedAt))
		}
	}
	addStatements(d, out.Statements, def.Statements)
	if t.Dialect().Embedded {
		// The database runs inside cairn: its CPU is the client's, and nothing else is "the server".
		d.Client.ShareOfOthers = nil
		d.Notes = append(d.Notes, "SQLite runs inside cairn: client CPU includes the database's own work")
	}
	defer func() {
		if def.Finish != nil {
			def.Finish(d)
		}
	}()
	d.Outage = outageOf(out, cfg)
	defer markOf(d, out, cfg) // on every return
	if !out.WindowStarted {
		d.Notes = append(d.Notes, "interrupted during rampup: nothing was measured")
		return d
	}
	var clientTxns int64
	for _, tx := range d.Txns {
		clientTxns += tx.Count
	}
	if def.Headline == workload.HeadlineClient {
		if secs := d.Window.ClientSeconds; secs > 0 {
			tps := float64(clientTxns) / secs
			d.Result.TPS = &tps
			d.Result.Headline = &results.Headline{Name: def.HeadlineName, Unit: def.HeadlineUnit, Value: tps, Source: "client"}
		}
	} else {
		serverHeadline(d, out, def, t, clientTxns)
	}
	if out.Interrupted {
		secs := d.Window.Seconds
		if def.Headline == workload.HeadlineClient {
			secs = d.Window.ClientSeconds
		}
		d.Notes = append(d.Notes, fmt.Sprintf("interrupted: the window was cut to %.1f s", secs))
	}
	return d
}

// markOf marks what the run did not measure as planned: its window cut short or over plan, its
// ticks late, and the time without service in it (outage); and judges its series' steady state.
func markOf(d *results.Document, out *run.Outcome, cfg run.Config) {
	why := ""
	switch {
	case out.Interrupted:
		why = "interrupted"
	case out.OutageStop:
		why = "stopped: no service for longer than max-outage " + options.FormatDuration(cfg.MaxOutage)
	}
	d.MarkWindow(why)
	d.MarkTicks()
	d.JudgeSteady()
	if o := d.Outage; o != nil && o.Seconds > 0 {
		d.Mark(results.Outage, o.Text())
	}
}

// untilSteadyOf is how the run's rampup until steady ended.
func untilSteadyOf(out *run.Outcome, cfg run.Config) *results.UntilSteady {
	u := &results.UntilSteady{MinSeconds: cfg.Rampup.Seconds(), BoundSeconds: cfg.UntilSteady.Seconds(), Ended: "stopped"}
	switch {
	case out.UntilSteady != nil && out.UntilSteady.Settled:
		j, w := secs(out.UntilSteady.Judged), secs(out.UntilSteady.WarmupEnd)
		u.Ended, u.JudgedSeconds, u.WarmupEndSeconds = "steady", &j, &w
	case out.WindowStarted:
		u.Ended = "bound"
	}
	return u
}

// outageOf is the time without service in the window and the failed connection attempts in
// it, nil when there were none.
func outageOf(out *run.Outcome, cfg run.Config) *results.OutageFigures {
	if !out.WindowStarted {
		return nil
	}
	ws := out.WindowStartsAt.Sub(out.StartedAt)
	we := ws + out.ClientWindow
	o := &results.OutageFigures{ConnectFailures: out.ConnectFailures, MaxSeconds: cfg.MaxOutage.Seconds(), Aborted: out.OutageStop}
	var total time.Duration
	for _, sp := range out.Outages {
		if d := sp.Overlap(ws, we); d > 0 {
			total += d
			o.Spans = append(o.Spans, results.OutageSpan{From: secs(max(sp.From, ws)), To: secs(min(sp.To, we))})
		}
	}
	o.Seconds = secs(total)
	if o.Seconds == 0 && o.ConnectFailures == 0 && !o.Aborted {
		return nil
	}
	if o.Spans == nil {
		o.Spans = []results.OutageSpan{}
	}
	return o
}

// secs is d in seconds, to the millisecond.
func secs(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

// serverHeadline sets the headline from the database's own count read at both ends of the window, and
// TPM from the server's transaction counter; a client count stands in, with a note, where the
// database could not be read or restarted.
func serverHeadline(d *results.Document, out *run.Outcome, def *workload.Run, t target.Target, clientTxns int64) {
	// Server counts are divided by the time between the two snapshots that read them, client
	// counts by the span they were counted over.
	mins, clientMins := d.Window.Seconds/60, d.Window.ClientSeconds/60
	if mins <= 0 || clientMins <= 0 {
		return
	}
	perMin := func(n int64) *int64 { v := int64(math.Floor(float64(n) / mins)); return &v }
	clientPerMin := func(n int64) *int64 { v := int64(math.Floor(float64(n) / clientMins)); return &v }
	h := &results.Headline{Name: def.HeadlineName, Unit: def.HeadlineUnit, Source: "server", Txn: def.Types[def.HeadlineTx]}
	if out.Start.OK && out.End.OK {
		h.Value = float64(*perMin(out.End.Headline - out.Start.Headline))
	} else {
		tx := d.Txns[h.Txn]
		h.Value, h.Source = float64(*clientPerMin(tx.Count - tx.Rollbacks)), "client"
		d.Notes = append(d.Notes, "the database could not be read at an end of the window: "+h.Name+" is client-counted")
	}
	d.Result.Headline = h
	switch {
	case t.TxnCounterSQL() == "":
		d.Result.TPM = clientPerMin(clientTxns)
		d.Result.TPMSource = "client: committed and rolled-back transactions counted by cairn"
	case out.Restarted:
		d.Result.TPM = clientPerMin(clientTxns)
		d.Result.TPMSource = "client: the server restarted during the window, so its counters are not comparable"
	case !out.Start.OK || !out.End.OK:
		d.Result.TPM = clientPerMin(clientTxns)
		d.Result.TPMSource = "client: the server could not be read at an end of the window"
	case out.Start.NoCounter || out.End.NoCounter:
		d.Result.TPM = clientPerMin(clientTxns)
		d.Result.TPMSource = "client: the server's transaction counter (" + t.TxnCounterName() + ") could not be read"
		d.Notes = append(d.Notes, "the server's transaction counter could not be read: TPM is client-counted")
	default:
		n := out.End.Counter - out.Start.Counter - out.OwnTxns
		d.Result.TPM = perMin(n)
		d.Result.TPMSource = "server: " + t.TxnCounterName()
		d.Result.TPMApprox = tpmApprox(out, n, mins)
	}
}

// tpmApprox bounds a server-counted TPM that lags the window: commits held back at the start
// reading may have been added inside the window, those held back at the end are missing, so the
// true count lies between n less the first and n plus the second.
func tpmApprox(out *run.Outcome, n int64, mins float64) *results.Approx {
	s, e := out.Start, out.End
	if s.Unflushed == 0 && e.Unflushed == 0 {
		return nil
	}
	a := &results.Approx{Min: int64(math.Floor(float64(max(n-s.Unflushed, 0)) / mins)), Max: int64(math.Floor(float64(n+e.Unflushed) / mins))}
	var why []string
	if s.Stalled+e.Stalled == 0 {
		why = append(why, "the server's sessions could not be made to publish their counts at the window's edges")
	}
	if s.Stalled > 0 {
		why = append(why, fmt.Sprintf("%s stalled in a transaction at the window's start held back up to %d earlier transactions, which may have been counted in the window",
			workload.Plural(s.Stalled, "VU"), s.Unflushed))
	}
	if e.Stalled > 0 {
		why = append(why, fmt.Sprintf("%s stalled in a transaction at the window's end held back up to %d transactions of the window, which may be missing",
			workload.Plural(e.Stalled, "VU"), e.Unflushed))
	}
	a.Why = strings.Join(why, "; ")
	return a
}

// addStatements fills the per-statement figures and the query counts from what the engine's
// statement sinks measured; it sets result.qps.
func addStatements(d *results.Document, set *metrics.StmtSet, stmts []workload.Statement) {
	if set == nil || len(stmts) == 0 {
		return
	}
	set.Flush()
	d.Statements = map[string]*results.Stmt{}
	q := &results.Queries{}
	for i, st := range stmts {
		s := &results.Stmt{Class: st.Class, Count: set.Counts[i], LatencyMs: metrics.Summarize(set.Lat[i])}
		if d.Window.ClientSeconds > 0 {
			s.PerSecond = float64(s.Count) / d.Window.ClientSeconds
		}
		d.Statements[st.Name] = s
		d.StmtOrder = append(d.StmtOrder, st.Name)
		switch st.Class {
		case workload.ClassRead:
			q.Reads += s.Count
		case workload.ClassWrite:
			q.Writes += s.Count
		default:
			q.Other += s.Count
		}
	}
	q.Total = q.Reads + q.Writes + q.Other
	if d.Window.ClientSeconds > 0 {
		q.PerSec = float64(q.Total) / d.Window.ClientSeconds
		d.Result.QPS = &q.PerSec
	}
	d.Queries = q
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// fromOutcome fills the workload-independent part of a document.
func fromOutcome(o *run.Outcome, types []string, cores int) *results.Document {
	d := &results.Document{Format: results.FormatVersion, Kind: results.KindRun, Txns: map[string]*results.Txn{}, TxnOrder: types, Errors: map[string]int64{},
		Histograms: map[string]string{}, Series: o.Series, StartedAt: o.StartedAt.UTC()}
	d.Window.PlannedSeconds = o.PlannedWindow.Seconds()
	d.Window.ClientSeconds = o.ClientWindow.Seconds()
	d.Window.Start = o.WindowStartsAt.UTC()
	if o.Start.OK && o.End.OK {
		d.Window.Seconds = o.End.At.Sub(o.Start.At).Seconds()
		d.Window.Start, d.Window.End = o.Start.At.UTC(), o.End.At.UTC()
	} else if o.WindowStarted {
		d.Window.Seconds = o.End.At.Sub(o.WindowStartsAt).Seconds()
		d.Window.End = o.End.At.UTC()
	}
	d.Interrupted = o.Interrupted
	if o.WindowStarted {
		f := o.InFlight
		d.Window.InFlight = &results.InFlight{AtEnd: f.AtEnd, OldestMs: ms(f.Oldest), Unfinished: f.Unfinished, UnfinishedOldestMs: ms(f.UnfinishedOldest)}
	}
	w := o.Window
	var total int64
	for i, name := range types {
		c := w.Counts[i]
		t := &results.Txn{Count: c.Count, Rollbacks: c.Rollbacks, Errors: c.Errors, Retries: c.Retries,
			LatencyMs: metrics.Summarize(w.Lat[i]), Late: c.Late, Skipped: c.Skipped}
		if w.Svc != nil {
			s := metrics.Summarize(w.Svc[i])
			t.ServiceMs = &s
			if d.ServiceHistograms == nil {
				d.ServiceHistograms = map[string]string{}
			}
			d.ServiceHistograms[name] = results.EncodeHist(w.Svc[i])
		}
		if d.Window.ClientSeconds > 0 {
			t.PerMinute = float64(c.Count) / (d.Window.ClientSeconds / 60)
		}
		if a := o.After; a != nil && a.Counts[i].Count+a.Counts[i].Errors > 0 {
			t.AfterWindow = &results.AfterWindow{Count: a.Counts[i].Count, Errors: a.Counts[i].Errors, LatencyMs: metrics.Summarize(a.Lat[i])}
		}
		d.Txns[name] = t
		total += c.Count
		d.Histograms[name] = results.EncodeHist(w.Lat[i])
	}
	for _, name := range types {
		if total > 0 {
			d.Txns[name].Percentage = 100 * float64(d.Txns[name].Count) / float64(total)
		}
	}
	for k, v := range w.ErrMsg {
		d.Errors[k] = v
	}
	d.Client.CPUSeconds = o.ClientCPU.Seconds()
	d.Client.Reconnects = o.Reconnects
	d.Client.Cores = cores
	d.Client.PeakRSSBytes = o.PeakRSS
	if o.Pool != nil {
		d.Terminals = terminalsOf(o.Pool, types)
	}
	if total > 0 && o.ClientCPU > 0 {
		d.Client.CPUusPerTxn = float64(o.ClientCPU.Microseconds()) / float64(total)
		if o.HostCPUOK && o.HostCPU > 0 {
			h := float64(o.HostCPU.Microseconds()) / float64(total)
			d.Client.HostCPUusPerTxn = &h
			if rest := o.HostCPU - o.ClientCPU; rest > 0 {
				s := float64(o.ClientCPU) / float64(rest)
				d.Client.ShareOfOthers = &s
			}
		}
	}
	return d
}

// terminalsOf is the document's section of a run of terminals over pooled connections.
func terminalsOf(p *run.PoolStats, types []string) *results.Terminals {
	t := &results.Terminals{Terminals: p.Terminals, Connections: p.Connections, Of: p.AllTerminals, Txns: map[string]*results.TerminalTxn{}}
	mean := func(ms []run.Mean, i int, unit time.Duration) *float64 {
		if ms == nil || ms[i].N == 0 {
			return nil
		}
		v := math.Round(float64(ms[i].Value())/float64(unit)*1000) / 1000
		return &v
	}
	t.Histograms = map[string]string{}
	for i, name := range types {
		t.Txns[name] = &results.TerminalTxn{WaitMs: metrics.Summarize(p.Wait[i]), MenuMs: mean(p.Menu, i, time.Millisecond),
			KeyingS: mean(p.Keying, i, time.Second), ThinkS: mean(p.Think, i, time.Second)}
		t.Histograms[name] = results.EncodeHist(p.Wait[i])
	}
	return t
}

// loadSegments records a load schedule's changes as the run's live changes ("vu", "rate") and
// splits its window at them into segments, as a study's live setting changes are: after the
// observers filled the document, whose readings at the changes the segments take.
func loadSegments(d *results.Document, out *run.Outcome, cfg run.Config) {
	if len(out.Loads) == 0 {
		return
	}
	// The run's vu is its spec's, the count that runs first (a study's step places the run by
	// it); the most that ran, all connected throughout, is the changes' largest.
	d.VU = cfg.Active
	for _, l := range out.Loads {
		change := func(name, value string) {
			d.Changes = append(d.Changes, results.SettingChange{AtSec: secs(l.At), T: secs(l.T), Planned: l.Planned.Seconds(),
				Name: name, Value: value, ReadBack: value})
		}
		if l.VUs > 0 {
			change(results.LoadSetting, strconv.Itoa(l.VUs))
		}
		if l.Rate > 0 {
			change(results.RateSetting, strconv.FormatFloat(l.Rate, 'g', -1, 64))
		}
	}
	d.Segments = results.Segments(d, []results.SettingValue{{Name: results.LoadSetting, Value: strconv.Itoa(cfg.Active)},
		{Name: results.RateSetting, Value: strconv.FormatFloat(cfg.Rate, 'g', -1, 64)}}, results.SettleSeconds)
}

// runningVUSeconds is the VUs' time running in a window of w seconds: every VU's, or under a
// load schedule each count's over the part of the window it ran (parked VUs issue nothing).
func runningVUSeconds(out *run.Outcome, cfg run.Config, w float64) float64 {
	if len(out.Loads) == 0 {
		return float64(cfg.VUs) * w
	}
	sum, from, n := 0.0, 0.0, cfg.Active
	for _, l := range out.Loads {
		at := min(l.At.Seconds(), w)
		sum += float64(n) * (at - from)
		from = at
		if l.VUs > 0 {
			n = l.VUs
		}
	}
	return sum + float64(n)*max(w-from, 0)
}
