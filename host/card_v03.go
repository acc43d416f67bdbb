package host

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// v03Bindings are the bindings on which Config.V03 serves A2A v0.3 (and
// lists a 0.3 interface on the card).
var v03Bindings = []runtime.Binding{runtime.BindingJSONRPC, runtime.BindingHTTPJSON}

// v03CardBindings are the bindings whose 1.0 interfaces get a 0.3 twin on
// the card: v03Bindings and gRPC, where Config.V03 serves a2a.v1.A2AService
// (compat/a2av03grpc) next to lf.a2a.v1.A2AService on the same address.
var v03CardBindings = append(slices.Clone(v03Bindings), runtime.BindingGRPC)

// dualCard makes card (in place) and its document doc (when not nil) the
// card of an agent serving v0.3 next to v1.0: every 1.0 interface of a
// binding in v03CardBindings gets a 0.3 twin at the same URL (unless the card
// lists one), and the document gets the top-level fields of a v0.3 card. A
// signed card cannot be rewritten: it must already be dual.
func dualCard(doc []byte, card *a2av1.AgentCard, what string) ([]byte, error) {
	added := v03Twins(card)
	if len(card.GetSignatures()) > 0 {
		if len(added) > 0 || (doc != nil && !hasTopLevel(doc, "protocolVersion", "url")) {
			return nil, fmt.Errorf("host: the %s is signed and is not the card of an agent serving A2A v0.3 "+
				"(0.3 interfaces and the v0.3 fields url and protocolVersion), although Config.V03 is set; a signed card cannot be rewritten: "+
				"generate it with protocolVersions: [\"1.0\", \"0.3\"] in agent.yaml and sign it again", what)
		}
		return doc, nil
	}
	if doc != nil && len(added) == 0 {
		// Already the dual card (a2a-scaffold writes it, indented and in
		// proto order): served byte for byte when it says what
		// WithV03Fields would.
		out, err := a2av03.WithV03Fields(doc, card)
		if err != nil {
			return nil, fmt.Errorf("host: the %s for A2A v0.3: %w", what, err)
		}
		if jsonEqual(doc, out) {
			return doc, nil
		}
		return out, nil
	}
	card.SupportedInterfaces = append(card.SupportedInterfaces, added...)
	if doc == nil {
		return nil, nil
	}
	out, err := a2av03.CardJSON(card)
	if err != nil {
		return nil, fmt.Errorf("host: the %s for A2A v0.3: %w", what, err)
	}
	return out, nil
}

// v03Twins are the 0.3 interfaces card lacks: one at the URL of each 1.0
// interface of a binding in v03CardBindings that has no 0.3 one there.
func v03Twins(card *a2av1.AgentCard) []*a2av1.AgentInterface {
	var twins []*a2av1.AgentInterface
	for _, itf := range card.GetSupportedInterfaces() {
		v, ok := runtime.ParseVersion(itf.GetProtocolVersion())
		if !ok || v == a2av03.Version || !slices.Contains(v03CardBindings, runtime.Binding(itf.GetProtocolBinding())) ||
			hasInterface(card, itf.GetUrl(), itf.GetProtocolBinding(), a2av03.Version) {
			continue
		}
		twins = append(twins, &a2av1.AgentInterface{Url: itf.GetUrl(), ProtocolBinding: itf.GetProtocolBinding(),
			ProtocolVersion: a2av03.Version, Tenant: itf.GetTenant()})
	}
	return twins
}

// hasInterface reports whether card lists an interface of binding at url in
// version.
func hasInterface(card *a2av1.AgentCard, url, binding, version string) bool {
	for _, itf := range card.GetSupportedInterfaces() {
		if v, ok := runtime.ParseVersion(itf.GetProtocolVersion()); ok && v == version &&
			itf.GetUrl() == url && itf.GetProtocolBinding() == binding {
			return true
		}
	}
	return false
}

// jsonEqual reports whether the JSON documents a and b hold the same value.
func jsonEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// hasTopLevel reports whether the JSON object doc has every member named.
func hasTopLevel(doc []byte, names ...string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil {
		return false
	}
	for _, n := range names {
		if _, ok := m[n]; !ok {
			return false
		}
	}
	return true
}

// CardWithV03 makes card the card of an agent serving A2A v0.3 next to
// v1.0, as Config.V03 does: each 1.0 JSON-RPC and HTTP+JSON interface gets
// a 0.3 twin (card is changed in place), and the returned document is the
// v1.0 card plus the top-level fields of a v0.3 card
// (a2av03.WithV03Fields). A signed card is refused: it must be signed as
// the dual card.
func CardWithV03(card *a2av1.AgentCard) ([]byte, error) {
	doc, err := runtime.MarshalJSON(card)
	if err != nil {
		return nil, fmt.Errorf("host: encoding the agent card: %w", err)
	}
	return dualCard(doc, card, "agent card")
}

// V03HandlerOptions are the binding options that serve A2A v0.3 on a
// JSON-RPC or HTTP+JSON handler, as Config.V03 adds them.
func V03HandlerOptions() []runtime.HandlerOption {
	return []runtime.HandlerOption{runtime.WithVersionAdapter(a2av03.Adapter())}
}
