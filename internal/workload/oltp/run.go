package oltp

import (
	"context"
	"fmt"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// RunConfig is the whole configuration of an oltp run; it is stored in the result document.
type RunConfig struct {
	DB             string  `json:"db"`
	Workload       string  `json:"workload"`
	Script         string  `json:"sysbench_script,omitempty"`
	VUs            int     `json:"vu"`
	RampupSec      float64 `json:"rampup_seconds"`
	DurationSec    float64 `json:"duration_seconds"`
	Rate           float64 `json:"rate"`
	LatencyLimitMs float64 `json:"latency_limit_ms,omitempty"`
	MaxRetries     int     `json:"max_retries"`
	ProgressSec    float64 `json:"progress_seconds"`
	Seed           uint64  `json:"seed"`
	Tables         int     `json:"tables"`
	TableSize      int     `json:"table_size"`
	DataSeed       uint64  `json:"data_seed"`
	Options        Options `json:"options"`
}

// RunOptions is what a run needs besides the engine's configuration.
type RunOptions struct {
	Workload *Workload
	Options  Options
	// Tables and TableSize, when not 0, must match the prepared data (--tables, --table-size).
	Tables, TableSize int
	DB                string // for the document, with the password hidden
	OnProgress        func(run.Progress)
	CairnVersion      string
}

// Run checks the prepared data, runs the engine and builds the result document.
func Run(ctx context.Context, t target.Target, ecfg run.Config, ro RunOptions) (*results.Document, error) {
	w, o := ro.Workload, ro.Options
	if err := o.Validate(w); err != nil {
		return nil, err
	}
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := LoadMeta(ctx, t, c)
	if err != nil {
		c.Close()
		return nil, err
	}
	if ro.Tables != 0 && ro.Tables != meta.Tables {
		c.Close()
		return nil, target.Usagef("--tables %d does not match the prepared data: %s holds %d tables (omit --tables to use them)", ro.Tables, target.Where(t), meta.Tables)
	}
	if ro.TableSize != 0 && ro.TableSize != meta.TableSize {
		c.Close()
		return nil, target.Usagef("--table-size %d does not match the prepared data: %s was prepared with %d rows per table (omit --table-size to use it)", ro.TableSize, target.Where(t), meta.TableSize)
	}
	version, _ := t.Version(ctx)
	settings, _ := t.Settings(ctx, c)
	c.Close()

	counters := &Counters{}
	stmts, _ := w.Statements(o)
	types := []string{w.Txn}
	vo := VUOptions{Workload: w, Options: o, Tables: meta.Tables, TableSize: meta.TableSize, Seed: ecfg.Seed, Counters: counters}
	eng := &run.Engine{Cfg: ecfg, Target: t, Types: types, Headline: -1, Statements: stmts, OnProgress: ro.OnProgress,
		NewVU: func(id int) (workload.VU, error) { return NewVU(id, t.Dialect(), vo) }}
	out, err := eng.Run(ctx)
	if err != nil {
		return nil, err
	}
	cfg := RunConfig{DB: ro.DB, Workload: w.Name, Script: w.Script, VUs: ecfg.VUs, RampupSec: ecfg.Rampup.Seconds(),
		DurationSec: ecfg.Duration.Seconds(), Rate: ecfg.Rate, MaxRetries: ecfg.MaxRetries, ProgressSec: ecfg.Progress.Seconds(),
		Seed: ecfg.Seed, Tables: meta.Tables, TableSize: meta.TableSize, DataSeed: meta.Seed, Options: o}
	if ecfg.LatencyLimit > 0 {
		cfg.LatencyLimitMs = float64(ecfg.LatencyLimit) / float64(time.Millisecond)
	}
	doc := results.Finish(out, eng, t, results.RunInfo{Workload: "oltp", MainTxn: w.Txn, Mode: o.Protocol, Config: cfg,
		CairnVersion: ro.CairnVersion, TargetVersion: version, Settings: settings})
	doc.Extra = map[string]any{
		"rows_inserted":    counters.Inserted.Load(),
		"rows_deleted":     counters.Deleted.Load(),
		"restarted_events": counters.Restarts.Load(),
	}
	if n := counters.Restarts.Load(); n > 0 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("%d events were restarted with new inputs after a duplicate key on the delete/insert pair (whole run; sysbench's \"ignored errors\")", n))
	}
	return doc, nil
}
