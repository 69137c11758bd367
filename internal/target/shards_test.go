package target_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// A --db value names a shard set by URLs separated by spaces (--db repeated, a spec's list) or by
// the compact form servers × database pattern; members come server by server.
func TestShardSetMembers(t *testing.T) {
	t.Setenv("CAIRN_T_HOSTS", "h1:1,h2:2")
	t.Setenv("CAIRN_T_DB", "s")
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "mysql://u:pw@h1:3306/db", want: []string{"mysql://u:pw@h1:3306/db"}},
		{in: "mysql://u:p,w@h1:3306,h2:3307/shard_{0..2}?tls=false", want: []string{
			"mysql://u:p,w@h1:3306/shard_0?tls=false", "mysql://u:p,w@h1:3306/shard_1?tls=false", "mysql://u:p,w@h1:3306/shard_2?tls=false",
			"mysql://u:p,w@h2:3307/shard_0?tls=false", "mysql://u:p,w@h2:3307/shard_1?tls=false", "mysql://u:p,w@h2:3307/shard_2?tls=false"}},
		{in: "postgres://u@h/a postgres://u@h/b", want: []string{"postgres://u@h/a", "postgres://u@h/b"}},
		{in: "mysql://u:pa ss@h/db", want: []string{"mysql://u:pa ss@h/db"}}, // a password with a space stays whole
		{in: "sqlite:///tmp/a,b.db", want: []string{"sqlite:///tmp/a,b.db"}},
		{in: "mysql://u@h/db_{x}", want: []string{"mysql://u@h/db_{x}"}},
		{in: "mysql://u@h1,h2/s_{3..1}", err: "FIRST <= LAST"},
		{in: "mysql://u@h1,,h2/s", err: "an empty server"},
		{in: "mysql://u@h/s_{0..1}_{0..1}", err: "one {FIRST..LAST}"},
		// As the shell's: a bound with a leading zero pads every name to the wider bound.
		{in: "mysql://u@h/s_{08..10}", want: []string{"mysql://u@h/s_08", "mysql://u@h/s_09", "mysql://u@h/s_10"}},
		{in: "mysql://u@h/s_{8..010}", want: []string{"mysql://u@h/s_008", "mysql://u@h/s_009", "mysql://u@h/s_010"}},
		{in: "mysql://u@h/s_{0..2}", want: []string{"mysql://u@h/s_0", "mysql://u@h/s_1", "mysql://u@h/s_2"}},
		// What is written as a range but is none is refused, not taken for a database's name.
		{in: "mysql://u@h/s_{-1..1}", err: "the database pattern {-1..1} is not a range: give {FIRST..LAST} of whole numbers from 0"},
		{in: "mysql://u@h1,h2/s_{a..c}", err: "the database pattern {a..c} is not a range"},
		{in: "mysql://u@h/s_{0..}", err: "the database pattern {0..} is not a range"},
		// ${VAR} may name the servers and the database pattern; the userinfo's stay for ParseURL,
		// which percent-encodes them.
		{in: "mysql://u:${PW}@${CAIRN_T_HOSTS}/${CAIRN_T_DB}_{0..1}", want: []string{
			"mysql://u:${PW}@h1:1/s_0", "mysql://u:${PW}@h1:1/s_1", "mysql://u:${PW}@h2:2/s_0", "mysql://u:${PW}@h2:2/s_1"}},
		{in: "mysql://u@${CAIRN_T_NO_SUCH}/s_{0..1}", err: "${CAIRN_T_NO_SUCH} is not set"},
	} {
		got, err := target.ExpandSet(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// Every member's password is masked, in the text and in a member's refusal; members are checked
// one by one, of one scheme, none twice.
func TestShardSetParseAndRedact(t *testing.T) {
	set := target.JoinSet([]string{"mysql://u:secret1@h1:3306/a", "mysql://u:secret2@h2:3306/b"})
	if r := target.Redact(set); strings.Contains(r, "secret") || !strings.Contains(r, "h2:3306/b") {
		t.Errorf("redacted %q", r)
	}
	if m := target.Scrub("failed: secret2 and secret1", set); strings.Contains(m, "secret") {
		t.Errorf("scrubbed %q", m)
	}
	for in, want := range map[string]string{
		"mysql://u:secret@h1/a postgres://u:secret@h2/b":    "of one kind",
		"mysql://u:secret@h1/a mysql://u:secret@h1/a":       "shards 0 and 1 are the same database",
		"mysql://u:secret@h1/a mysql://u:secret@h1:99999/b": "shard 1 of 2: --db",
		"mysql://u:secret@h1,h2:x/a":                        "shard 1 of 2",
	} {
		_, err := target.ParseSet(in)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
		if _, err := target.ParseURL(in); err == nil {
			t.Errorf("ParseURL(%s) accepted it", in)
		}
	}
	if us, err := target.ParseSet("mysql://u@h1,h2/s_{0..3}"); err != nil || len(us) != 8 {
		t.Errorf("8 members: %d, %v", len(us), err)
	}
}

// A shard that cannot be reached is one line naming it; the others are closed.
func TestShardSetUnreachable(t *testing.T) {
	u := testutil.MySQL(t)
	set := target.JoinSet([]string{u, "mysql://cairn:secret@127.0.0.1:1/nowhere"})
	_, err := target.Open(context.Background(), set)
	var se *target.ShardError
	var ce *target.ConnectError
	if !errors.As(err, &se) || se.Index != 1 || !errors.As(err, &ce) || !strings.Contains(err.Error(), "shard 1 of 2 (127.0.0.1:1/nowhere)") ||
		strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v", err)
	}
	// Several members: one line by server, the databases to create and the server not reached.
	base := u[:strings.LastIndexByte(u, '/')+1]
	set = target.JoinSet([]string{u, base + "cairn_no_such_a", base + "cairn_no_such_b", "mysql://cairn:secret@127.0.0.1:1/x", "mysql://cairn:secret@127.0.0.1:1/y"})
	_, err = target.Open(context.Background(), set)
	var sete *target.SetError
	if !errors.As(err, &sete) || !errors.As(err, &ce) || sete.Failed != 4 || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "secret") ||
		!strings.Contains(err.Error(), "4 of 5 shards cannot be opened") || !strings.Contains(err.Error(), "databases cairn_no_such_a, cairn_no_such_b do not exist") ||
		!strings.Contains(err.Error(), "on 127.0.0.1:1: ") || !strings.Contains(err.Error(), "create them first, e.g. CREATE DATABASE cairn_no_such_a") {
		t.Errorf("error %v", err)
	}
}

