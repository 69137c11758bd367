package tpcb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// VU is one pgbench client: it runs one script over and over on its own connection.
type VU struct {
	sc       *Compiled
	protocol string
	scale    int64
	r        *rand.Rand
	vars     [numVars]int64
	c        target.Conn
	wire     *pgWire // PostgreSQL: the statements go through pgWire
	sink     workload.StatementSink
	names    []string // prepared statement names, by statement
	text     []bool   // statements this connection could not prepare (run as text)
	args     [numVars + 1]int64
	anyArgs  []any // parameter values for target.Conn, reused
	abalance int64 // the select's result, read and dropped as pgbench does
	scanDest []any // &abalance, built once
	buf      []byte
}

// NewVU makes client id of a run. Each VU draws from its own stream of seed.
func NewVU(id int, sc *Compiled, protocol string, scale int, seed uint64) *VU {
	v := &VU{sc: sc, protocol: protocol, scale: int64(scale), r: rand.New(rand.NewPCG(seed, uint64(id)+1<<32)),
		buf: make([]byte, 0, 256)}
	v.scanDest = []any{&v.abalance}
	v.anyArgs = make([]any, 0, numVars+1)
	for _, s := range sc.Stmts {
		v.names = append(v.names, "tpcb_"+s.Name)
	}
	v.text = make([]bool, len(sc.Stmts))
	return v
}

// Bind prepares the script's statements on c (with --protocol prepared), as pgbench -M prepared
// does on each connection before its first transaction.
func (v *VU) Bind(ctx context.Context, c target.Conn) error {
	v.c = c
	v.wire = nil
	if pc, ok := c.(pgConner); ok {
		v.wire = newPGWire(pc.PgConn())
	}
	if v.protocol != ProtoPrepared {
		return nil
	}
	for i, s := range v.sc.Stmts {
		v.text[i] = false
		if err := c.Prepare(ctx, v.names[i], s.Prepared); err != nil {
			// MySQL does not prepare every statement (BEGIN, in some versions); one without
			// parameters then runs as text, which is the same round trip.
			if len(s.Args) == 0 && v.wire == nil {
				v.text[i] = true
				continue
			}
			return err
		}
	}
	return nil
}

// SetStatementSink receives the engine's per-statement timer.
func (v *VU) SetStatementSink(s workload.StatementSink) { v.sink = s }

// Next draws the transaction's variables; there is one transaction type, the script.
func (v *VU) Next() int {
	Draw(v.r, v.scale, v.sc.Vars, &v.vars)
	return 0
}

// Do runs the script's statements in order, one round trip each, as pgbench does. A failed
// transaction is rolled back before the error is returned.
func (v *VU) Do(ctx context.Context) (bool, error) {
	var t0 time.Duration
	if v.sink != nil {
		t0 = v.sink.Now()
	}
	for i, s := range v.sc.Stmts {
		var err error
		if v.wire != nil {
			err = v.execWire(i, s)
		} else {
			err = v.exec(ctx, i, s)
		}
		if err != nil {
			v.rollback(ctx, i)
			return false, fmt.Errorf("%s: %w", s.Name, err)
		}
		if v.sink != nil {
			// One clock reading per statement: each statement's end is the next one's start.
			t1 := v.sink.Now()
			v.sink.Statement(i, t0, t1)
			t0 = t1
		}
	}
	return false, nil
}

func (v *VU) execWire(i int, s *Stmt) error {
	var dst *int64
	if s.Row {
		dst = &v.abalance
	}
	if v.protocol == ProtoSimple {
		v.buf = s.AppendSimple(v.buf[:0], &v.vars)
		return v.wire.simple(v.buf, dst)
	}
	args := v.args[:len(s.Args)]
	for k, a := range s.Args {
		args[k] = v.vars[a]
	}
	return v.wire.prepared(v.names[i], args, dst)
}

// exec runs a statement through target.Conn (MySQL, MariaDB, SQLite: database/sql).
func (v *VU) exec(ctx context.Context, i int, s *Stmt) error {
	var q string
	args := v.anyArgs[:0]
	if v.protocol == ProtoSimple || v.text[i] {
		v.buf = s.AppendSimple(v.buf[:0], &v.vars)
		q = string(v.buf)
	} else {
		q = v.names[i]
		for _, a := range s.Args {
			args = append(args, v.vars[a])
		}
	}
	if s.Row {
		err := v.c.QueryRow(ctx, q, args...).Scan(v.scanDest...)
		if errors.Is(err, target.ErrNoRows) {
			return nil // pgbench does not mind an empty result either
		}
		return err
	}
	_, err := v.c.Exec(ctx, q, args...)
	return err
}

// rollback ends the transaction a failed statement i left open, best effort: the error that
// matters is the statement's.
func (v *VU) rollback(ctx context.Context, i int) {
	if !v.sc.Txn {
		return
	}
	if v.wire != nil {
		if v.wire.broken == nil && v.wire.txStatus != 'I' {
			v.buf = append(v.buf[:0], "ROLLBACK"...)
			_ = v.wire.simple(v.buf, nil)
		}
		return
	}
	if i > 0 {
		_ = v.c.Rollback(ctx)
	}
}
