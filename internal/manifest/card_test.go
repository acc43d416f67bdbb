package manifest

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

func TestInterfaceURL(t *testing.T) {
	for _, tc := range []struct {
		b    Binding
		base string
		want string
	}{
		{Binding{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/"}, "", "http://localhost:8080/"},
		{Binding{Protocol: runtime.BindingJSONRPC, Address: "10.0.0.5:8080", Path: "/a2a"}, "", "http://10.0.0.5:8080/a2a"},
		{Binding{Protocol: runtime.BindingHTTPJSON, Address: "[::]:8080", Path: "/rest"}, "", "http://localhost:8080/rest"},
		{Binding{Protocol: runtime.BindingHTTPJSON, Address: ":8080", Path: "/rest"}, "https://a.example.com/", "https://a.example.com/rest"},
		{Binding{Protocol: runtime.BindingHTTPJSON, Address: ":8080", Path: "/rest", URL: "https://b.example.com/x"}, "https://a.example.com", "https://b.example.com/x"},
		{Binding{Protocol: runtime.BindingGRPC, Address: ":9090"}, "", "localhost:9090"},
		{Binding{Protocol: runtime.BindingGRPC, Address: ":9090"}, "https://a.example.com:8443/agents", "a.example.com:9090"},
		{Binding{Protocol: runtime.BindingGRPC, Address: ":9090", URL: "https://grpc.example.com"}, "", "grpc.example.com:443"},
		{Binding{Protocol: runtime.BindingGRPC, Address: ":9090", URL: "dns:///grpc.example.com:8443"}, "", "grpc.example.com:8443"},
		{Binding{Protocol: runtime.BindingGRPC, Address: ":9090", URL: "grpc.example.com:50051"}, "", "grpc.example.com:50051"},
	} {
		if got := InterfaceURL(tc.b, tc.base); got != tc.want {
			t.Errorf("InterfaceURL(%+v, %q) = %q; want %q", tc.b, tc.base, got, tc.want)
		}
	}
}

func TestAgentCard(t *testing.T) {
	m, err := Parse("agent.yaml", []byte(minimal+`capabilities:
  streaming: false
  extendedAgentCard: true
securitySchemes:
  bearer:
    type: http
    scheme: Bearer
extendedCard:
  skills:
    - id: admin
      name: Admin
      description: Admin.
      tags: [admin]
`))
	if err != nil {
		t.Fatal(err)
	}
	f := false
	tr := true
	want := &a2av1.AgentCard{
		Name:        "Echo",
		Description: "Echoes.",
		Version:     "1.0.0",
		SupportedInterfaces: []*a2av1.AgentInterface{
			{Url: "https://echo.example.com/", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"},
		},
		Capabilities: &a2av1.AgentCapabilities{Streaming: &f, ExtendedAgentCard: &tr},
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "bearer"}}},
		},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             []*a2av1.AgentSkill{{Id: "echo", Name: "Echo", Description: "Echoes text.", Tags: []string{"demo"}}},
	}
	if diff := cmp.Diff(want, m.AgentCard("https://echo.example.com"), protocmp.Transform()); diff != "" {
		t.Errorf("public card (-want +got):\n%s", diff)
	}
	ext := m.ExtendedAgentCard("https://echo.example.com")
	if len(ext.Skills) != 2 || ext.Skills[1].GetId() != "admin" {
		t.Errorf("extended card skills: %v", ext.Skills)
	}
	if len(m.AgentCard("").Skills) != 1 {
		t.Error("building the extended card changed the public one")
	}
}

func TestSuggest(t *testing.T) {
	candidates := []string{"name", "description", "defaultInputModes", "securitySchemes"}
	for word, want := range map[string]string{
		"nmae":             "name",
		"NAME":             "name",
		"descrption":       "description",
		"defaultInputMode": "defaultInputModes",
		"securitySchemas":  "securitySchemes",
		"colour":           "",
		"na":               "",
	} {
		if got := suggest(word, candidates); got != want {
			t.Errorf("suggest(%q) = %q; want %q", word, got, want)
		}
	}
}

