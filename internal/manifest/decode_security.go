package manifest

import (
	"iter"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// securitySchemes decodes the name → scheme mapping, keeping file order.
func (d *decoder) securitySchemes(f fields) []SecurityScheme {
	n := d.namedMapping(f.get("securitySchemes"), "securitySchemes", "scheme names to schemes")
	var out []SecurityScheme
	plain := func(k *yaml.Node) bool {
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "securitySchemes", "scheme names must be plain names, got %s", describe(k))
			return false
		}
		return true
	}
	for k, v := range d.distinctKeys(n, "securitySchemes", plain) {
		path := join("securitySchemes", k.Value)
		if err := checkName(k.Value); err != nil {
			d.errorf(k, path, "scheme name %v", err)
		}
		if s, ok := d.securityScheme(v, path); ok {
			s.Name = k.Value
			s.Pos = Position{k.Line, k.Column}
			out = append(out, s)
		}
	}
	return out
}

// namedMapping is n, a mapping whose keys are names the user chooses
// (what says from what to what), dereferenced; nil when n is absent or
// null, or when it is not a mapping (reported).
func (d *decoder) namedMapping(n *yaml.Node, path, what string) *yaml.Node {
	if n == nil || isNull(n) {
		return nil
	}
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "expected a mapping from %s, got %s", what, describe(n))
		return nil
	}
	return n
}

// distinctKeys yields the keys of the mapping n (at path; nil yields
// nothing) with their values, in file order, leaving out the keys valid
// rejects (it reports them; nil accepts all) and every repeat of a key
// (reported here, at the repeat).
func (d *decoder) distinctKeys(n *yaml.Node, path string, valid func(k *yaml.Node) bool) iter.Seq2[*yaml.Node, *yaml.Node] {
	return func(yield func(k, v *yaml.Node) bool) {
		if n == nil {
			return
		}
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := deref(n.Content[i])
			if valid != nil && !valid(k) {
				continue
			}
			if first, dup := seen[k.Value]; dup {
				d.errorf(k, join(path, k.Value), "duplicate key (first at line %d)", first.Line)
				continue
			}
			seen[k.Value] = k
			if !yield(k, n.Content[i+1]) {
				return
			}
		}
	}
}

func (d *decoder) securityScheme(n *yaml.Node, path string) (SecurityScheme, bool) {
	f, ok := d.mapping(n, path, securitySchemeShape)
	if !ok {
		return SecurityScheme{}, false
	}
	s := SecurityScheme{Description: f.text("description"), Type: d.schemeType(f)}
	if s.Type == "" {
		return s, true
	}
	d.checkSchemeKeys(f, s.Type)
	switch s.Type {
	case SchemeAPIKey:
		d.apiKeyScheme(f, &s)
	case SchemeHTTP:
		d.httpScheme(f, &s)
	case SchemeOAuth2:
		s.Flow = optional(f, "flows", d.flows)
		s.OAuth2MetadataURL = f.url("oauth2MetadataUrl", checkHTTPURL)
	case SchemeOpenIDConnect:
		s.OpenIDConnectURL = f.url("openIdConnectUrl", checkHTTPURL)
		if s.OpenIDConnectURL == "" {
			f.notEmpty("openIdConnectUrl")
		}
	}
	return s, true
}

// schemeType reads a scheme's type, one of SchemeTypes; "" when it has
// none or an unknown one (reported).
func (d *decoder) schemeType(f fields) SchemeType {
	typ := f.text("type")
	if typ == "" {
		return ""
	}
	names := make([]string, len(SchemeTypes))
	for i, t := range SchemeTypes {
		names[i] = string(t)
	}
	if !d.oneOf(f.get("type"), f.sub("type"), "security scheme type", typ, names) {
		return ""
	}
	return SchemeType(typ)
}

// checkSchemeKeys reports the keys of other scheme types, which are
// mistakes, and the keys this type requires that are missing.
func (d *decoder) checkSchemeKeys(f fields, typ SchemeType) {
	allowed := schemeTypeKeys[typ]
	for _, k := range securitySchemeShape.keys {
		if k.name == "type" || k.name == "description" || f.keys[k.name] == nil {
			continue
		}
		if !slices.Contains(allowed.required, k.name) && !slices.Contains(allowed.optional, k.name) {
			d.errorf(f.keys[k.name], f.sub(k.name), "not used by %s schemes", typ)
		}
	}
	for _, k := range allowed.required {
		if f.keys[k] == nil {
			d.errorf(f.node, f.sub(k), "required for %s schemes", typ)
		}
	}
}

