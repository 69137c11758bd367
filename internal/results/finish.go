package results

import (
	"fmt"
	"runtime"

	"github.com/cairn-bench/cairn/internal/run"
	"github.com/cairn-bench/cairn/internal/target"
)

// RunInfo is what a workload tells Finish about a run besides the engine's outcome.
type RunInfo struct {
	Workload      string
	MainTxn       string
	Mode          string
	Config        any
	CairnVersion  string
	TargetVersion string
	Settings      map[string]string
}

// Finish builds the result document of a workload whose headline is transactions per second
// (oltp, tpcb): the engine's figures, the target, the host, and the rates. TPS counts the
// transactions the client completed in the window (committed, or rolled back on purpose), as
// sysbench and pgbench do. No TPM is set: in autocommit (sysbench's --skip-trx, point selects
// without a transaction) the servers' commit counters do not move, so they would mislead.
func Finish(out *run.Outcome, eng *run.Engine, t target.Target, info RunInfo) *Document {
	d := FromOutcome(out, eng.Types, runtime.NumCPU())
	d.Workload, d.MainTxn, d.Mode, d.Config = info.Workload, info.MainTxn, info.Mode, info.Config
	d.Cairn = Cairn{Version: info.CairnVersion, Go: runtime.Version()}
	d.Target = Target{Kind: t.Kind(), Name: t.Name(), Version: info.TargetVersion, Address: t.Address(), Database: t.Database(), Settings: info.Settings}
	d.Host = ReadHost()
	d.VU = eng.Cfg.VUs
	d.Seed = eng.Cfg.Seed
	d.Window.RampupSeconds = eng.Cfg.Rampup.Seconds()
	d.AddStatements(out.Statements, eng.Statements)
	if t.Dialect() == "sqlite" {
		d.Client.ShareOfOthers = nil
		d.Notes = append(d.Notes, "SQLite runs inside cairn: client CPU includes the database's own work")
	}
	if !out.WindowStarted {
		d.Notes = append(d.Notes, "interrupted during rampup: nothing was measured")
		return d
	}
	secs := d.Window.ClientSeconds
	if secs <= 0 {
		return d
	}
	var n int64
	for _, tx := range d.Txns {
		n += tx.Count
	}
	tps := float64(n) / secs
	d.Result.TPS = &tps
	if out.Interrupted {
		d.Notes = append(d.Notes, fmt.Sprintf("interrupted: the window was cut to %.1f s", secs))
	}
	return d
}
