package auth

import (
	"context"

	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// Caller is a server.Authenticator that hands the identity a Guard
// attached to the call to the default server: the caller's id is the
// identity's subject and its Claims the *runtime.Identity. Use it with
// server.WithAuthenticator so that the extended card is served to
// authenticated callers and server.WithTaskOwner can scope tasks.
func Caller(ctx context.Context, _ *runtime.CallInfo) (server.Caller, error) {
	id, ok := runtime.IdentityFromContext(ctx)
	if !ok {
		return server.Caller{}, nil
	}
	return server.Caller{ID: id.Subject, Claims: id}, nil
}

// IdentityOf returns the identity behind a server.Caller made by Caller,
// or nil for an anonymous caller.
func IdentityOf(c server.Caller) *runtime.Identity {
	id, _ := c.Claims.(*runtime.Identity)
	return id
}
