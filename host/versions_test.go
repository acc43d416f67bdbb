package host_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
)

// versionsCard is plainCard with a JSON-RPC interface at addr.
func versionsCard(t *testing.T, addr string) []byte {
	t.Helper()
	card := &a2av1.AgentCard{}
	if err := runtime.UnmarshalJSON(plainCard(t), card); err != nil {
		t.Fatal(err)
	}
	card.SupportedInterfaces = []*a2av1.AgentInterface{{Url: "http://" + addr + "/", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "1.0"}}
	b, err := runtime.MarshalJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonrpcGetTask calls GetTask of an unknown task with A2A-Version version
// and returns the JSON-RPC error code and its supportedVersions metadata.
func jsonrpcGetTask(t *testing.T, addr, version string) (code int, supported string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Error struct {
			Code int
			Data []struct{ Metadata map[string]string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if len(env.Error.Data) > 0 {
		supported = env.Error.Data[0].Metadata["supportedVersions"]
	}
	return env.Error.Code, supported
}

// TestProtocolVersions: with -protocol-versions 1.0,1.1 (or
// $A2A_PROTOCOL_VERSIONS) the agent serves the A2A 1.1 draft beside 1.0:
// its card lists a 1.1 twin of every 1.0 interface, a 1.1 call is served,
// and VersionNotSupported names both versions. Without it, 1.0 only, and
// the card is served as given.
func TestProtocolVersions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		env       string
		supported string
	}{
		{"default", nil, "", "1.0"},
		{"flag", []string{"-protocol-versions", "1.0,1.1"}, "", "1.1,1.0"},
		{"variable", nil, "1.1, 1.0", "1.1,1.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("A2A_PROTOCOL_VERSIONS", tc.env)
			cfg, addr := plainConfig(t)
			cfg.CardJSON = versionsCard(t, addr)
			_, stop := runMain(t, cfg, tc.args, 1)
			defer stop()

			resp, err := http.Get("http://" + addr + runtime.AgentCardPath)
			if err != nil {
				t.Fatal(err)
			}
			doc, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			served := tc.supported != "1.0"
			if served == bytes.Equal(doc, cfg.CardJSON) {
				t.Errorf("card served %s; given %s", doc, cfg.CardJSON)
			}
			card := &a2av1.AgentCard{}
			if err := runtime.UnmarshalJSON(doc, card); err != nil {
				t.Fatal(err)
			}
			var versions []string
			for _, itf := range card.GetSupportedInterfaces() {
				if itf.GetUrl() != "http://"+addr+"/" || itf.GetProtocolBinding() != runtime.BindingJSONRPC {
					t.Errorf("interface %v", itf)
				}
				versions = append(versions, itf.GetProtocolVersion())
			}
			if want := map[bool]string{false: "1.0", true: "1.0,1.1"}[served]; strings.Join(versions, ",") != want {
				t.Errorf("card interfaces of versions %v, want %s", versions, want)
			}

			code, _ := jsonrpcGetTask(t, addr, "1.1")
			if want := map[bool]int{false: -32009, true: -32001}[served]; code != want {
				t.Errorf("GetTask with A2A-Version 1.1: code %d, want %d", code, want)
			}
			code, supported := jsonrpcGetTask(t, addr, "2.0")
			if code != -32009 || supported != tc.supported {
				t.Errorf("A2A-Version 2.0: code %d, supportedVersions %q, want -32009 naming %q", code, supported, tc.supported)
			}
		})
	}
}

// TestProtocolVersionsRefused: versions a2a/v1 cannot serve, and a list
// without 1.0, stop the agent before it serves, saying why.
func TestProtocolVersionsRefused(t *testing.T) {
	for _, tc := range []struct {
		versions []string
		want     string
	}{
		{[]string{"1.0", "2.0"}, `protocol version "2.0" is not one this agent can serve; the versions of a2a/v1 are 1.0, 1.1`},
		{[]string{"1.1"}, "lack 1.0, which every agent serves"},
	} {
		cfg, addr := plainConfig(t)
		cfg.CardJSON = versionsCard(t, addr)
		cfg.ProtocolVersions = tc.versions
		a, err := host.Start(cfg)
		if err == nil {
			_ = a.Shutdown(context.Background())
			t.Errorf("%v: started", tc.versions)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.versions, err, tc.want)
		}
	}
}
