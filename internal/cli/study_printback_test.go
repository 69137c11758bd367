package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// printbackStudy varies two settings (listed out of alphabetical order: the cases follow the
// file's order) with a live change at half of each window.
const printbackStudy = `name: printback
workload: tpcb
options: {script: tpcb-like}
prepare: {scale: 1}
vu: [2]
rampup: 0s
duration: 2s
pause: 0s
repeat: 1
observe: "off"
settings:
  synchronous_commit: ["on", "off"]
  commit_delay: [0, 10]
schedule:
  - at: 50%
    set: {commit_siblings: 6}
`

// TestStudyPrintedBack: a stored study prints back as a study file (results show --spec) that
// plans to the same steps as the file it ran from, with the --set it ran with (a random order
// and its drawn seed, the repeat), and holds no password; run again, the two studies compare
// side by side; a study of another design is refused with what differs.
func TestStudyPrintedBack(t *testing.T) {
	url := testutil.PG(t)
	fresh(t, "tpcb", url)
	store := filepath.Join(t.TempDir(), "results.db")
	file := writeStudy(t, printbackStudy)
	js := filepath.Join(t.TempDir(), "study.json")
	sets := []string{"--set", "db=" + url, "--set", "order=random", "--set", "repeat=2"}
	code, out, stderr := cairn(t, append(append([]string{"study", "run", file}, sets...), "--results", store, "--json", js)...)
	if code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	a := readStudyDoc(t, js)
	code, printed, stderr := cairn(t, "results", "show", a.ID, "--spec", "--results", store)
	if code != 0 {
		t.Fatalf("results show --spec: exit %d %s", code, stderr)
	}
	t.Logf("\n%s", printed)
	if strings.Contains(printed, ":cairn@") || !strings.Contains(printed, "${CAIRN_PASSWORD}") {
		t.Errorf("the printed study holds the password or no reference to it:\n%s", printed)
	}
	back := filepath.Join(t.TempDir(), "back.yaml")
	if err := os.WriteFile(back, []byte(printed), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAIRN_PASSWORD", "cairn")

	// The original, as it ran: its --set and the seed the run drew.
	var cfg struct {
		Seed json.Number `json:"seed"`
	}
	b, _ := json.Marshal(a.Config)
	if err := json.Unmarshal(b, &cfg); err != nil || cfg.Seed == "" {
		t.Fatalf("no seed in the stored config %s", b)
	}
	asRan := append(sets, "--set", "seed="+cfg.Seed.String())
	code, planA, stderr := cairn(t, append([]string{"study", "plan", file}, asRan...)...)
	if code != 0 {
		t.Fatalf("plan of the original: exit %d %s", code, stderr)
	}
	code, planB, stderr := cairn(t, "study", "plan", back)
	if code != 0 {
		t.Fatalf("plan of the printed study: exit %d %s", code, stderr)
	}
	if planA != planB || !strings.Contains(planB, "order random") || !strings.Contains(planB, "8 runs") {
		t.Errorf("the printed study plans otherwise than the original:\n%s\n---\n%s", planA, planB)
	}
	orig, err := study.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(asRan); i += 2 {
		k, v, _ := strings.Cut(asRan[i+1], "=")
		if err := orig.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	again, err := study.ReadFile(back)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(orig.Spec.Config(), again.Spec.Config()) || !reflect.DeepEqual(orig.Schedule, again.Schedule) ||
		!reflect.DeepEqual(orig.Settings, again.Settings) || orig.Order != again.Order {
		t.Errorf("the printed study differs:\n%v %v %v %s\n%v %v %v %s", orig.Spec.Config(), orig.Schedule, orig.Settings, orig.Order,
			again.Spec.Config(), again.Schedule, again.Settings, again.Order)
	}

	// Run again from the printed file, the two compare case by case.
	js2 := filepath.Join(t.TempDir(), "study2.json")
	if code, out, stderr := cairn(t, "study", "run", back, "--results", store, "--json", js2); code != 0 {
		t.Fatalf("study run of the printed file: exit %d\n%s\n%s", code, out, stderr)
	}
	b2 := readStudyDoc(t, js2)
	code, cmp, stderr := cairn(t, "results", "compare", a.ID, b2.ID, "--results", store)
	t.Logf("\n%s", cmp)
	rows := 0
	for _, l := range strings.Split(cmp, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "synchronous_commit=") {
			rows++
		}
	}
	if code != 0 || !strings.Contains(cmp, "studies of one design") || rows != 4+4*2 || !strings.Contains(cmp, "vs A") {
		t.Errorf("compare of two studies: exit %d %s, %d rows (want 4 cases and their 2 segments)\n%s", code, stderr, rows, cmp)
	}

	// Another design: one factor fewer.
	other := writeStudy(t, strings.Replace(printbackStudy, "  commit_delay: [0, 10]\n", "", 1))
	js3 := filepath.Join(t.TempDir(), "study3.json")
	if code, out, stderr := cairn(t, "study", "run", other, "--set", "db="+url, "--results", store, "--json", js3); code != 0 {
		t.Fatalf("study run: exit %d\n%s\n%s", code, out, stderr)
	}
	c := readStudyDoc(t, js3)
	code, _, stderr = cairn(t, "results", "compare", a.ID, c.ID, "--results", store)
	if code != 2 || !strings.Contains(stderr, "different designs") || !strings.Contains(stderr, "commit_delay (0, 10)") {
		t.Errorf("compare of studies of two designs: exit %d %q", code, stderr)
	}
	oneCleanLine(t, stderr)
}
