package inspect

import (
	"fmt"
	"mime"
	"net/url"
	"slices"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Check is one finding of CheckCard: where (a JSON path into the card, in
// its camelCase member names) and what is wrong, or a note.
type Check struct {
	Level   string `json:"level"` // "error": the card breaks the specification; "warning": clients may stumble
	Path    string `json:"path"`
	Message string `json:"message"`
}

// CheckCard checks a card against the A2A v1.0 specification's rules that
// a client depends on: required members, interface URLs, bindings and
// protocol versions, security schemes and the requirements that name them,
// skills and their media types. No findings means none of these failed.
func CheckCard(card *a2av1.AgentCard) []Check {
	c := &checker{}
	c.required("name", card.GetName())
	c.required("description", card.GetDescription())
	c.required("version", card.GetVersion())
	if card.GetCapabilities() == nil {
		c.errorf("capabilities", "required member missing (an empty object says the agent has none of the optional capabilities)")
	}
	if len(card.GetSupportedInterfaces()) == 0 {
		c.errorf("supportedInterfaces", "required: the card lists no interface, so no client can call the agent")
	}
	for i, iface := range card.GetSupportedInterfaces() {
		c.checkInterface(fmt.Sprintf("supportedInterfaces[%d]", i), iface)
	}
	if p := card.GetProvider(); p != nil {
		c.required("provider.organization", p.GetOrganization())
		c.required("provider.url", p.GetUrl())
		c.checkHTTPURL("provider.url", p.GetUrl())
	}
	c.checkHTTPURL("documentationUrl", card.GetDocumentationUrl()) // "" when absent: nothing to check
	c.checkHTTPURL("iconUrl", card.GetIconUrl())
	c.modes("defaultInputModes", card.GetDefaultInputModes(), true)
	c.modes("defaultOutputModes", card.GetDefaultOutputModes(), true)
	c.checkSecurity(card)
	c.checkSkills(card)
	for i, e := range card.GetCapabilities().GetExtensions() {
		c.required(fmt.Sprintf("capabilities.extensions[%d].uri", i), e.GetUri())
	}
	if c.out == nil {
		return []Check{} // JSON []: none failed
	}
	return c.out
}

// checkSecurity checks the card's security schemes, in name order, and the
// requirements that name them.
func (c *checker) checkSecurity(card *a2av1.AgentCard) {
	names := make([]string, 0, len(card.GetSecuritySchemes()))
	for name := range card.GetSecuritySchemes() {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		c.checkScheme("securitySchemes."+name, card.GetSecuritySchemes()[name])
	}
	for i, req := range card.GetSecurityRequirements() {
		c.requirement(fmt.Sprintf("securityRequirements[%d]", i), req, card)
	}
}

// checkSkills checks that the card has skills, each with its required
// members, a unique id, media types and security requirements that name
// the card's schemes.
func (c *checker) checkSkills(card *a2av1.AgentCard) {
	if len(card.GetSkills()) == 0 {
		c.errorf("skills", "required: the card lists no skill")
	}
	ids := map[string]int{}
	for i, s := range card.GetSkills() {
		p := fmt.Sprintf("skills[%d]", i)
		c.required(p+".id", s.GetId())
		c.required(p+".name", s.GetName())
		c.required(p+".description", s.GetDescription())
		if len(s.GetTags()) == 0 {
			c.errorf(p+".tags", "required: at least one tag")
		}
		if j, dup := ids[s.GetId()]; dup && s.GetId() != "" {
			c.errorf(p+".id", "%q is also the id of skills[%d]; skill ids must be unique", s.GetId(), j)
		}
		ids[s.GetId()] = i
		c.modes(p+".inputModes", s.GetInputModes(), false)
		c.modes(p+".outputModes", s.GetOutputModes(), false)
		for j, req := range s.GetSecurityRequirements() {
			c.requirement(fmt.Sprintf("%s.securityRequirements[%d]", p, j), req, card)
		}
	}
}

type checker struct{ out []Check }

func (c *checker) errorf(path, format string, args ...any) {
	c.out = append(c.out, Check{Level: "error", Path: path, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) warnf(path, format string, args ...any) {
	c.out = append(c.out, Check{Level: "warning", Path: path, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) required(path, v string) {
	if strings.TrimSpace(v) == "" {
		c.errorf(path, "required member missing or empty")
	}
}

func (c *checker) checkHTTPURL(path, raw string) {
	if raw == "" {
		return
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.errorf(path, "%q is not an absolute http(s) URL", raw)
	}
}

func (c *checker) checkInterface(path string, iface *a2av1.AgentInterface) {
	c.required(path+".url", iface.GetUrl())
	c.required(path+".protocolBinding", iface.GetProtocolBinding())
	c.required(path+".protocolVersion", iface.GetProtocolVersion())
	b, known := c.checkBinding(path+".protocolBinding", iface.GetProtocolBinding())
	if v := iface.GetProtocolVersion(); v != "" {
		if pv, ok := runtime.ParseVersion(v); !ok {
			c.errorf(path+".protocolVersion", "%q is not Major.Minor (e.g. \"1.0\")", v)
		} else if !strings.HasPrefix(pv, "1.") && pv != "0.3" {
			c.warnf(path+".protocolVersion", "%q: this inspector speaks 1.0 and 0.3", v)
		}
	}
	if raw := iface.GetUrl(); raw != "" && known {
		c.checkInterfaceURL(path+".url", b, raw)
	}
}

// checkBinding warns of a binding that is not standard or not spelled as
// the specification does; known says it is one of the standard ones.
func (c *checker) checkBinding(path, name string) (b runtime.Binding, known bool) {
	b, err := runtime.ParseBinding(name)
	known = err == nil && b.Known()
	switch {
	case name == "":
	case !known:
		c.warnf(path, "%q is not one of the standard bindings JSONRPC, HTTP+JSON, GRPC; only clients that know this binding can use the interface", name)
	case string(b) != name:
		c.warnf(path, "%q: the specification spells it %q", name, string(b))
	}
	return b, known
}

// checkInterfaceURL wants an absolute http(s) URL for an HTTP binding and a
// gRPC target for gRPC.
func (c *checker) checkInterfaceURL(path string, b runtime.Binding, raw string) {
	if b.IsHTTP() {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			c.errorf(path, "%q is not an absolute http(s) URL, which the %s binding needs", raw, b)
		}
		return
	}
	if _, err := runtime.ParseGRPCTarget(raw); err != nil {
		c.errorf(path, "%q is not a gRPC target: %v", raw, err)
	}
}

func (c *checker) modes(path string, modes []string, required bool) {
	if required && len(modes) == 0 {
		c.errorf(path, "required: at least one media type")
	}
	for i, m := range modes {
		if _, _, err := mime.ParseMediaType(m); err != nil || !strings.Contains(m, "/") {
			c.errorf(fmt.Sprintf("%s[%d]", path, i), "%q is not a media type (type/subtype, e.g. text/plain)", m)
		}
	}
}

func (c *checker) checkScheme(path string, s *a2av1.SecurityScheme) {
	switch v := s.GetScheme().(type) {
	case nil:
		c.errorf(path, "no kind of scheme: give exactly one of apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, mtlsSecurityScheme")
	case *a2av1.SecurityScheme_ApiKeySecurityScheme:
		p := path + ".apiKeySecurityScheme"
		c.required(p+".name", v.ApiKeySecurityScheme.GetName())
		switch loc := v.ApiKeySecurityScheme.GetLocation(); loc {
		case "header", "query", "cookie":
		default:
			c.errorf(p+".location", "%q: want header, query or cookie", loc)
		}
	case *a2av1.SecurityScheme_HttpAuthSecurityScheme:
		c.required(path+".httpAuthSecurityScheme.scheme", v.HttpAuthSecurityScheme.GetScheme())
	case *a2av1.SecurityScheme_Oauth2SecurityScheme:
		if v.Oauth2SecurityScheme.GetFlows() == nil {
			c.errorf(path+".oauth2SecurityScheme.flows", "required member missing")
		}
		if u := v.Oauth2SecurityScheme.GetOauth2MetadataUrl(); u != "" {
			c.checkHTTPURL(path+".oauth2SecurityScheme.oauth2MetadataUrl", u)
		}
	case *a2av1.SecurityScheme_OpenIdConnectSecurityScheme:
		p := path + ".openIdConnectSecurityScheme.openIdConnectUrl"
		c.required(p, v.OpenIdConnectSecurityScheme.GetOpenIdConnectUrl())
		c.checkHTTPURL(p, v.OpenIdConnectSecurityScheme.GetOpenIdConnectUrl())
	}
}

func (c *checker) requirement(path string, req *a2av1.SecurityRequirement, card *a2av1.AgentCard) {
	names := make([]string, 0, len(req.GetSchemes()))
	for name := range req.GetSchemes() {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, ok := card.GetSecuritySchemes()[name]; !ok {
			declared := make([]string, 0, len(card.GetSecuritySchemes()))
			for d := range card.GetSecuritySchemes() {
				declared = append(declared, d)
			}
			slices.Sort(declared)
			list := "none"
			if len(declared) > 0 {
				list = strings.Join(declared, ", ")
			}
			c.errorf(path+".schemes."+name, "names a security scheme the card does not declare in securitySchemes (declared: %s)", list)
		}
	}
}
