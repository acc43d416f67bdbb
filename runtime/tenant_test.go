package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"
)

func TestApplyTenant(t *testing.T) {
	tests := []struct {
		name       string
		iface      string // WithTenant
		typ        string
		reqTenant  string // value of the request's tenant field before
		wantTenant string // info.Tenant
		wantField  string // value of the request's tenant field after
		wantErr    bool
	}{
		{name: "no tenants anywhere", typ: "Request"},
		{name: "request tenant, no interface tenant", typ: "Request", reqTenant: "t1", wantTenant: "t1", wantField: "t1"},
		{name: "empty request tenant filled in", iface: "acme", typ: "Request", wantTenant: "acme", wantField: "acme"},
		{name: "same tenant", iface: "acme", typ: "Request", reqTenant: "acme", wantTenant: "acme", wantField: "acme"},
		{name: "different tenant refused", iface: "acme", typ: "Request", reqTenant: "other", wantErr: true, wantField: "other"},
		{name: "tenants are case-sensitive", iface: "acme", typ: "Request", reqTenant: "ACME", wantErr: true, wantField: "ACME"},
		{name: "message without tenant field", iface: "acme", typ: "NoTenant", wantTenant: "acme"},
		{name: "non-string tenant field is no tenant field", iface: "acme", typ: "IntTenant", wantTenant: "acme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newHandlerConfig([]HandlerOption{WithTenant(tt.iface)})
			req := newTestMessage(t, tt.typ)
			if tt.reqTenant != "" && !SetTenant(req, tt.reqTenant) {
				t.Fatal("SetTenant on a message with a tenant field = false")
			}
			info := &CallInfo{Tenant: "stale"}
			err := c.applyTenant(info, req)
			if got := TenantOf(req); got != tt.wantField {
				t.Errorf("request tenant after = %q, want %q", got, tt.wantField)
			}
			if tt.wantErr {
				if err == nil {
					t.Fatalf("applyTenant() = nil, want an error")
				}
				if err.Code() != CodeInvalidParams {
					t.Errorf("code = %v, want InvalidParams", err.Code())
				}
				want := []FieldViolation{{Field: "tenant", Description: "does not match the interface tenant"}}
				if diff := cmp.Diff(want, err.FieldViolations()); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("applyTenant() = %v", err)
			}
			if info.Tenant != tt.wantTenant {
				t.Errorf("info.Tenant = %q, want %q", info.Tenant, tt.wantTenant)
			}
		})
	}
}

func TestApplyTenantNilArguments(t *testing.T) {
	c := newHandlerConfig([]HandlerOption{WithTenant("acme")})
	info := &CallInfo{}
	if err := c.applyTenant(info, nil); err != nil || info.Tenant != "acme" {
		t.Errorf("nil request: err %v, tenant %q; want nil, acme", err, info.Tenant)
	}
	if err := c.applyTenant(nil, newTestMessage(t, "Request")); err != nil {
		t.Errorf("nil info: %v", err)
	}
}

func TestTenantOfAndSetTenant(t *testing.T) {
	req := newTestMessage(t, "Request")
	if TenantOf(req) != "" {
		t.Errorf("TenantOf(new) = %q", TenantOf(req))
	}
	if !SetTenant(req, "t1") || TenantOf(req) != "t1" {
		t.Errorf("SetTenant then TenantOf = %q, want t1", TenantOf(req))
	}
	if !SetTenant(req, "") || TenantOf(req) != "" {
		t.Errorf("SetTenant(\"\") then TenantOf = %q, want empty", TenantOf(req))
	}
	for _, m := range []proto.Message{nil, newTestMessage(t, "NoTenant"), newTestMessage(t, "IntTenant"), &descriptorpb.FileDescriptorProto{}} {
		if SetTenant(m, "x") {
			t.Errorf("SetTenant(%T) = true for a message without a string tenant field", m)
		}
		if got := TenantOf(m); got != "" {
			t.Errorf("TenantOf(%T) = %q", m, got)
		}
	}
}
