package manifest

import (
	"cmp"
	"net"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/a2agen/a2agen/runtime"
)

// agent decodes the top-level mapping.
func (d *decoder) agent(n *yaml.Node) *Manifest {
	f, ok := d.mapping(n, "", manifestShape)
	if !ok {
		return nil
	}
	m := &Manifest{File: d.file}

	m.APIVersion = f.fixed("apiVersion", APIVersion, "unsupported apiVersion %q; this a2a-scaffold reads %q")
	m.Kind = f.fixed("kind", Kind, "unknown kind %q; the only kind is %q")

	m.Name = f.text("name")
	m.Description = f.text("description")
	m.Version = f.text("version")
	m.Provider = optional(f, "provider", d.provider)
	m.DocumentationURL = f.url("documentationUrl", checkHTTPURL)
	m.IconURL = f.url("iconUrl", checkHTTPURL)
	m.Module = f.checked("module", checkModulePath)
	m.URL = f.url("url", checkBaseURL)
	m.ProtocolVersions = d.protocolVersions(f)

	m.Bindings = d.bindings(f)
	m.Capabilities = optional(f, "capabilities", d.capabilities)
	m.DefaultInputModes = defaultModes(f.mediaTypes("defaultInputModes"))
	m.DefaultOutputModes = defaultModes(f.mediaTypes("defaultOutputModes"))

	m.SecuritySchemes = d.securitySchemes(f)
	schemes := schemesByName(m.SecuritySchemes)
	m.SecurityRequirements = optional(f, "securityRequirements", d.requirementsOf(schemes))

	f.nonEmptyList("skills", "skill")
	m.Skills = d.skills(f.items("skills"), "skills", schemes)

	m.Extensions = d.extensions(f)

	m.ExtendedCard = optional(f, "extendedCard", func(n *yaml.Node, path string) *ExtendedCard { return d.extendedCard(n, path, schemes) })
	m.Push = optional(f, "push", d.push)
	m.ModelProvider = optional(f, "modelProvider", d.modelProvider)
	m.Tools = d.tools(f)
	m.RemoteAgents = d.remoteAgents(f)
	d.llmChecks(f, m)

	d.uniqueSkills()
	d.crossChecks(f, m)
	d.allDataModes(f, m)
	return m
}

// defaultModes is the agent's default input or output modes: the ones
// listed, else DefaultMediaType.
func defaultModes(listed []string) []string {
	if len(listed) == 0 {
		return []string{DefaultMediaType}
	}
	return listed
}

// schemesByName indexes the security schemes by their names, for the
// requirements that name them.
func schemesByName(list []SecurityScheme) map[string]*SecurityScheme {
	out := map[string]*SecurityScheme{}
	for i := range list {
		out[list[i].Name] = &list[i]
	}
	return out
}

// extensions reads the agent's extensions, each URI once; the skill
// schemas extension is a2a-scaffold's own.
func (d *decoder) extensions(f fields) []Extension {
	var out []Extension
	firstURI := map[string]int{}
	for i, e := range f.items("extensions") {
		ext, uri := d.extension(e, index("extensions", i))
		if ext.URI == SkillSchemasExtension {
			d.errorf(uri, index("extensions", i)+".uri", "a2a-scaffold adds this extension itself, from the input and output of the skills; remove it")
		}
		if j, dup := firstURI[ext.URI]; dup && ext.URI != "" {
			d.errorf(uri, index("extensions", i)+".uri", "duplicate extension %q (first at extensions[%d])", ext.URI, j)
		} else {
			firstURI[ext.URI] = i
		}
		out = append(out, ext)
	}
	return out
}

// allDataModes checks that every skill with input or output data, the
// extended card's too, lists application/json among its modes.
func (d *decoder) allDataModes(f fields, m *Manifest) {
	all := m.Skills
	if m.ExtendedCard != nil {
		all = append(append([]Skill(nil), m.Skills...), m.ExtendedCard.Skills...)
	}
	for i, s := range all {
		if i < len(d.skillPaths) {
			d.dataModes(m, s, d.skillPaths[i], f.node)
		}
	}
}

