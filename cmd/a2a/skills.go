package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/dataschema"
)

// printSkills writes the card's skills: id, name and description, the
// media types each takes and gives (the card's defaults where the skill
// names none), and, where the card carries a2agen's skill-schemas
// extension, a one-line summary of each schema:
//
//	Skill: plan-trip — Plan a trip — Suggests a day-by-day itinerary …
//	Skill Input Modes: application/json, text/plain
//	Skill Output Modes: application/json, text/plain
//	Skill Input Data: {city: "Kyoto"|"Lisbon", days?: integer}
//	Skill Output Data: {city: string, days: {day: integer, sight: string}[]}
//
// Properties are in name order (a card's JSON keeps none), "?" marks an
// optional one; -o json has the schemas whole.
func printSkills(w io.Writer, card *a2av1.AgentCard) {
	if len(card.GetSkills()) == 0 {
		return
	}
	schemas := dataschema.CardSchemas(card)
	for _, s := range card.GetSkills() {
		line := s.GetId()
		if n := s.GetName(); n != "" && n != s.GetId() {
			line += " — " + n
		}
		if d := firstLine(s.GetDescription()); d != "" {
			line += " — " + d
		}
		labeled(w, "Skill", line)
		labeled(w, "Skill Input Modes", modes(s.GetInputModes(), card.GetDefaultInputModes()))
		labeled(w, "Skill Output Modes", modes(s.GetOutputModes(), card.GetDefaultOutputModes()))
		entry := schemas[s.GetId()]
		if in, ok := entry["input"]; ok {
			labeled(w, "Skill Input Data", schemaSummary(in, 0))
		}
		if out, ok := entry["output"]; ok {
			labeled(w, "Skill Output Data", schemaSummary(out, 0))
		}
	}
}

// modes lists a skill's media types, or the card's defaults, saying so.
func modes(own, defaults []string) string {
	if len(own) > 0 {
		return strings.Join(own, ", ")
	}
	if len(defaults) > 0 {
		return strings.Join(defaults, ", ") + " (the card's default)"
	}
	return "-"
}

// maxSummaryDepth is how deep a summary shows nested objects; deeper ones
// are {…}.
const maxSummaryDepth = 3

// schemaSummary is a JSON Schema in one line: {name: type, optional?: type},
// T[] for arrays, "a"|"b" for string enums. It reads any JSON Schema a card
// may carry, not only the subset a2a-scaffold writes: what it does not know
// it shows as the schema's type, or "any".
func schemaSummary(v any, depth int) string {
	s, ok := v.(map[string]any)
	if !ok {
		if b, isBool := v.(bool); isBool && b {
			return "any"
		}
		return "?"
	}
	typ, _ := s["type"].(string)
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enumSummary(enum)
	}
	props, hasProps := s["properties"].(map[string]any)
	switch {
	case typ == "object" || typ == "" && hasProps:
		return objectSummary(s, props, depth)
	case typ == "array":
		return arraySummary(s, depth)
	case typ != "":
		return typ
	}
	return "any"
}

// objectSummary is an object schema's summary: its properties by name, the
// optional ones marked with ?.
func objectSummary(s, props map[string]any, depth int) string {
	if props == nil {
		return "object"
	}
	if depth >= maxSummaryDepth {
		return "{…}"
	}
	required := requiredNames(s)
	names := slices.Sorted(maps.Keys(props))
	fields := make([]string, len(names))
	for i, n := range names {
		opt := "?"
		if required[n] {
			opt = ""
		}
		fields[i] = propertyName(n) + opt + ": " + schemaSummary(props[n], depth+1)
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// requiredNames are the names an object schema lists as required.
func requiredNames(s map[string]any) map[string]bool {
	required := map[string]bool{}
	req, _ := s["required"].([]any)
	for _, r := range req {
		if name, ok := r.(string); ok {
			required[name] = true
		}
	}
	return required
}

// enumSummary is an enum's values as JSON, separated by |.
func enumSummary(enum []any) string {
	vals := make([]string, len(enum))
	for i, e := range enum {
		vals[i] = jsonLiteral(e)
	}
	return strings.Join(vals, "|")
}

// arraySummary is T[] for an array schema, (a|b)[] for an array of enums.
func arraySummary(s map[string]any, depth int) string {
	items, ok := s["items"]
	if !ok {
		return "any[]"
	}
	inner := schemaSummary(items, depth+1)
	if strings.Contains(inner, "|") {
		inner = "(" + inner + ")"
	}
	return inner + "[]"
}

// propertyName is a property's name as written in a summary: quoted when it
// is not a plain identifier.
func propertyName(n string) string {
	for i, r := range n {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '-')) {
			return strconv.Quote(n)
		}
	}
	if n == "" {
		return `""`
	}
	return n
}

// jsonLiteral writes an enum value as JSON.
func jsonLiteral(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(out)
}
