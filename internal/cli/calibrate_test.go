package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/testutil"
)

func calibrated(t *testing.T) *results.Calibration {
	t.Helper()
	code, out, stderr := cairn(t, "host", "--calibrate", "--json")
	if code != 0 {
		t.Fatalf("host --calibrate: exit %d: %s", code, stderr)
	}
	var h results.Host
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatal(err)
	}
	c := h.Calibration
	if c == nil || c.NA != "" || c.SingleCore <= 0 || c.AllCore <= 0 || c.Threads < 1 || c.Kernel == "" {
		t.Fatalf("host --calibrate stored %+v", c)
	}
	return c
}

// The acceptance: two calibrations on the same host repeat within 5%, single-core and
// all-core alike (each is work per CPU-second of the measuring threads, which the host's other
// load does not take away). What the other load still changes in the CPU (a virtual machine's
// sibling threads, its frequency) shows in each calibration's own spread between its rounds:
// on a host so busy that the spread is wider than 5%, the bound is that spread.
func TestCalibrationRepeats(t *testing.T) {
	a, b := calibrated(t), calibrated(t)
	for _, f := range []struct {
		name     string
		va, vb   float64
		spa, spb float64
	}{{"single-core", a.SingleCore, b.SingleCore, a.SingleSpreadPct, b.SingleSpreadPct}, {"all-core", a.AllCore, b.AllCore, a.AllSpreadPct, b.AllSpreadPct}} {
		bound := math.Max(results.CalibrationBound, math.Max(f.spa, f.spb)/100)
		d := math.Abs(f.vb-f.va) / f.va
		t.Logf("%s: %.0f and %.0f units per CPU-second, %.1f%% apart (rounds' spreads %.1f%%, %.1f%%)", f.name, f.va, f.vb, 100*d, f.spa, f.spb)
		if d > bound {
			t.Errorf("%s: %.0f then %.0f units per CPU-second: %.1f%% apart, more than %.1f%%", f.name, f.va, f.vb, 100*d, 100*bound)
		}
	}
}

// A run with --calibrate stores the calibration with its host facts; one without does not, and
// results compare sets the one against the other's none among the conditions that differ.
func TestRunCalibrate(t *testing.T) {
	url := testutil.SQLite(t)
	prepareTPCB(t, url)
	store := filepath.Join(t.TempDir(), "results.db")
	for _, on := range []bool{true, false} {
		js := filepath.Join(t.TempDir(), "r.json")
		args := []string{"tpcb", "run", "--db", url, "--vu", "1", "--rampup", "0s", "--duration", "1s", "--results", store, "--json", js}
		if on {
			args = append(args, "--calibrate")
		}
		if code, out, stderr := cairn(t, args...); code != 0 {
			t.Fatalf("run: exit %d\n%s\n%s", code, out, stderr)
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var d results.Document
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		if c := d.Host.Calibration; on != (c != nil) || on && c.SingleCore <= 0 {
			t.Errorf("--calibrate %v: the run's host calibration is %+v", on, c)
		}
	}
	code, out, stderr := cairn(t, "results", "compare", "1", "2", "--results", store)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	for _, w := range []string{"host.calibration.single_core: ", "host.calibration.all_core: "} {
		if !strings.Contains(out, w) || !strings.Contains(out, "units/CPU-s (xorshift64-table16k/1) → (none)") {
			t.Errorf("compare does not set the calibration against none (%q):\n%s", w, out)
		}
	}
}