// protocolVersions reads the A2A versions the agent serves: each one of
// ProtocolVersions, spelled Major.Minor, at most once, and "1.0" among
// them. Absent or null means ["1.0"].
func (d *decoder) protocolVersions(f fields) []string {
	n := f.get("protocolVersions")
	if n == nil || isNull(n) {
		return []string{ProtocolVersion10}
	}
	first := map[string]int{}
	var out []string
	understood := true // every element names a version: only then is a missing 1.0 reported
	var meant []string
	for i, e := range f.items("protocolVersions") {
		p := index("protocolVersions", i)
		v, spelled := d.protocolVersion(e, p)
		understood = understood && v != ""
		meant = append(meant, v)
		if !spelled {
			continue
		}
		if j, dup := first[v]; dup {
			d.errorf(e, p, "duplicate protocol version %q (first at protocolVersions[%d])", v, j)
			continue
		}
		first[v] = i
		out = append(out, v)
	}
	if deref(n).Kind == yaml.SequenceNode && understood && !slices.Contains(meant, ProtocolVersion10) {
		d.errorf(n, "protocolVersions", "must include %q: every a2a-scaffold agent serves A2A 1.0 (add %q next to it to serve v0.3 as well, %q the A2A 1.1 draft)", ProtocolVersion10, ProtocolVersion03, ProtocolVersion11Draft)
	}
	return out
}

// protocolVersion reads one element of protocolVersions: the version of
// ProtocolVersions it means ("" when none) and whether it is spelled as
// that version is (Major.Minor). Anything else is reported.
func (d *decoder) protocolVersion(e *yaml.Node, p string) (meant string, spelled bool) {
	s, ok := d.scalarText(e, p)
	switch v, parsed := runtime.ParseVersion(s); {
	case !ok:
		return "", false
	case slices.Contains(ProtocolVersions, s):
		return s, true
	case parsed && slices.Contains(ProtocolVersions, v):
		d.errorf(e, p, "write %q: protocol versions are Major.Minor (A2A ignores patch versions in version negotiation), got %q", v, s)
		return v, false
	}
	supported := `"` + strings.Join(ProtocolVersions[:len(ProtocolVersions)-1], `", "`) + `" and "` + ProtocolVersions[len(ProtocolVersions)-1] + `"`
	d.errorf(e, p, "unsupported protocol version %q; a2a-scaffold agents serve %s", s, supported)
	return "", false
}

// url reads an optional URL-valued key and checks it.
func (f fields) url(name string, check func(string) error) string { return f.checked(name, check) }

// checked reads an optional text-valued key and checks it (check).
func (f fields) checked(name string, check func(string) error) string {
	s := f.text(name)
	f.check(name, s, check)
	return s
}

// check reports what check finds wrong with s, the key's value, when it is
// not empty.
func (f fields) check(name, s string, check func(string) error) {
	if s == "" {
		return
	}
	if err := check(s); err != nil {
		f.d.errorf(f.get(name), f.sub(name), "%v", err)
	}
}

// mediaTypes reads a list of media types.
func (f fields) mediaTypes(name string) []string {
	return f.strings(name, func(n *yaml.Node, path, s string) {
		if err := checkMediaType(s); err != nil {
			f.d.errorf(n, path, "%v", err)
		}
	})
}

func (d *decoder) provider(n *yaml.Node, path string) *Provider {
	f, ok := d.mapping(n, path, providerShape)
	if !ok {
		return nil
	}
	return &Provider{Organization: f.text("organization"), URL: f.url("url", checkHTTPURL)}
}

func (d *decoder) capabilities(n *yaml.Node, path string) Capabilities {
	f, ok := d.mapping(n, path, capabilitiesShape)
	if !ok {
		return Capabilities{}
	}
	return Capabilities{
		Streaming:         f.boolean("streaming"),
		PushNotifications: f.boolean("pushNotifications"),
		ExtendedAgentCard: f.boolean("extendedAgentCard"),
	}
}

