package host_test

import (
	"context"
	"errors"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/runtime"
)

// TestV03OnTenantBindings: v0.3 has no tenants, so with Config.V03 a v0.3
// request on a binding with a tenant is served in that tenant, on every
// binding (JSON-RPC message/send, HTTP+JSON /v1/message:send under the
// binding's path, gRPC a2a.v1.A2AService): the task it makes is read over
// v1.0 in that tenant (hosttest.SendV03 checks) and is not in the default
// tenant. The card's 0.3 twin of each such interface names the same tenant.
func TestV03OnTenantBindings(t *testing.T) {
	tenanted := []host.Binding{
		{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/", Tenant: "acme"},
		{Protocol: runtime.BindingHTTPJSON, Address: ":8080", Path: "/rest", Tenant: "acme"},
		{Protocol: runtime.BindingGRPC, Address: ":9090", Tenant: "acme"},
	}
	plain := host.Binding{Protocol: runtime.BindingJSONRPC, Address: ":8080", Path: "/plain"}
	doc, err := runtime.MarshalJSON(&a2av1.AgentCard{
		Name: "tenants", Description: "d", Version: "1", Capabilities: &a2av1.AgentCapabilities{},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []*a2av1.AgentSkill{{Id: "a", Name: "A", Description: "a", Tags: []string{"t"}}},
		SupportedInterfaces: []*a2av1.AgentInterface{
			{Url: "http://127.0.0.1:8080/", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "1.0", Tenant: "acme"},
			{Url: "http://127.0.0.1:8080/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: "1.0", Tenant: "acme"},
			{Url: "127.0.0.1:9090", ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: "1.0", Tenant: "acme"},
			{Url: "http://127.0.0.1:8080/plain", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: "1.0"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := hosttest.Start(t, host.Config{CardJSON: doc, V03: true, Bindings: append(tenanted, plain),
		Skills: []host.Skill{{ID: "a", Run: completeWith}}})
	card := a.Card()
	a.CheckV03Card(t, tenanted)
	for _, itf := range card.GetSupportedInterfaces() {
		if v, _ := runtime.ParseVersion(itf.GetProtocolVersion()); v != a2av03.Version {
			continue
		}
		want := "acme"
		if itf.GetUrl() == "http://127.0.0.1:8080/plain" {
			want = ""
		}
		if itf.GetTenant() != want {
			t.Errorf("the 0.3 interface %s %s has tenant %q, want %q (its 1.0 twin's)", itf.GetProtocolBinding(), itf.GetUrl(), itf.GetTenant(), want)
		}
	}
	for _, b := range tenanted {
		t.Run(b.Protocol.String(), func(t *testing.T) {
			answer := a.SendV03(t, b, card, "a", "hi")
			if answer.Kind != "task" || answer.State != "completed" || answer.TaskID == "" {
				t.Fatalf("v0.3 answer %+v, want a completed task", answer)
			}
			_, err := a.Client(t, plain, card, "a").GetTask(context.Background(), &a2av1.GetTaskRequest{Id: answer.TaskID})
			if !errors.Is(err, runtime.ErrTaskNotFound) {
				t.Errorf("GetTask in the default tenant of the task made over v0.3 in tenant acme: %v, want TaskNotFound", err)
			}
		})
	}
}
