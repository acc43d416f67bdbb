package a2av03_test

//lint:file-ignore SA1019 v0.3 cards carry the OAuth implicit and password flows that v1.0 keeps as deprecated fields; testing their conversion means writing and reading those fields.

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

// TestCardOAuthFlowsLossy: a v0.3 OAuth2 scheme with several flows keeps
// the first of authorizationCode, clientCredentials, implicit, password;
// a v1.0 device-code flow is written in its v1.0 form, which names no
// flow a v0.3 reader knows.
func TestCardOAuthFlowsLossy(t *testing.T) {
	card, err := a2av03.ReadCard([]byte(`{"protocolVersion":"0.3.0","name":"o","url":"http://h/a2a",
		"securitySchemes":{"oauth":{"type":"oauth2","flows":{
			"clientCredentials":{"tokenUrl":"http://h/token","scopes":{}},
			"authorizationCode":{"authorizationUrl":"http://h/auth","tokenUrl":"http://h/token","scopes":{"read":"r"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	flows := card.GetSecuritySchemes()["oauth"].GetOauth2SecurityScheme().GetFlows()
	if flows.GetAuthorizationCode().GetAuthorizationUrl() != "http://h/auth" || flows.GetClientCredentials() != nil {
		t.Errorf("two v0.3 flows read as %v, want the authorization code one alone", flows)
	}

	v1 := echo.Card(&a2av1.AgentInterface{Url: "http://h/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"})
	v1.SecuritySchemes = map[string]*a2av1.SecurityScheme{"device": {Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{
		Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{Flows: &a2av1.OAuthFlows{Flow: &a2av1.OAuthFlows_DeviceCode{
			DeviceCode: &a2av1.DeviceCodeOAuthFlow{DeviceAuthorizationUrl: "http://h/device", TokenUrl: "http://h/token"}}}}}}}
	v1.SecurityRequirements = nil
	doc, err := a2av03.CardJSON(v1)
	if err != nil {
		t.Fatal(err)
	}
	var v03 struct {
		SecuritySchemes map[string]struct {
			Type  string                     `json:"type"`
			Flows map[string]json.RawMessage `json:"flows"`
		} `json:"securitySchemes"`
	}
	if err := json.Unmarshal(doc, &v03); err != nil {
		t.Fatal(err)
	}
	s := v03.SecuritySchemes["device"]
	for _, known := range []string{"authorizationCode", "clientCredentials", "implicit", "password"} {
		if s.Flows[known] != nil {
			t.Errorf("a device-code flow written as the v0.3 flow %s: %s", known, s.Flows[known])
		}
	}
	if s.Type != "oauth2" || s.Flows["deviceCode"] == nil {
		t.Errorf("the device-code scheme as v0.3: %+v", s)
	}
}

// TestCompleteSchemes: a dual card whose schemes carry their v1.0 form
// under the v0.3 type's name (as the official Go SDK v2.3.1's v0.3 card
// does) reads as a v1.0 card with empty schemes; CompleteSchemes fills them
// from the v0.3 members and leaves schemes with a v1.0 member alone.
func TestCompleteSchemes(t *testing.T) {
	doc := []byte(`{"name":"sdk","description":"d","version":"1","url":"http://127.0.0.1:1/rpc","protocolVersion":"0.3",
		"supportedInterfaces":[{"url":"http://127.0.0.1:1/rpc","protocolBinding":"JSONRPC","protocolVersion":"0.3"}],
		"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],
		"securitySchemes":{
			"bearer":{"type":"http","scheme":"Bearer","description":"b","http":{"scheme":"Bearer","description":"b"}},
			"key":{"type":"apiKey","in":"header","name":"X-Key","apiKey":{"location":"header","name":"X-Key"}},
			"v1":{"httpAuthSecurityScheme":{"scheme":"Basic"}}}}`)
	card := new(a2av1.AgentCard)
	if err := runtime.UnmarshalJSON(doc, card); err != nil {
		t.Fatal(err)
	}
	if card.GetSecuritySchemes()["bearer"].GetScheme() != nil {
		t.Fatalf("the v1.0 reading already knows the scheme: %v (the SDK's shape changed?)", card.GetSecuritySchemes()["bearer"])
	}
	if err := a2av03.CompleteSchemes(doc, card); err != nil {
		t.Fatal(err)
	}
	s := card.GetSecuritySchemes()
	if h := s["bearer"].GetHttpAuthSecurityScheme(); h.GetScheme() != "Bearer" || h.GetDescription() != "b" {
		t.Errorf("bearer = %v, want the http scheme Bearer", s["bearer"])
	}
	if k := s["key"].GetApiKeySecurityScheme(); k.GetLocation() != "header" || k.GetName() != "X-Key" {
		t.Errorf("key = %v, want the apiKey scheme X-Key in header", s["key"])
	}
	if h := s["v1"].GetHttpAuthSecurityScheme(); h.GetScheme() != "Basic" {
		t.Errorf("v1 = %v, want it untouched", s["v1"])
	}
	bad := []byte(`{"securitySchemes":{"x":{"type":"kerberos"}}}`)
	c := &a2av1.AgentCard{SecuritySchemes: map[string]*a2av1.SecurityScheme{"x": {}}}
	if err := a2av03.CompleteSchemes(bad, c); err == nil {
		t.Error("an unknown v0.3 scheme type was accepted")
	}
}

// TestCardOAuthFlowsEmptyScopes: v0.3's card schema requires scopes in
// every flow, so a flow without scopes (ProtoJSON drops the empty map) is
// written to v0.3 readers with "scopes": {}; a flow with scopes keeps them,
// and the v1.0 member still reads as the same flow.
func TestCardOAuthFlowsEmptyScopes(t *testing.T) {
	flows := map[string]*a2av1.OAuthFlows{
		"authorizationCode": {Flow: &a2av1.OAuthFlows_AuthorizationCode{AuthorizationCode: &a2av1.AuthorizationCodeOAuthFlow{
			AuthorizationUrl: "http://h/auth", TokenUrl: "http://h/token"}}},
		"clientCredentials": {Flow: &a2av1.OAuthFlows_ClientCredentials{ClientCredentials: &a2av1.ClientCredentialsOAuthFlow{
			TokenUrl: "http://h/token"}}},
		"implicit": {Flow: &a2av1.OAuthFlows_Implicit{Implicit: &a2av1.ImplicitOAuthFlow{AuthorizationUrl: "http://h/auth"}}},
		"password": {Flow: &a2av1.OAuthFlows_Password{Password: &a2av1.PasswordOAuthFlow{TokenUrl: "http://h/token"}}},
		"scoped": {Flow: &a2av1.OAuthFlows_ClientCredentials{ClientCredentials: &a2av1.ClientCredentialsOAuthFlow{
			TokenUrl: "http://h/token", Scopes: map[string]string{"read": "r"}}}},
	}
	card := echo.Card(&a2av1.AgentInterface{Url: "http://h/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"})
	card.SecurityRequirements = nil
	card.SecuritySchemes = map[string]*a2av1.SecurityScheme{}
	for name, f := range flows {
		card.SecuritySchemes[name] = &a2av1.SecurityScheme{Scheme: &a2av1.SecurityScheme_Oauth2SecurityScheme{
			Oauth2SecurityScheme: &a2av1.OAuth2SecurityScheme{Flows: f}}}
	}
	doc, err := a2av03.CardJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	var v03 struct {
		SecuritySchemes map[string]struct {
			Flows map[string]map[string]json.RawMessage `json:"flows"`
		} `json:"securitySchemes"`
	}
	if err := json.Unmarshal(doc, &v03); err != nil {
		t.Fatal(err)
	}
	for name := range flows {
		kind := name
		want := "{}"
		if name == "scoped" {
			kind, want = "clientCredentials", `{"read":"r"}`
		}
		f := v03.SecuritySchemes[name].Flows[kind]
		if f == nil || string(f["scopes"]) != want {
			t.Errorf("%s: v0.3 flows %v, want %s with scopes %s", name, v03.SecuritySchemes[name].Flows, kind, want)
		}
	}
	var v1 a2av1.AgentCard
	if err := runtime.UnmarshalJSON(doc, &v1); err != nil ||
		v1.GetSecuritySchemes()["clientCredentials"].GetOauth2SecurityScheme().GetFlows().GetClientCredentials().GetTokenUrl() != "http://h/token" {
		t.Errorf("the dual card as v1.0: %v, %v", v1.GetSecuritySchemes(), err)
	}
	// And a v0.3 reader takes the flows back.
	back, err := a2av03.ReadCard(doc)
	if err != nil || back.GetSecuritySchemes()["password"].GetOauth2SecurityScheme().GetFlows().GetPassword().GetTokenUrl() != "http://h/token" {
		t.Errorf("ReadCard of the dual card: %v, %v", back.GetSecuritySchemes(), err)
	}
}
