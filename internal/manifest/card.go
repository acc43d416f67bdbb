package manifest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/dataschema"
	"github.com/a2agen/a2agen/runtime"
)

// protocolVersion is the A2A version every interface of a scaffolded agent
// speaks (AgentInterface.protocolVersion): the newest of the generated
// service the agent is served with.
var protocolVersion = a2av1.A2AServiceDesc.ProtocolVersion()

// AgentCard returns the public agent card the scaffolded agent serves.
// With protocolVersions naming "0.3" every interface has a 0.3 twin
// after the 1.0 ones (the scaffold's CardJSON then adds the top-level
// fields of a v0.3 card).
// baseURL, when not empty, overrides the manifest's url (the public base URL,
// see InterfaceURL); it must satisfy ValidateBaseURL. The card has no
// signatures.
func (m *Manifest) AgentCard(baseURL string) *a2av1.AgentCard {
	return m.card(baseURL, m.Skills)
}

// ExtendedAgentCard returns the card served to authenticated callers: the
// public card plus the extended card's skills. Without an extendedCard
// section it equals the public card.
func (m *Manifest) ExtendedAgentCard(baseURL string) *a2av1.AgentCard {
	skills := m.Skills
	if m.ExtendedCard != nil {
		skills = append(append([]Skill(nil), m.Skills...), m.ExtendedCard.Skills...)
	}
	return m.card(baseURL, skills)
}

func (m *Manifest) card(baseURL string, skills []Skill) *a2av1.AgentCard {
	if baseURL == "" {
		baseURL = m.URL
	}
	c := &a2av1.AgentCard{
		Name:               m.Name,
		Description:        m.Description,
		Version:            m.Version,
		DefaultInputModes:  clone(m.DefaultInputModes),
		DefaultOutputModes: clone(m.DefaultOutputModes),
		Capabilities: &a2av1.AgentCapabilities{
			Streaming:         cloneBool(m.Capabilities.Streaming),
			PushNotifications: cloneBool(m.Capabilities.PushNotifications),
			ExtendedAgentCard: cloneBool(m.Capabilities.ExtendedAgentCard),
		},
		SecurityRequirements: requirementsProto(m.SecurityRequirements),
	}
	if m.Provider != nil {
		c.Provider = &a2av1.AgentProvider{Organization: m.Provider.Organization, Url: m.Provider.URL}
	}
	if m.DocumentationURL != "" {
		c.DocumentationUrl = proto.String(m.DocumentationURL)
	}
	if m.IconURL != "" {
		c.IconUrl = proto.String(m.IconURL)
	}
	c.SupportedInterfaces = m.interfaces(baseURL)
	c.Capabilities.Extensions = m.extensionsProto()
	if len(m.SecuritySchemes) > 0 {
		c.SecuritySchemes = map[string]*a2av1.SecurityScheme{}
		for _, s := range m.SecuritySchemes {
			c.SecuritySchemes[s.Name] = schemeProto(s)
		}
	}
	if ext := skillSchemasExtension(skills); ext != nil {
		c.Capabilities.Extensions = append(c.Capabilities.Extensions, ext)
	}
	c.Skills = skillsProto(skills)
	return c
}

// interfaces are the card's interfaces: one per binding at protocol 1.0,
// then a 1.1 twin of each when the manifest serves the 1.1 draft (what
// host.Config.ProtocolVersions adds to a card that lacks them), then a 0.3
// twin of each in the same order when it serves 0.3 (what host.Config.V03
// adds), so that host serves this card as it is and a signed one stays
// valid.
func (m *Manifest) interfaces(baseURL string) []*a2av1.AgentInterface {
	var out []*a2av1.AgentInterface
	for _, b := range m.Bindings {
		out = append(out, &a2av1.AgentInterface{
			Url:             InterfaceURL(b, baseURL),
			ProtocolBinding: b.Protocol.String(),
			Tenant:          b.Tenant,
			ProtocolVersion: protocolVersion,
		})
	}
	v10 := out
	if m.ServesV11Draft() {
		out = append(out, twins(v10, ProtocolVersion11Draft)...)
	}
	if m.ServesV03() {
		out = append(out, twins(v10, ProtocolVersion03)...)
	}
	return out
}

