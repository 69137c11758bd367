package fanout

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/target/blockconn"
	"github.com/cairn-bench/cairn/internal/workload"
)

// errMismatch is a request whose combined sum is not the one its shards' data gives.
var errMismatch = errors.New("fan-out: the combined sum differs from the prepared data's")

// stmtState is one statement of the current request.
type stmtState struct {
	start, end, sched time.Duration
	sum               int64
	err               error
}

// vu is one virtual user: a connection to each shard it serves. When every connection can send
// a statement and read its answer apart (target.Splitter: MySQL's wire, either protocol), the
// VU's own goroutine sends up to par statements, polls their sockets and reads each answer as it
// arrives, stamping the statement's end then: no goroutine is woken per statement, and a shard's
// wait is never charged to the next. Otherwise par senders send the request's statements while
// its goroutine waits. The VU's goroutine sends none itself then: its statement would start after
// it woke the others and be read after them, and that shard would be the short board more often
// by cairn's doing. Serial (par 1), its goroutine is the one sender.
type vu struct {
	r      *run
	id     int
	shards []int // the shards it serves, in order
	conns  []target.Conn
	rng    *rand.Rand
	sink   workload.StatementSink
	win    workload.WindowSink
	t0     time.Time

	emp, ins, acc int64
	flag          byte
	want          int64
	seq           int64
	rot           int // the request's first statement
	args          []any
	bufs          [][]byte

	ctx      context.Context
	reqStart time.Duration
	next     atomic.Int32
	st       []stmtState
	wake     []chan struct{}
	done     chan struct{}
	helpers  sync.Once

	split  []target.Splitter // the connections, when all of them split sends from answers
	blocks bool              // all of them on blocking sockets (Splitter.Blocking)
	poll   blockconn.Poller
	flight []int // statements in flight, split
	fds    []int // their sockets, in the same order
	cell   []byte

	ends  []time.Duration // scratch: the request's statements' ends, sorted
	added []time.Duration // per shard it serves (as shards): the time it added to the logical RT by ending last (record)
	batch batch
	slow  slowLog
}

func (r *run) newVU(id int) (workload.VU, error) {
	v := &vu{r: r, id: id, rng: rand.New(rand.NewPCG(r.seed, uint64(id)+0x5eed)), t0: time.Now(),
		st: make([]stmtState, r.fan), ends: make([]time.Duration, r.fan), added: make([]time.Duration, r.fan), bufs: make([][]byte, r.fan),
		args: make([]any, 4), done: make(chan struct{}, r.par)}
	n := len(r.members)
	for k := 0; k < r.fan; k++ { // consecutive shards from a place of its own, so that VUs spread over the set
		v.shards = append(v.shards, (id*r.fan+k)%n)
	}
	for k := range v.bufs {
		v.bufs[k] = make([]byte, 0, len(r.prepared)+64)
	}
	if r.par > 1 { // one sender, serial: the VU's own goroutine, no handoff
		v.wake = make([]chan struct{}, r.par)
	}
	for k := range v.wake {
		v.wake[k] = make(chan struct{}, 1)
	}
	v.batch.init(r)
	v.slow.init(r.o.SlowLog, r.fan)
	r.mu.Lock()
	r.vus = append(r.vus, v)
	r.mu.Unlock()
	return v, nil
}

// Bind opens a connection to each shard the VU serves (after a lost connection, anew) and
// prepares the statement on each with --protocol prepared. The engine's own connection, to the
// first shard, stays idle.
func (v *vu) Bind(ctx context.Context, _ target.Conn) error {
	v.closeConns()
	// A P for each VU's poller, which waits in raw system calls (blockconn.Poller.Reserved).
	blockconn.ReservePollers(target.Concurrency(ctx))
	v.conns = make([]target.Conn, len(v.shards))
	// Read after poll(2) when they split (Do): a target may keep them off Go's network poller.
	ctx = target.WithPolled(ctx)
	for k, s := range v.shards {
		c, err := v.r.members[s].Conn(ctx)
		if err != nil {
			v.closeConns()
			return &target.ShardError{Index: s, Of: len(v.r.members), Where: target.Where(v.r.members[s]), Err: err}
		}
		v.conns[k] = c
		if v.r.o.Protocol == ProtoPrepared {
			if err := c.Prepare(ctx, "fanout_select", v.r.prepared); err != nil {
				v.closeConns()
				return err
			}
		}
	}
	v.split, v.blocks = v.split[:0], true
	name := ""
	if v.r.o.Protocol == ProtoPrepared {
		name = "fanout_select"
	}
	for _, c := range v.conns {
		sp, ok := c.(target.Splitter)
		if !ok || !sp.Split(name) {
			v.split = v.split[:0]
			break
		}
		v.split = append(v.split, sp)
		v.blocks = v.blocks && sp.Blocking()
	}
	v.helpers.Do(func() {
		for k := range v.wake {
			go v.helper(k)
		}
	})
	return nil
}

func (v *vu) closeConns() {
	v.poll.Close() // its sockets are these connections
	for _, c := range v.conns {
		if c != nil {
			c.Close()
		}
	}
	v.conns = nil
}

