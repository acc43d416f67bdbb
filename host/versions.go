package host

import (
	"fmt"
	"slices"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// The versions of lf.a2a.v1 an agent serves (Config.ProtocolVersions,
// -protocol-versions): A2A 1.0 always, and the drafts of a2a/v1's version
// table (the A2A 1.1 draft) when asked for. One handler and one store serve
// them all; each call sees what its negotiated version defines
// (docs/bindings.md, "A2A 1.1 draft, served beside 1.0").

// baseVersion is the version every agent serves: what generated clients
// send and a call without A2A-Version gets.
var baseVersion = a2av1.A2AServiceDesc.ProtocolVersion()

// servedVersions checks the versions of Config.ProtocolVersions and returns
// them newest first, as runtime.WithSupportedVersions takes them; nil when
// the agent serves only baseVersion.
func servedVersions(list []string) ([]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	known := a2av1.A2AVersions.Versions // oldest first
	seen := map[string]bool{}
	for _, s := range list {
		v, ok := runtime.ParseVersion(s)
		if !ok || !slices.Contains(known, v) {
			return nil, fmt.Errorf("host: protocol version %q is not one this agent can serve; the versions of a2a/v1 are %s", s, strings.Join(known, ", "))
		}
		seen[v] = true
	}
	if !seen[baseVersion] {
		return nil, fmt.Errorf("host: the protocol versions %s lack %s, which every agent serves (generated clients send it, and a call without A2A-Version is served as it)",
			strings.Join(list, ", "), baseVersion)
	}
	if len(seen) == 1 {
		return nil, nil
	}
	var out []string
	for i := len(known) - 1; i >= 0; i-- {
		if seen[known[i]] {
			out = append(out, known[i])
		}
	}
	return out, nil
}

// cardWithVersions returns a card rewrite (see readCards) that gives every
// baseVersion interface of the card a twin at the same URL for each other
// version served, unless the card lists it already. A signed card cannot be
// rewritten: it must list them.
func cardWithVersions(versions []string) func(doc []byte, card *a2av1.AgentCard, what string) ([]byte, error) {
	return func(doc []byte, card *a2av1.AgentCard, what string) ([]byte, error) {
		var added []*a2av1.AgentInterface
		for _, itf := range card.GetSupportedInterfaces() {
			if v, ok := runtime.ParseVersion(itf.GetProtocolVersion()); !ok || v != baseVersion {
				continue
			}
			for _, version := range versions {
				if version == baseVersion || hasInterface(card, itf.GetUrl(), itf.GetProtocolBinding(), version) {
					continue
				}
				added = append(added, &a2av1.AgentInterface{Url: itf.GetUrl(), ProtocolBinding: itf.GetProtocolBinding(),
					ProtocolVersion: version, Tenant: itf.GetTenant()})
			}
		}
		if len(added) == 0 {
			return doc, nil
		}
		if len(card.GetSignatures()) > 0 {
			return nil, fmt.Errorf("host: the %s is signed and lists no interface of A2A %s, which Config.ProtocolVersions serves; "+
				"a signed card cannot be rewritten: generate it with protocolVersions: [%q, %q] in agent.yaml and sign it again",
				what, added[0].GetProtocolVersion(), baseVersion, added[0].GetProtocolVersion())
		}
		card.SupportedInterfaces = append(card.SupportedInterfaces, added...)
		if doc == nil {
			return nil, nil
		}
		out, err := runtime.MarshalJSON(card)
		if err != nil {
			return nil, fmt.Errorf("host: encoding the %s with its A2A %s interfaces: %w", what, added[0].GetProtocolVersion(), err)
		}
		return out, nil
	}
}
