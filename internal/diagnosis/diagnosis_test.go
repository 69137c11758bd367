package diagnosis

import (
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// doc is a constructed run of 16 VUs over a 10-second window on a 2-CPU host, each of its
// window's seconds with the host's and each core's CPU shares given.
func doc(serverCPUSeconds float64, host metrics.CPUShare, cores ...metrics.CPUShare) *results.Document {
	d := &results.Document{VU: 16, Window: results.Window{Seconds: 10}, Host: &results.Host{Threads: 2}}
	if serverCPUSeconds > 0 {
		d.Server = &results.Server{Where: "local", CPUSeconds: serverCPUSeconds}
	}
	for i := 0; i < 10; i++ {
		h := host
		d.Series = append(d.Series, metrics.Second{T: float64(i), Window: true, CPU: &h, Cores: cores})
	}
	return d
}

func busy(user float64) metrics.CPUShare                                    { return metrics.CPUShare{user, 0, 0, 0, 0, 100 - user} }
func iowait(wait float64) metrics.CPUShare                                  { return metrics.CPUShare{10, 0, wait, 0, 0, 90 - wait} }
func with(d *results.Document, f func(*results.Document)) *results.Document { f(d); return d }

func TestDiagnosisRules(t *testing.T) {
	withWaits := func(sampled bool, evs ...results.WaitEvent) func(*results.Document) {
		return func(d *results.Document) { d.Waits = &results.Waits{Sampled: sampled, Events: evs} }
	}
	withStacks := func(s *results.Stacks) func(*results.Document) {
		return func(d *results.Document) { results.SetSection(d, "stacks", s) }
	}
	for _, c := range []struct {
		name  string
		d     *results.Document
		marks *results.Marks
		want  []string // each in the line, in this order
		not   []string
	}{
		// The head: a run alone, and a step against its profile's marks.
		{"alone", doc(0, busy(10)), nil, []string{"diagnosis: 16 VUs — "}, []string{"knee", "saturated", "peak"}},
		{"saturated", doc(0, busy(10)), &results.Marks{Peak: 8, Saturation: 8}, []string{"16 VUs saturated — "}, []string{"peak"}},
		{"at the knee and peak", doc(0, busy(10)), &results.Marks{Peak: 16, Saturation: 16}, []string{"16 VUs at the knee, peak — "}, nil},
		{"below the knee", doc(0, busy(10)), &results.Marks{Peak: 32, Saturation: 32}, []string{"16 VUs below the knee — "}, nil},
		{"no knee in the profile", doc(0, busy(10)), &results.Marks{Peak: 32}, []string{"16 VUs — "}, []string{"knee"}},

		// The resource: server CPU share of its CPUs at 90% (18 of 20 CPU seconds) and just below.
		{"server CPU ran out", doc(18, busy(92), busy(93), busy(99.9)), nil,
			[]string{"server CPU ran out: server 90% of 2 CPUs (cpu1 99.9%)"}, nil},
		{"server CPU below its threshold", doc(17.9, busy(89), busy(85), busy(94.9)), nil,
			[]string{"no resource ran out: server 89% of 2 CPUs, busiest cpu1 94.9%, iowait 0%"}, []string{"CPU ran out", "core ran out"}},
		// The server bound to one CPU: its share is of that CPU, its busiest core among its own.
		{"bound server", with(doc(9.5, busy(50), busy(99), busy(95)), func(d *results.Document) {
			d.Binding = &results.Binding{ServerCPUs: "1"}
		}), nil, []string{"server CPU ran out: server 95% of 1 CPU (cpu1 95.0%)"}, nil},
		// One core at 95% while the server is below 90%.
		{"a core ran out", doc(10, busy(60), busy(20), busy(95)), nil, []string{"a core ran out: cpu1 95.0% (server 50% of 2 CPUs)"}, nil},
		// I/O wait at 20% and below.
		{"I/O wait", doc(4, iowait(20), busy(30), busy(30)), nil, []string{"I/O wait 20% of the host's CPU time (server 20% of 2 CPUs)"}, nil},
		{"I/O wait below", doc(4, iowait(19.9), busy(30), busy(30)), nil, []string{"no resource ran out", "iowait 20%"}, []string{"I/O wait "}},
		// The host's CPU at 90% with the server unmeasured (remote): the client's, say.
		{"host CPU ran out", doc(0, busy(90), busy(90), busy(90)), nil, []string{"host CPU ran out: 90% busy (server CPU not measured)"}, nil},
		{"host CPU below", doc(0, busy(89.9), busy(89.9), busy(89.9)), nil, []string{"no resource ran out: server CPU not measured, busiest cpu0 89.9%"}, nil},
		{"nothing measured", &results.Document{VU: 4}, nil,
			[]string{"diagnosis: 4 VUs — resources not measured, synch waits not measured, top function not measured (--observe stacks), running threads not measured"}, nil},

		// The top synch wait: timed events by time, of the synch classes only.
		{"synch by time", with(doc(0, busy(10)), withWaits(false,
			results.WaitEvent{Name: "wait/io/table/sql/handler", Class: "io/table", TimeMs: 9000},
			results.WaitEvent{Name: "wait/synch/rwlock/innodb/btr_search_latch", Class: "rwlock", TimeMs: 45},
			results.WaitEvent{Name: "wait/synch/mutex/innodb/trx_sys_mutex", Class: "mutex", TimeMs: 55, Count: 9})), nil,
			[]string{"top synch wait trx_sys_mutex 55%"}, []string{"handler"}},
		{"synch by samples", with(doc(0, busy(10)), withWaits(true,
			results.WaitEvent{Name: "CPU", Class: "CPU", Samples: 90},
			results.WaitEvent{Name: "LWLock:WALWrite", Class: "LWLock", Samples: 3},
			results.WaitEvent{Name: "LWLock:BufferContent", Class: "LWLock", Samples: 1})), nil,
			[]string{"top synch wait LWLock:WALWrite 75%"}, nil},
		{"synch by count", with(doc(0, busy(10)), withWaits(false,
			results.WaitEvent{Name: "innodb_mutexes/a", Class: "innodb_mutexes", Count: 1},
			results.WaitEvent{Name: "innodb_mutexes/b", Class: "innodb_mutexes", Count: 3})), nil,
			[]string{"top synch wait b ×3 (untimed)"}, nil},
		{"no synch instruments", with(doc(0, busy(10)), withWaits(false,
			results.WaitEvent{Name: "wait/io/table/sql/handler", Class: "io/table", TimeMs: 9000})), nil,
			[]string{"no synch waits (instruments off? --waits instrument)"}, nil},
		{"no synch sampled", with(doc(0, busy(10)), withWaits(true, results.WaitEvent{Name: "CPU", Class: "CPU", Samples: 9})), nil,
			[]string{"no synch waits sampled"}, nil},

		// The top function: the first named by self share, the unnamed objects' share beside it.
		{"top function", with(doc(0, busy(10)), withStacks(&results.Stacks{Samples: 100, Functions: []results.StackFunction{
			{Name: "[mariadbd]", Self: 20, Total: 90}, {Name: "ut_delay", Self: 28, Total: 28}, {Name: "row_search_mvcc", Self: 10, Total: 50}}})), nil,
			[]string{"top function ut_delay 28% (unnamed [mariadbd] 20%)"}, nil},
		{"no named function", with(doc(0, busy(10)), withStacks(&results.Stacks{Samples: 100, Functions: []results.StackFunction{
			{Name: "[mariadbd]", Self: 100, Total: 100}}})), nil,
			[]string{"[mariadbd] 100% of the on-CPU samples unnamed, more than any named function (no symbols for mariadbd", "Debian's mariadb-server-core-dbgsym", "no function named"}, []string{"top function"}},
		// An unnamed object larger than the largest named function: that one is said first, with
		// how to name it, and no function is called the top one (stripped MariaDB's ut_delay).
		{"unnamed larger", with(doc(0, busy(10)), withStacks(&results.Stacks{Samples: 100, Kernel: ptr(20.0), Functions: []results.StackFunction{
			{Name: "[mariadbd]", Self: 27, Total: 90}, {Name: "my_hash_sort_simple_nopad", Self: 4, Total: 4}, {Name: "[libc.so.6]", Self: 2, Total: 2}}})), nil,
			[]string{"[mariadbd] 27% of the on-CPU samples unnamed, more than any named function (no symbols for mariadbd: install its debug symbols",
				"largest named function my_hash_sort_simple_nopad 4%, kernel 20%"}, []string{"top function"}},
		// A top function larger than any unnamed object: the unnamed share beside it.
		{"unnamed beside", with(doc(0, busy(10)), withStacks(&results.Stacks{Samples: 100, Kernel: ptr(5.0), Functions: []results.StackFunction{
			{Name: "ut_delay", Self: 28, Total: 28}, {Name: "[mariadbd]", Self: 10, Total: 90}}})), nil,
			[]string{"top function ut_delay 28% (unnamed [mariadbd] 10%, kernel 5%)"}, nil},
		// The kernel's functions are never the server's top function, however large their share:
		// its share is said apart. Folded stacks beyond the ranked functions count too.
		{"kernel apart", with(doc(0, busy(10)), withStacks(&results.Stacks{Samples: 100, Kernel: ptr(41.0), Functions: []results.StackFunction{
			{Name: "finish_task_switch" + results.KernelMark, Self: 19, Total: 19}, {Name: "_raw_spin_unlock_irqrestore" + results.KernelMark, Self: 12, Total: 12},
			{Name: "[postgres]", Self: 15, Total: 80}, {Name: "hash_search_with_hash_value", Self: 6, Total: 6}},
			Folded: []results.FoldedStack{{Stack: "main;PostgresMain;AllocSetAlloc", Count: 7}, {Stack: "main;finish_task_switch" + results.KernelMark, Count: 19}}})), nil,
			[]string{"kernel 41% of the on-CPU samples, more than any server function: largest named function AllocSetAlloc 7%, unnamed [postgres] 15%"},
			[]string{"finish_task_switch", "top function"}},
		{"kernel beside", with(doc(0, busy(10)), withStacks(&results.Stacks{Samples: 100, Kernel: ptr(6.0), Functions: []results.StackFunction{
			{Name: "AllocSetAlloc", Self: 9, Total: 9}, {Name: "[postgres]", Self: 3, Total: 80}, {Name: "[libc.so.6]", Self: 2, Total: 2}}})), nil,
			[]string{"top function AllocSetAlloc 9% (unnamed 5%, most in [postgres] 3%, kernel 6%)"}, nil},
		{"only the kernel named", with(doc(0, busy(10)), withStacks(&results.Stacks{Samples: 100, Kernel: ptr(60.0), Functions: []results.StackFunction{
			{Name: "finish_task_switch" + results.KernelMark, Self: 60, Total: 60}, {Name: "[mariadbd]", Self: 40, Total: 100}}})), nil,
			[]string{"kernel 60% of the on-CPU samples, more than any server function: no function named, unnamed [mariadbd] 40%"}, []string{"top function"}},
		// A profile stored before kernel frames were marked: its functions as they are, no kernel share.
		{"unmarked profile", with(doc(0, busy(10)), withStacks(&results.Stacks{Samples: 100, Functions: []results.StackFunction{
			{Name: "finish_task_switch", Self: 19, Total: 19}, {Name: "ut_delay", Self: 10, Total: 10}}})), nil,
			[]string{"top function finish_task_switch 19%"}, []string{"kernel"}},
		{"perf failed", with(doc(0, busy(10)), withStacks(&results.Stacks{Note: "perf record failed: x"})), nil,
			[]string{"top function not measured,"}, []string{"--observe stacks"}},

		// The running threads, from the running-threads observer's section.
		{"running threads", with(doc(0, busy(10)), func(d *results.Document) {
			results.SetSection(d, results.RunningSection, map[string]any{"p99": 31.0, "max": 40.0})
		}), nil, []string{"running threads p99 31"}, nil},
	} {
		got := Diagnosis(c.d, c.marks)
		at := 0
		for _, w := range c.want {
			i := strings.Index(got[at:], w)
			if i < 0 {
				t.Errorf("%s: %q lacks %q (after position %d)", c.name, got, w, at)
				break
			}
			at += i + len(w)
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q has %q", c.name, got, n)
			}
		}
		if strings.Contains(got, "\n") {
			t.Errorf("%s: not one line: %q", c.name, got)
		}
	}
}

// A stored document's stacks section is read back from its JSON form.
func TestDiagnosisReadsStoredSections(t *testing.T) {
	d := doc(0, busy(10))
	results.SetSection(d, "stacks", map[string]any{"samples": 10.0, "functions": []any{map[string]any{"name": "ut_delay", "self": 28.0, "total": 30.0}}})
	if got := Diagnosis(d, nil); !strings.Contains(got, "top function ut_delay 28%") {
		t.Errorf("%q", got)
	}
}

func ptr[T any](v T) *T { return &v }
