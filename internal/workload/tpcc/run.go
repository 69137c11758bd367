package tpcc

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// headlineSQL is read at both ends of the window: each committed New-Order adds one.
const headlineSQL = "(SELECT SUM(d_next_o_id) FROM district)"

// RunConfig is the whole configuration of a TPC-C run; it is stored in the result document.
type RunConfig struct {
	DB             string    `json:"db"`
	VUs            int       `json:"vu"`
	RampupSec      float64   `json:"rampup_seconds"`
	DurationSec    float64   `json:"duration_seconds"`
	Mode           string    `json:"mode"`
	AllWarehouses  bool      `json:"all_warehouses"`
	KeyingThinking bool      `json:"keying_thinking"`
	Rate           float64   `json:"rate"`
	MaxRetries     int       `json:"max_retries"`
	ProgressSec    float64   `json:"progress_seconds"`
	Seed           uint64    `json:"seed"`
	Warehouses     int       `json:"warehouses"`
	Partitioned    bool      `json:"partitioned"`
	DataSeed       uint64    `json:"data_seed"`
	LoadConstants  Constants `json:"load_constants"`
	RunConstants   Constants `json:"run_constants"`
}

// Run checks the schema, picks the mode, runs the engine and builds the result document.
func Run(ctx context.Context, t target.Target, engineCfg run.Config, cfg RunConfig, onProgress func(run.Progress), version string) (*results.Document, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, err
	}
	meta, err := LoadMeta(ctx, t, c)
	if err != nil {
		c.Close()
		return nil, err
	}
	switch cfg.Mode {
	case "":
		cfg.Mode = ModeSQL
		if meta.Procedures {
			cfg.Mode = ModeProcs
		}
	case ModeProcs:
		if t.Dialect() == "sqlite" {
			c.Close()
			return nil, target.Usagef("--mode procs: SQLite has no stored procedures; use --mode sql")
		}
		if !meta.Procedures {
			c.Close()
			return nil, target.Usagef("--mode procs: the schema was prepared without procedures; run cleanup and prepare again")
		}
	case ModeSQL:
	default:
		c.Close()
		return nil, target.Usagef("--mode %q: use procs or sql", cfg.Mode)
	}
	version1, _ := t.Version(ctx)
	settings, _ := t.Settings(ctx, c)
	c.Close()

	cfg.Warehouses, cfg.Partitioned, cfg.DataSeed, cfg.LoadConstants = meta.Warehouses, meta.Partitioned, meta.Seed, meta.Load
	cfg.RunConstants = RunConstants(newRand(engineCfg.Seed, 7), meta.Load)
	opt := RunOptions{Mode: cfg.Mode, AllWarehouses: cfg.AllWarehouses, Seed: engineCfg.Seed, Meta: *meta, Run: cfg.RunConstants}

	var mu sync.Mutex
	var vus []*VU
	eng := &run.Engine{Cfg: engineCfg, Target: t, Types: TxnNames, Headline: TxNewOrder,
		HeadlineSQL: headlineSQL, OnProgress: onProgress,
		NewVU: func(id int) (workload.VU, error) {
			v, err := NewVU(id, t.Dialect(), opt)
			if err == nil {
				mu.Lock()
				vus = append(vus, v)
				mu.Unlock()
			}
			return v, err
		}}
	out, err := eng.Run(ctx)
	if err != nil {
		return nil, err
	}
	doc := results.FromOutcome(out, TxnNames, runtime.NumCPU())
	doc.Workload = "tpcc"
	doc.MainTxn = TxnNames[TxNewOrder]
	doc.Host = results.ReadHost()
	doc.Cairn = results.Cairn{Version: version, Go: runtime.Version()}
	doc.Target = results.Target{Kind: t.Kind(), Name: t.Name(), Version: version1, Address: t.Address(), Database: t.Database(), Settings: settings}
	doc.VU = engineCfg.VUs
	doc.Mode = cfg.Mode
	doc.Seed = engineCfg.Seed
	doc.Window.RampupSeconds = engineCfg.Rampup.Seconds()
	cfg.Seed = engineCfg.Seed
	doc.Config = cfg

	if t.Dialect() == "sqlite" {
		// The database runs inside cairn: its CPU is the client's, and nothing else is "the server".
		doc.Client.ShareOfOthers = nil
		doc.Notes = append(doc.Notes, "SQLite runs inside cairn: client CPU includes the database's own work")
	}
	var skips int64
	for _, v := range vus {
		skips += v.DeliverySkips.Load()
	}
	doc.Extra = map[string]any{"delivery_skipped_districts": skips}

	if !out.WindowStarted {
		doc.Notes = append(doc.Notes, "interrupted during rampup: nothing was measured")
		return doc, nil
	}
	no := doc.Txns[TxnNames[TxNewOrder]]
	var clientTxns int64
	for _, tx := range doc.Txns {
		clientTxns += tx.Count
	}
	// Server counts are divided by the time between the two snapshots that read them, client
	// counts by the span they were counted over.
	mins, clientMins := doc.Window.Seconds/60, doc.Window.ClientSeconds/60
	if mins <= 0 || clientMins <= 0 {
		return doc, nil
	}
	perMin := func(n int64) *int64 { v := int64(math.Floor(float64(n) / mins)); return &v }
	clientPerMin := func(n int64) *int64 { v := int64(math.Floor(float64(n) / clientMins)); return &v }
	if out.Start.OK && out.End.OK {
		doc.Result.NOPM = perMin(out.End.Headline - out.Start.Headline)
	} else {
		doc.Result.NOPM = clientPerMin(no.Count - no.Rollbacks)
		doc.Notes = append(doc.Notes, "the database could not be read at an end of the window: NOPM is client-counted")
	}
	switch {
	case t.TxnCounterSQL() == "":
		doc.Result.TPM = clientPerMin(clientTxns)
		doc.Result.TPMSource = "client: committed and rolled-back transactions counted by cairn"
	case out.Restarted:
		doc.Result.TPM = clientPerMin(clientTxns)
		doc.Result.TPMSource = "client: the server restarted during the window, so its counters are not comparable"
	case !out.Start.OK || !out.End.OK:
		doc.Result.TPM = clientPerMin(clientTxns)
		doc.Result.TPMSource = "client: the server could not be read at an end of the window"
	default:
		doc.Result.TPM = perMin(out.End.Counter - out.Start.Counter)
		doc.Result.TPMSource = "server: " + t.TxnCounterName()
	}
	if out.Interrupted {
		doc.Notes = append(doc.Notes, fmt.Sprintf("interrupted: the window was cut to %.1f s", doc.Window.Seconds))
	}
	return doc, nil
}
