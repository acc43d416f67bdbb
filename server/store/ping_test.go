package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/a2agen/a2agen/server/store"
)

func TestMemoryPing(t *testing.T) {
	m := store.NewMemory()
	if err := m.Ping(context.Background()); err != nil {
		t.Fatalf("Ping = %v", err)
	}
	m.Close()
	if err := m.Ping(context.Background()); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Ping after Close = %v, want ErrClosed", err)
	}
}
