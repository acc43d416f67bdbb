package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/a2agen/a2agen/server/store"
)

func TestPing(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping of an open store: %v", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Ping(canceled); err == nil {
		t.Errorf("Ping with a canceled context succeeded")
	}
	s.Close()
	if err := s.Ping(ctx); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Ping after Close = %v, want ErrClosed", err)
	}
}
