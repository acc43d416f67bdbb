package manifest

import (
	"slices"
	"time"

	"github.com/a2agen/a2agen/internal/dataschema"
	"github.com/a2agen/a2agen/runtime"
)

// APIVersion is the manifest format this package reads (the apiVersion key).
const APIVersion = "a2agen/v1"

// Kind is the only accepted value of the optional kind key.
const Kind = "Agent"

// The A2A protocol versions a scaffolded agent can serve (protocolVersions).
const (
	// ProtocolVersion10 is A2A v1.0, which every scaffolded agent serves.
	ProtocolVersion10 = "1.0"
	// ProtocolVersion03 is A2A v0.3, served next to v1.0 through
	// compat/a2av03 (JSON-RPC, HTTP+JSON) and compat/a2av03grpc (gRPC).
	ProtocolVersion03 = "0.3"
	// ProtocolVersion11Draft is the A2A 1.1 draft (branch dev-1.1 of the
	// specification), served beside 1.0 to callers that ask for it
	// (host.Config.ProtocolVersions; docs/bindings.md, "A2A 1.1 draft").
	ProtocolVersion11Draft = "1.1"
)

// ProtocolVersions lists the versions protocolVersions accepts: 1.0, the
// 1.1 draft, v0.3.
var ProtocolVersions = []string{ProtocolVersion10, ProtocolVersion11Draft, ProtocolVersion03}

// ServesV11Draft reports whether the agent serves the A2A 1.1 draft beside
// 1.0: its card lists a 1.1 twin of each 1.0 interface and its host.Config
// sets ProtocolVersions.
func (m *Manifest) ServesV11Draft() bool {
	return slices.Contains(m.ProtocolVersions, ProtocolVersion11Draft)
}

// ServesV03 reports whether the agent serves A2A v0.3 next to v1.0: its
// card is the dual card (a 0.3 interface next to each 1.0 one and the
// top-level fields of a v0.3 card) and its host.Config sets V03.
func (m *Manifest) ServesV03() bool {
	for _, v := range m.ProtocolVersions {
		if v == ProtocolVersion03 {
			return true
		}
	}
	return false
}

// Default values applied to keys the manifest leaves out.
const (
	DefaultHTTPAddress  = ":8080"
	DefaultGRPCAddress  = ":9090"
	DefaultJSONRPCPath  = "/"
	DefaultHTTPJSONPath = "/rest"
	DefaultMediaType    = "text/plain"
)

// Position is where a value starts in the manifest file (1-based).
type Position struct {
	Line, Col int
}

// Manifest is a decoded, validated agent.yaml. Optional strings are empty
// when absent; defaults (binding addresses and paths, default modes) are
// already applied.
type Manifest struct {
	// File is the name the manifest was parsed under (used in messages).
	File string

	APIVersion string
	Kind       string // "" or "Agent"

	// Card identity.
	Name             string
	Description      string
	Version          string
	Provider         *Provider // nil when absent
	DocumentationURL string
	IconURL          string

	// Module is the Go module path of the scaffolded project ("" when the
	// manifest leaves it to the command line).
	Module string
	// URL is the public base URL of the agent ("" when absent): interface
	// URLs of the HTTP bindings are URL + path, the gRPC one is URL's host
	// with the binding's port.
	URL string

	// ProtocolVersions are the A2A protocol versions the agent serves, as
	// written (Major.Minor, no duplicates, "1.0" among them); ["1.0"] when
	// the manifest leaves them out. See ServesV03.
	ProtocolVersions []string

	Bindings     []Binding
	Capabilities Capabilities

	DefaultInputModes  []string
	DefaultOutputModes []string

	Skills []Skill

	// SecuritySchemes in file order; names are unique.
	SecuritySchemes      []SecurityScheme
	SecurityRequirements []SecurityRequirement

	Extensions []Extension

	// ExtendedCard is nil when the manifest has no extendedCard section.
	ExtendedCard *ExtendedCard

	// Push holds push-notification delivery settings; zero values mean the
	// default server's defaults.
	Push PushDelivery

	// ModelProvider is the model endpoint of the LLM skills; nil when the
	// manifest has none (then no skill has LLM).
	ModelProvider *ModelProvider
	// Tools are the project's Go functions LLM skills may call.
	Tools []Tool
	// RemoteAgents are the A2A agents whose skills LLM skills may call.
	RemoteAgents []RemoteAgent
}

// Provider is the organisation behind the agent.
type Provider struct {
	Organization string
	URL          string
}

