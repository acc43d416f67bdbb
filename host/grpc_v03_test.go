package host_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	a2av03pb "github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
)

// TestGRPCServesV03WithConfigV03: with Config.V03 a gRPC binding serves
// a2a.v1.A2AService (v0.3) next to lf.a2a.v1.A2AService from the same
// server, the card lists a 0.3 gRPC twin, and a task made over v0.3 is read
// over v1.0; without it the v0.3 service is not there.
func TestGRPCServesV03WithConfigV03(t *testing.T) {
	card := &a2av1.AgentCard{
		Name: "dual", Description: "d", Version: "1",
		SupportedInterfaces: []*a2av1.AgentInterface{{Url: "127.0.0.1:9090", ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: "1.0"}},
		Capabilities:        &a2av1.AgentCapabilities{},
		DefaultInputModes:   []string{"text/plain"},
		DefaultOutputModes:  []string{"text/plain"},
		Skills:              []*a2av1.AgentSkill{{Id: "open", Name: "Open", Description: "o", Tags: []string{"t"}}},
	}
	pub, err := runtime.MarshalJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	for _, v03 := range []bool{true, false} {
		b := host.Binding{Protocol: runtime.BindingGRPC, Address: ":9090"}
		a := hosttest.Start(t, host.Config{CardJSON: pub, V03: v03, Bindings: []host.Binding{b}, Skills: []host.Skill{{ID: "open", Run: replyWith("open")}}})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+hosttest.Token)
		c, err := a2av03pb.NewA2AServiceGRPCClient(a.Addr(b).String(), runtime.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		resp, err := c.SendMessage(ctx, &a2av03pb.SendMessageRequest{Request: &a2av03pb.Message{MessageId: "m", Role: a2av03pb.Role_ROLE_USER,
			Content: []*a2av03pb.Part{{Part: &a2av03pb.Part_Text{Text: "hi"}}}}})
		if !v03 {
			if err == nil {
				t.Error("without Config.V03 the v0.3 gRPC service answers")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var twin bool
		for _, i := range a.Card().GetSupportedInterfaces() {
			twin = twin || (i.GetProtocolBinding() == runtime.BindingGRPC && i.GetProtocolVersion() == "0.3")
		}
		if !twin {
			t.Errorf("card interfaces %v lack the 0.3 gRPC one", a.Card().GetSupportedInterfaces())
		}
		if id := resp.GetTask().GetId(); id != "" {
			v1 := a.ClientWith(t, b)
			if _, err := v1.GetTask(ctx, &a2av1.GetTaskRequest{Id: id}); err != nil {
				t.Errorf("v1.0 GetTask of the v0.3 task: %v", err)
			}
		} else if resp.GetMsg() == nil {
			t.Errorf("v0.3 SendMessage answered %v", resp)
		}
	}
}
