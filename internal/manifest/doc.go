// Package manifest reads agent.yaml, the agent manifest that a2a-scaffold
// turns into an A2A agent project: the agent card's identity, the bindings
// to serve, skills, security schemes and requirements, extensions, the
// extended card and push-delivery settings.
//
// Parse and Load decode the YAML with positions and report every problem at
// once as Errors, each "file:line:col: path: message" (unknown keys with a
// did-you-mean, missing required fields, wrong types, duplicate skill ids,
// bad URLs and media types, requirements naming undefined schemes, unknown
// binding names). A Manifest that decoded without errors is valid:
// (*Manifest).AgentCard builds the card the scaffolded agent serves.
//
// Schema is the JSON Schema of the same format for editors; Starter is a
// documented manifest to begin with. docs/manifest.md documents every key.
package manifest