func TestStarterModulePath(t *testing.T) {
	m, err := Parse("agent.yaml", Starter("Weather Bot 2"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "Weather Bot 2" || m.Module != "example.com/weather-bot-2" {
		t.Errorf("name %q, module %q", m.Name, m.Module)
	}
	if _, err := Parse("agent.yaml", Starter(`quote " and \ back`)); err != nil {
		t.Errorf("a name with quotes breaks the starter: %v", err)
	}
}

// TestProtocolVersions: without protocolVersions an agent serves 1.0 only;
// with "0.3" (in any order) every interface gets a 0.3 twin after the 1.0
// ones, on the extended card too. The version names agree with the
// generated service and compat/a2av03.
func TestProtocolVersions(t *testing.T) {
	if got := a2av1.A2AServiceDesc.ProtocolVersion(); got != ProtocolVersion10 {
		t.Errorf("the generated service speaks %q, ProtocolVersion10 is %q", got, ProtocolVersion10)
	}
	if ProtocolVersion03 != a2av03.Version {
		t.Errorf("ProtocolVersion03 is %q, compat/a2av03 serves %q", ProtocolVersion03, a2av03.Version)
	}
	plain, err := Parse("agent.yaml", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain.ProtocolVersions, []string{"1.0"}) || plain.ServesV03() || len(plain.AgentCard("").GetSupportedInterfaces()) != 1 {
		t.Fatalf("default: versions %v, ServesV03 %v, card %v", plain.ProtocolVersions, plain.ServesV03(), plain.AgentCard(""))
	}
	m, err := Parse("agent.yaml", []byte(strings.Replace(minimal, "  - binding: JSONRPC\n", `  - binding: JSONRPC
  - binding: GRPC
    tenant: acme
`, 1)+`protocolVersions: ["0.3", "1.0"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if !m.ServesV03() || !slices.Equal(m.ProtocolVersions, []string{"0.3", "1.0"}) {
		t.Fatalf("versions %v, ServesV03 %v", m.ProtocolVersions, m.ServesV03())
	}
	for _, card := range []*a2av1.AgentCard{m.AgentCard("https://a.example.com"), m.ExtendedAgentCard("https://a.example.com")} {
		var got []string
		for _, itf := range card.GetSupportedInterfaces() {
			got = append(got, itf.GetProtocolBinding()+" "+itf.GetProtocolVersion()+" "+itf.GetUrl()+" "+itf.GetTenant())
		}
		want := []string{
			"JSONRPC 1.0 https://a.example.com/ ", "GRPC 1.0 a.example.com:9090 acme",
			"JSONRPC 0.3 https://a.example.com/ ", "GRPC 0.3 a.example.com:9090 acme",
		}
		if !slices.Equal(got, want) {
			t.Errorf("interfaces\n%q, want\n%q", got, want)
		}
	}
}

// TestProtocolVersionsWithDraft: with "1.1" every interface gets a 1.1
// twin after the 1.0 ones and before any 0.3 twins; the draft is the
// newest version of a2a/v1's version table.
func TestProtocolVersionsWithDraft(t *testing.T) {
	if v := a2av1.A2AVersions.Versions; v[len(v)-1] != ProtocolVersion11Draft {
		t.Errorf("a2a/v1's newest version is %q, ProtocolVersion11Draft is %q", v[len(v)-1], ProtocolVersion11Draft)
	}
	m, err := Parse("agent.yaml", []byte(strings.Replace(minimal, "  - binding: JSONRPC\n", `  - binding: JSONRPC
  - binding: GRPC
`, 1)+`protocolVersions: ["1.0", "0.3", "1.1"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if !m.ServesV11Draft() || !m.ServesV03() {
		t.Fatalf("versions %v: ServesV11Draft %v, ServesV03 %v", m.ProtocolVersions, m.ServesV11Draft(), m.ServesV03())
	}
	var got []string
	for _, itf := range m.AgentCard("https://a.example.com").GetSupportedInterfaces() {
		got = append(got, itf.GetProtocolBinding()+" "+itf.GetProtocolVersion())
	}
	want := []string{"JSONRPC 1.0", "GRPC 1.0", "JSONRPC 1.1", "GRPC 1.1", "JSONRPC 0.3", "GRPC 0.3"}
	if !slices.Equal(got, want) {
		t.Errorf("interfaces %q, want %q", got, want)
	}
}
