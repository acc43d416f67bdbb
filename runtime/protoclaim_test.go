package runtime_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2agen/a2agen/runtime"
)

// claimPanic returns what ClaimProtoService panics with, or "".
func claimPanic(service, goPackage string) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg, _ = r.(string)
		}
	}()
	runtime.ClaimProtoService(service, goPackage)
	return ""
}

func TestClaimProtoServiceNamesBothPackages(t *testing.T) {
	t.Setenv("GOLANG_PROTOBUF_REGISTRATION_CONFLICT", "")
	if msg := claimPanic("claimtest.v1.Svc", "example.com/first"); msg != "" {
		t.Fatalf("first claim panics: %s", msg)
	}
	if msg := claimPanic("claimtest.v1.Svc", "example.com/first"); msg != "" {
		t.Fatalf("the same package claiming again panics: %s", msg)
	}
	msg := claimPanic("claimtest.v1.Svc", "github.com/a2agen/a2agen/a2a/v1")
	for _, want := range []string{"claimtest.v1.Svc", "example.com/first", "github.com/a2agen/a2agen/a2a/v1", "Link only one", "server, host, agentcard and auth"} {
		if !strings.Contains(msg, want) {
			t.Errorf("conflict message %q does not mention %q", msg, want)
		}
	}
	t.Setenv("GOLANG_PROTOBUF_REGISTRATION_CONFLICT", "warn")
	if msg := claimPanic("claimtest.v1.Svc", "example.com/third"); msg != "" {
		t.Errorf("with protobuf's conflict policy relaxed, the claim still panics: %s", msg)
	}
}

func TestClaimProtoServiceSeesRegisteredNames(t *testing.T) {
	t.Setenv("GOLANG_PROTOBUF_REGISTRATION_CONFLICT", "")
	_ = emptypb.Empty{} // google/protobuf/empty.proto is registered
	msg := claimPanic("google.protobuf.Empty", "example.com/mine")
	for _, want := range []string{"google.golang.org/protobuf/types/known/emptypb (which registered google/protobuf/empty.proto)", "example.com/mine", "a process of its own"} {
		if !strings.Contains(msg, want) {
			t.Errorf("conflict message %q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "server, host") {
		t.Errorf("message mentions a2agen's packages though neither is a2agen's: %q", msg)
	}
}
