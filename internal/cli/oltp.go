package cli

import (
	"io"

	"github.com/spf13/cobra"
)

// newOLTP is a placeholder while the oltp workload is written.
func newOLTP(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{Use: "oltp", Hidden: true}
}
