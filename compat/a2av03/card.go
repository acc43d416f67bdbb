package a2av03

import (
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// CardProtocolVersion is the protocolVersion a card served to v0.3 clients
// names (the version of the JSON schema its v0.3 fields follow).
const CardProtocolVersion = "0.3.0"

// CardJSON is card as both generations of clients read it: the v1.0 card
// (supportedInterfaces, each with its protocolVersion) plus the top-level
// fields of a v0.3 card (see WithV03Fields).
func CardJSON(card *a2av1.AgentCard) ([]byte, error) {
	doc, err := runtime.MarshalJSON(card)
	if err != nil {
		return nil, fmt.Errorf("a2av03: encoding the agent card: %w", err)
	}
	return WithV03Fields(doc, card)
}

// WithV03Fields adds to the v1.0 card document doc (of card) the members a
// v0.3 client reads, keeping every v1.0 member: protocolVersion "0.3.0";
// url and preferredTransport of the first interface whose protocolVersion
// is 0.3 (else the first interface), among those that name their binding
// (none when no interface does); additionalInterfaces listing every 0.3
// interface (that one included, as v0.3 recommends) as {url, transport};
// security (v0.3's list of scheme → scopes) from securityRequirements, on
// the card and on each skill; supportsAuthenticatedExtendedCard from
// capabilities.extendedAgentCard; and each security scheme's v0.3 members
// (type, in, name, scheme, bearerFormat, flows, openIdConnectUrl,
// oauth2MetadataUrl) next to its v1.0 member, so one object serves both
// readers. A v1.0 reader ignores the v0.3 members and a v0.3 reader the
// v1.0 ones.
func WithV03Fields(doc []byte, card *a2av1.AgentCard) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, fmt.Errorf("a2av03: the agent card is not a JSON object: %w", err)
	}
	ifaces := card.GetSupportedInterfaces()
	if len(ifaces) == 0 {
		return nil, fmt.Errorf("a2av03: the agent card lists no supportedInterfaces, so a v0.3 card has no url")
	}
	preferred, additional := v03InterfaceFields(ifaces)
	set := func(key string, v any) {
		b, _ := json.Marshal(v) // plain values: cannot fail
		m[key] = b
	}
	set("protocolVersion", CardProtocolVersion)
	if preferred != nil {
		set("url", preferred.GetUrl())
		set("preferredTransport", preferred.GetProtocolBinding())
	}
	if len(additional) > 0 {
		set("additionalInterfaces", additional)
	}
	if sec := securityFromV1(card.GetSecurityRequirements()); len(sec) > 0 {
		set("security", sec)
	}
	if card.GetCapabilities().GetExtendedAgentCard() {
		set("supportsAuthenticatedExtendedCard", true)
	}
	if err := addSkillSecurity(m, card); err != nil {
		return nil, err
	}
	if err := addSchemeFields(m, card); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// v03InterfaceFields are the interface to name in url and
// preferredTransport (nil: none) and the additionalInterfaces: every
// interface of protocol version 0.3.
//
// url and preferredTransport name an interface with its binding: an
// interface without one (read from an additionalInterfaces entry without
// transport) would come back as the default transport's, so it is listed
// in additionalInterfaces only, and without any interface that names its
// binding the card has no url. A 0.3 interface is preferred to the others.
func v03InterfaceFields(ifaces []*a2av1.AgentInterface) (preferred *a2av1.AgentInterface, additional []CardInterface) {
	var v03 []*a2av1.AgentInterface
	for _, itf := range ifaces {
		if v, ok := runtime.ParseVersion(itf.GetProtocolVersion()); ok && v == Version {
			v03 = append(v03, itf)
			additional = append(additional, CardInterface{URL: itf.GetUrl(), Transport: itf.GetProtocolBinding()})
		}
	}
	for _, itf := range append(v03, ifaces...) {
		if strings.TrimSpace(itf.GetProtocolBinding()) != "" {
			return itf, additional
		}
	}
	return nil, additional
}

// securityFromV1 is v0.3's security: one map of scheme name → scopes per
// requirement.
func securityFromV1(reqs []*a2av1.SecurityRequirement) []map[string][]string {
	var out []map[string][]string
	for _, r := range reqs {
		one := map[string][]string{}
		for name, scopes := range r.GetSchemes() {
			one[name] = append([]string{}, scopes.GetList()...)
		}
		out = append(out, one)
	}
	return out
}

