package runtime

import "net/http"

// verbOverride widens the HTTP verbs of one rpc of the HTTP+JSON binding
// beyond what its google.api.http rules say, for rpcs where the proto, the
// specification prose and deployed implementations disagree. It applies to
// every rule of the rpc (plain and /{tenant} routes alike).
type verbOverride struct {
	// serverMethods are verbs the server accepts in addition to the rule's
	// own. The rule's body selector still applies: a rule without a body
	// reads none whatever the verb.
	serverMethods []string
	// clientMethods are the verbs the client tries, in order; the next one
	// is tried only when the previous answered one of retryStatuses without
	// an A2A error that shows the route exists.
	clientMethods []string
	retryStatuses []int
}

// verbOverrides is the table of documented verb overrides, keyed by gRPC
// procedure (Operation.Procedure). It is data, not a condition on a method
// name, so that a future proto settling a verb needs no code change: every
// entry stays correct whichever verb the proto ends up with, and an entry
// can be removed once deployed peers agree.
var verbOverrides = map[string]verbOverride{
	// SubscribeToTask (conflict D1, facts §4 and §13 #1): the proto binds GET,
	// the specification prose (§5.3, §11.3.2) says POST; the official Go SDK
	// v2.3.1 server accepts POST only, its HEAD both; its client and the A2A
	// TCK send POST. Serve both verbs and ignore any body; call with POST and
	// fall back to GET once when the route is missing (404) or refuses the
	// verb (405).
	"/lf.a2a.v1.A2AService/SubscribeToTask": {
		serverMethods: []string{http.MethodGet, http.MethodPost},
		clientMethods: []string{http.MethodPost, http.MethodGet},
		retryStatuses: []int{http.StatusNotFound, http.StatusMethodNotAllowed},
	},
}
