package runtime

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// a2agenPackage is the Go package a2agen's own server, host, agentcard and
// auth packages use for the A2A proto.
const a2agenPackage = "github.com/a2agen/a2agen/a2a/v1"

var protoClaims struct {
	sync.Mutex
	byService map[string]string // proto service full name → Go import path
}

// ClaimProtoService is called by code protoc-gen-a2a generates into a
// message package, while that package's variables are initialized: before
// its .pb.go registers the proto file, so before protobuf would panic with a
// bare "name conflict" when a second Go package generated from the same proto
// is linked into the program. It panics instead with a message naming both Go
// packages and what to do (link one of them), when service was claimed by
// another Go package or is already registered with protobuf.
//
// The panic is skipped when GOLANG_PROTOBUF_REGISTRATION_CONFLICT is "warn"
// or "ignore", protobuf's own escape hatch for conflicts the program accepts.
// It returns true, so that generated code can call it in a variable
// declaration.
func ClaimProtoService(service, goPackage string) bool {
	protoClaims.Lock()
	defer protoClaims.Unlock()
	if protoClaims.byService == nil {
		protoClaims.byService = map[string]string{}
	}
	other, claimed := protoClaims.byService[service]
	if claimed && other == goPackage {
		return true
	}
	if !claimed {
		if d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service)); err == nil {
			other = fmt.Sprintf("another Go package (one that registered %s)", d.ParentFile().Path())
			if p := goPackageOf(d.ParentFile()); p != "" {
				other = fmt.Sprintf("%s (which registered %s)", p, d.ParentFile().Path())
			}
			claimed = true
		}
	}
	if claimed && !conflictsAllowed() {
		panic(protoConflictMessage(service, other, goPackage))
	}
	protoClaims.byService[service] = goPackage
	return true
}

// conflictsAllowed reports whether the program runs with protobuf's
// registration conflict policy relaxed.
func conflictsAllowed() bool {
	switch os.Getenv("GOLANG_PROTOBUF_REGISTRATION_CONFLICT") {
	case "warn", "ignore":
		return true
	}
	return false
}

// goPackageOf is the Go import path of the generated package that
// registered file, read from the Go type of one of its messages, or "" when
// it has none registered.
func goPackageOf(file protoreflect.FileDescriptor) string {
	msgs := file.Messages()
	for i := range msgs.Len() {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(msgs.Get(i).FullName())
		if err != nil {
			continue
		}
		t := reflect.TypeOf(mt.Zero().Interface())
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if p := t.PkgPath(); p != "" {
			return p
		}
	}
	return ""
}

// sdkProtoPackages is where the official Go SDK registers the A2A proto:
// a2apb/v1, which its gRPC transport a2agrpc/v1 imports.
const sdkProtoPackages = "github.com/a2aproject/a2a-go/"

// protoConflictMessage says which packages clash and what to do.
func protoConflictMessage(service, first, second string) string {
	msg := fmt.Sprintf("a2agen: the proto service %s is generated into two Go packages linked into this program, %s and %s, "+
		"but protobuf lets a program register each proto name once. Link only one of them, "+
		"or put the code that needs the other one in a process of its own.", service, first, second)
	if strings.HasPrefix(first, sdkProtoPackages) || strings.HasPrefix(second, sdkProtoPackages) {
		msg += " The official Go SDK registers the A2A proto in a2apb/v1, which its gRPC transport a2agrpc/v1 imports; " +
			"its a2a, a2aclient and a2asrv packages alone do not."
	}
	if first == a2agenPackage || second == a2agenPackage {
		msg += " a2agen's server, host, agentcard and auth packages use " + a2agenPackage +
			": with them, use its types and generate packages of your own only for other protos; " +
			"a package generated from the same proto goes with the runtime package alone."
	}
	return msg + " (README.md of github.com/a2agen/a2agen, \"One package per proto in a program\".)"
}