// SetStatementSink receives the engine's clock and window.
func (v *vu) SetStatementSink(s workload.StatementSink) {
	v.sink = s
	v.win, _ = s.(workload.WindowSink)
}

func (v *vu) now() time.Duration {
	if v.sink != nil {
		return v.sink.Now()
	}
	return time.Since(v.t0)
}

// Next draws the request's employee; its sum over the VU's shards is known from the seed.
func (v *vu) Next() int {
	v.emp = v.rng.Int64N(v.r.emps)
	v.ins, v.flag, v.acc = keyOf(v.emp)
	v.want = 0
	for _, s := range v.shards {
		v.want += expected(v.r.dataSeed, s, v.r.rows, v.emp)
	}
	v.seq++
	if v.rot++; v.rot == len(v.st) {
		v.rot = 0
	}
	return 0
}

// helper is one of the VU's senders: woken per request, it takes statements until none is left.
func (v *vu) helper(k int) {
	for range v.wake[k] {
		v.work()
		v.done <- struct{}{}
	}
}

// work sends the request's statements not yet taken, one at a time. A statement could be sent
// when the request started (a sender's first) or when the sender's previous one ended; the
// difference to when it is sent is the load generator's own scheduling delay.
func (v *vu) work() {
	ready := v.reqStart
	for {
		i := int(v.next.Add(1)) - 1
		if i >= len(v.st) {
			return
		}
		// Each request starts at the next shard: the statements sent first, whose answers wait
		// longest for a busy client's CPU, are not always the same shards'.
		if i += v.rot; i >= len(v.st) {
			i -= len(v.st)
		}
		s := &v.st[i]
		s.start = v.now()
		s.sched = s.start - ready
		s.sum = 0
		s.err = v.exec(i, &s.sum)
		s.end = v.now()
		ready = s.end
		if v.sink != nil {
			v.sink.Statement(0, s.start, s.end)
		}
	}
}

func (v *vu) exec(i int, sum *int64) error {
	c := v.conns[i]
	if v.r.o.Protocol == ProtoPrepared {
		return c.QueryRow(v.ctx, "fanout_select", v.args...).Scan(sum)
	}
	b := v.r.appendCommented(v.bufs[i][:0], v.ins, v.flag, v.acc, v.emp, v.id, v.seq)
	v.bufs[i] = b
	return c.QueryRow(v.ctx, string(b), v.r.simple(c)...).Scan(sum)
}

// doSplit sends the request's statements from the VU's goroutine, at most par in flight, and
// reads each answer when its socket is ready. A statement could be sent when the request started
// (the first par) or when the statement whose place it takes was read.
func (v *vu) doSplit() {
	n := len(v.st)
	v.flight, v.fds = v.flight[:0], v.fds[:0]
	sent := 0
	for ; sent < min(v.r.par, n); sent++ {
		v.send(sent, v.reqStart)
	}
	for len(v.flight) > 0 {
		// Which answers to read now: one already partly read (poll does not see it), the one
		// statement in flight on a blocking socket (its read waits for it, as oltp's does: no
		// poll; only with a P reserved for the VU's raw waits, blockconn.Poller.Reserved), or
		// those poll(2) finds ready. Polled even with one in flight on a socket of Go's
		// poller: a read before the answer is there would park the goroutine and wake it through
		// the network poller.
		buffered := v.buffered()
		direct := !buffered && len(v.flight) == 1 && v.blocks && v.poll.Reserved()
		if !buffered && !direct {
			if err := v.poll.Wait(v.fds); err != nil {
				for _, i := range v.flight {
					v.st[i].err = err
					v.finish(&v.st[i])
				}
				v.flight = v.flight[:0]
				break
			}
		}
		m := len(v.flight)
		for k := 0; k < m; k++ {
			i := v.flight[k]
			if buffered && !v.split[i].Buffered() || !buffered && !direct && !v.poll.Ready(k) {
				continue
			}
			s := &v.st[i]
			v.cell, s.err = v.split[i].Receive(v.cell[:0])
			if s.err == nil {
				s.sum, s.err = parseSum(v.cell)
			}
			v.finish(s)
			v.flight[k] = -1
			if sent < n {
				v.send(sent, s.end)
				sent++
			}
			if buffered {
				break // one read, then look again
			}
		}
		j := 0
		for k, i := range v.flight {
			if i >= 0 {
				v.flight[j], v.fds[j] = i, v.fds[k]
				j++
			}
		}
		v.flight, v.fds = v.flight[:j], v.fds[:j]
	}
}

// buffered reports whether an answer in flight is already partly read, where poll does not see it.
func (v *vu) buffered() bool {
	for _, i := range v.flight {
		if i >= 0 && v.split[i].Buffered() {
			return true
		}
	}
	return false
}