func (d *decoder) bindings(f fields) []Binding {
	f.nonEmptyList("bindings", "binding")
	var out []Binding
	nodes := f.items("bindings")
	for i, e := range nodes {
		bf, ok := d.mapping(e, index("bindings", i), bindingShape)
		if !ok {
			continue
		}
		out = append(out, d.binding(bf, Position{e.Line, e.Column}))
		d.bindingConflicts(out, bf)
	}
	d.needHTTPBinding(f, out, len(nodes))
	return out
}

// binding reads one binding, its address and path defaulted as its
// protocol's.
func (d *decoder) binding(bf fields, pos Position) Binding {
	b := Binding{Pos: pos}
	if name := bf.text("binding"); name != "" {
		b.Protocol = d.protocol(bf.get("binding"), bf.sub("binding"), name)
	}
	b.Address = bf.checked("address", checkAddress)
	b.Path = bf.text("path")
	b.Tenant = bf.checked("tenant", checkTenant)
	b.URL = bf.text("url")
	switch {
	case b.Protocol == runtime.BindingGRPC:
		d.grpcBinding(bf, &b)
	case b.Protocol.IsHTTP():
		httpBinding(bf, &b)
	}
	return b
}

// grpcBinding checks and defaults what a gRPC binding has: no path, a
// gRPC target as its url.
func (d *decoder) grpcBinding(bf fields, b *Binding) {
	if b.Path != "" {
		d.errorf(bf.get("path"), bf.sub("path"), "not used by GRPC bindings (gRPC routes by service name); remove it")
	}
	b.Address = cmp.Or(b.Address, DefaultGRPCAddress)
	bf.check("url", b.URL, func(u string) error { _, err := grpcTarget(u); return err })
}

// httpBinding checks and defaults what a JSON-RPC or HTTP+JSON binding
// has: a path (its protocol's default when absent), an HTTP url.
func httpBinding(bf fields, b *Binding) {
	bf.check("path", b.Path, checkPath)
	b.Path = cmp.Or(b.Path, defaultPath(b.Protocol))
	b.Address = cmp.Or(b.Address, DefaultHTTPAddress)
	bf.check("url", b.URL, checkHTTPURL)
}

// defaultPath is the path of an HTTP binding that names none.
func defaultPath(p runtime.Binding) string {
	if p == runtime.BindingJSONRPC {
		return DefaultJSONRPCPath
	}
	return DefaultHTTPJSONPath
}

// needHTTPBinding reports a manifest whose bindings are all gRPC: the agent
// card is served on the HTTP listener of a JSON-RPC or HTTP+JSON binding, and
// without a card clients cannot discover the gRPC interface. It stays quiet
// while a binding has an unknown name (that error is reported already).
func (d *decoder) needHTTPBinding(f fields, bindings []Binding, declared int) {
	if len(bindings) == 0 || len(bindings) != declared {
		return
	}
	for _, b := range bindings {
		if b.Protocol != runtime.BindingGRPC {
			return
		}
	}
	d.errorf(f.get("bindings"), "bindings", "add a JSONRPC or HTTP+JSON binding: its HTTP listener also serves the agent card (%s), without which clients cannot discover the GRPC interface", "/.well-known/agent-card.json")
}

// protocol resolves a binding name. The manifest wants the card's spelling
// (it is what the card will say); what runtime.ParseBinding reads as a
// binding (any case, "REST", "json-rpc") is suggested, and near misses of
// the card's spellings are too.
func (d *decoder) protocol(n *yaml.Node, path, name string) runtime.Binding {
	if b, err := runtime.ParseBinding(name); err == nil {
		if name == b.String() {
			return b
		}
		d.errorf(n, path, "unknown binding %q; did you mean %q?", name, b.String())
		return ""
	}
	names := make([]string, 0, len(runtime.Bindings()))
	for _, b := range runtime.Bindings() {
		names = append(names, b.String())
	}
	if best := suggest(name, names); best != "" {
		d.errorf(n, path, "unknown binding %q; did you mean %q?", name, best)
	} else {
		d.errorf(n, path, "unknown binding %q (want one of %s)", name, strings.Join(names, ", "))
	}
	return ""
}

