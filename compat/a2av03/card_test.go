package a2av03_test

import (
	"encoding/json"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
)

// TestCardJSON: the dual card keeps every v1.0 member (it still decodes
// as the same v1.0 card) and adds the v0.3 ones.
func TestCardJSON(t *testing.T) {
	card := echo.Card(
		&a2av1.AgentInterface{Url: "http://127.0.0.1/j", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"},
		&a2av1.AgentInterface{Url: "http://127.0.0.1/r", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "1.0"},
		&a2av1.AgentInterface{Url: "http://127.0.0.1/r", ProtocolBinding: "HTTP+JSON", ProtocolVersion: "0.3"},
		&a2av1.AgentInterface{Url: "http://127.0.0.1/j", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"},
	)
	card.SecurityRequirements = []*a2av1.SecurityRequirement{{Schemes: map[string]*a2av1.StringList{"bearer": {List: []string{"read"}}}}}
	doc, err := a2av03.CardJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	var v1 a2av1.AgentCard
	if err := runtime.UnmarshalJSON(doc, &v1); err != nil || len(v1.GetSupportedInterfaces()) != 4 ||
		v1.GetSecuritySchemes()["bearer"].GetHttpAuthSecurityScheme().GetScheme() != "Bearer" {
		t.Fatalf("the dual card as v1.0: %v %v", &v1, err)
	}
	var v03 struct {
		ProtocolVersion      string `json:"protocolVersion"`
		URL                  string `json:"url"`
		PreferredTransport   string `json:"preferredTransport"`
		AdditionalInterfaces []struct {
			URL, Transport string
		} `json:"additionalInterfaces"`
		Security        []map[string][]string     `json:"security"`
		SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
		Extended        bool                      `json:"supportsAuthenticatedExtendedCard"`
	}
	if err := json.Unmarshal(doc, &v03); err != nil {
		t.Fatal(err)
	}
	if v03.ProtocolVersion != "0.3.0" || v03.URL != "http://127.0.0.1/r" || v03.PreferredTransport != "HTTP+JSON" ||
		len(v03.AdditionalInterfaces) != 2 || v03.AdditionalInterfaces[1].Transport != "JSONRPC" ||
		v03.Security[0]["bearer"][0] != "read" || v03.SecuritySchemes["bearer"]["type"] != "http" ||
		v03.SecuritySchemes["bearer"]["scheme"] != "Bearer" || !v03.Extended {
		t.Fatalf("v0.3 members: %+v", v03)
	}
}
