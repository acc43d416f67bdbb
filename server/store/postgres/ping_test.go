package postgres

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/a2agen/a2agen/internal/pgtest"
	"github.com/a2agen/a2agen/server/store"
)

// TestPingFollowsTheServer: Ping fails within its deadline while the
// database is down and succeeds again once it is back (a private server
// of the test), and reports ErrClosed after Close.
func TestPingFollowsTheServer(t *testing.T) {
	t.Parallel() // shares nothing with the other tests
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	srv := pgtest.StartServer(t)
	ctx := context.Background()
	s, err := Open(ctx, srv.URL, WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ping := func() error {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return s.Ping(ctx)
	}
	if err := ping(); err != nil {
		t.Fatalf("Ping with the server up: %v", err)
	}
	srv.Stop(t)
	start := time.Now()
	if err := ping(); err == nil {
		t.Fatal("Ping succeeded with the server stopped")
	}
	// Ping keeps to its deadline (1 s); the bound is far above it, so that
	// only a Ping that hangs fails, not a loaded machine.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Ping took %v with a 1s deadline", d)
	}
	srv.Start(t)
	deadline := time.Now().Add(30 * time.Second)
	for ping() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("Ping still fails 30s after the server came back: %v", ping())
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Close()
	if err := s.Ping(ctx); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Ping after Close = %v, want ErrClosed", err)
	}
}
