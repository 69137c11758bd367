package tpcb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
	"unsafe"

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
	tc       target.TextCaller // PostgreSQL: the statements go through its allocation-free path
	params   [numVars + 1][]byte
	out      []byte
	sink     workload.StatementSink
	names    []string // prepared statement names, by statement
	text     []bool   // statements this connection could not prepare (run as text)
	anyArgs  []any    // parameter values for target.Conn, reused
	abalance int64    // the select's result, read and dropped as pgbench does
	scanDest []any    // &abalance, built once
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
	v.tc, _ = c.(target.TextCaller)
	if v.protocol != ProtoPrepared {
		return nil
	}
	for i, s := range v.sc.Stmts {
		v.text[i] = false
		if err := c.Prepare(ctx, v.names[i], s.Prepared); err != nil {
			// MySQL does not prepare every statement (BEGIN, in some versions); one without
			// parameters then runs as text, which is the same round trip.
			if len(s.Args) == 0 && v.tc == nil {
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
		if v.tc != nil {
			err = v.execText(i, s)
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

func (v *VU) execText(i int, s *Stmt) error {
	var err error
	if v.protocol == ProtoSimple {
		v.buf = s.AppendSimple(v.buf[:0], &v.vars)
		v.out, err = v.tc.CallSimple(v.buf, v.out[:0])
	} else {
		params := v.params[:len(s.Args)]
		for k, a := range s.Args {
			params[k] = strconv.AppendInt(params[k][:0], v.vars[a], 10)
		}
		v.out, err = v.tc.CallPrepared(v.names[i], params, v.out[:0])
	}
	if err == nil && s.Row && len(v.out) > 0 {
		// Read as pgbench reads it, and dropped.
		if v.abalance, err = strconv.ParseInt(unsafe.String(unsafe.SliceData(v.out), len(v.out)), 10, 64); err != nil {
			err = fmt.Errorf("unexpected value %q", v.out)
		}
	}
	return err
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
	if v.tc != nil {
		if v.tc.InTransaction() {
			v.buf = append(v.buf[:0], "ROLLBACK"...)
			_, _ = v.tc.CallSimple(v.buf, nil)
		}
		return
	}
	if i > 0 {
		_ = v.c.Rollback(ctx)
	}
}
