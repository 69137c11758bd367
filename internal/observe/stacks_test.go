package observe

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/diagnosis"
	"github.com/cairn-bench/cairn/internal/results"
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
	s := &results.Stacks{}
	fillStacks(s, got, stacksFolded)
	if s.Samples != 4 || len(s.Folded) != 3 || s.Folded[0].Count != 2 {
		t.Fatalf("section %+v", s)
	}
	by := map[string]results.StackFunction{}
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

// Kernel frames are marked (results.KernelMark) by perf's object for them, the kernel's image or a
// module's code in the kernel's half of the address space; the kernel's share is of the samples
// whose leaf is in the kernel, and diagnosis.SelfShares gives it as one entry, diagnosis.KernelName.
func TestFoldPerfScriptMarksTheKernel(t *testing.T) {
	in := `postgres 700/700  
	ffffffff8a2c1d5e finish_task_switch.isra.0 ([kernel.kallsyms])
	ffffffff8a9d1b2f schedule ([kernel.kallsyms])
	    7f3a12345678 __libc_recv (/usr/lib/x86_64-linux-gnu/libc.so.6)
	          5f1234 PostgresMain (/usr/lib/postgresql/15/bin/postgres)

postgres 700/700  
	ffffffffc0a01234 xfs_file_read_iter ([xfs])
	ffffffff8a000123 [unknown] ([kernel.kallsyms])
	          5f1234 PostgresMain (/usr/lib/postgresql/15/bin/postgres)

postgres 700/700  
	ffffffffff600000 [unknown] ([vsyscall])
	ffffffffffffffff [unknown] ([unknown])
	          5f1234 PostgresMain (/usr/lib/postgresql/15/bin/postgres)

postgres 700/700  
	          5f0000 AllocSetAlloc (/usr/lib/postgresql/15/bin/postgres)
	          5f1234 PostgresMain (/usr/lib/postgresql/15/bin/postgres)
`
	got, err := FoldPerfScript(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{
		"PostgresMain;__libc_recv;schedule_[k];finish_task_switch.isra.0_[k]": 1,
		"PostgresMain;[kernel.kallsyms]_[k];xfs_file_read_iter_[k]":           1,
		"PostgresMain;[unknown];[vsyscall]":                                   1,
		"PostgresMain;AllocSetAlloc":                                          1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("folded %v, want %v", got, want)
	}
	s := &results.Stacks{}
	fillStacks(s, got, stacksFolded)
	if s.Kernel == nil || *s.Kernel != 50 {
		t.Fatalf("kernel share %v, want 50%%", s.Kernel)
	}
	d := &results.Document{}
	results.SetSection(d, "stacks", s)
	shares, ok := diagnosis.SelfShares([]*results.Document{d})
	for n, v := range shares {
		if v == 0 {
			delete(shares, n) // the functions ranked by inclusive share only
		}
	}
	want2 := map[string]float64{diagnosis.KernelName: 50, "[vsyscall]": 25, "AllocSetAlloc": 25}
	if !ok || !reflect.DeepEqual(shares, want2) {
		t.Errorf("self shares %v, want %v", shares, want2)
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

// TestSweepStacksDirs: perf's directory of a cairn that no longer runs goes at the next start;
// those of running processes, and names of another shape, stay.
func TestSweepStacksDirs(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := stacksDirPrefix + strconv.Itoa(dead.Process.Pid) + "-1"
	keep := []string{
		stacksDirPrefix + strconv.Itoa(os.Getpid()) + "-2",  // this process
		stacksDirPrefix + strconv.Itoa(os.Getppid()) + "-3", // a running one
		stacksDirPrefix + "123456789",                       // MkdirTemp's name before the pid
		"other-" + strconv.Itoa(dead.Process.Pid) + "-4",
	}
	for _, n := range append([]string{gone}, keep...) {
		if err := os.Mkdir(filepath.Join(dir, n), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, gone, "perf.data"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	sweepStacksDirs(dir)
	if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
		t.Errorf("%s, of a process that ended, is still there (%v)", gone, err)
	}
	for _, n := range keep {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was removed: %v", n, err)
		}
	}
}
