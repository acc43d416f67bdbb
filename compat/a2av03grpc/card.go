package a2av03grpc

import (
	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// ProtocolVersion is the protocol version a v0.3 card states.
const ProtocolVersion = "0.3.0"

// v03Interfaces are the interfaces of a v0.3 proto card, read by
// a2av03.V03Interfaces like those of a JSON card.
func v03Interfaces(c *a2av03pb.AgentCard) []*a2av1.AgentInterface {
	v := a2av03.CardV03Fields{URL: c.GetUrl(), PreferredTransport: c.GetPreferredTransport(), ProtocolVersion: c.GetProtocolVersion()}
	for _, i := range c.GetAdditionalInterfaces() {
		v.AdditionalInterfaces = append(v.AdditionalInterfaces, a2av03.CardInterface{URL: i.GetUrl(), Transport: i.GetTransport()})
	}
	return a2av03.V03Interfaces(v)
}

// CardToV1 converts a v0.3 card: its url, preferredTransport and
// additionalInterfaces become supportedInterfaces (a2av03.V03Interfaces, the
// one reading of them for both card forms);
// supportsAuthenticatedExtendedCard is capabilities.extendedAgentCard.
func CardToV1(c *a2av03pb.AgentCard) *a2av1.AgentCard {
	if c == nil {
		return nil
	}
	out := &a2av1.AgentCard{Name: c.GetName(), Description: c.GetDescription(),
		SupportedInterfaces: v03Interfaces(c),
		Version:             c.GetVersion(), DefaultInputModes: c.GetDefaultInputModes(), DefaultOutputModes: c.GetDefaultOutputModes(),
		SecurityRequirements: convertAll(c.GetSecurity(), securityToV1),
		SecuritySchemes:      convertMap(c.GetSecuritySchemes(), schemeToV1),
		Skills:               convertAll(c.GetSkills(), skillToV1),
		Signatures: convertAll(c.GetSignatures(), func(s *a2av03pb.AgentCardSignature) *a2av1.AgentCardSignature {
			return &a2av1.AgentCardSignature{Protected: s.GetProtected(), Signature: s.GetSignature(), Header: s.GetHeader()}
		}),
	}
	if p := c.GetProvider(); p != nil {
		out.Provider = &a2av1.AgentProvider{Url: p.GetUrl(), Organization: p.GetOrganization()}
	}
	if u := c.GetDocumentationUrl(); u != "" {
		out.DocumentationUrl = &u
	}
	caps := c.GetCapabilities()
	streaming, push, extended := caps.GetStreaming(), caps.GetPushNotifications(), c.GetSupportsAuthenticatedExtendedCard()
	out.Capabilities = &a2av1.AgentCapabilities{Streaming: &streaming, PushNotifications: &push, ExtendedAgentCard: &extended,
		Extensions: convertAll(caps.GetExtensions(), func(e *a2av03pb.AgentExtension) *a2av1.AgentExtension {
			return &a2av1.AgentExtension{Uri: e.GetUri(), Description: e.GetDescription(), Required: e.GetRequired(), Params: e.GetParams()}
		})}
	return out
}

// CardFromV1 converts a v1.0 card to the v0.3 form: protocolVersion 0.3.0;
// url and preferredTransport are those of the first interface of protocol
// version 0.3 (of the first interface when none is), additionalInterfaces
// lists every interface of that version (all of them when none is), tenants
// dropped. iconUrl, the device-code flow and PKCE have no v0.3 field (Lossy).
func CardFromV1(c *a2av1.AgentCard) *a2av03pb.AgentCard {
	if c == nil {
		return nil
	}
	out := &a2av03pb.AgentCard{ProtocolVersion: ProtocolVersion, Name: c.GetName(), Description: c.GetDescription(),
		Version: c.GetVersion(), DocumentationUrl: c.GetDocumentationUrl(),
		DefaultInputModes: c.GetDefaultInputModes(), DefaultOutputModes: c.GetDefaultOutputModes(),
		Security:                          convertAll(c.GetSecurityRequirements(), securityFromV1),
		SecuritySchemes:                   convertMap(c.GetSecuritySchemes(), schemeFromV1),
		Skills:                            convertAll(c.GetSkills(), skillFromV1),
		SupportsAuthenticatedExtendedCard: c.GetCapabilities().GetExtendedAgentCard(),
		Signatures: convertAll(c.GetSignatures(), func(s *a2av1.AgentCardSignature) *a2av03pb.AgentCardSignature {
			return &a2av03pb.AgentCardSignature{Protected: s.GetProtected(), Signature: s.GetSignature(), Header: s.GetHeader()}
		}),
	}
	var ifaces []*a2av1.AgentInterface
	for _, i := range c.GetSupportedInterfaces() {
		if v, _ := runtime.ParseVersion(i.GetProtocolVersion()); v == "0.3" {
			ifaces = append(ifaces, i)
		}
	}
	if len(ifaces) == 0 {
		ifaces = c.GetSupportedInterfaces()
	}
	for n, i := range ifaces {
		if n == 0 {
			out.Url, out.PreferredTransport = i.GetUrl(), i.GetProtocolBinding()
		}
		out.AdditionalInterfaces = append(out.AdditionalInterfaces, &a2av03pb.AgentInterface{Url: i.GetUrl(), Transport: i.GetProtocolBinding()})
	}
	if p := c.GetProvider(); p != nil {
		out.Provider = &a2av03pb.AgentProvider{Url: p.GetUrl(), Organization: p.GetOrganization()}
	}
	if caps := c.GetCapabilities(); caps != nil {
		out.Capabilities = &a2av03pb.AgentCapabilities{Streaming: caps.GetStreaming(), PushNotifications: caps.GetPushNotifications(),
			Extensions: convertAll(caps.GetExtensions(), func(e *a2av1.AgentExtension) *a2av03pb.AgentExtension {
				return &a2av03pb.AgentExtension{Uri: e.GetUri(), Description: e.GetDescription(), Required: e.GetRequired(), Params: e.GetParams()}
			})}
	}
	return out
}

func convertMap[K comparable, T, U any](in map[K]T, f func(T) U) map[K]U {
	if in == nil {
		return nil
	}
	out := make(map[K]U, len(in))
	for k, v := range in {
		out[k] = f(v)
	}
	return out
}

func skillToV1(s *a2av03pb.AgentSkill) *a2av1.AgentSkill {
	return &a2av1.AgentSkill{Id: s.GetId(), Name: s.GetName(), Description: s.GetDescription(), Tags: s.GetTags(),
		Examples: s.GetExamples(), InputModes: s.GetInputModes(), OutputModes: s.GetOutputModes(),
		SecurityRequirements: convertAll(s.GetSecurity(), securityToV1)}
}

func skillFromV1(s *a2av1.AgentSkill) *a2av03pb.AgentSkill {
	return &a2av03pb.AgentSkill{Id: s.GetId(), Name: s.GetName(), Description: s.GetDescription(), Tags: s.GetTags(),
		Examples: s.GetExamples(), InputModes: s.GetInputModes(), OutputModes: s.GetOutputModes(),
		Security: convertAll(s.GetSecurityRequirements(), securityFromV1)}
}

func securityToV1(s *a2av03pb.Security) *a2av1.SecurityRequirement {
	return sameShape(new(a2av1.SecurityRequirement), s)
}

func securityFromV1(s *a2av1.SecurityRequirement) *a2av03pb.Security {
	return sameShape(new(a2av03pb.Security), s)
}

func schemeToV1(s *a2av03pb.SecurityScheme) *a2av1.SecurityScheme {
	return sameShape(new(a2av1.SecurityScheme), s)
}

func schemeFromV1(s *a2av1.SecurityScheme) *a2av03pb.SecurityScheme {
	return sameShape(new(a2av03pb.SecurityScheme), s)
}
