package agentcard_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/compat/a2av03grpc"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestDiscoverV03Card: a v0.3-only agent (its card names the endpoint in
// url/preferredTransport/additionalInterfaces; its gRPC server serves only
// a2a.v1.A2AService) is discovered and called through the typed v1.0 API;
// the card request carries A2A-Version.
func TestDiscoverV03Card(t *testing.T) {
	card := echo.Card()
	srv, err := server.New(card, &echo.Agent{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	a2av03grpc.Register(g, srv)
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(g.Stop)

	gotVersion := make(chan string, 1)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case gotVersion <- r.Header.Get("A2A-Version"):
		default:
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"protocolVersion":"0.3.0","name":"old echo","description":"v0.3 only","version":"1",
			"url":"http://127.0.0.1:1/not-jsonrpc","preferredTransport":"HTTP+JSON",
			"additionalInterfaces":[{"url":"http://127.0.0.1:1/not-jsonrpc","transport":"HTTP+JSON"},{"url":%q,"transport":"GRPC"}],
			"capabilities":{"streaming":true,"stateTransitionHistory":false},
			"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}},"security":[{"bearer":[]}],
			"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
			"skills":[{"id":"echo","name":"Echo","description":"echo","tags":["echo"]}]}`, ln.Addr().String())
	}))
	t.Cleanup(web.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := agentcard.Discover(ctx, web.URL, agentcard.WithBindings(runtime.BindingGRPC), agentcard.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())),
		agentcard.WithCredentials("bearer", agentcard.StaticHeader("Authorization", "Bearer t")))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v := <-gotVersion; v != a2av1.A2AServiceDesc.ProtocolVersion() {
		t.Errorf("card request A2A-Version = %q, want %q", v, a2av1.A2AServiceDesc.ProtocolVersion())
	}
	if c.Interface.GetProtocolBinding() != runtime.BindingGRPC || c.Interface.GetProtocolVersion() != "0.3.0" {
		t.Fatalf("chosen interface = %v, want the v0.3 gRPC one (WithBindings)", c.Interface)
	}
	if s := c.Card.GetSecuritySchemes()["bearer"].GetHttpAuthSecurityScheme().GetScheme(); s != "bearer" {
		t.Errorf("v0.3 security scheme read as %v", c.Card.GetSecuritySchemes())
	}
	resp, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: resp.GetTask().GetId()})
	if err != nil || task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("GetTask over v0.3 = %v, %v", task, err)
	}
	n := 0
	for _, err := range c.SendStreamingMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("stream 2"))) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 5 {
		t.Errorf("stream over v0.3: %d events, want 5", n)
	}
}

// TestDiscoverDualCardSchemesUnderV03Names: the official Go SDK's v0.3
// card lists supportedInterfaces (so it is read as a v1.0 card) but nests
// each security scheme's v1.0 form under the v0.3 type's name; Discover
// reads the scheme from its v0.3 members instead of keeping it empty.
func TestDiscoverDualCardSchemesUnderV03Names(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"sdk","description":"d","version":"1","url":"http://127.0.0.1:1/rpc","protocolVersion":"0.3",
			"supportedInterfaces":[{"url":"http://127.0.0.1:1/rpc","protocolBinding":"JSONRPC","protocolVersion":"0.3"}],
			"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],
			"securitySchemes":{"bearer":{"type":"http","scheme":"Bearer","http":{"scheme":"Bearer"}}},
			"securityRequirements":[{"schemes":{"bearer":{"list":[]}}}]}`)
	}))
	t.Cleanup(web.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := agentcard.Discover(ctx, web.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s := c.Card.GetSecuritySchemes()["bearer"].GetHttpAuthSecurityScheme().GetScheme(); s != "Bearer" {
		t.Errorf("bearer scheme read as %v, want the http scheme Bearer", c.Card.GetSecuritySchemes()["bearer"])
	}
}
