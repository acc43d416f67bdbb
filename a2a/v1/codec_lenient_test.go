package a2av1_test

import (
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// TestDecodeSecurityRequirementShapes pins docs/bindings.md: the ProtoJSON shape
// and the official Go SDK's bare-list shape of SecurityRequirement both
// decode, on the card and inside a skill.
func TestDecodeSecurityRequirementShapes(t *testing.T) {
	for name, doc := range map[string]string{
		"protojson": `{"name":"a","securityRequirements":[{"schemes":{"bearer":{"list":["read","write"]}}}],` +
			`"skills":[{"id":"s","securityRequirements":[{"schemes":{"bearer":{"list":["read","write"]}}}]}]}`,
		"sdk bare list": `{"name":"a","securityRequirements":[{"schemes":{"bearer":["read","write"]}}],` +
			`"skills":[{"id":"s","securityRequirements":[{"schemes":{"bearer":["read","write"]}}]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			var card a2av1.AgentCard
			if err := runtime.UnmarshalJSON([]byte(doc), &card); err != nil {
				t.Fatalf("decode: %v", err)
			}
			for _, reqs := range [][]*a2av1.SecurityRequirement{card.GetSecurityRequirements(), card.GetSkills()[0].GetSecurityRequirements()} {
				got := reqs[0].GetSchemes()["bearer"].GetList()
				if len(got) != 2 || got[0] != "read" || got[1] != "write" {
					t.Fatalf("scopes = %v, want [read write]", got)
				}
			}
		})
	}
	// A bare array where the message has more than one field stays an error.
	var task a2av1.Task
	if err := runtime.UnmarshalJSON([]byte(`{"id":"t","status":["x"]}`), &task); err == nil {
		t.Fatal("a bare array for TaskStatus decoded; want an error")
	}
}
