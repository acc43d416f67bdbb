package server

import (
	"context"

	"github.com/a2agen/a2agen/runtime"
)

// Caller is the identity behind a request, as an Authenticator established
// it. The zero Caller is anonymous.
type Caller struct {
	// ID identifies an authenticated caller (a user, a client id, a key id).
	// Empty means anonymous.
	ID string
	// Claims is whatever else the Authenticator wants executors to see, e.g.
	// token claims or scopes.
	Claims any
}

// Authenticated reports whether the caller has an identity.
func (c Caller) Authenticated() bool { return c.ID != "" }

// Authenticator establishes who is calling, from the request's headers
// (info.Header, also for gRPC metadata: Authorization is read the same way
// on every binding). Returning an error refuses the request with it — use
// runtime.Unauthenticated or runtime.Unauthorized. Returning the zero Caller
// lets the request through anonymously. info is nil when the server is
// called directly rather than through a binding.
type Authenticator func(ctx context.Context, info *runtime.CallInfo) (Caller, error)

// OwnerByCallerID is a task-owner function for WithTaskOwner: each task
// belongs to the caller id that created it.
func OwnerByCallerID(c Caller) string { return c.ID }

type callerKey struct{}

// CallerFromContext returns the authenticated caller of the request ctx
// belongs to (also inside Execute and Canceler.Cancel), or false for an
// anonymous one.
func CallerFromContext(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
