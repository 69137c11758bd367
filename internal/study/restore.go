package study

import (
	"context"

	"github.com/cairn-bench/cairn/internal/undo"
)

// Restored is what a restore did with one change the undo journal kept.
type Restored struct {
	*undo.Entry
	Running bool   // the cairn that made it still runs, and restores it itself: left alone
	Err     error  // it could not be undone
	Study   string // the stored study marked restored with it ("" none)
	MarkErr error  // it is undone, but its stored study could not be marked so
}

// Restore undoes the changes pending (those of a cairn that still runs only with force), and
// has each stored study whose settings are back say so, restored by by; each is told of every
// change as it goes, and stops the restore by returning false.
func Restore(ctx context.Context, pending []*undo.Entry, db, by string, force bool, each func(Restored) bool) {
	for _, e := range pending {
		r := Restored{Entry: e, Running: e.Alive() && !force}
		if !r.Running {
			if r.Err = e.Undo(ctx, db); r.Err == nil {
				r.Study, r.MarkErr = MarkRestored(ctx, e, db, by)
			}
		}
		if !each(r) {
			return
		}
	}
}
