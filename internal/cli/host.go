package cli

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/summary"
)

func newHost(stdout io.Writer) *cobra.Command {
	var asJSON, calibrate bool
	cmd := &cobra.Command{
		Use:   "host",
		Short: "Show this host's facts that distort results (governor, turbo, SMT, NUMA, THP, PAUSE, …) and findings",
		Long: `Show what cairn records of this host with every run: CPU, sockets, cores, SMT, NUMA nodes, the
frequency driver, governor, energy-performance preference and turbo, the idle driver, transparent
huge pages, the clocksource, virtualization and the measured latency of PAUSE (with --calibrate, the host's speed on a fixed kernel); the storage
devices, network interfaces, memory modules' speed and the platform (DMI's, a cloud's instance
type where DMI holds it: no metadata service is asked), then findings
(warnings and advice, each with a stable code). What cannot be read is "unknown", with the
reason. docs/host.md defines every fact and finding.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h := observe.ReadHost(true)
			if calibrate {
				h.Calibration = observe.Calibrate()
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(h)
			}
			summary.Host(stdout, h)
			return nil
		},
	}
	cmd.Flags().BoolVar(&calibrate, "calibrate", false, "also measure the host's single-core and all-core speed on a fixed kernel of work (one to two seconds of every CPU; docs/host.md#calibration)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the facts as JSON (the result document's host object)")
	return cmd
}
