package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cairn-bench/cairn/internal/study"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
)

func newRestore(stdout io.Writer) *cobra.Command {
	var db string
	var force bool
	cmd := &cobra.Command{
		Use:   "restore",
		Short: "Undo what a cairn that crashed left changed: a server's CPU binding, wait instruments, settings",
		Long: `cairn records every change it makes outside itself (a server process's CPU binding, performance_schema
instruments and consumers, server settings) in its journal before making it, and removes the record once the
change is undone, at the end of a run, on an error or on Ctrl-C. What a killed or crashed cairn
left behind is still in the journal: 'cairn restore' undoes it. Changes on a database need its URL
(--db, with the password the journal never holds); changes of a cairn that still runs are left to
it unless --force. The journal is in $CAIRN_STATE, else $XDG_STATE_HOME/cairn/undo, else
~/.local/state/cairn/undo.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A URL that cannot be one is the user's mistake whatever the journal holds: said
			// at once (exit 2), not only when a change needs it.
			if db != "" {
				members, err := target.ExpandSet(db)
				if err != nil {
					return err
				}
				for _, m := range members {
					if _, err := target.ParseURL(m); err != nil {
						return err
					}
				}
			}
			pending, err := undo.Pending()
			if err != nil {
				return err
			}
			if len(pending) == 0 {
				fmt.Fprintf(stdout, "nothing to restore (the journal %s holds no change)\n", undo.Dir())
				return nil
			}
			left := 0
			study.Restore(cmd.Context(), pending, db, "cairn restore", force, func(r study.Restored) bool {
				switch {
				case r.Running:
					fmt.Fprintf(stdout, "left: %s: cairn pid %d still runs and restores it itself (--force to restore it now)\n", r.What, r.PID)
					left++
				case r.Err != nil:
					fmt.Fprintf(stdout, "left: %s: %v\n", r.What, r.Err)
					left++
				default:
					restoredLine(stdout, r)
					if r.MarkErr != nil {
						fmt.Fprintf(stdout, "left: %v\n", r.MarkErr)
						left++
					}
				}
				return true
			})
			if left > 0 {
				return failed{fmt.Sprintf("%d of %d changes are not restored", left, len(pending))}
			}
			return nil
		},
	}
	cmd.Flags().Var(target.DBList{P: &db}, "db", "the database URL, for changes made on a database (with its password); repeated, or a shard set's compact form, for changes on several")
	connectFlag(cmd)
	cmd.Flags().BoolVar(&force, "force", false, "restore also the changes of a cairn that still runs")
	return cmd
}
