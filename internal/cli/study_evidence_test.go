package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/diagnosis"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// needPerf skips a test that needs the server's on-CPU profile where perf cannot take it.
func needPerf(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("perf"); err != nil || os.Geteuid() != 0 {
		t.Skip("perf sampling the server needs perf installed and root")
	}
}

// TestStudyEvidencePerSegment is the acceptance of evidence per live segment: the shipped live
// study, shortened, on MariaDB with performance_schema, reads the synch waits at each segment's
// edges and cuts its one perf session's samples at the changes, so every segment has its own
// synch ranking and profile; 'results compare STUDY' prints, per segment, the top synch waits and
// functions with their shifts against segment 1 and each segment's diagnosis line; the report
// draws a flame graph per segment and the differential graph of two chosen segments.
func TestStudyEvidencePerSegment(t *testing.T) {
	url := testutil.MySQL(t)
	needPerf(t)
	fresh(t, "oltp", url)
	store := filepath.Join(t.TempDir(), "results.db")
	js := filepath.Join(t.TempDir(), "study.json")
	code, out, stderr := cairn(t, "study", "run", "../../studies/spin-wait-delay-live.yaml", "--set", "db="+url,
		"--set", "options.tables=2", "--set", "options.table-size=2000", "--set", "vu=8", "--set", "rampup=1s",
		"--set", "duration=15s", "--set", "repeat=1", "--set", "pause=0s", "--results", store, "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	st := readStudyDoc(t, js)
	runs := st.Runs()
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	d := runs[0]
	if len(d.Segments) != 5 || d.Waits == nil || len(d.Waits.Segments) != 5 {
		t.Fatalf("%d segments, waits read at the edges of %d", len(d.Segments), len(d.Waits.Segments))
	}
	prof := results.StacksOf(d)
	if prof == nil || prof.Note != "" || len(prof.Segments) != 5 {
		t.Fatalf("stacks %+v", prof)
	}
	var segSamples int64
	// Each segment is 3 s, 2 s of it settled; its synch waits are read at its edges, which a loaded
	// host can delay (1.44 s once, with CI's two test streams running): half its settled part is
	// read in every segment, or the readings are not the segment's.
	for _, g := range d.Segments {
		ws := d.Waits.Segments[g.Index-1]
		ss := results.SegmentStacks(d, g.Index)
		if ws.Index != g.Index || len(g.Synch) == 0 || ws.Seconds < 1.0 || ss == nil || ss.Samples == 0 || len(ss.Functions) == 0 {
			t.Errorf("segment %d: synch %v (read over %.3f s), profile %+v", g.Index, g.Synch, ws.Seconds, ss)
			continue
		}
		segSamples += ss.Samples
		// The settled parts leave out a second after each change: their samples are fewer than
		// the window's, their time the window's less the four settling seconds.
		t.Logf("segment %d %s: %d samples over %.2f s, synch %s", g.Index, g.Label(), ss.Samples, prof.Segments[g.Index-1].Seconds, results.TopWaits(g.Synch, 2))
	}
	if segSamples == 0 || segSamples >= prof.Samples {
		t.Errorf("the segments hold %d samples of the window's %d: settling not left out", segSamples, prof.Samples)
	}

	code, out, _ = cairn(t, "results", "compare", st.ID, "--results", store)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, out)
	}
	for _, want := range []string{"evidence per live segment, case A at 8 VUs", "seg 1 innodb_spin_wait_delay=6: synch ",
		"seg 5 innodb_spin_wait_delay=96: synch ", "diagnosis: segment 3 (innodb_spin_wait_delay=24) — ", "on CPU: "} {
		if !strings.Contains(out, want) {
			t.Errorf("compare STUDY lacks %q:\n%s", want, out)
		}
	}
	if n := len(regexp.MustCompile(`(?m)^    against seg 1: .*(synch|functions) (gained|lost) `).FindAllString(out, -1)); n < 3 {
		t.Errorf("%d segments with shifts against segment 1, want 3 or more:\n%s", n, out)
	}

	page := filepath.Join(t.TempDir(), "report.html")
	if code, out, stderr := cairn(t, "report", st.ID, "--results", store, "-o", page, "--diff", "2,5"); code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, out, stderr)
	}
	html := string(mustReadFile(t, page))
	for i := 1; i <= 5; i++ {
		if !strings.Contains(html, `data-chart-id="study-seg-flame-1-`+string(rune('0'+i))+`"`) {
			t.Errorf("the report has no flame graph of segment %d", i)
		}
	}
	if !strings.Contains(html, `data-chart-id="study-seg-flame-diff-1"`) || !strings.Contains(html, "segment 5, innodb_spin_wait_delay=96 against segment 2, innodb_spin_wait_delay=12") {
		t.Error("the report has no differential flame graph of segment 5 against segment 2")
	}
	code, _, stderr = cairn(t, "report", st.ID, "--results", store, "-o", page, "--diff", "1,9")
	if code != ExitUsage {
		t.Errorf("--diff 1,9: exit %d, want %d", code, ExitUsage)
	}
	oneCleanLine(t, stderr)
}

