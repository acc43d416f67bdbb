package server

import (
	"context"

	"github.com/a2agen/a2agen/runtime"
)

// The caller. Identity flows once, from the binding: the binding's
// runtime.Authenticator (runtime.WithAuthenticator; host and auth.Guard
// install one from the agent card) attaches a *runtime.Identity to the
// call's context, and the server reads it from there — for the task owner
// (WithTaskOwner), the stream caps, the extended card and Request.Caller.
// There is no second hook on the server to wire, and no second type: a
// program that calls the server directly, without a binding, puts the
// identity in the context itself with runtime.WithIdentity.

// callerOf is the identity of the call ctx belongs to (also inside Execute
// and Canceler.Cancel), or nil for an anonymous caller: none attached, or
// one without a subject.
func callerOf(ctx context.Context) *runtime.Identity {
	id, ok := runtime.IdentityFromContext(ctx)
	if !ok || id.Subject == "" {
		return nil
	}
	return id
}

// subjectOf is the caller's subject, "" for an anonymous caller (nil).
func subjectOf(id *runtime.Identity) string {
	if id == nil {
		return ""
	}
	return id.Subject
}

// OwnerByCallerID is a task-owner function for WithTaskOwner: each task
// belongs to the subject of the identity that created it (anonymous
// callers, nil: no owner).
func OwnerByCallerID(caller *runtime.Identity) string { return subjectOf(caller) }
