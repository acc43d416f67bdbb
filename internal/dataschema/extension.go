package dataschema

import a2av1 "github.com/a2agen/a2agen/a2a/v1"

// CardExtension is the URI of the data-only extension (A2A "Extensions":
// structured information in the card that changes no request) in which
// cards of a2a-scaffold carry the JSON Schemas of their typed skills:
// AgentSkill has no field for them. Its params are
// {"skills": {"<skill id>": {"input": <schema>, "output": <schema>}}}, for
// the skills of that card that declare them;
// docs/extensions/skill-schemas-v1.md specifies it. package manifest writes
// it into cards; CardSchemas reads it back (the a2a command shows a skill's
// schemas, host/llm gives a remote skill's input schema to the model).
const CardExtension = "https://github.com/a2agen/a2agen/blob/main/docs/extensions/skill-schemas-v1.md"

// CardSchemas reads the params of card's CardExtension: skill id →
// {"input": schema, "output": schema}, as the card carries them (not
// checked against the subset). A card without the extension, or with params
// of another shape, gives none; an entry that is not an object is left out.
func CardSchemas(card *a2av1.AgentCard) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range card.GetCapabilities().GetExtensions() {
		if e.GetUri() != CardExtension {
			continue
		}
		skills, _ := e.GetParams().AsMap()["skills"].(map[string]any)
		for id, v := range skills {
			if entry, ok := v.(map[string]any); ok {
				out[id] = entry
			}
		}
	}
	return out
}
