package manifest

// This file is the list of every key the decoder reads, per kind of object.
// The decoder checks documents against it (unknown keys, missing required
// keys) and a test checks it against schema/agent.schema.json, so adding a
// key means adding it here, to the decoder, to the schema and to
// docs/manifest.md.

// shape is a kind of YAML mapping with named keys.
type shape struct {
	name string
	keys []key
}

// key is one named key of a shape.
type key struct {
	name     string
	required bool
	// elem describes nested values: the value itself (nested), each list
	// element (list) or each value of a name→object map (mapOf).
	elem   *shape
	layout layout
}

// layout says how a key's value holds elem.
type layout int

const (
	scalar layout = iota // a scalar, a list of scalars or a free-form mapping
	nested               // a mapping of shape elem
	list                 // a list of mappings of shape elem
	mapOf                // a mapping from free names to mappings of shape elem
)

func (s *shape) names() []string {
	out := make([]string, len(s.keys))
	for i, k := range s.keys {
		out[i] = k.name
	}
	return out
}

func (s *shape) lookup(name string) (key, bool) {
	for _, k := range s.keys {
		if k.name == name {
			return k, true
		}
	}
	return key{}, false
}

var (
	providerShape = &shape{name: "provider", keys: []key{
		{name: "organization", required: true},
		{name: "url", required: true},
	}}

	bindingShape = &shape{name: "binding", keys: []key{
		{name: "binding", required: true},
		{name: "address"},
		{name: "path"},
		{name: "tenant"},
		{name: "url"},
	}}

	capabilitiesShape = &shape{name: "capabilities", keys: []key{
		{name: "streaming"},
		{name: "pushNotifications"},
		{name: "extendedAgentCard"},
	}}

	skillShape = &shape{name: "skill", keys: []key{
		{name: "id", required: true},
		{name: "name", required: true},
		{name: "description", required: true},
		{name: "tags", required: true},
		{name: "examples"},
		{name: "inputModes"},
		{name: "outputModes"},
		{name: "securityRequirements"},
		{name: "input", elem: dataShape, layout: nested},
		{name: "output", elem: dataShape, layout: nested},
		{name: "llm", elem: llmShape, layout: nested},
	}}

	// llmShape is a skill answered by the model (host/llm).
	llmShape = &shape{name: "llm", keys: []key{
		{name: "instructions", required: true},
		{name: "temperature"},
		{name: "maxTokens"},
		{name: "memoryBytes"},
		{name: "tools"},
		{name: "remoteAgents"},
	}}

	modelProviderShape = &shape{name: "modelProvider", keys: []key{
		{name: "baseUrl", required: true},
		{name: "model", required: true},
		{name: "apiKeyEnv"},
		{name: "timeout"},
		{name: "maxRetries"},
	}}

	toolShape = &shape{name: "tool", keys: []key{
		{name: "name", required: true},
		{name: "description", required: true},
		{name: "input", elem: dataShape, layout: nested},
	}}

	remoteAgentShape = &shape{name: "remoteAgent", keys: []key{
		{name: "name", required: true},
		{name: "url", required: true},
		{name: "skills"},
		{name: "credentials", elem: remoteCredentialShape, layout: list},
	}}

	remoteCredentialShape = &shape{name: "credential", keys: []key{
		{name: "scheme", required: true},
		{name: "env", required: true},
	}}

	// dataShape is a skill's input or output: a JSON Schema (its keywords
	// are checked by package dataschema, not by shapes) and examples.
	dataShape = &shape{name: "data", keys: []key{
		{name: "schema", required: true},
		{name: "examples"},
	}}

	// One shape per OAuth flow; flowsShape holds exactly one of them.
	authorizationCodeShape = &shape{name: "authorizationCode", keys: []key{
		{name: "authorizationUrl", required: true},
		{name: "tokenUrl", required: true},
		{name: "refreshUrl"},
		{name: "scopes", required: true},
		{name: "pkceRequired"},
	}}
	clientCredentialsShape = &shape{name: "clientCredentials", keys: []key{
		{name: "tokenUrl", required: true},
		{name: "refreshUrl"},
		{name: "scopes", required: true},
	}}
	deviceCodeShape = &shape{name: "deviceCode", keys: []key{
		{name: "deviceAuthorizationUrl", required: true},
		{name: "tokenUrl", required: true},
		{name: "refreshUrl"},
		{name: "scopes", required: true},
	}}
	flowsShape = &shape{name: "flows", keys: []key{
		{name: string(FlowAuthorizationCode), elem: authorizationCodeShape, layout: nested},
		{name: string(FlowClientCredentials), elem: clientCredentialsShape, layout: nested},
		{name: string(FlowDeviceCode), elem: deviceCodeShape, layout: nested},
	}}

	// securitySchemeShape holds the keys of every scheme type; which ones a
	// type requires or allows is in schemeTypeKeys.
	securitySchemeShape = &shape{name: "securityScheme", keys: []key{
		{name: "type", required: true},
		{name: "description"},
		{name: "location"},
		{name: "name"},
		{name: "scheme"},
		{name: "bearerFormat"},
		{name: "flows", elem: flowsShape, layout: nested},
		{name: "oauth2MetadataUrl"},
		{name: "openIdConnectUrl"},
	}}

	extensionShape = &shape{name: "extension", keys: []key{
		{name: "uri", required: true},
		{name: "description"},
		{name: "required"},
		{name: "params"},
	}}

	extendedCardShape = &shape{name: "extendedCard", keys: []key{
		{name: "skills", required: true, elem: skillShape, layout: list},
	}}

	pushShape = &shape{name: "push", keys: []key{
		{name: "timeout"},
		{name: "maxRetries"},
		{name: "initialBackoff"},
		{name: "maxBackoff"},
		{name: "allowPrivateNetworks"},
	}}

	manifestShape = &shape{name: "manifest", keys: []key{
		{name: "apiVersion", required: true},
		{name: "kind"},
		{name: "name", required: true},
		{name: "description", required: true},
		{name: "version", required: true},
		{name: "provider", elem: providerShape, layout: nested},
		{name: "documentationUrl"},
		{name: "iconUrl"},
		{name: "module"},
		{name: "url"},
		{name: "protocolVersions"},
		{name: "bindings", required: true, elem: bindingShape, layout: list},
		{name: "capabilities", elem: capabilitiesShape, layout: nested},
		{name: "defaultInputModes"},
		{name: "defaultOutputModes"},
		{name: "skills", required: true, elem: skillShape, layout: list},
		{name: "securitySchemes", elem: securitySchemeShape, layout: mapOf},
		{name: "securityRequirements"},
		{name: "extensions", elem: extensionShape, layout: list},
		{name: "extendedCard", elem: extendedCardShape, layout: nested},
		{name: "push", elem: pushShape, layout: nested},
		{name: "modelProvider", elem: modelProviderShape, layout: nested},
		{name: "tools", elem: toolShape, layout: list},
		{name: "remoteAgents", elem: remoteAgentShape, layout: list},
	}}
)

// schemeTypeKeys lists, per scheme type, the keys it requires and the keys it
// allows besides type and description.
var schemeTypeKeys = map[SchemeType]struct{ required, optional []string }{
	SchemeAPIKey:        {required: []string{"location", "name"}},
	SchemeHTTP:          {required: []string{"scheme"}, optional: []string{"bearerFormat"}},
	SchemeOAuth2:        {required: []string{"flows"}, optional: []string{"oauth2MetadataUrl"}},
	SchemeOpenIDConnect: {required: []string{"openIdConnectUrl"}},
	SchemeMTLS:          {},
}

// retiredKeys explains keys that look right but are deliberately not
// accepted, instead of a bare "unknown key".
var retiredKeys = map[string]map[string]string{
	"flows": {
		"implicit": "the implicit flow is deprecated by A2A 1.0 and not supported; use authorizationCode (with pkceRequired: true)",
		"password": "the password flow is deprecated by A2A 1.0 and not supported; use authorizationCode or deviceCode",
	},
}