// twins are copies of the interfaces at another protocol version.
func twins(itfs []*a2av1.AgentInterface, version string) []*a2av1.AgentInterface {
	out := make([]*a2av1.AgentInterface, len(itfs))
	for i, itf := range itfs {
		out[i] = proto.CloneOf(itf)
		out[i].ProtocolVersion = version
	}
	return out
}

// extensionsProto are the manifest's extensions as the card declares them.
func (m *Manifest) extensionsProto() []*a2av1.AgentExtension {
	var out []*a2av1.AgentExtension
	for _, e := range m.Extensions {
		ext := &a2av1.AgentExtension{Uri: e.URI, Description: e.Description, Required: e.Required}
		if e.Params != nil {
			// Params hold only JSON-compatible values (the decoder made
			// them), which NewStruct always accepts.
			ext.Params, _ = structpb.NewStruct(e.Params)
		}
		out = append(out, ext)
	}
	return out
}

// skillsProto are the skills as the card lists them.
func skillsProto(skills []Skill) []*a2av1.AgentSkill {
	var out []*a2av1.AgentSkill
	for _, s := range skills {
		out = append(out, &a2av1.AgentSkill{
			Id:                   s.ID,
			Name:                 s.Name,
			Description:          s.Description,
			Tags:                 clone(s.Tags),
			Examples:             skillExamples(s),
			InputModes:           clone(s.InputModes),
			OutputModes:          clone(s.OutputModes),
			SecurityRequirements: requirementsProto(s.SecurityRequirements),
		})
	}
	return out
}

// SkillSchemasExtension is the URI of the data-only extension (A2A
// "Extensions": structured information in the card that changes no
// request) in which cards of a2a-scaffold carry the JSON Schemas of their
// typed skills: AgentSkill has no field for them. Its params are
// {"skills": {"<skill id>": {"input": <schema>, "output": <schema>}}}, for
// the skills of that card that declare them; docs/extensions/skill-schemas-v1.md
// specifies it.
const SkillSchemasExtension = dataschema.CardExtension

// skillSchemasExtension is the card's SkillSchemasExtension entry, or nil
// when no skill of the card is typed.
func skillSchemasExtension(skills []Skill) *a2av1.AgentExtension {
	bySkill := map[string]any{}
	for _, s := range skills {
		entry := map[string]any{}
		if s.Input != nil {
			entry["input"] = s.Input.Schema.Value()
		}
		if s.Output != nil {
			entry["output"] = s.Output.Schema.Value()
		}
		if len(entry) > 0 {
			bySkill[s.ID] = entry
		}
	}
	if len(bySkill) == 0 {
		return nil
	}
	// The schemas hold only JSON-compatible values, which NewStruct always
	// accepts.
	params, _ := structpb.NewStruct(map[string]any{"skills": bySkill})
	return &a2av1.AgentExtension{
		Uri:         SkillSchemasExtension,
		Description: "JSON Schemas of the data parts (" + DataMediaType + ") that skills take (input) and give (output), by skill id.",
		Params:      params,
	}
}

// skillExamples are the examples of the card's skill: the manifest's, then
// each input example as compact JSON (what a client sends as the data
// part, or as text to a skill that also reads text).
func skillExamples(s Skill) []string {
	out := clone(s.Examples)
	if s.Input != nil {
		for _, e := range s.Input.Examples {
			if b, err := json.Marshal(e); err == nil {
				out = append(out, string(b))
			}
		}
	}
	return out
}

// InterfaceURL is the URL the card gives for binding b: b.URL when set
// (reduced to host:port for gRPC); else, for JSON-RPC and HTTP+JSON,
// baseURL + path, or http://localhost:PORT + path without a base URL (the
// host of the listen address when it names one); for gRPC, the host of
// baseURL (or of the listen address, or localhost) with the listen port.
func InterfaceURL(b Binding, baseURL string) string {
	host, port, _ := net.SplitHostPort(b.Address)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	if b.Protocol == runtime.BindingGRPC {
		if b.URL != "" {
			if t, err := grpcTarget(b.URL); err == nil {
				return t
			}
			return b.URL
		}
		if u, err := url.Parse(baseURL); err == nil && baseURL != "" && u.Hostname() != "" {
			host = u.Hostname()
		}
		return net.JoinHostPort(host, port)
	}
	if b.URL != "" {
		return b.URL
	}
	if baseURL == "" {
		baseURL = "http://" + net.JoinHostPort(host, port)
	}
	return strings.TrimSuffix(baseURL, "/") + b.Path
}

