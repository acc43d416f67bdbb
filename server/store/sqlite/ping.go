package sqlite

import (
	"context"
	"fmt"

	"github.com/a2agen/a2agen/server/store"
)

// Ping implements store.Store: it reads the schema version through a
// read connection, which fails when the database file cannot be read.
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	var n int64
	if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		return fmt.Errorf("sqlite store %s: %w", s.path, err)
	}
	return nil
}
