// Package oltp is sysbench 1.0.20's oltp_* workloads: the sbtest tables of oltp_common.lua, filled
// the same way, and the events of oltp_point_select.lua, oltp_read_only.lua, oltp_read_write.lua,
// oltp_write_only.lua, oltp_update_index.lua, oltp_update_non_index.lua, oltp_insert.lua and
// oltp_delete.lua with their statements, counts, table choice and key distributions. docs/oltp.md
// lists every statement and how the figures relate to sysbench's.
package oltp

import (
	"embed"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
)

//go:embed sql
var sqlFS embed.FS

// stmts returns the named statements of one file of a dialect. Comment lines are dropped: the
// files explain each statement next to it, and the text sent must be the statement alone.
func stmts(d target.Dialect, file string) ([]sqlfile.Stmt, error) {
	list, err := sqlFiles.Stmts(d.Chain(), file)
	if err != nil {
		return nil, err
	}
	for i := range list {
		var keep []string
		for _, line := range strings.Split(list[i].SQL, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "--") {
				keep = append(keep, line)
			}
		}
		list[i].SQL = strings.TrimSpace(strings.Join(keep, "\n"))
	}
	return list, nil
}

var sqlFiles = sqlfile.Files{FS: sqlFS, Owner: "oltp"}

func stmtMap(dialect target.Dialect, file string) (map[string]string, error) {
	s, err := stmts(dialect, file)
	if err != nil {
		return nil, err
	}
	return sqlfile.Map(s), nil
}

// forTable fills in a statement's table number (and the table size, where a statement needs it).
func forTable(q string, n, size int) string {
	q = strings.ReplaceAll(q, "{{n}}", strconv.Itoa(n))
	return strings.ReplaceAll(q, "{{size}}", strconv.Itoa(size))
}

// op is one step of an event: oltp_common.lua's execute_* functions, and the single statements
// of oltp_delete.lua and oltp_insert.lua.
type op int

const (
	opPointSelects    op = iota // execute_point_selects
	opSimpleRanges              // execute_simple_ranges
	opSumRanges                 // execute_sum_ranges
	opOrderRanges               // execute_order_ranges
	opDistinctRanges            // execute_distinct_ranges
	opIndexUpdates              // execute_index_updates
	opNonIndexUpdates           // execute_non_index_updates
	opDeleteInserts             // execute_delete_inserts
	opDelete                    // oltp_delete.lua's event
	opInsert                    // oltp_insert.lua's event
)

func (o op) isRange() bool { return o >= opSimpleRanges && o <= opDistinctRanges }

// Workload is one of the oltp_* scripts: what its event() does.
type Workload struct {
	Name   string // --workload: "read-write"
	Txn    string // the transaction type in results: "read_write"
	Script string // the sysbench script it reproduces, or "" for cairn's range-only events
	ops    []op
	// trx: the event runs between BEGIN and COMMIT unless --skip-trx (oltp_read_only,
	// oltp_read_write, oltp_write_only); the other scripts never open a transaction.
	trx      bool
	readOnly bool
}

// Workloads in the order help lists them. The events are those of the scripts' event() functions.
var Workloads = []*Workload{
	{Name: "point-select", Txn: "point_select", Script: "oltp_point_select.lua", ops: []op{opPointSelects}},
	{Name: "read-only", Txn: "read_only", Script: "oltp_read_only.lua", trx: true, readOnly: true,
		ops: []op{opPointSelects, opSimpleRanges, opSumRanges, opOrderRanges, opDistinctRanges}},
	{Name: "read-write", Txn: "read_write", Script: "oltp_read_write.lua", trx: true,
		ops: []op{opPointSelects, opSimpleRanges, opSumRanges, opOrderRanges, opDistinctRanges, opIndexUpdates, opNonIndexUpdates, opDeleteInserts}},
	{Name: "write-only", Txn: "write_only", Script: "oltp_write_only.lua", trx: true,
		ops: []op{opIndexUpdates, opNonIndexUpdates, opDeleteInserts}},
	{Name: "update-index", Txn: "update_index", Script: "oltp_update_index.lua", ops: []op{opIndexUpdates}},
	{Name: "update-non-index", Txn: "update_non_index", Script: "oltp_update_non_index.lua", ops: []op{opNonIndexUpdates}},
	{Name: "insert", Txn: "insert", Script: "oltp_insert.lua", ops: []op{opInsert}},
	{Name: "delete", Txn: "delete", Script: "oltp_delete.lua", ops: []op{opDelete}},
	{Name: "simple-ranges", Txn: "simple_ranges", ops: []op{opSimpleRanges}, readOnly: true},
	{Name: "sum-ranges", Txn: "sum_ranges", ops: []op{opSumRanges}, readOnly: true},
	{Name: "order-ranges", Txn: "order_ranges", ops: []op{opOrderRanges}, readOnly: true},
	{Name: "distinct-ranges", Txn: "distinct_ranges", ops: []op{opDistinctRanges}, readOnly: true},
}

// WorkloadNames lists the --workload values.
func WorkloadNames() []string {
	n := make([]string, len(Workloads))
	for i, w := range Workloads {
		n[i] = w.Name
	}
	return n
}

// Lookup finds a workload by name. It also takes sysbench's script names (oltp_read_write,
// oltp_read_write.lua) and underscores for dashes.
func Lookup(name string) (*Workload, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimSuffix(n, ".lua")
	n = strings.TrimPrefix(n, "oltp_")
	n = strings.TrimPrefix(n, "oltp-")
	n = strings.ReplaceAll(n, "_", "-")
	for _, w := range Workloads {
		if w.Name == n {
			return w, nil
		}
	}
	return nil, options.Errorf("workload", name, "unknown; use one of %s", strings.Join(WorkloadNames(), ", "))
}