// apiKeyScheme reads where an API key goes and under which name.
func (d *decoder) apiKeyScheme(f fields, s *SecurityScheme) {
	if loc := f.text("location"); loc != "" && d.oneOf(f.get("location"), f.sub("location"), "location", loc, []string{"header", "query", "cookie"}) {
		s.Location = loc
	}
	s.KeyName = f.text("name")
	if s.KeyName == "" {
		f.notEmpty("name")
	} else if err := checkToken(s.KeyName); err != nil {
		d.errorf(f.get("name"), f.sub("name"), "%v", err)
	}
}

// httpScheme reads an HTTP authentication scheme: bearer or basic (auth
// scheme names are case-insensitive, RFC 9110 §11.1) and a bearer's
// format.
func (d *decoder) httpScheme(f fields, s *SecurityScheme) {
	if sch := f.text("scheme"); sch == "" {
		f.notEmpty("scheme")
	} else if lower := strings.ToLower(sch); d.oneOf(f.get("scheme"), f.sub("scheme"), "HTTP auth scheme", lower, []string{"bearer", "basic"}) {
		s.Scheme = lower
	}
	s.BearerFormat = f.text("bearerFormat")
	if s.BearerFormat != "" && s.Scheme == "basic" {
		d.errorf(f.get("bearerFormat"), f.sub("bearerFormat"), "only meaningful with scheme bearer")
	}
}

// notEmpty reports the key when it is there with an empty value.
func (f fields) notEmpty(name string) {
	if n := f.get(name); n != nil {
		f.d.errorf(n, f.sub(name), "must not be empty")
	}
}

// flows decodes the flows mapping, which must hold exactly one flow: A2A's
// OAuthFlows is a oneof.
func (d *decoder) flows(n *yaml.Node, path string) *OAuthFlow {
	f, ok := d.mapping(n, path, flowsShape)
	if !ok {
		return nil
	}
	name := d.onlyFlow(f, path)
	if name == "" {
		return nil
	}
	k, _ := flowsShape.lookup(name)
	ff, ok := d.mapping(f.get(name), join(path, name), k.elem)
	if !ok {
		return nil
	}
	flow := &OAuthFlow{Type: FlowType(name)}
	switch flow.Type {
	case FlowAuthorizationCode:
		flow.AuthorizationURL = ff.url("authorizationUrl", checkHTTPURL)
		flow.PKCERequired = orZero(ff.boolean("pkceRequired"))
	case FlowDeviceCode:
		flow.DeviceAuthorizationURL = ff.url("deviceAuthorizationUrl", checkHTTPURL)
	}
	flow.TokenURL = ff.url("tokenUrl", checkHTTPURL)
	flow.RefreshURL = ff.url("refreshUrl", checkHTTPURL)
	flow.Scopes = d.scopes(ff.get("scopes"), ff.sub("scopes"))
	return flow
}

// onlyFlow is the name of the flow the flows mapping f (at path) defines,
// the first when it defines more than one (reported); "" when it defines
// none (reported unless an unknown key was, which is reported already).
func (d *decoder) onlyFlow(f fields, path string) string {
	var present []string
	for _, k := range flowsShape.keys {
		if f.vals[k.name] != nil {
			present = append(present, k.name)
		}
	}
	switch {
	case len(present) == 0 && len(f.keys) == 0:
		d.errorf(f.node, path, "define one flow: %s", strings.Join(flowsShape.names(), ", "))
		return ""
	case len(present) == 0:
		return ""
	case len(present) > 1:
		d.errorf(f.keys[present[1]], join(path, present[1]), "only one flow per scheme (A2A's OAuthFlows holds one); define another oauth2 scheme for %s", present[1])
	}
	return present[0]
}

