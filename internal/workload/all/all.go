// Package all links every workload into the binary; each registers itself in init. Adding a
// workload is its folder and one line here.
package all

import (
	_ "github.com/cairn-bench/cairn/internal/workload/fanout"
	_ "github.com/cairn-bench/cairn/internal/workload/oltp"
	_ "github.com/cairn-bench/cairn/internal/workload/tpcb"
	_ "github.com/cairn-bench/cairn/internal/workload/tpcc"
	_ "github.com/cairn-bench/cairn/internal/workload/tpch"
)
