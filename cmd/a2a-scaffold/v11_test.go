//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/proctest"
	"github.com/a2agen/a2agen/runtime"
)

// TestV11DraftEndToEnd creates the project of the golden manifest with
// protocolVersions: ["1.0", "1.1"] against this checkout, builds it, runs
// it as a process on loopback and checks over real sockets what each
// version's caller sees: the card lists a 1.1 interface beside each 1.0
// one; on JSON-RPC and gRPC a caller that negotiated 1.1 reads the task's
// generation, the same task read at 1.0 carries none; and a JSON-RPC
// answer at 1.0 has no "generation" member at all, so a strict 1.0 decoder
// takes it.
func TestV11DraftEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a generated project")
	}
	t.Parallel() // a project of its own; the links of the projects' builds overlap
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := projectDir(t, root, "generations")
	tmp := filepath.Dir(dir)
	manifestFile := filepath.Join(root, "testdata", "golden", "scaffold", "v11", "agent.yaml")
	if r := runCLI(t, "", "new", "generations", "--manifest", manifestFile, "--dir", dir, "--a2agen", root); r.code != 0 {
		t.Fatalf("new: %+v", r)
	}
	bin := buildProject(t, dir)
	httpAddr, grpcAddr := freeAddr(t), freeAddr(t)
	p := proctest.Start(t, bin, proctest.Options{Args: []string{"-store", "memory",
		"-listen", "127.0.0.1:18080=" + httpAddr, "-listen", "127.0.0.1:19090=" + grpcAddr}, Dir: tmp})
	defer p.Stop(t)

	resp, err := http.Get("http://" + httpAddr + runtime.AgentCardPath)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var card struct {
		SupportedInterfaces []struct {
			ProtocolBinding string `json:"protocolBinding"`
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"supportedInterfaces"`
	}
	if err := json.Unmarshal(doc, &card); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET card: %d %v\n%s", resp.StatusCode, err, doc)
	}
	var versions []string
	for _, itf := range card.SupportedInterfaces {
		versions = append(versions, itf.ProtocolBinding+" "+itf.ProtocolVersion)
	}
	if want := []string{"JSONRPC 1.0", "GRPC 1.0", "JSONRPC 1.1", "GRPC 1.1"}; !slices.Equal(versions, want) {
		t.Fatalf("the card's interfaces are %v, want %v:\n%s", versions, want, doc)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, b := range []runtime.Binding{runtime.BindingJSONRPC, runtime.BindingGRPC} {
		v11 := p.Client(t, b, runtime.WithProtocolVersion("1.1"))
		sent, err := v11.SendMessage(ctx, &a2av1.SendMessageRequest{Message: &a2av1.Message{
			MessageId: "e2e-" + b.String(), Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{{Content: &a2av1.Part_Text{Text: "hello"}}}}})
		task := sent.GetTask()
		if err != nil || task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || task.GetGeneration() < 1 {
			t.Fatalf("%s at 1.1: SendMessage answered %v, %v; want a completed task with its generation", b, sent, err)
		}
		again, err := v11.GetTask(ctx, &a2av1.GetTaskRequest{Id: task.GetId()})
		if err != nil || again.GetGeneration() != task.GetGeneration() {
			t.Fatalf("%s at 1.1: GetTask: generation %d, %v; want %d", b, again.GetGeneration(), err, task.GetGeneration())
		}
		read10, err := p.Client(t, b).GetTask(ctx, &a2av1.GetTaskRequest{Id: task.GetId()})
		if err != nil || read10.GetId() != task.GetId() || read10.GetGeneration() != 0 {
			t.Fatalf("%s at 1.0: GetTask: %v, %v; want the task without its generation", b, read10, err)
		}
		if b != runtime.BindingJSONRPC {
			continue
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": map[string]any{"id": task.GetId()}})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+httpAddr+"/a2a", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(raw, []byte(task.GetId())) || bytes.Contains(raw, []byte(`"generation"`)) {
			t.Fatalf("GetTask at 1.0 over JSON-RPC: %d\n%s\nwant the task and no generation member", resp.StatusCode, raw)
		}
	}
}
