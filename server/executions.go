package server

import (
	"context"
	"fmt"

	"github.com/a2agen/a2agen/runtime"
)

// Executions: the runs of this server, how one is launched, and how the
// server stops accepting them (Drain, Shutdown) and waits for them.

// waitIdle waits until every execution has returned or ctx is done, and
// reports whether they all returned. stopAccepting must have been called.
func (s *Server) waitIdle(ctx context.Context) bool {
	select {
	case <-s.idle:
		return true
	case <-ctx.Done():
		if s.Executions() > 0 {
			return false
		}
		// None left (the last may still be leaving): ctx was done first,
		// or already when called.
		<-s.idle
		return true
	}
}

// stopAccepting refuses new executions from now on and arranges for idle to
// be closed once the running ones have returned.
func (s *Server) stopAccepting() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.idleOnce.Do(func() {
		go func() {
			s.wg.Wait() // no Add after closed is set (launch)
			close(s.idle)
		}()
	})
}

func executions(n int) string {
	if n == 1 {
		return "1 execution"
	}
	return fmt.Sprintf("%d executions", n)
}

// errShuttingDown answers messages that arrive during Shutdown.
func errShuttingDown() error {
	return runtime.NewError(runtime.CodeInternal, "the agent is shutting down; try again later")
}

// launch starts the run's goroutine with its first turn.
func (s *Server) launch(r *run, first *Events) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		r.release()
		return errShuttingDown()
	}
	s.wg.Add(1)
	s.running.Add(1)
	s.mu.Unlock()
	r.startWith(first.req)
	go r.loop(first)
	return nil
}

func (s *Server) register(r *run) {
	s.mu.Lock()
	s.runs[r.key] = r
	s.mu.Unlock()
}

func (s *Server) unregister(r *run) {
	s.mu.Lock()
	if s.runs[r.key] == r {
		delete(s.runs, r.key)
	}
	s.mu.Unlock()
}

func (s *Server) runOf(key taskKey) *run {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[key]
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
