package scaffold

import (
	"encoding/json"
	"fmt"
	"slices"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// v03TopLevel are the top-level members of a v0.3 card, in the order the
// dual card writes them (after the v1.0 members); members WithV03Fields may
// add later come after these, sorted.
var v03TopLevel = []string{"protocolVersion", "url", "preferredTransport", "additionalInterfaces", "security", "supportsAuthenticatedExtendedCard"}

// cardValue is card as CardJSON writes it and SigningPayload signs it: the
// v1.0 members with the presence rules, and, when an interface of the card
// is a 0.3 one (protocolVersions: ["1.0", "0.3"]), the members of a v0.3
// card after them (dualMembers).
func cardValue(card *a2av1.AgentCard) (object, error) {
	v, err := presenceValue(card.ProtoReflect())
	if err != nil {
		return nil, err
	}
	obj, ok := v.(object)
	if !ok {
		return nil, fmt.Errorf("the agent card is not a JSON object")
	}
	if !servesV03(card) {
		return obj, nil
	}
	return dualMembers(obj, card)
}

// servesV03 reports whether card lists an interface of protocol version
// 0.3.
func servesV03(card *a2av1.AgentCard) bool {
	return slices.ContainsFunc(card.GetSupportedInterfaces(), func(itf *a2av1.AgentInterface) bool {
		v, ok := runtime.ParseVersion(itf.GetProtocolVersion())
		return ok && v == a2av03.Version
	})
}

// dualMembers adds to the v1.0 card document obj (of card) the members
// a2av03.WithV03Fields adds, which is what host.Config.V03 serves, keeping
// the v1.0 members and their order: the v0.3 top-level members at the end,
// security at the end of each skill that has security requirements, and the
// v0.3 members of each security scheme at the end of its object, sorted.
// The result is byte-stable, and JSON-equal to WithV03Fields's, so host
// serves it unchanged.
func dualMembers(obj object, card *a2av1.AgentCard) (object, error) {
	compact, err := appendJSON(nil, obj, "")
	if err != nil {
		return nil, err
	}
	doc, err := a2av03.WithV03Fields(compact, card)
	if err != nil {
		return nil, err
	}
	var dual map[string]any
	if err := json.Unmarshal(doc, &dual); err != nil {
		return nil, fmt.Errorf("the dual agent card: %w", err)
	}
	out := slices.Clone(obj)
	for i, m := range out {
		switch m.name {
		case "skills":
			skills, _ := m.value.([]any)
			duals, _ := dual["skills"].([]any)
			if len(skills) != len(duals) {
				return nil, fmt.Errorf("the dual agent card has %d skills, the card %d", len(duals), len(skills))
			}
			merged := make([]any, len(skills))
			for j, s := range skills {
				merged[j] = addNew(s, duals[j], nil)
			}
			out[i].value = merged
		case "securitySchemes":
			schemes, _ := m.value.(object)
			duals, _ := dual["securitySchemes"].(map[string]any)
			merged := slices.Clone(schemes)
			for j, s := range merged {
				merged[j].value = addNew(s.value, duals[s.name], nil)
			}
			out[i].value = merged
		}
	}
	return addNew(out, dual, v03TopLevel).(object), nil
}

// addNew returns the object v with the members of the decoded JSON object
// from that v lacks appended: those named in first in that order, then the
// others sorted by name. A v that is not an object is returned as it is.
func addNew(v any, from any, first []string) any {
	obj, ok := v.(object)
	m, _ := from.(map[string]any)
	if !ok || m == nil {
		return v
	}
	have := map[string]bool{}
	for _, mem := range obj {
		have[mem.name] = true
	}
	var rest []string
	for name := range m {
		if !have[name] && !slices.Contains(first, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	out := slices.Clone(obj)
	for _, name := range append(slices.Clone(first), rest...) {
		if val, ok := m[name]; ok && !have[name] {
			out = append(out, member{name, fromGeneric(val)})
		}
	}
	return out
}
