package server

import (
	"sync/atomic"
	"time"
)

// Runners: a run's goroutine, once its run has returned, waits a little for
// the next run to launch instead of exiting, and serves it. A new goroutine
// starts on the smallest stack, which the first turn of a new task outgrows
// twice (in the store's creation, then in the random source of a new id);
// each growth copies the stack and walks its frames, which cost more
// instructions than the rest of the server's part of a SendMessage
// (callgrind). A runner that waited runnerIdle without a run, or finds
// maxParkedRunners others waiting, or sees Shutdown, exits: at most a few
// small stacks stay around, for a moment, and none past Shutdown.
const (
	maxParkedRunners = 64
	runnerIdle       = 100 * time.Millisecond
)

// runners hands launched runs to parked runners.
type runners struct {
	// next passes a run to a parked runner; unbuffered, so that a launch
	// only hands over to a runner that is waiting.
	next   chan runStart
	parked atomic.Int32 // runners waiting on next
}

// runStart is a run to serve from its first turn.
type runStart struct {
	r     *run
	first *Events
}

// start serves r from its first turn on a parked runner, or on a new one
// when none waits.
func (x *executions) start(r *run, first *Events) {
	select {
	case x.runners.next <- runStart{r, first}:
	default:
		go x.runner(runStart{r, first})
	}
}

// runner serves runs, the first s, until it finds no next one (park).
func (x *executions) runner(s runStart) {
	var idle *time.Timer
	for s.r != nil {
		s.r.loop(s.first)
		s, idle = x.park(idle)
	}
}

// park waits for the next run to serve, and returns it with the runner's
// idle timer (made at the first wait); a zero runStart when the runner
// should exit instead.
func (x *executions) park(idle *time.Timer) (runStart, *time.Timer) {
	if x.runners.parked.Add(1) > maxParkedRunners {
		x.runners.parked.Add(-1)
		return runStart{}, idle
	}
	defer x.runners.parked.Add(-1)
	if idle == nil {
		idle = time.NewTimer(runnerIdle)
	} else {
		idle.Reset(runnerIdle)
	}
	select {
	case s := <-x.runners.next:
		idle.Stop()
		return s, idle
	case <-idle.C:
		return runStart{}, idle
	case <-x.base.Done(): // Shutdown
		idle.Stop()
		return runStart{}, idle
	}
}
