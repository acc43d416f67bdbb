// Package auth enforces the security an agent card declares, on every
// binding: it reads the card's securitySchemes and securityRequirements and
// returns a runtime.Authenticator that finds the credentials of each scheme
// in a call — an API key in a header, query parameter or cookie; an HTTP
// bearer token (http bearer, oauth2 and openIdConnect schemes); HTTP basic
// credentials; a client certificate verified by the TLS configuration
// (mtls) — has them checked by the agent's Verifiers, and refuses calls that
// satisfy none of the requirements:
//
//	guard, err := auth.New(card, auth.Verifiers{Token: checkJWT})
//	srv, err := server.New(card, exec)
//	h := a2av1.NewA2AServiceJSONRPCHandler(srv, guard.HandlerOption())
//
// The identity the Guard attaches reaches the default server by itself
// (its executors see it as Request.Caller); there is no second hook to wire.
//
// Calls without acceptable credentials get Unauthenticated (HTTP 401 with
// WWW-Authenticate challenges naming the schemes; gRPC UNAUTHENTICATED;
// JSON-RPC -31401); credentials without a required scope get Unauthorized
// (403, PERMISSION_DENIED, -31403). Credentials are checked whenever they
// are sent, also where no requirement asks for them, so that the caller is
// known (for the extended card, for task ownership and for skill
// requirements, which Guard.Check evaluates).
//
// The identity a call established is a *runtime.Identity in its context
// (runtime.IdentityFromContext): the same value the default server hands
// its executors as Request.Caller, and Guard.Check takes.
package auth
