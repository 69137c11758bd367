package observe

import "testing"

// The window's figures come from its samples only, p99 by nearest rank, and a sample outside
// the window counts in its second but not in them.
func TestRunningTally(t *testing.T) {
	var tl tally
	for i := 0; i < 99; i++ {
		tl.add(2, true)
	}
	tl.add(31, true)
	tl.add(500, false)
	tl.add(-1, true) // a server counting its sampler twice reads as 0, not less
	if mx, p99, mean := tl.figures(); mx != 31 || p99 != 2 || mean != 2.27 {
		t.Errorf("max %v p99 %v mean %v", mx, p99, mean)
	}
	if tl.secMax != 500 || tl.n != 101 {
		t.Errorf("second's max %d, window samples %d", tl.secMax, tl.n)
	}
	tl = tally{}
	for i := 0; i < 10; i++ {
		tl.add(int64(i), true)
	}
	if _, p99, _ := tl.figures(); p99 != 9 {
		t.Errorf("p99 of 0…9: %v", p99)
	}
	if mx, p99, mean := (&tally{}).figures(); mx != 0 || p99 != 0 || mean != 0 {
		t.Error("no samples, yet figures")
	}
}
