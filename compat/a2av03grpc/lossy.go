package a2av03grpc

// Lossy lists every conversion between the v0.3 proto messages and v1.0
// without an exact counterpart, as implemented by this package (the v0.3
// JSON shapes have their own list, compat/a2av03.Lossy).
var Lossy = []string{
	"v1.0 → v0.3: Part.metadata and Part.filename are dropped (the v0.3 proto Part and FilePart have neither); mediaType survives on file parts only",
	"v1.0 → v0.3: a data part whose value is not an object is wrapped as {\"value\": …}; read back, it stays the object",
	"v1.0 → v0.3: Message.referenceTaskIds is dropped (no v0.3 proto field)",
	"v1.0 → v0.3: CancelTaskRequest.metadata is dropped (no v0.3 proto field)",
	"v1.0 → v0.3: request tenants and AgentInterface.tenant are dropped (v0.3 has no tenant; the interface's applies)",
	"v0.3 → v1.0: TaskStatusUpdateEvent.final is dropped (a v1.0 stream's end says it); v1.0 → v0.3: final is computed as on JSON-RPC (compat/a2av03.Final): true for a terminal state or input-required, false for auth-required, which keeps a v1.0 stream open",
	"v0.3 → v1.0: push AuthenticationInfo schemes beyond the first are dropped (v1.0 has one scheme); v1.0 → v0.3: an empty scheme is no scheme",
	"v0.3 ↔ v1.0: history_length 0 is unset (the v0.3 proto field has no presence); an explicit v1.0 historyLength 0 reaches a v0.3 agent as unset",
	"v0.3 → v1.0: SendMessageConfiguration.blocking false (or unset: the proto field has no presence) is returnImmediately true (as the official SDKs read it); a request without configuration is blocking. The v0.3 JSON shapes differ here: a configuration without blocking is blocking (compat/a2av03.Lossy)",
	"v0.3 → v1.0 (card): a proto OAuthFlows holds one flow, as v1.0's does; implicit and password become v1.0's deprecated flows (the v0.3 JSON card, which may list several flows, keeps the first: compat/a2av03.Lossy)",
	"v1.0 → v0.3: AgentCard.iconUrl, AuthorizationCodeOAuthFlow.pkceRequired and the device-code OAuth flow are dropped (no v0.3 proto fields); a card with only a device-code flow has an OAuth2 scheme without flows",
	"v0.3 → v1.0: AgentCard url, preferredTransport and additionalInterfaces become supportedInterfaces with the card's protocolVersion; v1.0 → v0.3: url and preferredTransport are the first 0.3 interface's (the first interface's when none is 0.3), additionalInterfaces all of those",
	"v0.3 → v1.0: absent capabilities streaming and pushNotifications read as false (no presence in the v0.3 proto)",
	"v1.0 ListTasks has no v0.3 rpc: a v1.0 client calling a v0.3-only agent gets UnsupportedOperation without a call",
	"v0.3 GetAgentCard is served by v1.0 GetExtendedAgentCard (the authenticated card; the public card is at the well-known URL)",
}
