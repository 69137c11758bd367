package results

import (
	"reflect"
	"testing"
)

// The read-only study's AHI case: handler time takes 98.8% of the waits, and btr_search_latch,
// a sliver of them, ranks first among the synch waits read alone.
func TestWaitGroups(t *testing.T) {
	evs := []WaitEvent{
		{Name: "wait/io/table/sql/handler", Class: "io/table", Count: 900000, TimeMs: 9880, Share: 0.988},
		{Name: "wait/synch/rwlock/innodb/btr_search_latch", Class: "rwlock", Count: 52375, TimeMs: 80, Share: 0.008},
		{Name: "wait/synch/mutex/innodb/trx_sys_mutex", Class: "mutex", Count: 700, TimeMs: 20, Share: 0.002},
		{Name: "wait/lock/table/sql/handler", Class: "lock/table", Count: 10, TimeMs: 10, Share: 0.001},
		{Name: "innodb/row_lock_wait", Class: "lock/row", Count: 1, TimeMs: 10, Share: 0.001},
		{Name: "innodb_metrics/lock_deadlocks", Class: "innodb_metrics", Count: 2},
		{Name: "innodb_mutexes/buf_pool", Class: "innodb_mutexes", Count: 5},
		{Name: "wait/synch/cond/sql/COND_thread_cache", Class: "cond"},
	}
	gs := GroupWaits(evs)
	want := []WaitGroupShare{{Group: WaitSynch, Count: 53080, TimeMs: 100, Share: 0.01},
		{Group: WaitIO, Count: 900000, TimeMs: 9880, Share: 0.988},
		{Group: WaitLock, Count: 13, TimeMs: 20, Share: 0.002}}
	if !reflect.DeepEqual(gs, want) {
		t.Errorf("groups %+v, want %+v", gs, want)
	}
	if got := GroupsText(gs); got != "synch 1%, io 98.8%, lock 0.2%" {
		t.Errorf("groups text %q", got)
	}
	s := GroupAlone(evs, WaitSynch)
	var names []string
	for _, e := range s {
		names = append(names, e.Name)
	}
	if !reflect.DeepEqual(names, []string{"wait/synch/rwlock/innodb/btr_search_latch", "wait/synch/mutex/innodb/trx_sys_mutex",
		"innodb_mutexes/buf_pool", "wait/synch/cond/sql/COND_thread_cache"}) || s[0].Share != 0.8 || s[1].Share != 0.2 {
		t.Errorf("synch alone: %+v", s)
	}
	// PostgreSQL's sampled classes: LWLock is synch, IO io, Lock and BufferPin lock, CPU and the rest other.
	for ev, g := range map[WaitEvent]string{{Name: "LWLock:WALWrite", Class: "LWLock"}: WaitSynch, {Name: "IO:WALSync", Class: "IO"}: WaitIO,
		{Name: "Lock:tuple", Class: "Lock"}: WaitLock, {Name: "BufferPin:BufferPin", Class: "BufferPin"}: WaitLock,
		{Name: "CPU", Class: "CPU"}: WaitOther, {Name: "Client:ClientRead", Class: "Client"}: WaitOther} {
		if got := WaitGroupOf(ev); got != g {
			t.Errorf("%s is %s, want %s", ev.Name, got, g)
		}
	}
	// A document written before groups reads them from its events.
	w := &Waits{Sampled: true, Events: []WaitEvent{{Name: "CPU", Class: "CPU", Samples: 6, Share: 0.6},
		{Name: "LWLock:WALWrite", Class: "LWLock", Samples: 3, Share: 0.3}, {Name: "LWLock:BufferContent", Class: "LWLock", Samples: 1, Share: 0.1}}}
	if got := GroupsText(w.ByGroup()); got != "synch 40%, other 60%" {
		t.Errorf("old document's groups %q", got)
	}
	if a := w.SynchAlone(); len(a) != 2 || a[0].Name != "LWLock:WALWrite" || a[0].Share != 0.75 {
		t.Errorf("old document's synch waits %+v", a)
	}
}