// grpcTarget reduces a gRPC interface URL to host:port, accepting host:port,
// dns:///host:port and http(s):// or grpc(s):// URLs (the A2A spec has used
// both forms); an https URL without a port means 443.
func grpcTarget(s string) (string, error) {
	raw := s
	if rest, ok := strings.CutPrefix(s, "dns:///"); ok {
		s = rest
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return "", fmt.Errorf("invalid gRPC URL %q: want host:port, such as \"grpc.example.com:443\"", raw)
		}
		port := u.Port()
		if port == "" {
			switch u.Scheme {
			case "https", "grpcs":
				port = "443"
			case "http", "grpc":
				port = "80"
			default:
				return "", fmt.Errorf("invalid gRPC URL %q: unknown scheme %q; write host:port", raw, u.Scheme)
			}
		}
		return net.JoinHostPort(u.Hostname(), port), nil
	}
	if err := checkAddress(s); err != nil {
		return "", fmt.Errorf("invalid gRPC URL %q: want host:port, such as \"grpc.example.com:443\"", raw)
	}
	if host, _, _ := net.SplitHostPort(s); host == "" {
		return "", fmt.Errorf("invalid gRPC URL %q: no host", raw)
	}
	return s, nil
}

func schemeProto(s SecurityScheme) *a2av1.SecurityScheme {
	switch s.Type {
	case SchemeAPIKey:
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{
			Description: s.Description, Location: s.Location, Name: s.KeyName,
		}}}
	case SchemeHTTP:
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{
			Description: s.Description, Scheme: s.Scheme, BearerFormat: s.BearerFormat,
		}}}
	case SchemeOAuth2:
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{
			Description: s.Description, Flows: flowProto(s.Flow), Oauth2MetadataUrl: s.OAuth2MetadataURL,
		}}}
	case SchemeOpenIDConnect:
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_OpenIdConnectSecurityScheme{OpenIdConnectSecurityScheme: &a2av1.OpenIdConnectSecurityScheme{
			Description: s.Description, OpenIdConnectUrl: s.OpenIDConnectURL,
		}}}
	case SchemeMTLS:
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &a2av1.MutualTlsSecurityScheme{
			Description: s.Description,
		}}}
	}
	return &a2av1.SecurityScheme{}
}

func flowProto(f *OAuthFlow) *a2av1.OAuthFlows {
	if f == nil {
		return nil
	}
	scopes := map[string]string{}
	for _, s := range f.Scopes {
		scopes[s.Name] = s.Description
	}
	switch f.Type {
	case FlowAuthorizationCode:
		return &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_AuthorizationCode{AuthorizationCode: &a2av1.AuthorizationCodeOAuthFlow{
			AuthorizationUrl: f.AuthorizationURL, TokenUrl: f.TokenURL, RefreshUrl: f.RefreshURL, Scopes: scopes, PkceRequired: f.PKCERequired,
		}}}
	case FlowClientCredentials:
		return &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_ClientCredentials{ClientCredentials: &a2av1.ClientCredentialsOAuthFlow{
			TokenUrl: f.TokenURL, RefreshUrl: f.RefreshURL, Scopes: scopes,
		}}}
	case FlowDeviceCode:
		return &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_DeviceCode{DeviceCode: &a2av1.DeviceCodeOAuthFlow{
			DeviceAuthorizationUrl: f.DeviceAuthorizationURL, TokenUrl: f.TokenURL, RefreshUrl: f.RefreshURL, Scopes: scopes,
		}}}
	}
	return nil
}

func requirementsProto(reqs []SecurityRequirement) []*a2av1.SecurityRequirement {
	var out []*a2av1.SecurityRequirement
	for _, r := range reqs {
		pr := &a2av1.SecurityRequirement{Schemes: map[string]*a2av1.StringList{}}
		for _, s := range r.Schemes {
			pr.Schemes[s.Name] = &a2av1.StringList{List: clone(s.Scopes)}
		}
		out = append(out, pr)
	}
	return out
}

func clone(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return append([]string(nil), s...)
}

func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	return proto.Bool(*b)
}
