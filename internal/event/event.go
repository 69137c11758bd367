// Package event is the one stream a run's life is told through: the session, the engine and a
// study publish typed events on a Bus, and the front ends and outputs — the result sink, the
// terminal printer, cairn serve's event stream and job log, /metrics — subscribe to it (k6's
// engine and outputs are the model). It sits low in the graph (it imports results and metrics
// only), so that every subscriber sits below nothing it listens to.
package event

import (
	"context"
	"errors"
	"sync"
)

// Event is one thing that happened in a run's life: one of the types of this package.
type Event interface{ event() }

// Subscriber hears every event of the bus it subscribed to, in order. It returns an error to
// fail what is running (the store's failure to save a step fails the profile). It runs on the
// publisher's goroutine, the bus locked: it must return quickly, and must not Publish on the bus
// it hears — it announces what follows from an event with Emit.
type Subscriber interface {
	Handle(ctx context.Context, e Event) error
}

// Func is a Subscriber made of a function.
type Func func(ctx context.Context, e Event) error

func (f Func) Handle(ctx context.Context, e Event) error { return f(ctx, e) }

// Bus delivers events to its subscribers, serialised: ticks from the engine's monitor goroutine,
// steps from the session's and live settings from a study's timers arrive in one order.
type Bus struct {
	mu   sync.Mutex
	subs []*entry
}

type entry struct{ s Subscriber }

// New makes a bus with its first subscribers, heard in this order.
func New(subs ...Subscriber) *Bus {
	b := &Bus{}
	for _, s := range subs {
		b.Subscribe(s)
	}
	return b
}

// Subscribe adds a subscriber, heard after those before it, until the returned func is called.
func (b *Bus) Subscribe(s Subscriber) (unsubscribe func()) {
	e := &entry{s: s}
	b.mu.Lock()
	b.subs = append(b.subs, e)
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for i, x := range b.subs {
			if x == e {
				b.subs = append(b.subs[:i:i], b.subs[i+1:]...)
				return
			}
		}
	}
}

// emitted is what subscribers emitted while one event was delivered.
type emitted struct{ list []Event }

type emitKey struct{}

// Emit announces, from a subscriber's Handle, an event that follows from the one it hears (the
// sink's Stored after a Summary): every subscriber hears it after the event being delivered.
func Emit(ctx context.Context, e Event) {
	if q, ok := ctx.Value(emitKey{}).(*emitted); ok {
		q.list = append(q.list, e)
	}
}

// Publish delivers e to every subscriber in order, then what they emitted. It returns the
// subscribers' errors (nil: none failed); every subscriber hears e whatever the others return.
// A nil bus hears nothing.
func (b *Bus) Publish(ctx context.Context, e Event) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	q := &emitted{}
	hctx := context.WithValue(ctx, emitKey{}, q)
	var errs []error
	for pending := []Event{e}; len(pending) > 0; {
		e, pending = pending[0], pending[1:]
		for _, s := range b.subs {
			if err := s.s.Handle(hctx, e); err != nil {
				errs = append(errs, err)
			}
		}
		pending, q.list = append(pending, q.list...), nil
	}
	if len(errs) == 1 {
		return errs[0] // as the subscriber returned it: its type is what the front end words
	}
	return errors.Join(errs...)
}
