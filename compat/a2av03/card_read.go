package a2av03

//lint:file-ignore SA1019 v0.3 cards carry the OAuth implicit and password flows that v1.0 keeps as deprecated fields; converting them means reading and writing those fields.

import (
	"encoding/json"
	"fmt"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// CardV03Fields are the top-level fields of a v0.3 agent card that v1.0
// replaced: where the agent is (url, preferredTransport,
// additionalInterfaces), the protocol version it speaks, and the security
// schemes and requirements in their v0.3 shapes.
type CardV03Fields struct {
	URL                               string                       `json:"url"`
	PreferredTransport                string                       `json:"preferredTransport"`
	AdditionalInterfaces              []CardInterface              `json:"additionalInterfaces"`
	ProtocolVersion                   string                       `json:"protocolVersion"`
	Security                          []map[string][]string        `json:"security"`
	SecuritySchemes                   map[string]securitySchemeV03 `json:"securitySchemes"`
	SupportsAuthenticatedExtendedCard *bool                        `json:"supportsAuthenticatedExtendedCard"`
	Skills                            []struct {
		Security []map[string][]string `json:"security"`
	} `json:"skills"`
}

// CardInterface is a v0.3 AgentInterface.
type CardInterface struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

type securitySchemeV03 struct {
	Type              string      `json:"type"`
	Description       string      `json:"description"`
	In                string      `json:"in"`
	Name              string      `json:"name"`
	Scheme            string      `json:"scheme"`
	BearerFormat      string      `json:"bearerFormat"`
	OpenIDConnectURL  string      `json:"openIdConnectUrl"`
	OAuth2MetadataURL string      `json:"oauth2MetadataUrl"`
	Flows             *oauthFlows `json:"flows"`
}

type oauthFlow struct {
	AuthorizationURL string            `json:"authorizationUrl"`
	TokenURL         string            `json:"tokenUrl"`
	RefreshURL       string            `json:"refreshUrl"`
	Scopes           map[string]string `json:"scopes"`
}

type oauthFlows struct {
	AuthorizationCode *oauthFlow `json:"authorizationCode"`
	ClientCredentials *oauthFlow `json:"clientCredentials"`
	Implicit          *oauthFlow `json:"implicit"`
	Password          *oauthFlow `json:"password"`
}

// IsV03Card reports whether the card document doc is a v0.3 card: one with
// a top-level url and no supportedInterfaces.
func IsV03Card(doc []byte) bool {
	var head struct {
		URL                 string          `json:"url"`
		SupportedInterfaces json.RawMessage `json:"supportedInterfaces"`
	}
	return json.Unmarshal(doc, &head) == nil && head.URL != "" && len(head.SupportedInterfaces) == 0
}

// ReadCard reads a v0.3 agent card document as a v1.0 card: the fields both
// versions share as they are; url with preferredTransport (JSONRPC when
// unset) and every other additionalInterfaces entry as supportedInterfaces
// with the card's protocolVersion ("0.3" when it states none);
// supportsAuthenticatedExtendedCard as capabilities.extendedAgentCard; the
// v0.3 security schemes (type apiKey, http, oauth2, openIdConnect,
// mutualTLS) and requirements in their v1.0 form. A scheme of another type
// is an error naming it.
func ReadCard(doc []byte) (*a2av1.AgentCard, error) {
	card := new(a2av1.AgentCard)
	if err := runtime.UnmarshalJSON(doc, card); err != nil {
		return nil, fmt.Errorf("a2av03: the v0.3 agent card: %w", err)
	}
	var v CardV03Fields
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, fmt.Errorf("a2av03: the v0.3 agent card: %w", err)
	}
	card.SupportedInterfaces = V03Interfaces(v)
	if v.SupportsAuthenticatedExtendedCard != nil {
		if card.Capabilities == nil {
			card.Capabilities = &a2av1.AgentCapabilities{}
		}
		card.Capabilities.ExtendedAgentCard = v.SupportsAuthenticatedExtendedCard
	}
	card.SecurityRequirements = requirementsToV1(v.Security)
	for i, s := range v.Skills {
		if i < len(card.Skills) {
			card.Skills[i].SecurityRequirements = requirementsToV1(s.Security)
		}
	}
	card.SecuritySchemes = nil
	for name, s := range v.SecuritySchemes {
		scheme, err := schemeToV1(s)
		if err != nil {
			return nil, fmt.Errorf("a2av03: the v0.3 agent card: securitySchemes.%s: %w", name, err)
		}
		if card.SecuritySchemes == nil {
			card.SecuritySchemes = map[string]*a2av1.SecurityScheme{}
		}
		card.SecuritySchemes[name] = scheme
	}
	return card, nil
}

// DefaultTransport is the binding of a v0.3 card's url when it names no
// preferredTransport (v0.3 §5.6).
const DefaultTransport = runtime.BindingJSONRPC

