package server

import "time"

// WithClock sets the time the server claims idempotency keys at, so that
// tests can pass a window without waiting for it.
func WithClock(now func() time.Time) Option {
	return func(s *Server) { s.clock = now }
}
