package serve

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
)

// The ticks' waits are the progress line's, typed: the names and shares a reader of the line
// sees (as the service once read them from it), for shares from 0.01% to 100% and wait events
// counted but not timed.
func TestTickWaitsAreTheLines(t *testing.T) {
	fromLine := regexp.MustCompile(`([^\s,]+) ([0-9.]+)%`)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		var evs []results.WaitEvent
		for j := range rng.IntN(5) {
			e := results.WaitEvent{Name: "Class:event" + strconv.Itoa(j)}
			switch rng.IntN(4) {
			case 0:
				e.Count = int64(rng.IntN(9) + 1) // counted, not timed: named without a share
			case 1:
				e.Share = float64(rng.IntN(1000)) / 1e4 // below 10%: a tenth of a percent
			default:
				e.Share = rng.Float64()
			}
			evs = append(evs, e)
		}
		line := results.TopWaits(evs, 2)
		var want []wait
		for _, m := range fromLine.FindAllStringSubmatch(line, -1) {
			f, _ := strconv.ParseFloat(m[2], 64)
			want = append(want, wait{Name: m[1], Share: f / 100})
		}
		ev := &events{m: &manager{}, r: &running{}}
		ev.progress(event.Progress{Waits: line, TopWaits: observe.NamedWaits(evs, 2)})
		got := ev.r.waits
		if len(got) != len(want) {
			t.Fatalf("line %q: waits %+v, the line names %+v", line, got, want)
		}
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("line %q: waits %+v, the line names %+v", line, got, want)
			}
		}
	}
}
