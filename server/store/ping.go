package store

import "context"

// Ping implements Store: an in-memory store can serve requests until it is
// closed.
func (m *Memory) Ping(context.Context) error {
	if m.closed.Load() {
		return ErrClosed
	}
	return nil
}
