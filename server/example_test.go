package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/server"
)

// An agent that shouts: the executor is the agent's whole code.
func Example() {
	shout := server.ExecutorFunc(func(ctx context.Context, req *server.Request, ev *server.Events) error {
		if req.Text() == "" {
			return ev.Reject(server.AgentMessage("send some text"))
		}
		if err := ev.Artifact(server.TextArtifact("", strings.ToUpper(req.Text()))); err != nil {
			return err
		}
		return ev.Complete(nil)
	})
	card := &a2av1.AgentCard{Name: "shout", Capabilities: &a2av1.AgentCapabilities{Streaming: proto.Bool(true)}}
	srv, _ := server.New(card, shout)
	defer srv.Shutdown(context.Background())

	ts := httptest.NewServer(a2av1.NewA2AServiceJSONRPCHandler(srv))
	defer ts.Close()
	client := a2av1.NewA2AServiceJSONRPCClient(ts.URL)

	resp, err := client.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: &a2av1.Message{
		MessageId: "m1", Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{server.TextPart("hello")}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	task := resp.GetTask()
	fmt.Println(task.GetStatus().GetState(), server.MessageText(&a2av1.Message{Parts: task.GetArtifacts()[0].GetParts()}))
	// Output: TASK_STATE_COMPLETED HELLO
}
