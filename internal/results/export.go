package results

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"
)

// WriteRunCSV writes a run as CSV: one row per transaction type, or with series its per-second
// time series. id is the result's id in the store.
func WriteRunCSV(w io.Writer, id string, d *Document, series bool) error {
	cw := csv.NewWriter(w)
	if series {
		cw.Write([]string{"t_seconds", "in_window", "txns", "headline_txns", "errors", "p95_ms", "connect_failures", "no_service_s"})
		for _, s := range d.Series {
			cw.Write([]string{f64(s.T), strconv.FormatBool(s.Window), i64(s.Txns), i64(s.Headline), i64(s.Errors), f64(s.P95ms),
				i64(s.ConnectFailures), f64(s.NoServiceS)})
		}
	} else {
		cw.Write([]string{"id", "transaction", "count", "per_minute", "mix_percent", "rollbacks", "errors", "retries",
			"mean_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "not_as_planned"})
		for _, n := range d.TxnOrder {
			t := d.Txns[n]
			c := t.LatencyMs
			cw.Write(append([]string{id, n, i64(t.Count), f64(t.PerMinute), f64(t.Percentage), i64(t.Rollbacks), i64(t.Errors), i64(t.Retries)},
				f64(c.Mean), f64(c.P50), f64(c.P90), f64(c.P95), f64(c.P99), f64(c.P999), f64(c.Max), MarkCodes(d.NotAsPlanned)))
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteProfileCSV writes a profile as CSV, one row per run of each step.
func WriteProfileCSV(w io.Writer, id string, p *Profile) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"profile_id", "vu", "run_id", "repeat", strings.ToLower(p.Headline), "tpm", "main_p50_ms", "main_p95_ms",
		"main_p99_ms", "errors", "client_cpu_us_per_txn", "window_seconds", "planned_seconds", "interrupted", "cut", "not_as_planned",
		"profile_not_as_planned"})
	profileMarks := MarkCodes(p.Reasons())
	for _, st := range p.Steps {
		for r, d := range st.Runs {
			_, h, _ := d.Headline()
			var tpm string
			if d.Result.TPM != nil {
				tpm = i64(*d.Result.TPM)
			}
			var p50, p95, p99 string
			if m := d.Main(); m != nil {
				p50, p95, p99 = f64(m.LatencyMs.P50), f64(m.LatencyMs.P95), f64(m.LatencyMs.P99)
			}
			cw.Write([]string{id, strconv.Itoa(st.VU), d.ID, strconv.Itoa(r + 1), f64(h), tpm, p50, p95, p99,
				i64(d.TotalErrors()), f64(d.Client.CPUusPerTxn), f64(d.Window.Seconds), f64(d.Window.PlannedSeconds),
				strconv.FormatBool(d.Interrupted), strconv.FormatBool(d.Cut()), MarkCodes(d.NotAsPlanned), profileMarks})
		}
	}
	cw.Flush()
	return cw.Error()
}

func i64(v int64) string   { return strconv.FormatInt(v, 10) }
func f64(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// WriteStudyCSV writes one row per run of a study, in running order, with its case's levels;
// a run with live changes is followed by a row per segment (segment 1, 2, …; the run's own row
// is segment "all", its segment_tps and segment_qps the run's), with the segment's figures
// (docs/result-format.md#segments).
func WriteStudyCSV(w io.Writer, id string, s *Study) error {
	cw := csv.NewWriter(w)
	head := []string{"study_id", "step", "case"}
	for _, f := range s.Factors {
		head = append(head, f.Name)
	}
	head = append(head, "vu", "repeat", "run_id", "segment", "live_values", strings.ToLower(s.Headline), "main_p95_ms",
		"segment_tps", "segment_qps", "segment_p95_ms", "errors", "window_seconds", "planned_seconds", "interrupted", "cut", "not_as_planned")
	fan := fanoutCSVHead(s) // a fan-out study's own figures, after the common columns
	cw.Write(append(head, fan...))
	for _, d := range s.Runs() {
		c := s.Cases[d.Study.Case]
		lead := []string{id, strconv.Itoa(d.Study.Step + 1), c.Label}
		for _, f := range s.Factors {
			v := ""
			for _, l := range c.Levels {
				if l.Name == f.Name {
					v = l.Value
				}
			}
			lead = append(lead, v)
		}
		lead = append(lead, strconv.Itoa(d.VU), strconv.Itoa(d.Study.Repeat+1), d.ID)
		_, h, _ := d.Headline()
		var p95 string
		if m := d.Main(); m != nil {
			p95 = f64(m.LatencyMs.P95)
		}
		cw.Write(append(append(slices.Clone(lead), "all", "", f64(h), p95, optF64(d.Result.TPS), optF64(d.Result.QPS), "",
			i64(d.TotalErrors()), f64(d.Window.Seconds), f64(d.Window.PlannedSeconds), strconv.FormatBool(d.Interrupted), strconv.FormatBool(d.Cut()),
			MarkCodes(d.NotAsPlanned)), fanoutCSVCells(fan, d)...))
		for _, g := range s.RunSegments(d) {
			tps, p95 := "", ""
			if g.Seconds > 0 {
				tps, p95 = f64(g.TPS), f64(g.P95ms)
			}
			row := append(slices.Clone(lead), strconv.Itoa(g.Index), g.Label(), "", "", tps, optF64(g.QPS), p95,
				i64(g.Errors), f64(g.Seconds), "", strconv.FormatBool(d.Interrupted), strconv.FormatBool(d.Cut()), MarkCodes(d.NotAsPlanned))
			cw.Write(append(row, fanoutCSVCells(fan, nil)...))
		}
	}
	cw.Flush()
	return cw.Error()
}

func optF64(v *float64) string {
	if v == nil {
		return ""
	}
	return f64(*v)
}
