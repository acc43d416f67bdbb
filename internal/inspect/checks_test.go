package inspect

import (
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// TestCheckCard: each broken rule is reported at its path with what to
// fix; a sound card reports nothing.
func TestCheckCard(t *testing.T) {
	var card a2av1.AgentCard
	if err := runtime.UnmarshalJSON([]byte(`{
	  "name": "x", "version": "1",
	  "supportedInterfaces": [
	    {"url": "ftp://agent", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
	    {"url": "http://agent/rest", "protocolBinding": "http+json", "protocolVersion": "one"},
	    {"url": "http://agent/x", "protocolBinding": "WEBSOCKET", "protocolVersion": "1.0"}
	  ],
	  "capabilities": {},
	  "securitySchemes": {"key": {"apiKeySecurityScheme": {"location": "body", "name": "k"}}, "empty": {}},
	  "securityRequirements": [{"schemes": {"bearer": {}}}],
	  "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text"],
	  "skills": [{"id": "a", "name": "A", "description": "d", "tags": ["t"], "inputModes": ["application/json"]},
	             {"id": "a", "name": "B", "description": "d", "tags": []}]
	}`), &card); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range CheckCard(&card) {
		got[c.Path] = c.Level + ": " + c.Message
	}
	for path, want := range map[string]string{
		"description":                                       "error: required member missing",
		"supportedInterfaces[0].url":                        `error: "ftp://agent" is not an absolute http(s) URL, which the JSONRPC binding needs`,
		"supportedInterfaces[1].protocolBinding":            `warning: "http+json": the specification spells it "HTTP+JSON"`,
		"supportedInterfaces[1].protocolVersion":            `error: "one" is not Major.Minor`,
		"supportedInterfaces[2].protocolBinding":            `warning: "WEBSOCKET" is not one of the standard bindings`,
		"securitySchemes.key.apiKeySecurityScheme.location": `error: "body": want header, query or cookie`,
		"securitySchemes.empty":                             "error: no kind of scheme",
		"securityRequirements[0].schemes.bearer":            "error: names a security scheme the card does not declare in securitySchemes (declared: empty, key)",
		"defaultOutputModes[0]":                             `error: "text" is not a media type`,
		"skills[1].id":                                      `error: "a" is also the id of skills[0]`,
		"skills[1].tags":                                    "error: required: at least one tag",
	} {
		if !strings.HasPrefix(got[path], want) {
			t.Errorf("%s: got %q, want %q…", path, got[path], want)
		}
	}
	if len(got) != 11 {
		t.Errorf("%d findings, want 11: %v", len(got), got)
	}
}
