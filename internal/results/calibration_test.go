package results

import (
	"strings"
	"testing"
)

// Calibrations are set side by side in a comparison's differing conditions when the runs ran
// on two hosts, and on one host only when they differ by more than the calibration's noise.
func TestDiffCalibration(t *testing.T) {
	cal := func(single, all float64) *Calibration {
		return &Calibration{Kernel: "k/1", SingleCore: single, AllCore: all, Threads: 2, Repeats: 31}
	}
	host := func(name string, c *Calibration) *Document {
		return &Document{Host: &Host{Hostname: name, CPUModel: "cpu", Threads: 2, Calibration: c}}
	}
	for _, c := range []struct {
		name string
		a, b *Document
		want []string // keys listed
	}{
		{"one host, within 5%", host("h", cal(1000, 2000)), host("h", cal(1040, 1950)), nil},
		{"one host, single-core 10% apart", host("h", cal(1000, 2000)), host("h", cal(1100, 2000)), []string{"host.calibration.single_core"}},
		{"one host, one uncalibrated", host("h", cal(1000, 2000)), host("h", nil), []string{"host.calibration.all_core", "host.calibration.single_core"}},
		{"two hosts, same speed", host("a", cal(1000, 2000)), host("b", cal(1000, 2000)), []string{"host.calibration.all_core", "host.calibration.single_core"}},
		{"neither calibrated", host("h", nil), host("h", nil), nil},
	} {
		var got []string
		var text []string
		for _, d := range DiffConditions(c.a, c.b) {
			if strings.HasPrefix(d.Key, "host.calibration.") {
				got = append(got, d.Key)
				text = append(text, d.A+" → "+d.B)
			}
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: differing calibration conditions %v (%v), want %v", c.name, got, text, c.want)
		}
	}
	d := diffCalibration(host("h", cal(1000, 2000)).Host, host("h", cal(1100, 2000)).Host)
	if len(d) != 1 || d[0].A != "1,000 units/CPU-s (k/1)" || d[0].B != "1,100 units/CPU-s (k/1), +10.0%" {
		t.Errorf("the single-core difference reads %+v", d)
	}
}
