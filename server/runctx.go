package server

import (
	"context"
	"time"
)

// The contexts of a run, kept in the run itself (no allocation of their
// own): an execution's context keeps the values of the request that
// started the task (call info, caller) but not its cancellation or
// deadline, and is canceled by the server's Shutdown (s.execs.base) or by the
// run itself (CancelTask, the run's end); the store's context of its
// writes keeps the same values and is never canceled.
//
// runParent is the execution context's parent: Done, Err and Deadline of
// s.execs.base, the values of the request. s.execs.base carries no values of its own
// but the context package's key of its cancellation: asked first, it
// answers that key alone, so that context.WithCancelCause on a runParent
// registers the child with s.execs.base directly (as a child of s.execs.base would be,
// without a goroutine or an AfterFunc) and context.Cause of the execution
// context says why Shutdown canceled it.
type runParent struct {
	base   context.Context // the server's: canceled by Shutdown, no values
	values context.Context // the initiating request's
}

func (p *runParent) Deadline() (time.Time, bool) { return p.base.Deadline() }
func (p *runParent) Done() <-chan struct{}       { return p.base.Done() }
func (p *runParent) Err() error                  { return p.base.Err() }
func (p *runParent) Value(key any) any {
	if v := p.base.Value(key); v != nil {
		return v
	}
	return p.values.Value(key)
}

// detached is the store's context of a run's writes: the request's values,
// never canceled, no deadline (context.WithoutCancel of the execution
// context, without the allocation). A key s.execs.base answers is the context
// package's key of cancellation, so context.Cause of a detached context is
// nil, as for context.WithoutCancel.
type detached struct {
	base   context.Context
	values context.Context
}

func (d *detached) Deadline() (time.Time, bool) { return time.Time{}, false }
func (d *detached) Done() <-chan struct{}       { return nil }
func (d *detached) Err() error                  { return nil }
func (d *detached) Value(key any) any {
	if d.base.Value(key) != nil {
		return nil
	}
	return d.values.Value(key)
}