// V03Interfaces are the interfaces a v0.3 card lists, as v1.0
// supportedInterfaces: url with preferredTransport (DefaultTransport when
// unset) first, then every additionalInterfaces entry not equal to it (an
// entry without a transport is kept without a protocolBinding, so that
// choosing an interface refuses it with that reason rather than guessing),
// each with the card's protocolVersion ("0.3" when it states none). Entries
// without a url are skipped. It is the one reading of these fields for the
// JSON card (ReadCard) and the v0.3 proto card (compat/a2av03grpc.CardToV1).
func V03Interfaces(v CardV03Fields) []*a2av1.AgentInterface {
	version := strings.TrimSpace(v.ProtocolVersion)
	if version == "" {
		version = "0.3"
	}
	var out []*a2av1.AgentInterface
	add := func(u, binding string) {
		if u == "" {
			return
		}
		for _, have := range out {
			if have.Url == u && strings.EqualFold(have.ProtocolBinding, binding) {
				return
			}
		}
		out = append(out, &a2av1.AgentInterface{Url: u, ProtocolBinding: binding, ProtocolVersion: version})
	}
	preferred := strings.TrimSpace(v.PreferredTransport)
	if preferred == "" {
		preferred = DefaultTransport
	}
	add(v.URL, preferred)
	for _, i := range v.AdditionalInterfaces {
		add(i.URL, i.Transport)
	}
	return out
}

func requirementsToV1(reqs []map[string][]string) []*a2av1.SecurityRequirement {
	var out []*a2av1.SecurityRequirement
	for _, r := range reqs {
		sr := &a2av1.SecurityRequirement{Schemes: map[string]*a2av1.StringList{}}
		for name, scopes := range r {
			sr.Schemes[name] = &a2av1.StringList{List: scopes}
		}
		out = append(out, sr)
	}
	return out
}

func schemeToV1(s securitySchemeV03) (*a2av1.SecurityScheme, error) {
	switch s.Type {
	case "apiKey":
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &a2av1.APIKeySecurityScheme{
			Description: s.Description, Location: s.In, Name: s.Name}}}, nil
	case "http":
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{
			Description: s.Description, Scheme: s.Scheme, BearerFormat: s.BearerFormat}}}, nil
	case "openIdConnect":
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_OpenIdConnectSecurityScheme{OpenIdConnectSecurityScheme: &a2av1.OpenIdConnectSecurityScheme{
			Description: s.Description, OpenIdConnectUrl: s.OpenIDConnectURL}}}, nil
	case "mutualTLS":
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &a2av1.MutualTlsSecurityScheme{
			Description: s.Description}}}, nil
	case "oauth2":
		o := &a2av1.OAuth2SecurityScheme{Description: s.Description, Oauth2MetadataUrl: s.OAuth2MetadataURL, Flows: &a2av1.OAuthFlows{}}
		if f := s.Flows; f != nil {
			// v0.3 allows several flows; v1.0 one: the first of
			// authorizationCode, clientCredentials, implicit, password.
			switch {
			case f.AuthorizationCode != nil:
				a := f.AuthorizationCode
				o.Flows.Flow = &a2av1.OAuthFlows_AuthorizationCode{AuthorizationCode: &a2av1.AuthorizationCodeOAuthFlow{
					AuthorizationUrl: a.AuthorizationURL, TokenUrl: a.TokenURL, RefreshUrl: a.RefreshURL, Scopes: a.Scopes}}
			case f.ClientCredentials != nil:
				c := f.ClientCredentials
				o.Flows.Flow = &a2av1.OAuthFlows_ClientCredentials{ClientCredentials: &a2av1.ClientCredentialsOAuthFlow{
					TokenUrl: c.TokenURL, RefreshUrl: c.RefreshURL, Scopes: c.Scopes}}
			case f.Implicit != nil:
				i := f.Implicit
				o.Flows.Flow = &a2av1.OAuthFlows_Implicit{Implicit: &a2av1.ImplicitOAuthFlow{
					AuthorizationUrl: i.AuthorizationURL, RefreshUrl: i.RefreshURL, Scopes: i.Scopes}}
			case f.Password != nil:
				p := f.Password
				o.Flows.Flow = &a2av1.OAuthFlows_Password{Password: &a2av1.PasswordOAuthFlow{
					TokenUrl: p.TokenURL, RefreshUrl: p.RefreshURL, Scopes: p.Scopes}}
			}
		}
		return &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: o}}, nil
	}
	return nil, fmt.Errorf("type %q is not an A2A v0.3 security scheme type (apiKey, http, oauth2, openIdConnect, mutualTLS)", s.Type)
}

// CompleteSchemes fills every security scheme of card, read from doc as a
// v1.0 card, that is empty (names no v1.0 kind) from the v0.3 members of
// the same entry (type, scheme, in, name, …), as ReadCard reads them. The
// union card of the official Go SDK's v0.3 layer (v2.3.1) nests a scheme's
// v1.0 form under the v0.3 type's name ("http", "apiKey") instead of v1.0's
// ("httpAuthSecurityScheme", "apiKeySecurityScheme"), so a v1.0 reading of
// its card keeps only empty schemes. A scheme without a v0.3 type stays as
// it is; one of an unknown v0.3 type is an error naming it.
func CompleteSchemes(doc []byte, card *a2av1.AgentCard) error {
	empty := false
	for _, s := range card.GetSecuritySchemes() {
		empty = empty || s.GetScheme() == nil
	}
	if !empty {
		return nil
	}
	var v struct {
		SecuritySchemes map[string]securitySchemeV03 `json:"securitySchemes"`
	}
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("a2av03: the agent card's securitySchemes: %w", err)
	}
	for name, s := range card.GetSecuritySchemes() {
		old, ok := v.SecuritySchemes[name]
		if s.GetScheme() != nil || !ok || old.Type == "" {
			continue
		}
		filled, err := schemeToV1(old)
		if err != nil {
			return fmt.Errorf("a2av03: the agent card: securitySchemes.%s: %w", name, err)
		}
		card.SecuritySchemes[name] = filled
	}
	return nil
}
