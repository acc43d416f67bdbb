package server

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// executions are the runs of one server: which tasks execute here, how a
// run is launched, and how the server stops accepting them (Drain,
// Shutdown) and waits for them; the signals between instances (signals.go)
// and the background work that looks after the runs — lease renewal,
// reconciliation, recovery of orphaned tasks (recovery.go). Runs
// themselves are in run.go, their follow-ups in followups.go.
type executions struct {
	// What the executions work with, set by New. server is the server the
	// runs belong to: a run's events reach its writer and follower.
	server *Server
	exec   Executor
	store  store.Store
	writer *taskWriter // the server's: every write of a run goes through it
	logger *slog.Logger

	mu      sync.Mutex
	runs    map[taskKey]*run // tasks with an execution in this process
	closed  bool             // no new executions (Drain, Shutdown)
	wg      sync.WaitGroup   // running executions
	running atomic.Int64     // how many; for messages
	bg      sync.WaitGroup   // lease renewal, recovery, signal watchers

	// idle is closed once closed is set and every execution has returned.
	idle     chan struct{}
	idleOnce sync.Once

	base     context.Context // parent of every execution; canceled by Shutdown
	stopBase context.CancelCauseFunc

	runners runners // the goroutines runs go on (runners.go)
}

// init prepares x for use.
func (x *executions) init() {
	x.runs, x.idle = make(map[taskKey]*run), make(chan struct{})
	x.runners.next = make(chan runStart)
	x.base, x.stopBase = context.WithCancelCause(context.Background())
}

// count is how many executions run now.
func (x *executions) count() int { return int(x.running.Load()) }

// waitIdle waits until every execution has returned or ctx is done, and
// reports whether they all returned. stopAccepting must have been called.
func (x *executions) waitIdle(ctx context.Context) bool {
	select {
	case <-x.idle:
		return true
	case <-ctx.Done():
		if x.count() > 0 {
			return false
		}
		// None left (the last may still be leaving): ctx was done first,
		// or already when called.
		<-x.idle
		return true
	}
}

// stopAccepting refuses new executions from now on and arranges for idle to
// be closed once the running ones have returned.
func (x *executions) stopAccepting() {
	x.mu.Lock()
	x.closed = true
	x.mu.Unlock()
	x.idleOnce.Do(func() {
		go func() {
			x.wg.Wait() // no Add after closed is set (launch)
			close(x.idle)
		}()
	})
}

func executionCount(n int) string {
	if n == 1 {
		return "1 execution"
	}
	return fmt.Sprintf("%d executions", n)
}

// errShuttingDown answers messages that arrive during Shutdown.
func errShuttingDown() error {
	return runtime.NewError(runtime.CodeInternal, "the agent is shutting down; try again later")
}

// launch starts the run on a runner (runners.go) with its first turn.
func (x *executions) launch(r *run, first *Events) error {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		r.release()
		return errShuttingDown()
	}
	x.wg.Add(1)
	x.running.Add(1)
	x.mu.Unlock()
	r.startWith(first.req)
	x.start(r, first)
	return nil
}

// ended is called by a run's goroutine when it returns.
func (x *executions) ended() {
	x.running.Add(-1)
	x.wg.Done()
}

// background counts a goroutine of background work that the caller starts
// when it returns true (then the goroutine calls x.bg.Done), and refuses
// once the server stopped accepting executions.
func (x *executions) background() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return false
	}
	x.bg.Add(1)
	return true
}

func (x *executions) register(r *run) {
	x.mu.Lock()
	x.runs[r.key] = r
	x.mu.Unlock()
}

func (x *executions) unregister(r *run) {
	x.mu.Lock()
	if x.runs[r.key] == r {
		delete(x.runs, r.key)
	}
	x.mu.Unlock()
}

func (x *executions) runOf(key taskKey) *run {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.runs[key]
}

// list returns the registered runs.
func (x *executions) list() []*run {
	x.mu.Lock()
	defer x.mu.Unlock()
	runs := make([]*run, 0, len(x.runs))
	for _, r := range x.runs {
		runs = append(runs, r)
	}
	return runs
}

// registered is how many runs are registered.
func (x *executions) registered() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.runs)
}

func (x *executions) isClosed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.closed
}
