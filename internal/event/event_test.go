package event_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cairn-bench/cairn/internal/event"
)

// Every subscriber hears every event in subscription order; what a subscriber emits is heard by
// all after the event it followed; a subscriber's error comes back from Publish as it was
// returned, and the others still hear the event; an unsubscribed subscriber hears no more.
func TestBusOrderEmitAndErrors(t *testing.T) {
	var heard []string
	failed := errors.New("the store is full")
	rec := func(name string) event.Subscriber {
		return event.Func(func(ctx context.Context, e event.Event) error {
			heard = append(heard, fmt.Sprintf("%s:%T", name, e))
			return nil
		})
	}
	sink := event.Func(func(ctx context.Context, e event.Event) error {
		if s, ok := e.(event.Summary); ok {
			heard = append(heard, "sink:Summary")
			event.Emit(ctx, event.Stored{What: s.What, ID: "1"})
			event.Emit(ctx, event.Written{What: s.What})
		}
		if _, ok := e.(event.Note); ok {
			return failed
		}
		return nil
	})
	b := event.New(sink, rec("a"))
	stop := b.Subscribe(rec("b"))
	if err := b.Publish(context.Background(), event.Summary{What: "run"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"sink:Summary", "a:event.Summary", "b:event.Summary", "a:event.Stored", "b:event.Stored", "a:event.Written", "b:event.Written"}
	if !slices.Equal(heard, want) {
		t.Errorf("heard %v, want %v", heard, want)
	}
	heard = nil
	stop()
	if err := b.Publish(context.Background(), event.Note{Line: "x"}); err != failed {
		t.Errorf("Publish returned %v, want the subscriber's error itself", err)
	}
	if !slices.Equal(heard, []string{"a:event.Note"}) {
		t.Errorf("after b unsubscribed, heard %v", heard)
	}
	var nilBus *event.Bus
	if err := nilBus.Publish(context.Background(), event.Note{}); err != nil {
		t.Errorf("a nil bus: %v", err)
	}
}
