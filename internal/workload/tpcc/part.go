package tpcc

import (
	"fmt"

	"github.com/cairn-bench/cairn/internal/options"
	"github.com/cairn-bench/cairn/internal/workload"
)

// partIDs is a part's share of vus terminals whose home warehouses are spread over W (NewVU): with
// no more terminals than warehouses a block of ids, whose homes are a block of warehouses; with
// more, the terminals of a block of warehouses. Parts never share a home warehouse.
func partIDs(vus, W int, p workload.Part) ([]int, error) {
	if vus <= W {
		return p.IDs(vus)
	}
	if W < p.N {
		return nil, options.Errorf("part", fmt.Sprintf("%d/%d", p.I, p.N), "%d parts need at least %d warehouses, one home for each part's terminals", p.N, p.N)
	}
	lo, hi := (p.I-1)*W/p.N, p.I*W/p.N
	var ids []int
	for id := 0; id < vus; id++ {
		if w := id % W; w >= lo && w < hi {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