// DefaultPointSelects is --point-selects when not given: oltp_point_select.lua sets it to 1
// ("use 1 query per event"), the other scripts keep oltp_common.lua's 10.
func (w *Workload) DefaultPointSelects() int {
	if w.Name == "point-select" {
		return 1
	}
	return 10
}

// UsesTrx reports whether the workload's events run in a transaction with these options.
func (w *Workload) UsesTrx(o Options) bool { return w.trx && !o.SkipTrx }

// Protocols.
const (
	ProtocolPrepared = "prepared"
	ProtocolSimple   = "simple"
)

// Options are the run options of oltp_common.lua (sysbench.cmdline.options) that shape an event,
// with sysbench's defaults from DefaultOptions, plus cairn's --read-only-trx and --protocol.
type Options struct {
	PointSelects    int         `json:"point_selects" opt:"point-selects" min:"0" max:"100000" unset:"-1" default:"10" help:"point SELECTs per event (default 10; 1 for point-select, as oltp_point_select.lua)"`
	RangeSize       int         `json:"range_size" opt:"range-size" min:"1" help:"rows per range SELECT"`
	SimpleRanges    int         `json:"simple_ranges" opt:"simple-ranges" min:"0" max:"100000" help:"simple range SELECTs per event"`
	SumRanges       int         `json:"sum_ranges" opt:"sum-ranges" min:"0" max:"100000" help:"SELECT SUM() ranges per event"`
	OrderRanges     int         `json:"order_ranges" opt:"order-ranges" min:"0" max:"100000" help:"SELECT … ORDER BY ranges per event"`
	DistinctRanges  int         `json:"distinct_ranges" opt:"distinct-ranges" min:"0" max:"100000" help:"SELECT DISTINCT ranges per event"`
	IndexUpdates    int         `json:"index_updates" opt:"index-updates" min:"0" max:"100000" help:"UPDATEs of the indexed column k per event"`
	NonIndexUpdates int         `json:"non_index_updates" opt:"non-index-updates" min:"0" max:"100000" help:"UPDATEs of the non-indexed column c per event"`
	DeleteInserts   int         `json:"delete_inserts" opt:"delete-inserts" min:"0" max:"100000" help:"DELETE/INSERT pairs per event"`
	RangeSelects    bool        `json:"range_selects" opt:"range-selects" help:"run the range SELECTs of read-only and read-write"`
	SkipTrx         bool        `json:"skip_trx" opt:"skip-trx" help:"no BEGIN/COMMIT: every statement in autocommit (read-only, read-write, write-only)"`
	ReadOnlyTrx     bool        `json:"read_only_trx" opt:"read-only-trx" help:"read-only: START TRANSACTION READ ONLY instead of BEGIN"`
	Protocol        string      `json:"protocol" opt:"protocol" enum:"prepared,simple" help:"prepared (statements prepared once per connection and table) or simple (plain SQL text)"`
	Dist            DistOptions `json:"distribution"`
}

// DefaultOptions are oltp_common.lua's defaults (point_selects 10, every range count 1,
// range_size 100, one of each update, one delete/insert pair, range_selects on, skip_trx off).
func DefaultOptions() Options {
	return Options{PointSelects: -1, RangeSize: 100, SimpleRanges: 1, SumRanges: 1, OrderRanges: 1, DistinctRanges: 1,
		IndexUpdates: 1, NonIndexUpdates: 1, DeleteInserts: 1, RangeSelects: true, Protocol: ProtocolPrepared, Dist: DefaultDist()}
}

// Resolve gives the options that were not given the workload's own defaults: one point select
// per event for point-select (oltp_point_select.lua), ten for the others (oltp_common.lua).
func (o *Options) Resolve(w *Workload) {
	if o.PointSelects < 0 {
		o.PointSelects = w.DefaultPointSelects()
	}
}

// Validate checks the options against the workload.
func (o Options) Validate(w *Workload) error {
	if o.ReadOnlyTrx {
		if w.Name != "read-only" {
			return options.Errorf("read-only-trx", "", "applies to --workload read-only only (%s has no read-only transaction)", w.Name)
		}
		if o.SkipTrx {
			return options.Errorf("read-only-trx", "", "--read-only-trx and --skip-trx exclude each other: one opens a read-only transaction, the other none")
		}
	}
	if _, err := NewDist(o.Dist); err != nil {
		return options.Errorf("dist", o.Dist.Type, "%v", err)
	}
	return nil
}

// count is how many statements an op runs per event under o.
func (o Options) count(p op) int {
	switch p {
	case opPointSelects:
		return o.PointSelects
	case opSimpleRanges:
		return o.SimpleRanges
	case opSumRanges:
		return o.SumRanges
	case opOrderRanges:
		return o.OrderRanges
	case opDistinctRanges:
		return o.DistinctRanges
	case opIndexUpdates:
		return o.IndexUpdates
	case opNonIndexUpdates:
		return o.NonIndexUpdates
	case opDeleteInserts:
		return o.DeleteInserts
	}
	return 1 // oltp_delete and oltp_insert run one statement per event
}

// active reports whether an op runs at all: --range-selects=off drops the range queries of
// oltp_read_only and oltp_read_write (the range-only workloads have nothing else to run).
func (o Options) active(w *Workload, p op) bool {
	if p.isRange() && !o.RangeSelects && len(w.ops) > 1 {
		return false
	}
	return o.count(p) > 0
}