// send writes the request's k-th statement (from the request's first shard on, see work).
func (v *vu) send(k int, ready time.Duration) {
	i := k + v.rot
	if i >= len(v.st) {
		i -= len(v.st)
	}
	s := &v.st[i]
	s.start = v.now()
	s.sched = s.start - ready
	s.sum, s.err = 0, nil
	if v.r.o.Protocol == ProtoPrepared {
		s.err = v.split[i].SendPrepared("fanout_select", v.args)
	} else {
		v.bufs[i] = v.r.appendCommented(v.bufs[i][:0], v.ins, v.flag, v.acc, v.emp, v.id, v.seq)
		s.err = v.split[i].SendText(v.bufs[i])
	}
	if s.err != nil {
		v.finish(s)
		return
	}
	v.flight = append(v.flight, i)
	v.fds = append(v.fds, v.split[i].Fd())
}

// finish stamps a statement's end.
func (v *vu) finish(s *stmtState) {
	s.end = v.now()
	if v.sink != nil {
		v.sink.Statement(0, s.start, s.end)
	}
}

// parseSum reads a SUM as the server writes it in text: an integer (a DECIMAL without a fraction),
// or nothing for NULL.
func parseSum(b []byte) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' || n > (1<<63-1)/10-1 {
			return 0, errors.New("fan-out: the sum is not an integer: " + string(b))
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// Do sends the request's statements, at most --parallelism at once, and checks the combined sum.
func (v *vu) Do(ctx context.Context) (bool, error) {
	v.ctx = ctx
	if v.r.o.Protocol == ProtoPrepared {
		v.args[0], v.args[1], v.args[2], v.args[3] = v.ins, string(v.flag), v.acc, v.emp
	}
	v.next.Store(0)
	v.reqStart = v.now()
	if len(v.split) > 0 {
		v.doSplit()
	} else {
		for _, w := range v.wake {
			w <- struct{}{}
		}
		if len(v.wake) == 0 {
			v.work()
		}
		for range v.wake {
			<-v.done
		}
	}
	end := v.now()
	var sum int64
	for i := range v.st {
		if err := v.st[i].err; err != nil {
			return false, err
		}
		sum += v.st[i].sum
	}
	if sum != v.want {
		v.r.mismatches.Add(1)
		return false, errMismatch
	}
	if v.win == nil || v.win.Ended(end) {
		v.record(end)
	}
	return false, nil
}

// record keeps the request's figures: its statements per shard, which shard answered last and how
// much later than the median statement, which shard's statement took longest (the short board:
// with fewer in flight than shards, the shards sent last also end last whatever their speed),
// the sum and the max of its statements' times, and the time the last one added: how much later
// the request ended because of that shard, its end minus the next-latest statement's (the
// request's start, with one statement). The shards ranked by that time show the one a few requests
// wait long on, where counting how often each is last shows one of many that end last by a hair.
func (v *vu) record(end time.Duration) {
	last, slowest, sumRT, maxRT := 0, 0, time.Duration(0), time.Duration(0)
	for i := range v.st {
		s := &v.st[i]
		rt := s.end - s.start
		sumRT += rt
		if rt > maxRT {
			maxRT, slowest = rt, i
		}
		if s.end > v.st[last].end {
			last = i
		}
		v.ends[i] = s.end
		v.batch.stmt(v.shards[i], rt, s.sched)
	}
	slices.Sort(v.ends)
	n := len(v.ends)
	prev := v.reqStart
	if n > 1 {
		prev = v.ends[n-2]
	}
	v.added[last] += v.ends[n-1] - prev
	median := v.ends[len(v.ends)/2]
	if len(v.ends)%2 == 0 {
		median = (v.ends[len(v.ends)/2-1] + median) / 2
	}
	logical := end - v.reqStart
	v.batch.req(v.shards[last], v.shards[slowest], v.st[last].end-median, sumRT, maxRT, logical)
	v.slow.offer(v, logical)
}

// appendCommented writes the statement with its values and the request's id.
func (r *run) appendCommented(b []byte, ins int64, flag byte, acc, emp int64, vu int, seq int64) []byte {
	vals := [4]int64{ins, 0, acc, emp}
	for k, part := range r.parts {
		b = append(b, part...)
		switch {
		case k == 1:
			b = append(b, '\'', flag, '\'')
		case k < 4:
			b = strconv.AppendInt(b, vals[k], 10)
		}
	}
	b = append(b, " /* cairn-req="...)
	b = appendID(b, vu, seq)
	return append(b, " */"...)
}

// appendID writes a request's id: its VU and its number in that VU.
func appendID(b []byte, vu int, seq int64) []byte {
	b = strconv.AppendInt(b, int64(vu), 10)
	b = append(b, '-')
	return strconv.AppendInt(b, seq, 10)
}

// params are the statement's named parameters, in their order in run.sql.
var params = []string{":insutype", ":revs_flag", ":accrym", ":emp_no"}

// splitParams cuts the statement at its parameters: len(params)+1 pieces of text.
func splitParams(q string) []string {
	var parts []string
	for _, p := range params {
		before, after, _ := strings.Cut(q, p)
		parts = append(parts, before)
		q = after
	}
	return append(parts, q)
}

// simple are the arguments that send a text statement in one message (pgx's simple protocol).
func (r *run) simple(c target.Conn) []any {
	if cl, ok := c.(target.Cells); ok {
		return cl.SimpleArgs()
	}
	return nil
}
