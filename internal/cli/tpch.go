package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpch"
)

func newTPCH(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tpch",
		Short: "TPC-H-derived analytic workload: dbgen-identical data, the 22 queries, power, throughput and QphH (not audited)",
		Long: `The TPC-H-derived analytic workload. 'gen' writes .tbl files identical byte for byte to the
official dbgen 2.17.3; 'prepare' generates and loads them straight into a database; 'run' runs the power
test, the throughput test or the validation queries and compares answers. See docs/tpch.md.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(newTPCHGen(stdout, stderr), newTPCHPrepare(stdout, stderr), newTPCHRun(stdout, stderr),
		newCleanup(stdout, tpch.Footprint))
	return cmd
}

type tpchGenFlags struct {
	sf          string
	out, tables string
	parts, part int
	workers     int
	updates     int
}

func newTPCHGen(stdout, stderr io.Writer) *cobra.Command {
	var p tpchGenFlags
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Write the TPC-H tables as .tbl files, byte for byte as dbgen 2.17.3 writes them",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return doTPCHGen(cmd.Context(), &p, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.sf, "sf", "1", "scale factor (1 is about 1 GB; fractions such as 0.01 and 0.1 are allowed)")
	f.StringVarP(&p.out, "out", "o", ".", "directory for the files")
	f.StringVar(&p.tables, "tables", "", "comma-separated tables to generate (default: all eight)")
	f.IntVar(&p.parts, "parts", 1, "split the data set into this many parts, like dbgen -C")
	f.IntVar(&p.part, "part", 1, "which part to generate, 1..--parts, like dbgen -S; files are named TABLE.tbl.PART")
	f.IntVar(&p.workers, "workers", runtime.NumCPU(), "goroutines formatting rows")
	f.IntVar(&p.updates, "updates", 0, "also write dbgen's first N update sets, like dbgen -U N: orders.tbl.uN, lineitem.tbl.uN, delete.N")
	return cmd
}

func doTPCHGen(ctx context.Context, p *tpchGenFlags, stdout, stderr io.Writer) error {
	sf, err := tpch.ParseSF(p.sf)
	if err != nil {
		return err
	}
	tables, err := tpch.ParseTables(p.tables)
	if err != nil {
		return err
	}
	if err := tpch.CheckParts(p.part, p.parts); err != nil {
		return err
	}
	if p.workers < 1 {
		return target.Usagef("--workers %d: need at least 1", p.workers)
	}
	if p.updates < 0 || p.updates > 999 {
		return target.Usagef("--updates %d: give 0..999 update sets", p.updates)
	}
	partNote := ""
	if p.parts > 1 {
		partNote = fmt.Sprintf(", part %d of %d", p.part, p.parts)
	}
	fmt.Fprintf(stdout, "generating TPC-H SF %g%s into %s (%s, %s)\n", sf, partNote, p.out, plural(len(tables), "table"), plural(p.workers, "worker"))
	var rows atomic.Int64
	bar := newProgress(stderr, tpch.ExpectedRows(tables, sf)/int64(p.parts), "generating")
	bar.start(&rows)
	t0 := time.Now()
	stats, err := tpch.GenFiles(ctx, p.out, tpch.GenOptions{SF: sf, Tables: tables, Part: p.part, Parts: p.parts, Workers: p.workers, Updates: p.updates, Rows: &rows})
	bar.finish()
	var totalRows, totalBytes int64
	for _, s := range stats {
		fmt.Fprintf(stdout, "  %-15s %12s rows %10s  %6.2f s  %s\n", s.Table, humanize.Comma(s.Rows), humanize.IBytes(uint64(s.Bytes)), s.Seconds, s.Path)
		totalRows += s.Rows
		totalBytes += s.Bytes
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stdout, "interrupted; the files above are complete, the last one may not be")
			return errInterrupted
		}
		return err
	}
	el := time.Since(t0).Seconds()
	fmt.Fprintf(stdout, "done: %s rows, %s in %.2f s (%.0f MB/s), identical to dbgen 2.17.3's output\n",
		humanize.Comma(totalRows), humanize.IBytes(uint64(totalBytes)), el, float64(totalBytes)/el/1e6)
	return nil
}

type tpchPrepareFlags struct {
	db      string
	sf      string
	loaders int
	sfSet   bool // --sf was given: a complete schema of another scale factor is an error
}

func newTPCHPrepare(stdout, stderr io.Writer) *cobra.Command {
	var p tpchPrepareFlags
	cmd := &cobra.Command{
		Use:   "prepare",
		Short: "Generate dbgen's data and stream it into the database, then build keys, indexes and statistics",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.sfSet = cmd.Flags().Changed("sf")
			return doTPCHPrepare(cmd.Context(), &p, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.db, "db", "", "database URL: sqlite://FILE, postgres://user:pass@host:port/db, mysql://user:pass@host:port/db (default $CAIRN_DB, else sqlite://cairn.db)")
	f.StringVar(&p.sf, "sf", "1", "scale factor (1 is about 1 GB of data; 0.01 and 0.1 are allowed)")
	f.IntVar(&p.loaders, "loaders", 2*runtime.NumCPU(), "connections loading at once (SQLite always uses 1)")
	return cmd
}

func doTPCHPrepare(ctx context.Context, p *tpchPrepareFlags, stdout, stderr io.Writer) error {
	sf, err := tpch.ParseSF(p.sf)
	if err != nil {
		return err
	}
	if p.loaders < 1 {
		return target.Usagef("--loaders %d: need at least 1", p.loaders)
	}
	if p.db == "" {
		p.db = target.DefaultDB()
	}
	t, err := target.Open(ctx, p.db)
	if err != nil {
		return err
	}
	defer t.Close()
	loaders := p.loaders
	if t.Dialect() == "sqlite" {
		loaders = 1
	}
	var rows atomic.Int64
	bar := newProgress(stderr, tpch.ExpectedRows(tpch.AllTables(), sf), "loading")
	t0 := time.Now()
	asked := 0.0
	if p.sfSet {
		asked = sf
	}
	meta, err := tpch.Prepare(ctx, t, tpch.PrepareOptions{SF: asked, Loaders: loaders, Rows: &rows, CairnVersion: Version,
		Phase: func(ph string) {
			switch ph {
			case "tables":
				fmt.Fprintf(stdout, "preparing tpch: SF %g on %s (%s), %s\n", sf, t.Name(), target.Where(t), plural(loaders, "loader"))
			case "load":
				fmt.Fprintln(stdout, "generating and loading (dbgen 2.17.3's data)...")
				bar.start(&rows)
			case "indexes":
				bar.finish()
				fmt.Fprintf(stdout, "loaded %s rows in %.2f s; building keys, indexes and statistics...\n", humanize.Comma(rows.Load()), time.Since(t0).Seconds())
			}
		}})
	bar.finish()
	if errors.Is(err, workload.ErrAlreadyPrepared) {
		fmt.Fprintf(stdout, "%s already holds a complete tpch schema of SF %g (prepared %s); nothing to do\n",
			target.Where(t), meta.SF, meta.PreparedAt.Format(time.RFC3339))
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stdout, "interrupted; the schema is incomplete: run 'cairn tpch cleanup' before preparing again")
			return errInterrupted
		}
		return err
	}
	var total int64
	for _, n := range meta.Rows {
		total += n
	}
	fmt.Fprintf(stdout, "done in %.2f s (load %.2f s, keys, indexes and statistics %.2f s): %s rows\n",
		meta.LoadSeconds+meta.IndexSeconds, meta.LoadSeconds, meta.IndexSeconds, humanize.Comma(total))
	return nil
}
