package dataschema

// CardExtension is the URI of the data-only extension (A2A "Extensions":
// structured information in the card that changes no request) in which
// cards of a2a-scaffold carry the JSON Schemas of their typed skills:
// AgentSkill has no field for them. Its params are
// {"skills": {"<skill id>": {"input": <schema>, "output": <schema>}}}, for
// the skills of that card that declare them;
// docs/extensions/skill-schemas-v1.md specifies it. package manifest writes
// it into cards, the a2a command reads it to show a skill's schemas.
const CardExtension = "https://github.com/a2agen/a2agen/blob/main/docs/extensions/skill-schemas-v1.md"
