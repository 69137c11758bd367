package cli

import (
	"io"

	"github.com/spf13/cobra"
)

// newTPCB is a placeholder while the tpcb workload is written.
func newTPCB(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{Use: "tpcb", Hidden: true}
}
