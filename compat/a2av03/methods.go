package a2av03

import a2av03pb "github.com/a2agen/a2agen/a2a/v03"

// RenamedRPCs are the rpcs of the v0.3 service (a2a.v1.A2AService, package
// a2a/v03) whose counterpart in lf.a2a.v1.A2AService has another name,
// v0.3 name to v1.0 name. Every other rpc keeps its name. This is the one
// hand-written part of the v0.3 names: the methods themselves come from the
// generated descriptor.
var RenamedRPCs = map[string]string{
	"TaskSubscription":               "SubscribeToTask",
	"ListTaskPushNotificationConfig": "ListTaskPushNotificationConfigs",
	"GetAgentCard":                   "GetExtendedAgentCard",
}

// V1RPC is the name in lf.a2a.v1.A2AService of the v0.3 rpc named v03.
func V1RPC(v03 string) string {
	if v1, ok := RenamedRPCs[v03]; ok {
		return v1
	}
	return v03
}

// Methods maps the JSON-RPC methods of A2A v0.3 onto the rpcs of
// lf.a2a.v1.A2AService that serve them, as the generated v0.3 descriptor
// (a2av03pb.A2AServiceDesc) names them. tasks/list has no v0.3 JSON-RPC
// method.
var Methods = func() map[string]string {
	m := map[string]string{}
	for _, op := range a2av03pb.A2AServiceDesc.Operations {
		if op.JSONRPCMethod != "" {
			m[op.JSONRPCMethod] = V1RPC(op.Name)
		}
	}
	return m
}()

// v03Methods are the v0.3 JSON-RPC methods by v1.0 rpc name (Methods the
// other way round).
var v03Methods = func() map[string]string {
	m := make(map[string]string, len(Methods))
	for method, rpc := range Methods {
		m[rpc] = method
	}
	return m
}()