// scopes decodes a scope name → description mapping; an empty mapping is
// allowed (a flow without scopes).
func (d *decoder) scopes(n *yaml.Node, path string) []Scope {
	n = d.namedMapping(n, path, "scope names to descriptions")
	var out []Scope
	named := func(k *yaml.Node) bool {
		if k.Kind != yaml.ScalarNode || strings.TrimSpace(k.Value) == "" {
			d.errorf(k, path, "scope names must be non-empty strings")
			return false
		}
		return true
	}
	for k, v := range d.distinctKeys(n, path, named) {
		desc, _ := d.scalarText(v, join(path, k.Value))
		out = append(out, Scope{Name: k.Value, Description: desc})
	}
	return out
}

// requirementsOf is requirements as a decoder of one key, for optional.
func (d *decoder) requirementsOf(schemes map[string]*SecurityScheme) func(n *yaml.Node, path string) []SecurityRequirement {
	return func(n *yaml.Node, path string) []SecurityRequirement { return d.requirements(n, path, schemes) }
}

// requirements decodes a list of security requirements. Each requirement
// maps scheme names to the scopes needed; an empty mapping ({}) means no
// authentication, as in OpenAPI.
func (d *decoder) requirements(n *yaml.Node, path string, schemes map[string]*SecurityScheme) []SecurityRequirement {
	if isNull(n) {
		return nil
	}
	var out []SecurityRequirement
	for i, e := range d.sequence(n, path) {
		p := index(path, i)
		if e.Kind != yaml.MappingNode {
			d.errorf(e, p, "expected a mapping from scheme names to scope lists, such as {oauth: [read]}, got %s", describe(e))
			continue
		}
		var req SecurityRequirement
		for k, v := range d.distinctKeys(e, p, nil) {
			kp := join(p, k.Value)
			scheme := schemes[k.Value]
			if scheme == nil {
				d.undefinedScheme(k, kp, k.Value, schemes)
			}
			req.Schemes = append(req.Schemes, RequiredScheme{Name: k.Value, Scopes: d.requiredScopes(deref(v), kp, scheme)})
		}
		out = append(out, req)
	}
	return out
}

// requiredScopes reads the scopes a requirement asks of a scheme (v, at
// path): a list of non-empty strings, each declared by the scheme's flow.
func (d *decoder) requiredScopes(v *yaml.Node, path string, scheme *SecurityScheme) []string {
	if isNull(v) {
		return nil
	}
	var out []string
	for si, sn := range d.sequence(v, path) {
		p := index(path, si)
		scope, ok := d.scalarText(sn, p)
		if !ok {
			continue
		}
		if scope == "" {
			d.errorf(sn, p, "must not be empty")
			continue
		}
		d.checkScope(sn, p, scope, scheme)
		out = append(out, scope)
	}
	return out
}

func (d *decoder) undefinedScheme(k *yaml.Node, path, name string, schemes map[string]*SecurityScheme) {
	var names []string
	for n := range schemes {
		names = append(names, n)
	}
	slices.Sort(names)
	switch best := suggest(name, names); {
	case best != "":
		d.errorf(k, path, "undefined security scheme %q; did you mean %q?", name, best)
	case len(names) == 0:
		d.errorf(k, path, "undefined security scheme %q; securitySchemes defines none", name)
	default:
		d.errorf(k, path, "undefined security scheme %q (defined: %s)", name, strings.Join(names, ", "))
	}
}

// checkScope checks that an oauth2 requirement asks only for scopes its
// flow declares. Other scheme types carry roles or nothing; their lists are
// not checked.
func (d *decoder) checkScope(n *yaml.Node, path, scope string, scheme *SecurityScheme) {
	if scheme == nil || scheme.Type != SchemeOAuth2 || scheme.Flow == nil {
		return
	}
	var names []string
	for _, s := range scheme.Flow.Scopes {
		if s.Name == scope {
			return
		}
		names = append(names, s.Name)
	}
	where := "securitySchemes." + scheme.Name + ".flows." + string(scheme.Flow.Type) + ".scopes"
	if best := suggest(scope, names); best != "" {
		d.errorf(n, path, "scope %q is not declared in %s; did you mean %q?", scope, where, best)
	} else {
		d.errorf(n, path, "scope %q is not declared in %s", scope, where)
	}
}
