package tpcb

import (
	"context"
	"fmt"
	"math"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// RunConfig is the whole configuration of a tpcb run; it is stored in the result document.
type RunConfig struct {
	DB             string  `json:"db"`
	Script         string  `json:"script"`
	Protocol       string  `json:"protocol"`
	VUs            int     `json:"vu"`
	RampupSec      float64 `json:"rampup_seconds"`
	DurationSec    float64 `json:"duration_seconds"`
	Rate           float64 `json:"rate"`
	LatencyLimitMs float64 `json:"latency_limit_ms"`
	MaxRetries     int     `json:"max_retries"`
	ProgressSec    float64 `json:"progress_seconds"`
	Seed           uint64  `json:"seed"`
	// Scale is the prepared data's (from the meta table). A --scale given to run must match it.
	Scale      int `json:"scale"`
	Fillfactor int `json:"fillfactor"`
}

// Extra keys of the result document: the pgbench figures that the common document lacks.
const (
	ExtraScale   = "scale"
	ExtraTxnType = "transaction_type"     // pgbench's "transaction type:" line
	ExtraStddev  = "latency_stddev_ms"    // pgbench's "latency stddev"
	ExtraLagMean = "schedule_lag_mean_ms" // pgbench's "rate limit schedule lag: avg" (with --rate)
)

// Validate checks what can be checked without a database: the script and protocol names, and
// the scale a run was given (0 = take the prepared one).
func Validate(script, protocol string, scale int) (*Script, error) {
	sc, err := FindScript(script)
	if err != nil {
		return nil, target.Usagef("--script %q: unknown script (use %v)", script, joinOr(ScriptNames()))
	}
	if protocol != ProtoPrepared && protocol != ProtoSimple {
		return nil, target.Usagef("--protocol %q: use prepared or simple", protocol)
	}
	if scale < 0 {
		return nil, target.Usagef("--scale %d: need at least 1", scale)
	}
	return sc, nil
}

func joinOr(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := ""
	for i, x := range s {
		switch {
		case i == 0:
		case i == len(s)-1:
			out += " or "
		default:
			out += ", "
		}
		out += x
	}
	return out
}

// ReadMeta checks that the database holds a complete schema and returns its meta; the errors are
// usage errors that say what to do.
func ReadMeta(ctx context.Context, t target.Target) (*Meta, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var m Meta
	if _, err := workload.Load(ctx, c, t, Footprint, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// Run checks the schema and the scale, runs the engine and builds the result document.
func Run(ctx context.Context, t target.Target, ecfg run.Config, cfg RunConfig, onProgress func(run.Progress), version string) (*results.Document, error) {
	sc, err := Validate(cfg.Script, cfg.Protocol, cfg.Scale)
	if err != nil {
		return nil, err
	}
	cfg.Script = sc.Name
	meta, err := ReadMeta(ctx, t)
	if err != nil {
		return nil, err
	}
	if cfg.Scale != 0 && cfg.Scale != meta.Scale {
		return nil, target.Usagef("--scale %d does not match the prepared data at %s (scale %d): leave --scale out, or run 'cairn tpcb cleanup' and 'cairn tpcb prepare --scale %d'",
			cfg.Scale, target.Where(t), meta.Scale, cfg.Scale)
	}
	cfg.Scale, cfg.Fillfactor = meta.Scale, meta.Fillfactor
	comp, err := Compile(t.Dialect(), sc)
	if err != nil {
		return nil, err
	}
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	tv, _ := t.Version(ctx)
	settings, _ := t.Settings(ctx, c)
	c.Close()

	cfg.Seed = ecfg.Seed
	cfg.VUs = ecfg.VUs
	eng := &run.Engine{Cfg: ecfg, Target: t, Types: []string{sc.Name}, Headline: -1, OnProgress: onProgress,
		Statements: comp.Statements(),
		NewVU: func(id int) (workload.VU, error) {
			return NewVU(id, comp, cfg.Protocol, meta.Scale, ecfg.Seed), nil
		}}
	out, err := eng.Run(ctx)
	if err != nil {
		return nil, err
	}
	doc := results.Finish(out, eng, t, results.RunInfo{Workload: "tpcb", MainTxn: sc.Name, Mode: cfg.Protocol, Config: cfg,
		CairnVersion: version, TargetVersion: tv, Settings: settings})
	doc.Extra = map[string]any{ExtraScale: meta.Scale, ExtraTxnType: sc.Desc}
	if out.Window != nil && len(out.Window.Lat) > 0 && out.Window.Lat[0].TotalCount() > 0 {
		doc.Extra[ExtraStddev] = round3(out.Window.Lat[0].StdDev() / 1000)
		if ecfg.Rate > 0 && out.Window.Svc != nil {
			// Latency runs from the intended start, service time from the actual one; the
			// difference of their means is the mean of pgbench's lag (actual minus scheduled start).
			doc.Extra[ExtraLagMean] = round3((out.Window.Lat[0].Mean() - out.Window.Svc[0].Mean()) / 1000)
		}
	}
	if sc.Name == "tpcb-like" && meta.Scale < ecfg.VUs {
		doc.Notes = append(doc.Notes, fmt.Sprintf("scale %d is below the %d VUs: tpcb-like transactions queue on the %d pgbench_branches rows (pgbench's documentation asks for a scale at least the number of clients)",
			meta.Scale, ecfg.VUs, meta.Scale*BranchesPerScale))
	}
	return doc, nil
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
