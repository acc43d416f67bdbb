package interop

import (
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// v03Bindings are the bindings on which a2agen's client calls a v0.3-only
// agent through agentcard.Discover: all three (compat/a2av03's JSON-RPC and
// HTTP+JSON client transports, compat/a2av03grpc's).
var v03Bindings = bindings

// sdkV03Quirks is how the SDK's v0.3 handlers (v2.3.1 and v2.4.0) answer: as its v1.0
// ones (sdkQuirks), with no ListTasks on the v0.3 interface and, over
// gRPC, no way to say historyLength 0.
func sdkV03Quirks(binding string) peerQuirks {
	q := sdkQuirks
	q.noListTasks = true
	q.historyLengthZeroIsUnset = binding == "GRPC"
	return q
}

// ourV03Waiting: like v03Waiting, for a2agen's clients against the SDK's
// v0.3 servers.
var ourV03Waiting = map[string]string{}

// sdkV24RESTCreatePushConfig: the SDK v2.4.0's v0.3 HTTP+JSON server reads
// the body of POST /v1/tasks/{id}/pushNotificationConfigs as the whole
// CreateTaskPushNotificationConfigRequest ({"configId": …, "config": …};
// a2apb/v0/pbjson.FromProtoCreatePushConfigRequest) and answers ParseError
// to anything without "config", while the v0.3 proto's rule (body:
// "config") makes the body the config itself, as a2agen's client and the JS
// SDK send it (examples/echo takes both forms).
const sdkV24RESTCreatePushConfig = "the SDK v2.4.0's v0.3 REST server wants the body wrapped as {\"config\": …} " +
	"and answers ParseError to the config itself (the v0.3 proto's body: \"config\", which a2agen's client sends)"

// TestOurClientToSDKV03Server drives the official Go SDK serving only A2A
// v0.3 (sdkpeer serve -version 0.3: a2acompat/a2av0's JSON-RPC and
// HTTP+JSON handlers, a2agrpc/v0's a2a.v1.A2AService and the v0.3 card),
// at the version go.mod pins and at v2.3.1, with a2agen's typed v1.0
// client, obtained the way users obtain it: agentcard.Discover on the
// SDK's v0.3 card, which chooses the 0.3 interface of the binding. Every
// operation of the echo contract runs through it, streams,
// resubscription, push configs with delivery and typed errors included.
func TestOurClientToSDKV03Server(t *testing.T) {
	t.Parallel()
	for _, build := range sdkBuilds {
		t.Run(build.version, func(t *testing.T) {
			t.Parallel()
			sdk := startSDKPeerOf(t, *build.bin, "-version", "0.3")
			hook := newWebhook(t)
			for _, b := range v03Bindings {
				t.Run(b, func(t *testing.T) {
					t.Parallel()
					skipIfWaiting(t, ourV03Waiting, build.version+" "+b)
					c, err := agentcard.Discover(stepContext(t), httpBase(t, sdk.endpoints["card"]),
						agentcard.WithBindings(runtime.Binding(b)),
						agentcard.WithGRPCDialOptions(grpc.WithTransportCredentials(insecure.NewCredentials())))
					if err != nil {
						t.Fatalf("agentcard.Discover of the SDK's v0.3 card: %v", err)
					}
					defer c.Close()
					if got, v := c.Interface.GetProtocolBinding(), c.Interface.GetProtocolVersion(); got != b || v != "0.3" {
						t.Fatalf("Discover chose %s %s, want %s 0.3", got, v, b)
					}
					// The SDK's card nests the v1.0 form of its bearer scheme under
					// another name (TestDeviation_V03CardSchemesUnderV03Names).
					if s := c.Card.GetSecuritySchemes()["bearer"].GetHttpAuthSecurityScheme().GetScheme(); s != "Bearer" {
						t.Errorf("the card's bearer scheme read as %v, want the http scheme Bearer", c.Card.GetSecuritySchemes()["bearer"])
					}
					q := sdkV03Quirks(b)
					if build.version == "v2.4.0" && b == "HTTP+JSON" {
						q.known = map[string]string{"PushNotificationConfigs": sdkV24RESTCreatePushConfig}
					}
					runEchoContract(t, b, c, hook, q)
				})
			}
		})
	}
}
