package server

import (
	"context"
	"sync"
)

// DefaultMaxListingsPerOwner is how many ListTasks calls of one owner
// (anonymous callers together are one) the server serves at once; more
// wait their turn.
//
// Why one: a listing is the most expensive read a caller can ask for (a
// page of up to 100 tasks read and encoded: about 0.3 ms of CPU to encode
// 50 hello tasks as JSON, the store's read aside, where a GetTask encodes
// one task), and a caller looping listings on many connections otherwise
// takes as many cores as it has connections (issue 26: four anonymous
// connections looping ListTasks next to well-behaved clients on a 2-core
// machine; docs/limits.md). One at a time leaves a caller's listings their
// order and up to a core, and the other callers the rest, however many
// connections the caller opens.
const DefaultMaxListingsPerOwner = 1

// WithMaxListingsPerOwner bounds the ListTasks calls of one owner that the
// server serves at once (DefaultMaxListingsPerOwner; n < 0: no bound). The
// owner is the identity streams count against (WithMaxStreamsPerCaller):
// the WithTaskOwner function's, else the caller id; callers without one
// share one bound. A listing holds its slot from the store's read until
// its answer has been encoded and written (runtime.AfterResponse; on gRPC
// until the handler returns). Listings beyond the bound wait, in the
// order they came, for as long as their call lasts: an honest caller's
// listing is delayed by another's, never refused, and a caller gains
// nothing by opening more connections.
func WithMaxListingsPerOwner(n int) Option {
	return func(s *Server) { limit(&s.listings.max, n) }
}

// listingSlots bounds the listings each owner has in progress.
type listingSlots struct {
	max     int // 0: no bound
	mu      sync.Mutex
	byOwner map[string]*ownerListings
}

// ownerListings is one owner's slots: a token in slots per listing in
// progress; calls waiting for a slot block sending one, in the order they
// came (a channel's waiting senders are served first in, first out).
type ownerListings struct {
	slots chan struct{}
	users int // calls holding or waiting for a slot; guarded by listingSlots.mu
}

// hold waits for one of who's slots and returns its release, which may be
// called more than once. It fails only when ctx ends first, with ctx's
// error.
func (l *listingSlots) hold(ctx context.Context, who string) (release func(), err error) {
	if l.max <= 0 {
		return func() {}, nil
	}
	l.mu.Lock()
	o := l.byOwner[who]
	if o == nil {
		if l.byOwner == nil {
			l.byOwner = make(map[string]*ownerListings)
		}
		o = &ownerListings{slots: make(chan struct{}, l.max)}
		l.byOwner[who] = o
	}
	o.users++
	l.mu.Unlock()
	select {
	case o.slots <- struct{}{}:
	case <-ctx.Done():
		l.leave(who, o)
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-o.slots
			l.leave(who, o)
		})
	}, nil
}

// leave forgets an owner no call holds or waits for a slot of.
func (l *listingSlots) leave(who string, o *ownerListings) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o.users--; o.users == 0 {
		delete(l.byOwner, who)
	}
}
