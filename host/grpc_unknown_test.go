package host_test

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
)

// TestGRPCUnknownMethodNeedsCredentials: with a required security scheme,
// a gRPC call to a method the agent does not have is authenticated before
// it is answered (A2A §7.4), as on JSON-RPC and HTTP+JSON: a caller without
// credentials or with wrong ones gets UNAUTHENTICATED with the scheme's
// challenge in the www-authenticate trailer, an authenticated one
// UNIMPLEMENTED. Over a real loopback gRPC connection to host.Start.
func TestGRPCUnknownMethodNeedsCredentials(t *testing.T) {
	card := &a2av1.AgentCard{
		Name: "guarded", Description: "d", Version: "1",
		Capabilities:       &a2av1.AgentCapabilities{},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		SecuritySchemes: map[string]*a2av1.SecurityScheme{
			"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "bearer"}}},
		},
		SecurityRequirements: []*a2av1.SecurityRequirement{req("bearer")},
		Skills:               []*a2av1.AgentSkill{{Id: "open", Name: "Open", Description: "o", Tags: []string{"t"}}},
	}
	pub, err := runtime.MarshalJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	b := host.Binding{Protocol: runtime.BindingGRPC, Address: ":9090"}
	a := hosttest.Start(t, host.Config{CardJSON: pub, Bindings: []host.Binding{b}, Skills: []host.Skill{{ID: "open", Run: replyWith("open")}}})
	cc, err := grpc.NewClient(a.Addr(b).String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	for _, method := range []string{"/lf.a2a.v1.A2AService/NoSuchMethod", "/no.such.Service/Call"} {
		for _, tc := range []struct {
			authorization string
			want          codes.Code
		}{
			{"", codes.Unauthenticated},
			{"Bearer wrong", codes.Unauthenticated},
			{"Bearer " + hosttest.Token, codes.Unimplemented},
		} {
			ctx := context.Background()
			if tc.authorization != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "authorization", tc.authorization)
			}
			var trailer metadata.MD
			err := cc.Invoke(ctx, method, &emptypb.Empty{}, &emptypb.Empty{}, grpc.Trailer(&trailer))
			challenges := trailer.Get("www-authenticate")
			if status.Code(err) != tc.want || (tc.want == codes.Unauthenticated) != (len(challenges) > 0) {
				t.Errorf("%s with authorization %q: %v, www-authenticate %q; want %v (with a challenge when unauthenticated)", method, tc.authorization, err, challenges, tc.want)
			}
		}
	}
}