// TestStudyEvidencePerCase: the shipped AHI study, shortened, ranks btr_search_latch first among
// the synch waits of a case with the adaptive hash index on, names each case's shifts against
// the first, and on this host's stripped mariadbd, the diagnosis line says how much of the
// on-CPU samples perf could not name, and how to name them.
func TestStudyEvidencePerCase(t *testing.T) {
	url := testutil.MySQL(t)
	needPerf(t)
	fresh(t, "oltp", url)
	store := filepath.Join(t.TempDir(), "results.db")
	js := filepath.Join(t.TempDir(), "study.json")
	code, out, stderr := cairn(t, "study", "run", "../../studies/ahi-spin-delay.yaml", "--set", "db="+url,
		"--set", "options.tables=2", "--set", "options.table-size=2000", "--set", "vu=8", "--set", "rampup=1s",
		"--set", "duration=3s", "--set", "repeat=1", "--set", "pause=0s", "--results", store, "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	st := readStudyDoc(t, js)
	on := 0
	for _, d := range st.Runs() {
		c := st.Cases[d.Study.Case]
		synch := d.Waits.SynchAlone()
		if len(synch) == 0 {
			t.Errorf("case %s: no synch waits", c.Label)
			continue
		}
		// The INNODB_TRX cache's latch is taken by cairn's own readings alone: left out, and said.
		for _, e := range append(append([]results.WaitEvent(nil), d.Waits.Events...), synch...) {
			if strings.HasSuffix(e.Name, "/innodb/trx_i_s_cache_lock") {
				t.Errorf("case %s: %s among the waits", c.Label, e.Name)
			}
		}
		if !containsNote(d.Waits.Notes, "trx_i_s_cache_lock is left out of the waits") {
			t.Errorf("case %s: the notes do not say trx_i_s_cache_lock is left out: %q", c.Label, d.Waits.Notes)
		}
		if strings.Contains(c.Label, "innodb_adaptive_hash_index=ON") {
			on++
			if results.SynchName(synch[0].Name) != "btr_search_latch" {
				t.Errorf("case %s: top synch wait %s, want btr_search_latch", c.Label, synch[0].Name)
			}
		}
		line := diagnosis.Diagnosis(d, nil)
		if prof := results.StacksOf(d); prof == nil || prof.Samples == 0 {
			t.Errorf("case %s: no on-CPU profile", c.Label)
		} else if sh, _ := diagnosis.SelfShares([]*results.Document{d}); sh["[mariadbd]"] > 0 && !strings.Contains(line, "[mariadbd]") {
			t.Errorf("case %s: [mariadbd] holds %.1f%% of the samples, and the diagnosis does not say so: %s", c.Label, sh["[mariadbd]"], line)
		} else if a := diagnosis.Attribute(sh); len(a.Unnamed) > 0 && a.Unnamed[0].Other > a.TopShare &&
			(strings.Contains(line, "top function") || !strings.Contains(line, "debug symbols") && !strings.Contains(line, "of the on-CPU samples, more than any server function")) {
			// An unnamed object outweighs the largest named function: the line names no top
			// function, and says how to get names, or that the kernel outweighs them both.
			t.Errorf("case %s: unnamed samples outweigh the named function, yet: %s", c.Label, line)
		}
	}
	if on != 3 {
		t.Errorf("%d runs with the AHI on, want 3", on)
	}
	code, out, _ = cairn(t, "results", "compare", st.ID, "--results", store)
	if code != 0 || !regexp.MustCompile(`(?m)^  case A at 8 VUs: synch btr_search_latch `).MatchString(out) ||
		!regexp.MustCompile(`(?m)^  case D at 8 VUs: synch `).MatchString(out) || !strings.Contains(out, "    against A: ") || !strings.Contains(out, "[mariadbd]") {
		t.Errorf("compare STUDY: exit %d, no evidence per case with btr_search_latch and shifts against A:\n%s", code, out)
	}
	t.Logf("%s", out)
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestShippedPointSelectObserves runs the shipped POWER8 study, shortened: with the server bound
// in turn, every run reads InnoDB's synch waits and the server's on-CPU profile, as its header says.
func TestShippedPointSelectObserves(t *testing.T) {
	url := testutil.MySQL(t)
	needPerf(t)
	fresh(t, "oltp", url)
	js := filepath.Join(t.TempDir(), "study.json")
	code, out, stderr := cairn(t, "study", "run", "../../studies/point-select-binding.yaml", "--set", "db="+url,
		"--set", "options.tables=2", "--set", "options.table-size=2000", "--set", "vu=4", "--set", "rampup=1s",
		"--set", "duration=3s", "--set", "repeat=1", "--set", "pause=0s", "--no-store", "--json", js)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	st := readStudyDoc(t, js)
	for _, d := range st.Runs() {
		if prof := results.StacksOf(d); len(d.Waits.SynchAlone()) == 0 || prof == nil || prof.Samples == 0 {
			t.Errorf("case %s: synch waits %v, profile %+v", st.Cases[d.Study.Case].Label, d.Waits.SynchAlone(), prof)
		}
	}
	if !strings.Contains(out, "  case B at 4 VUs: synch ") {
		t.Errorf("the study's output has no evidence per case:\n%s", out)
	}
}
