// Package dataschema is the JSON Schema subset of typed skills: the schema a
// skill of agent.yaml declares for the data it takes (input) and gives
// (output), and the validation of JSON values against it with the path of
// every problem ("data.city: required").
//
// The subset is what a Go type can say and a client can rely on: objects
// (properties, required, additionalProperties: false), arrays (items),
// strings (with enum), numbers, integers and booleans, each with an
// optional description and default. package manifest decodes it from YAML
// with positions, a2a-scaffold generates Go types from it, and
// host/skilldata validates data parts against it at run time, so the three
// agree on one definition.
package dataschema
