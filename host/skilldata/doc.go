// Package skilldata runs typed skills: skills of agent.yaml that declare a
// JSON Schema for the data they take (input) and give (output). The code
// a2a-scaffold generates for such a skill is a Go type per schema and one
// Schema value each; this package does the rest, the same way for every
// skill:
//
//   - Run adapts a skill function that takes the typed input to host.Skill:
//     it finds the message's data part, validates it against the input
//     schema, reporting every problem at once with its path as
//     InvalidParams ("data.city: required"), fills in defaults and decodes
//     it into the Go type; a message with text and no data part goes to
//     the skill's text function when the skill also reads text;
//   - Schema.Artifact and Schema.Part answer with data (application/json),
//     checked against the output schema first, so a skill cannot send what
//     its card says it never does.
//
// The schemas are in the subset of package internal/dataschema (objects,
// arrays, strings with enums, numbers, integers, booleans, required,
// descriptions, defaults); docs/manifest.md#typed-skills describes it.
package skilldata
