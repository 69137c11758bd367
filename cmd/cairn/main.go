// Command cairn benchmarks databases. See README.md.
package main

import (
	"os"

	"github.com/cairn-bench/cairn/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