// addSkillSecurity adds security to each skill of the document that has
// securityRequirements.
func addSkillSecurity(m map[string]json.RawMessage, card *a2av1.AgentCard) error {
	raw, ok := m["skills"]
	if !ok {
		return nil
	}
	var skills []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &skills); err != nil || len(skills) != len(card.GetSkills()) {
		return fmt.Errorf("a2av03: the skills of the agent card document do not match the card")
	}
	for i, s := range card.GetSkills() {
		if sec := securityFromV1(s.GetSecurityRequirements()); len(sec) > 0 {
			b, _ := json.Marshal(sec)
			skills[i]["security"] = b
		}
	}
	b, err := json.Marshal(skills)
	if err != nil {
		return err
	}
	m["skills"] = b
	return nil
}

// addSchemeFields adds the v0.3 members of every security scheme to its
// object in the document.
func addSchemeFields(m map[string]json.RawMessage, card *a2av1.AgentCard) error {
	raw, ok := m["securitySchemes"]
	if !ok {
		return nil
	}
	var schemes map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &schemes); err != nil {
		return fmt.Errorf("a2av03: the securitySchemes of the agent card document are not objects: %w", err)
	}
	for name, s := range card.GetSecuritySchemes() {
		obj := schemes[name]
		if obj == nil {
			continue
		}
		for k, v := range schemeFieldsV03(s) {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			obj[k] = b
		}
	}
	b, err := json.Marshal(schemes)
	if err != nil {
		return err
	}
	m["securitySchemes"] = b
	return nil
}

// schemeFieldsV03 are the members of a v0.3 security scheme object.
func schemeFieldsV03(s *a2av1.SecurityScheme) map[string]any {
	out := map[string]any{}
	opt := func(k, v string) {
		if v != "" {
			out[k] = v
		}
	}
	switch v := s.GetScheme().(type) {
	case *a2av1.SecurityScheme_ApiKeySecurityScheme:
		out["type"] = "apiKey"
		out["in"] = v.ApiKeySecurityScheme.GetLocation()
		out["name"] = v.ApiKeySecurityScheme.GetName()
		opt("description", v.ApiKeySecurityScheme.GetDescription())
	case *a2av1.SecurityScheme_HttpAuthSecurityScheme:
		out["type"] = "http"
		out["scheme"] = v.HttpAuthSecurityScheme.GetScheme()
		opt("bearerFormat", v.HttpAuthSecurityScheme.GetBearerFormat())
		opt("description", v.HttpAuthSecurityScheme.GetDescription())
	case *a2av1.SecurityScheme_Oauth2SecurityScheme:
		out["type"] = "oauth2"
		if f := v.Oauth2SecurityScheme.GetFlows(); f != nil {
			// The v1.0 OAuthFlows JSON ({"authorizationCode": {…}}) is a
			// v0.3 OAuthFlows object with one flow; v1.0-only members
			// (pkceRequired, deviceCode) are ignored by v0.3 readers.
			b, _ := protojson.Marshal(f)
			out["flows"] = flowsWithScopes(b)
		}
		opt("oauth2MetadataUrl", v.Oauth2SecurityScheme.GetOauth2MetadataUrl())
		opt("description", v.Oauth2SecurityScheme.GetDescription())
	case *a2av1.SecurityScheme_OpenIdConnectSecurityScheme:
		out["type"] = "openIdConnect"
		out["openIdConnectUrl"] = v.OpenIdConnectSecurityScheme.GetOpenIdConnectUrl()
		opt("description", v.OpenIdConnectSecurityScheme.GetDescription())
	case *a2av1.SecurityScheme_MtlsSecurityScheme:
		out["type"] = "mutualTLS"
		opt("description", v.MtlsSecurityScheme.GetDescription())
	}
	return out
}

// v03FlowKinds are the OAuth flows of v0.3's OAuthFlows. v0.3's card schema
// marks scopes required in each of them, so a flow without scopes is
// written with an empty map: ProtoJSON drops an empty map.
var v03FlowKinds = []string{"authorizationCode", "clientCredentials", "implicit", "password"}

// flowsWithScopes is the ProtoJSON of a v1.0 OAuthFlows (doc) with
// "scopes": {} added to each v0.3 flow that has none.
func flowsWithScopes(doc []byte) json.RawMessage {
	var flows map[string]map[string]json.RawMessage
	if err := json.Unmarshal(doc, &flows); err != nil {
		return doc // ProtoJSON of a message: cannot happen
	}
	changed := false
	for _, k := range v03FlowKinds {
		if f, ok := flows[k]; ok && f != nil {
			if _, has := f["scopes"]; !has {
				f["scopes"] = json.RawMessage("{}")
				changed = true
			}
		}
	}
	if !changed {
		return doc
	}
	b, err := json.Marshal(flows)
	if err != nil {
		return doc
	}
	return b
}
