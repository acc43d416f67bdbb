package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// The call: what every operation learns about its caller first (begin),
// and reading a task the caller may see (load).

// call is what every operation learns about its caller first.
type call struct {
	ctx    context.Context
	tenant string
	caller *runtime.Identity // nil: anonymous
	owner  string
	info   *runtime.CallInfo
}

// begin is how every operation starts: it reads the caller's identity and
// resolves the tenant and owner, and refuses a call whose keys no store
// can hold (edge.go). The tenant comes from the binding (runtime.CallInfo),
// or from the request when the server is called directly. The call is
// returned by value, so that it can stay on the operation's stack.
func (s *Server) begin(ctx context.Context, tenant string) (call, error) {
	c := call{ctx: ctx, tenant: tenant}
	if info, ok := runtime.CallInfoFromContext(ctx); ok {
		c.info = info
		c.tenant = info.Tenant
	}
	c.caller = callerOf(ctx)
	if s.owner != nil {
		c.owner = s.owner(c.caller)
	}
	return c, s.checkCall(&c)
}

func (c *call) key(id string) taskKey { return taskKey{c.tenant, id} }

// load returns a task the caller may see. A task of another tenant or owner
// is TaskNotFound, exactly like a missing one.
func (s *Server) load(c *call, id string) (store.Record, error) {
	rec, err := s.store.Task(c.ctx, c.tenant, id)
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && rec.Owner != c.owner:
		return store.Record{}, runtime.TaskNotFound(id)
	case err != nil:
		return store.Record{}, runtime.Internal(fmt.Errorf("reading task %q: %w", id, err))
	}
	return rec, nil
}

// internalError wraps an unexpected store (or other) failure for the client,
// keeping its cause for the binding's log.
func internalError(what string, err error) error {
	var e *runtime.Error
	if errors.As(err, &e) {
		return e
	}
	return runtime.Internal(fmt.Errorf("%s: %w", what, err))
}

// protocolVersion is the A2A version (Major.Minor) the call was made in, as
// its binding negotiated it ("" when the server is called directly): what a
// push config registered by the call records (store.PushConfig).
func (c *call) protocolVersion() string {
	if c.info == nil {
		return ""
	}
	return c.info.Version
}
