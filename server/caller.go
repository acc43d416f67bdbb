package server

import (
	"context"

	"github.com/a2agen/a2agen/runtime"
)

// Caller is the identity behind a request. The zero Caller is anonymous.
//
// Identity flows once, from the binding: the binding's
// runtime.Authenticator (runtime.WithAuthenticator; host and auth.Guard
// install one from the agent card) attaches a *runtime.Identity to the
// call's context, and the server reads the caller from there
// (CallerFromContext); there is no second hook on the server to wire. A
// program that calls the server directly, without a binding, puts the
// identity in the context itself with runtime.WithIdentity.
type Caller struct {
	// ID identifies an authenticated caller (a user, a client id, a key id):
	// the identity's Subject. Empty means anonymous.
	ID string
	// Claims is the identity's Claims: whatever else the authenticator
	// wants executors to see, e.g. token claims.
	Claims any
	// Identity is the whole identity (the security schemes satisfied and
	// their scopes included); nil for an anonymous caller.
	Identity *runtime.Identity
}

// Authenticated reports whether the caller has an identity.
func (c Caller) Authenticated() bool { return c.ID != "" }

// OwnerByCallerID is a task-owner function for WithTaskOwner: each task
// belongs to the caller id that created it.
func OwnerByCallerID(c Caller) string { return c.ID }

// CallerFromContext returns the caller of the call ctx belongs to (also
// inside Execute and Canceler.Cancel): the identity the binding's
// authenticator attached (runtime.IdentityFromContext), or the anonymous
// Caller and false.
func CallerFromContext(ctx context.Context) (Caller, bool) {
	id, ok := runtime.IdentityFromContext(ctx)
	if !ok || id.Subject == "" {
		return Caller{}, false
	}
	return Caller{ID: id.Subject, Claims: id.Claims, Identity: id}, true
}
