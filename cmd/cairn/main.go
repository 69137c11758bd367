// Command cairn benchmarks databases. See README.md.
package main

import (
	"os"
	"runtime/pprof"

	"github.com/cairn-bench/cairn/internal/cli"
)

func main() {
	// CAIRN_CPUPROFILE is for finding where the driver's own CPU goes (bench/, docs/benchmarks.md).
	if path := os.Getenv("CAIRN_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			code := cli.Main(os.Args[1:], os.Stdout, os.Stderr)
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
