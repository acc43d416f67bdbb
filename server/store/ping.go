package store

import "context"

// Pinger is implemented by stores that can tell whether they can serve
// requests now: a database store checks that its database answers (a
// cheap query with ctx's deadline). Health checks use it (host's
// /readyz); a store that does not implement it counts as reachable.
type Pinger interface {
	// Ping returns nil when the store can serve requests, else why not
	// (ErrClosed after Close).
	Ping(ctx context.Context) error
}

// Ping reports whether st can serve requests: st.Ping when st is a
// Pinger, nil otherwise.
func Ping(ctx context.Context, st Store) error {
	if p, ok := st.(Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Ping implements Pinger: an in-memory store is reachable until it is
// closed.
func (m *Memory) Ping(context.Context) error {
	if m.closed.Load() {
		return ErrClosed
	}
	return nil
}
