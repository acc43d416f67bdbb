package main

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/internal/manifest"
	"github.com/a2agen/a2agen/runtime"
)

// TestCardShowsTypedSkills serves the card a2a-scaffold makes of
// examples/travel-agent/agent.yaml (its typed skill plan-trip carries its
// schemas in the skill-schemas extension) on loopback, and checks what
// `a2a card` shows of each skill: its media types (the card's defaults
// where it names none) and a summary of each schema — required and
// optional properties, the enum, the array of objects.
func TestCardShowsTypedSkills(t *testing.T) {
	m, err := manifest.Load("../../examples/travel-agent/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(m.AgentCard(base)))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	out := ok(t, "card", "get", "-a", base)
	golden(t, "card-typed", out)
	for _, want := range []string{
		"Skill: plan-trip — Plan a trip — Suggests a day-by-day itinerary",
		"Skill Input Modes: application/json, text/plain\n",
		`Skill Input Data: {city: "Kyoto"|"Lisbon"|"Oslo"|"Porto", days?: integer}`,
		"Skill Output Data: {city: string, days: {day: integer, sight: string}[]}",
		"Skill: packing-list — Packing list — Says what to pack",
		"Skill Output Modes: text/plain (the card's default)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("a2a card lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out[strings.Index(out, "packing-list"):], "Data: ") {
		t.Errorf("a skill without schemas shows a schema:\n%s", out)
	}
}

// TestSchemaSummary: any JSON Schema a card carries is summarised, not
// only the subset a2a-scaffold writes.
func TestSchemaSummary(t *testing.T) {
	for _, c := range []struct {
		schema any
		want   string
	}{
		{map[string]any{"type": "object"}, "object"},
		{map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"a", "b"}}}, `("a"|"b")[]`},
		{map[string]any{"type": "array"}, "any[]"},
		{map[string]any{"properties": map[string]any{"x y": map[string]any{}, "n": map[string]any{"type": "number"}}, "required": []any{"n"}}, `{n: number, "x y"?: any}`},
		{map[string]any{"type": []any{"string", "null"}}, "any"},
		{true, "any"},
		{"junk", "?"},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"properties": map[string]any{"b": map[string]any{"properties": map[string]any{"c": map[string]any{"properties": map[string]any{}}}}}}}}, "{a?: {b?: {c?: {…}}}}"},
	} {
		if got := schemaSummary(c.schema, 0); got != c.want {
			t.Errorf("schemaSummary(%v) = %s, want %s", c.schema, got, c.want)
		}
	}
}
