package manifest

import _ "embed"

// Schema is the JSON Schema (draft 2020-12) of agent.yaml, for editors:
// a2a-scaffold writes it next to a new manifest as SchemaFileName, and the
// starter manifest points the YAML language server at it. It encodes the
// same rules as the decoder wherever JSON Schema can express them (keys,
// types, required keys, enums, patterns); cross references such as
// requirements naming defined schemes are checked by Parse only.
//
//go:embed schema/agent.schema.json
var Schema []byte

// SchemaFileName is the name a2a-scaffold gives Schema on disk.
const SchemaFileName = "agent.schema.json"