// Two PostgreSQL databases (and three MariaDB ones) are one composite target: its members, its
// one server, and the window's counters summed over the members.
func TestShardSetComposite(t *testing.T) {
	for _, c := range []struct{ name, url, prefix string }{{"postgres", testutil.PG(t), "cairn_h8_p"}, {"mysql", testutil.MySQL(t), "cairn_h8_s"}} {
		t.Run(c.name, func(t *testing.T) {
			dbs := testutil.Databases(t, c.url, c.prefix+"0", c.prefix+"1", c.prefix+"2")
			tg, conn := testutil.Open(t, target.JoinSet(dbs))
			comp, ok := tg.(target.Composite)
			if !ok || len(comp.Members()) != 3 || len(target.ServersOf(tg)) != 1 || len(target.ServersOf(tg)[0].Members) != 3 {
				t.Fatalf("composite %T: %d servers", tg, len(target.ServersOf(tg)))
			}
			if !strings.Contains(target.Where(tg), c.prefix+"2") {
				t.Errorf("where %q", target.Where(tg))
			}
			r, err := target.Snapshot(context.Background(), tg, conn, "(SELECT 7)")
			if err != nil || r.Headline != 21 || (r.Counter > 0) != (tg.TxnCounterSQL() != "") {
				t.Errorf("reading %+v, %v", r, err)
			}
		})
	}
}
