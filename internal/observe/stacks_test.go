package observe

import (
	"reflect"
	"strings"
	"testing"
)

// perf script's samples fold root first; a frame without a symbol is its object; self and
// inclusive shares count a recurring function once per sample.
func TestFoldPerfScript(t *testing.T) {
	in := `mariadbd 21583/5982  
	          240058 OPENSSL_cleanse (/usr/lib/x86_64-linux-gnu/libcrypto.so.3)
	          c69db3 my_md5 (/usr/sbin/mariadbd)
	          c69db0 my_md5 (/usr/sbin/mariadbd)
	          829ab1 [unknown] (/usr/sbin/mariadbd)
	           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)

mariadbd 21583/5983  
	          c69db3 my_md5 (/usr/sbin/mariadbd)
	          829ab1 [unknown] (/usr/sbin/mariadbd)
	           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)

mariadbd 21583/5984  
	1032547698badcfe [unknown] ([unknown])

mariadbd 21583/5982  
	          c69db3 my_md5 (/usr/sbin/mariadbd)
	          829ab1 [unknown] (/usr/sbin/mariadbd)
	           891f5 start_thread (/usr/lib/x86_64-linux-gnu/libc.so.6)
`
	got, err := FoldPerfScript(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"start_thread;[mariadbd];my_md5;my_md5;OPENSSL_cleanse": 1,
		"start_thread;[mariadbd];my_md5":                        2,
		"[unknown]":                                             1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("folded %v, want %v", got, want)
	}
	s := &Stacks{}
	fillStacks(s, got)
	if s.Samples != 4 || len(s.Folded) != 3 || s.Folded[0].Count != 2 {
		t.Fatalf("section %+v", s)
	}
	by := map[string]StackFunction{}
	for _, f := range s.Functions {
		by[f.Name] = f
	}
	if f := by["my_md5"]; f.Self != 50 || f.Total != 75 || !f.Named() {
		t.Errorf("my_md5 %+v: want self 50%%, total 75%% (once per sample)", f)
	}
	if f := by["[mariadbd]"]; f.Self != 0 || f.Total != 75 || f.Named() {
		t.Errorf("[mariadbd] %+v", f)
	}
	if s.Functions[0].Name != "my_md5" {
		t.Errorf("functions rank by self share first: %+v", s.Functions)
	}
}

// perf records every CPU: only the server's processes' samples are folded, whatever their
// command's name holds.
func TestFoldPerfScriptKeepsTheServers(t *testing.T) {
	in := "postgres 700/700  \n\t  1 PostgresMain (/usr/lib/postgresql/15/bin/postgres)\n\n" +
		"cairn 900/901  \n\t  2 runtime.futex (/tmp/cairn)\n\n" +
		"pg worker x 701/701  \n\t  3 ExecScan (/usr/lib/postgresql/15/bin/postgres)\n\n"
	got, err := FoldPerfScript(strings.NewReader(in), func(pid int) bool { return pid == 700 || pid == 701 })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"PostgresMain": 1, "ExecScan": 1}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("folded %v, want %v", got, want)
	}
}