// bindingConflicts checks the last binding of bs against the earlier ones
// it shares a port with.
func (d *decoder) bindingConflicts(bs []Binding, f fields) {
	last := len(bs) - 1
	b := bs[last]
	if !listens(b) {
		return
	}
	for j, o := range bs[:last] {
		if listens(o) && overlap(b.Address, o.Address) {
			d.bindingConflict(f, b, o, j)
		}
	}
}

// listens reports whether a binding's protocol and address are valid, so
// that its listener can be compared with another's.
func listens(b Binding) bool { return b.Protocol != "" && checkAddress(b.Address) == nil }

// bindingConflict reports b (read from f) against o, bindings[j], when
// they share a port: two HTTP bindings may share a listener only under the
// same address spelling and different paths; gRPC needs a listener of its
// own.
func (d *decoder) bindingConflict(f fields, b, o Binding, j int) {
	switch {
	case b.Protocol == runtime.BindingGRPC || o.Protocol == runtime.BindingGRPC:
		d.errorf(f.at("address"), f.sub("address"), "%q is also the address of bindings[%d] (%s); a GRPC binding needs an address of its own", b.Address, j, o.Protocol)
	case b.Address != o.Address:
		d.errorf(f.at("address"), f.sub("address"), "%q overlaps %q of bindings[%d]; write the same address to serve both on one listener", b.Address, o.Address, j)
	case b.Path == o.Path:
		d.errorf(f.at("path"), f.sub("path"), "%q on %q is already served by bindings[%d] (%s); give one of them another path", b.Path, b.Address, j, o.Protocol)
	}
}

// overlap reports whether two listen addresses would bind the same port on
// a common interface.
func overlap(a, b string) bool {
	ha, pa, _ := net.SplitHostPort(a)
	hb, pb, _ := net.SplitHostPort(b)
	if pa != pb {
		return false
	}
	wildcard := func(h string) bool { return h == "" || h == "0.0.0.0" || h == "::" }
	return ha == hb || wildcard(ha) || wildcard(hb)
}

func (d *decoder) skills(nodes []*yaml.Node, path string, schemes map[string]*SecurityScheme) []Skill {
	var out []Skill
	for i, e := range nodes {
		p := index(path, i)
		f, ok := d.mapping(e, p, skillShape)
		if !ok {
			continue
		}
		s := Skill{
			ID:          f.text("id"),
			Name:        f.text("name"),
			Description: f.text("description"),
			Pos:         Position{e.Line, e.Column},
		}
		d.skillID(f, s.ID)
		f.nonEmptyList("tags", "tag")
		s.Tags = f.strings("tags", nil)
		s.Examples = f.strings("examples", nil)
		s.InputModes = f.mediaTypes("inputModes")
		s.OutputModes = f.mediaTypes("outputModes")
		s.SecurityRequirements = optional(f, "securityRequirements", d.requirementsOf(schemes))
		s.Input = optional(f, "input", d.data)
		s.Output = optional(f, "output", d.data)
		s.LLM = optional(f, "llm", d.llmSkill)
		d.llmSkillChecks(f, s)
		d.skillPaths = append(d.skillPaths, p)
		out = append(out, s)
	}
	return out
}

// skillID checks a skill's id and records it for uniqueSkills.
func (d *decoder) skillID(f fields, id string) {
	if id == "" {
		return
	}
	if err := checkName(id); err != nil {
		d.errorf(f.get("id"), f.sub("id"), "skill id %v", err)
	}
	d.skillIDs = append(d.skillIDs, skillRef{f.sub("id"), deref(f.get("id"))})
}

// skillRef remembers where a skill id was defined, for duplicate reports.
type skillRef struct {
	path string
	node *yaml.Node
}

