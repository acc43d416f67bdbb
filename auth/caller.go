package auth

import (
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// IdentityOf returns the identity behind a server.Caller (the one the
// Guard attached to the call), or nil for an anonymous caller.
func IdentityOf(c server.Caller) *runtime.Identity { return c.Identity }