// Binding is one interface the agent serves.
type Binding struct {
	// Protocol is the binding, as the card spells it; "" when the manifest
	// named none or an unknown one (a problem is reported).
	Protocol runtime.Binding
	// Address is the listen address, host:port (host may be empty).
	Address string
	// Path is where an HTTP binding is mounted ("" for gRPC).
	Path string
	// Tenant is the interface's tenant ("" for none).
	Tenant string
	// URL overrides the interface URL written into the card ("" to derive
	// it from the base URL).
	URL string
	Pos Position
}

// Capabilities are the card's optional capability flags; nil means absent
// (the card then omits the flag, which clients read as false).
type Capabilities struct {
	Streaming         *bool
	PushNotifications *bool
	ExtendedAgentCard *bool
}

// Skill is one skill of the card.
type Skill struct {
	ID                   string
	Name                 string
	Description          string
	Tags                 []string
	Examples             []string
	InputModes           []string
	OutputModes          []string
	SecurityRequirements []SecurityRequirement
	// Input and Output are the data the skill takes and gives, as data
	// parts (application/json); nil when the skill declares none.
	Input, Output *Data
	// LLM, when not nil, makes the model answer the skill (host/llm).
	LLM *LLMSkill
	Pos Position
}

// Data is the typed data of a skill in one direction: its JSON Schema (an
// object, in the subset of package dataschema) and examples that match it.
type Data struct {
	Schema *dataschema.Schema
	// Examples are JSON-compatible values (map[string]any, []any, string,
	// float64, bool), each valid against Schema.
	Examples []any
	Pos      Position
}

// SchemeType is the kind of a security scheme (the type key).
type SchemeType string

// The security scheme types of A2A (SecurityScheme's oneof).
const (
	SchemeAPIKey        SchemeType = "apiKey"
	SchemeHTTP          SchemeType = "http"
	SchemeOAuth2        SchemeType = "oauth2"
	SchemeOpenIDConnect SchemeType = "openIdConnect"
	SchemeMTLS          SchemeType = "mtls"
)

// SchemeTypes lists the scheme types in documentation order.
var SchemeTypes = []SchemeType{SchemeAPIKey, SchemeHTTP, SchemeOAuth2, SchemeOpenIDConnect, SchemeMTLS}

// SecurityScheme is one named security scheme. Which fields are set depends
// on Type.
type SecurityScheme struct {
	Name        string
	Type        SchemeType
	Description string

	// apiKey: where the key travels ("header", "query" or "cookie") and the
	// header, query parameter or cookie name.
	Location string
	KeyName  string

	// http: the scheme ("bearer" or "basic", lower case) and an optional
	// bearer format hint such as "JWT".
	Scheme       string
	BearerFormat string

	// oauth2: the flow (one per scheme, as in A2A) and the authorization
	// server metadata URL (RFC 8414).
	Flow              *OAuthFlow
	OAuth2MetadataURL string

	// openIdConnect: the discovery document URL.
	OpenIDConnectURL string

	Pos Position
}

// FlowType names an OAuth 2.0 flow.
type FlowType string

// The OAuth 2.0 flows a manifest can declare (the implicit and password
// flows are deprecated by A2A 1.0 and not offered).
const (
	FlowAuthorizationCode FlowType = "authorizationCode"
	FlowClientCredentials FlowType = "clientCredentials"
	FlowDeviceCode        FlowType = "deviceCode"
)

// OAuthFlow is the one flow of an oauth2 scheme.
type OAuthFlow struct {
	Type                   FlowType
	AuthorizationURL       string // authorizationCode
	DeviceAuthorizationURL string // deviceCode
	TokenURL               string
	RefreshURL             string
	Scopes                 []Scope // file order
	PKCERequired           bool    // authorizationCode
}

// Scope is an OAuth scope and its description.
type Scope struct {
	Name, Description string
}

// SecurityRequirement is one alternative way to authenticate: every scheme
// it lists must be satisfied (with the scopes given). A list of
// requirements is satisfied when any one of them is.
type SecurityRequirement struct {
	Schemes []RequiredScheme
}

// RequiredScheme names a security scheme and the scopes it must grant.
type RequiredScheme struct {
	Name   string
	Scopes []string
}

// Extension is a protocol extension the agent supports.
type Extension struct {
	URI         string
	Description string
	Required    bool
	// Params is the extension's configuration as JSON-compatible values
	// (map[string]any, []any, string, float64, bool, nil); nil when absent.
	Params map[string]any
}

// ExtendedCard is what the extended agent card adds to the public one; it is
// served only to authenticated callers.
type ExtendedCard struct {
	Skills []Skill
}

// PushDelivery configures push-notification delivery; zero fields mean the
// default server's defaults.
type PushDelivery struct {
	Timeout        time.Duration
	MaxRetries     *int
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// AllowPrivateNetworks lets webhooks target loopback, private and
	// link-local addresses (for tests and private deployments).
	AllowPrivateNetworks bool
}