// uniqueSkills reports skill ids used twice, in the public card, the
// extended card or across both; ids that differ only in case are reported
// too, since skill files would collide on case-insensitive file systems.
func (d *decoder) uniqueSkills() {
	seen := map[string]skillRef{}
	for _, ref := range d.skillIDs {
		id := ref.node.Value
		first, dup := seen[strings.ToLower(id)]
		switch {
		case !dup:
			seen[strings.ToLower(id)] = ref
		case first.node.Value == id:
			d.errorf(ref.node, ref.path, "duplicate skill id %q (first at %s, line %d)", id, first.path, first.node.Line)
		default:
			d.errorf(ref.node, ref.path, "skill id %q differs only in case from %q at %s (line %d); skill files would collide", id, first.node.Value, first.path, first.node.Line)
		}
	}
}

// extension decodes one extension and returns the node of its uri.
func (d *decoder) extension(n *yaml.Node, path string) (Extension, *yaml.Node) {
	f, ok := d.mapping(n, path, extensionShape)
	if !ok {
		return Extension{}, nil
	}
	e := Extension{URI: f.url("uri", checkURI), Description: f.text("description")}
	if b := f.boolean("required"); b != nil {
		e.Required = *b
	}
	if p := f.get("params"); p != nil && !isNull(p) {
		if deref(p).Kind != yaml.MappingNode {
			d.errorf(p, f.sub("params"), "expected a mapping, got %s", describe(deref(p)))
		} else if v, ok := d.jsonValue(p, f.sub("params")); ok {
			e.Params, _ = v.(map[string]any)
		}
	}
	return e, f.get("uri")
}

func (d *decoder) extendedCard(n *yaml.Node, path string, schemes map[string]*SecurityScheme) *ExtendedCard {
	f, ok := d.mapping(n, path, extendedCardShape)
	if !ok {
		return nil
	}
	f.nonEmptyList("skills", "skill")
	return &ExtendedCard{Skills: d.skills(f.items("skills"), f.sub("skills"), schemes)}
}

func (d *decoder) push(n *yaml.Node, path string) PushDelivery {
	f, ok := d.mapping(n, path, pushShape)
	if !ok {
		return PushDelivery{}
	}
	p := PushDelivery{
		Timeout:              f.duration("timeout"),
		MaxRetries:           f.retries("maxRetries"),
		InitialBackoff:       f.duration("initialBackoff"),
		MaxBackoff:           f.duration("maxBackoff"),
		AllowPrivateNetworks: orZero(f.boolean("allowPrivateNetworks")),
	}
	if p.InitialBackoff > 0 && p.MaxBackoff > 0 && p.MaxBackoff < p.InitialBackoff {
		d.errorf(f.get("maxBackoff"), f.sub("maxBackoff"), "must not be shorter than initialBackoff (%s)", p.InitialBackoff)
	}
	return p
}

// crossChecks relate sections to each other: the extended card and push
// settings need their capability, and the extended card needs a way to
// authenticate callers.
func (d *decoder) crossChecks(f fields, m *Manifest) {
	extended := orZero(m.Capabilities.ExtendedAgentCard)
	if n := f.get("extendedCard"); n != nil && !extended {
		d.errorf(n, "extendedCard", "capabilities.extendedAgentCard is not true, so the extended card would never be served; set it to true or remove extendedCard")
	}
	if extended && len(m.SecuritySchemes) == 0 {
		caps := deref(f.get("capabilities"))
		d.errorf(valueOf(caps, "extendedAgentCard"), "capabilities.extendedAgentCard", "the extended card is served only to authenticated callers; define at least one entry in securitySchemes")
	}
	if n := f.get("push"); n != nil && !orZero(m.Capabilities.PushNotifications) {
		d.errorf(n, "push", "capabilities.pushNotifications is not true, so these delivery settings would be unused; set it to true or remove push")
	}
}

// valueOf is the value of key in the mapping node n (the last one written),
// or n itself when it has no such key.
func valueOf(n *yaml.Node, key string) *yaml.Node {
	at := n
	for i := 0; n != nil && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			at = n.Content[i+1]
		}
	}
	return at
}
