package gen

import (
	"maps"
	"net/http"
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// protocolProfile is what differs between versions of the A2A protocol for
// one service, kept as data so that the runtime stays version-agnostic: the
// generator emits it on the ServiceDesc and its Operations (grpc-gateway keeps
// wire names as data the same way, in its grpc_api_configuration).
type protocolProfile struct {
	// versions are the protocol versions (Major.Minor) the service's wire
	// form implements, newest first.
	versions []string
	// jsonrpcMethods maps rpc names to their JSON-RPC method names where
	// these are not the rpc name.
	jsonrpcMethods map[string]string
	// httpVerbs widens the HTTP+JSON verbs of rpcs, by rpc name.
	httpVerbs map[string]verbs
	// otherVersionMethods are the JSON-RPC methods of other versions of the
	// protocol, by method, valued by their version.
	otherVersionMethods map[string]string
}

// verbs is the generator's form of runtime.HTTPVerbs.
type verbs struct {
	server, client []string
	retryStatuses  []int
}

// defaultProtocolVersion is the version of services the table does not
// know: protoc-gen-a2a's conventions (JSON-RPC method = rpc name, the
// A2A-Version service parameter) are those of A2A v1.0.
const defaultProtocolVersion = "1.0"

// v03JSONRPCMethods are the JSON-RPC method names of A2A v0.3 (tag v0.3.0
// of the specification repository, §7 and specification/json/a2a.json), by
// rpc name of its gRPC service a2a.v1.A2AService. tasks/list has no rpc in
// that proto; it is listed in v1.0's otherVersionMethods.
var v03JSONRPCMethods = map[string]string{
	"SendMessage":                      "message/send",
	"SendStreamingMessage":             "message/stream",
	"GetTask":                          "tasks/get",
	"CancelTask":                       "tasks/cancel",
	"TaskSubscription":                 "tasks/resubscribe",
	"CreateTaskPushNotificationConfig": "tasks/pushNotificationConfig/set",
	"GetTaskPushNotificationConfig":    "tasks/pushNotificationConfig/get",
	"ListTaskPushNotificationConfig":   "tasks/pushNotificationConfig/list",
	"DeleteTaskPushNotificationConfig": "tasks/pushNotificationConfig/delete",
	"GetAgentCard":                     "agent/getAuthenticatedExtendedCard",
}

// protocolProfiles are the known A2A services by proto full name.
var protocolProfiles = map[protoreflect.FullName]protocolProfile{
	"lf.a2a.v1.A2AService": {
		versions: []string{"1.0"},
		httpVerbs: map[string]verbs{
			// SubscribeToTask: the proto binds GET,
			// the specification prose (§5.3, §11.3.2) says POST; the
			// official Go SDK v2.3.1 server accepts POST only, and its
			// client and the A2A TCK send POST. Serve both verbs; call
			// with POST and fall back to GET once when the route is
			// missing (404) or refuses the verb (405).
			"SubscribeToTask": {
				server:        []string{http.MethodGet, http.MethodPost},
				client:        []string{http.MethodPost, http.MethodGet},
				retryStatuses: []int{http.StatusNotFound, http.StatusMethodNotAllowed},
			},
		},
		otherVersionMethods: versionOf("0.3", append(slices.Collect(maps.Values(v03JSONRPCMethods)), "tasks/list")),
	},
	"a2a.v1.A2AService": {
		versions:       []string{"0.3"},
		jsonrpcMethods: v03JSONRPCMethods,
	},
}

// versionOf maps every method to version.
func versionOf(version string, methods []string) map[string]string {
	m := make(map[string]string, len(methods))
	for _, name := range methods {
		m[name] = version
	}
	return m
}

// profileOf returns the protocol profile of the service named full, with
// the versions replaced by override when it is not empty
// (protocol_versions=).
func profileOf(full protoreflect.FullName, override []string) protocolProfile {
	p, ok := protocolProfiles[full]
	if !ok {
		p.versions = []string{defaultProtocolVersion}
	}
	if len(override) > 0 {
		p.versions = override
	}
	return p
}

// jsonrpcMethod is the JSON-RPC method name of rpc under p.
func (p *protocolProfile) jsonrpcMethod(rpc string) string {
	if m, ok := p.jsonrpcMethods[rpc]; ok {
		return m
	}
	return rpc
}
