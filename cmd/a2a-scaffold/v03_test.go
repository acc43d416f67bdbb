//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// v03Auth replaces the generated auth.go (the file is the user's): the
// bearer scheme of the v03 golden manifest accepts one token.
const v03Auth = `package main

import (
	"context"

	"github.com/a2agen/a2agen/auth"
	"github.com/a2agen/a2agen/runtime"
)

func verifiers() auth.Verifiers {
	return auth.Verifiers{
		Token: func(ctx context.Context, scheme, token string) (auth.Principal, error) {
			if token != "e2e-token" {
				return auth.Principal{}, runtime.Unauthenticated("unknown token")
			}
			return auth.Principal{Subject: "e2e"}, nil
		},
	}
}
`

// TestV03EndToEnd creates the project of the golden manifest with
// protocolVersions: ["1.0", "0.3"] against this checkout and runs its
// generated tests (TestV03 among them); then builds it, runs it as a
// process on loopback and checks over real sockets what a v0.3 client sees:
// the dual card at /.well-known/agent-card.json (v1.0 supportedInterfaces
// in both versions, the v0.3 url, preferredTransport, additionalInterfaces
// and protocolVersion), a JSON-RPC message/send without an A2A-Version
// header answered with a completed v0.3 task (kind, lower-case state), the
// same task read back with tasks/get, and over v1.0 with GetTask.
func TestV03EndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated project")
	}
	t.Parallel() // a project of its own; the links of the projects' builds overlap
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := projectDir(t, root, "bilingual")
	tmp := filepath.Dir(dir)
	manifestFile := filepath.Join(root, "testdata", "golden", "scaffold", "v03", "agent.yaml")
	if r := runCLI(t, "", "new", "bilingual", "--manifest", manifestFile, "--dir", dir, "--a2agen", root); r.code != 0 {
		t.Fatalf("new: %+v", r)
	}
	goCommand(t, dir, "vet", "./...")
	goCommand(t, dir, "test", "-count=1", "./...")

	if err := os.WriteFile(filepath.Join(dir, "auth.go"), []byte(v03Auth), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := buildProject(t, dir)
	httpAddr, grpcAddr := freeAddr(t), freeAddr(t)
	p := proctest.Start(t, bin, proctest.Options{Args: []string{"-store", "memory",
		"-listen", "127.0.0.1:18080=" + httpAddr, "-listen", "127.0.0.1:19090=" + grpcAddr}, Dir: tmp})
	defer p.Stop(t)

	// The card, as a v0.3 client reads it.
	resp, err := http.Get("http://" + httpAddr + runtime.AgentCardPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var card struct {
		ProtocolVersion      string `json:"protocolVersion"`
		URL                  string `json:"url"`
		PreferredTransport   string `json:"preferredTransport"`
		AdditionalInterfaces []struct {
			URL       string `json:"url"`
			Transport string `json:"transport"`
		} `json:"additionalInterfaces"`
		SupportedInterfaces []struct {
			ProtocolBinding string `json:"protocolBinding"`
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"supportedInterfaces"`
	}
	if err := json.Unmarshal(doc, &card); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET card: %d %v\n%s", resp.StatusCode, err, doc)
	}
	var versions []string
	for _, itf := range card.SupportedInterfaces {
		versions = append(versions, itf.ProtocolBinding+" "+itf.ProtocolVersion)
	}
	wantVersions := []string{"JSONRPC 1.0", "HTTP+JSON 1.0", "GRPC 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3", "GRPC 0.3"}
	if card.ProtocolVersion != "0.3.0" || card.URL != "http://127.0.0.1:18080/a2a" || card.PreferredTransport != "JSONRPC" ||
		len(card.AdditionalInterfaces) != 3 || card.AdditionalInterfaces[2].Transport != "GRPC" || !slices.Equal(versions, wantVersions) {
		t.Fatalf("the served card is not the dual card (interfaces %v):\n%s", versions, doc)
	}

	// A v0.3 client: message/send, then tasks/get, with no A2A-Version header.
	call := func(method string, params any) json.RawMessage {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
		req, _ := http.NewRequest(http.MethodPost, "http://"+httpAddr+"/a2a", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer e2e-token")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		var rpc struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(out, &rpc); err != nil || rpc.Error != nil || rpc.Result == nil {
			t.Fatalf("%s: %d %s", method, resp.StatusCode, out)
		}
		return rpc.Result
	}
	type taskV03 struct {
		Kind   string `json:"kind"`
		ID     string `json:"id"`
		Status struct {
			State string `json:"state"`
		} `json:"status"`
		Artifacts []struct {
			Parts []struct {
				Kind string `json:"kind"`
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"artifacts"`
	}
	var sent taskV03
	raw := call("message/send", map[string]any{"message": map[string]any{
		"kind": "message", "messageId": "e2e-1", "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": "bonjour"}},
	}})
	if err := json.Unmarshal(raw, &sent); err != nil || sent.Kind != "task" || sent.Status.State != "completed" ||
		len(sent.Artifacts) != 1 || len(sent.Artifacts[0].Parts) != 1 || sent.Artifacts[0].Parts[0].Kind != "text" || sent.Artifacts[0].Parts[0].Text != "Echo: bonjour" {
		t.Fatalf("message/send answered %s", raw)
	}
	var got taskV03
	if raw := call("tasks/get", map[string]any{"id": sent.ID}); json.Unmarshal(raw, &got) != nil || got.ID != sent.ID || got.Status.State != "completed" {
		t.Fatalf("tasks/get answered %s", raw)
	}

	// The same task over v1.0: one store serves both versions.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v1 := p.Client(t, runtime.BindingJSONRPC, runtime.WithHeader("Authorization", "Bearer e2e-token"))
	task, err := v1.GetTask(ctx, &a2av1.GetTaskRequest{Id: sent.ID})
	if err != nil || task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("v1.0 GetTask of the v0.3 task: %v, %v", task, err)
	}
}
