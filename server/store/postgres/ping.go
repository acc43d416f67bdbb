package postgres

import (
	"context"
	"fmt"

	"github.com/a2agen/a2agen/server/store"
)

// Ping implements store.Store: a round trip to the database on a pooled
// connection (opening one if none is idle), within ctx's deadline.
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres store %s: %w", s.name, err)
	}
	return nil
}
