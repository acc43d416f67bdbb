package gen_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/a2agen/a2agen/internal/pipeline"
)

// badProto is the file every plugin-error case completes with its rpcs; they
// start on line 20, column 3.
const badProto = `syntax = "proto3";

package bad.v1;

import "google/api/annotations.proto";

option go_package = "example.com/bad;badv1";

message Req {
  string id = 1;
  int64 count = 2;
  Inner inner = 3;
  repeated string tags = 4;
  map<string, string> labels = 5;
}
message Inner { string name = 1; }
message Resp {}

service Svc {
%s
}
`

// generateBad writes badProto completed with rpcs (and extra declarations)
// and runs the generators on it with the protoc-gen-a2a parameter a2aParam.
func generateBad(t *testing.T, rpcs, extra, a2aParam string) (map[string][]byte, error) {
	t.Helper()
	dir := t.TempDir()
	src := fmt.Sprintf(badProto, rpcs) + extra
	if err := os.WriteFile(filepath.Join(dir, "bad.proto"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return pipeline.Run(context.Background(), pipeline.Config{
		ImportPaths:  []string{dir},
		Files:        []string{"bad.proto"},
		Parameter:    "module=example.com/bad",
		A2AParameter: a2aParam,
	})
}

// TestPluginErrors pins the exact error for every kind of input the plugin
// refuses: the user reads it in protoc's output and must be able to act on it.
func TestPluginErrors(t *testing.T) {
	const ok = `rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}"}; }`
	tests := []struct {
		name  string
		rpcs  string
		extra string
		param string
		want  string
	}{{
		name: "GET with body",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r" body: "*"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r": sets body "*", but GET requests carry no body; remove body and bind fields through the path or query`,
	}, {
		name: "DELETE with body",
		rpcs: `  rpc Del(Req) returns (Resp) { option (google.api.http) = {delete: "/r/{id}" body: "inner"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Del: google.api.http delete "/r/{id}": sets body "inner", but DELETE requests carry no body; remove body and bind fields through the path or query`,
	}, {
		name: "path variable naming no field",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{foo}"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{foo}": path variable {foo} names no field of bad.v1.Req (fields: id, count, inner, tags, labels); rename the variable or add the field to the request`,
	}, {
		name: "nested path variable naming no field",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{inner.nope}"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{inner.nope}": path variable {inner.nope} names no field of bad.v1.Inner (fields: name); rename the variable or add the field to the request`,
	}, {
		name: "nested path variable through a scalar",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id.name}"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{id.name}": path variable {id.name}: field id is a string, so it has no field name; a path variable may only go through singular message fields`,
	}, {
		name: "path variable naming a message",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{inner}"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{inner}": path variable {inner}: field inner is a message (bad.v1.Inner); a path variable must name a singular scalar field (string, number, bool, enum or bytes)`,
	}, {
		name: "path variable naming a repeated field",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{tags}"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{tags}": path variable {tags}: field tags is repeated; a path variable must name a singular scalar field (string, number, bool, enum or bytes)`,
	}, {
		name: "path variable naming a map",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{labels}"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{labels}": path variable {labels}: field labels is a map; a path variable must name a singular scalar field (string, number, bool, enum or bytes)`,
	}, {
		name: "multi-segment capture into a number",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{count=counts/*}"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{count=counts/*}": path variable {count} captures more than one "*" segment, so field count must be a string, not an int64`,
	}, {
		name: "unbalanced brace",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{id": path template "/r/{id": unbalanced "{" (at offset 3)`,
	}, {
		name: "empty segment",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r//{id}"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r//{id}": path template "/r//{id}": empty path segment (at offset 3)`,
	}, {
		name: "no leading slash",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "r/{id}"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "r/{id}": path template "r/{id}": must start with "/" (at offset 0)`,
	}, {
		name: "deep wildcard not last",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id=**}/x"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{id=**}/x": path template "/r/{id=**}/x": "**" must be the last segment of the path (at offset 0)`,
	}, {
		name: "body naming no field",
		rpcs: `  rpc Put(Req) returns (Resp) { option (google.api.http) = {put: "/r/{id}" body: "nope"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Put: google.api.http put "/r/{id}": body "nope" names no field of bad.v1.Req (fields: id, count, inner, tags, labels); use "*" for the whole request or the name of a top-level field`,
	}, {
		name: "response_body",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}" response_body: "x"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{id}": response_body "x" is not supported; remove it (the whole response message is the HTTP body)`,
	}, {
		name: "custom verb",
		rpcs: `  rpc Head(Req) returns (Resp) { option (google.api.http) = {custom: {kind: "HEAD" path: "/r"}}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Head: google.api.http uses custom kind "HEAD", which is not supported; use get, put, post, delete or patch`,
	}, {
		name: "no pattern",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {body: "*"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http sets no pattern; set one of get, put, post, delete or patch`,
	}, {
		name: "bad additional binding",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}" additional_bindings {get: "/{tenant}/r/{id}"}}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http additional_bindings[0] get "/{tenant}/r/{id}": path variable {tenant} names no field of bad.v1.Req (fields: id, count, inner, tags, labels); rename the variable or add the field to the request`,
	}, {
		name: "nested additional bindings",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}" additional_bindings {get: "/s/{id}" additional_bindings {get: "/t/{id}"}}}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http additional_bindings[0] has additional_bindings of its own; list every binding in the top-level additional_bindings`,
	}, {
		name: "every problem at once",
		rpcs: `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{foo}" body: "*"}; }
  rpc Del(Req) returns (Resp) { option (google.api.http) = {delete: "/r/{id}" body: "inner"}; }`,
		want: `bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{foo}": sets body "*", but GET requests carry no body; remove body and bind fields through the path or query
bad.proto:20:3: bad.v1.Svc.Get: google.api.http get "/r/{foo}": path variable {foo} names no field of bad.v1.Req (fields: id, count, inner, tags, labels); rename the variable or add the field to the request
bad.proto:21:3: bad.v1.Svc.Del: google.api.http delete "/r/{id}": sets body "inner", but DELETE requests carry no body; remove body and bind fields through the path or query`,
	}, {
		name:  "generated name collides with a message",
		rpcs:  "  " + ok,
		extra: "message SvcClient {}\n",
		want:  `bad.proto: bad.v1.Svc: generated identifier SvcClient (client interface) collides with message bad.v1.SvcClient (bad.proto); rename one of them in the proto`,
	}, {
		name:  "generated gRPC name collides with a message",
		rpcs:  "  " + ok,
		extra: "message NewSvcGRPCClientFromConn {}\n",
		param: "bindings=grpc",
		want:  `bad.proto: bad.v1.Svc: generated identifier NewSvcGRPCClientFromConn (grpc client constructor over a connection) collides with message bad.v1.NewSvcGRPCClientFromConn (bad.proto); rename one of them in the proto`,
	}, {
		name: "rpc named like the client's Close",
		rpcs: `  rpc Close(Req) returns (Resp) { option (google.api.http) = {post: "/close" body: "*"}; }`,
		want: `bad.proto: bad.v1.Svc: rpc Close collides with the Close method of the generated client (SvcClient); rename the rpc`,
	}, {
		name:  "unknown binding",
		rpcs:  "  " + ok,
		param: "bindings=jsonrpc,soap",
		want:  `bindings=: unknown binding "soap"; want JSONRPC, HTTP+JSON or GRPC (in any case; also jsonrpc, json-rpc, rest, http, http_json, grpc)`,
	}, {
		name:  "empty binding list",
		rpcs:  "  " + ok,
		param: "bindings=",
		want:  `bindings= names an empty binding (known: jsonrpc, rest, grpc)`,
	}, {
		name:  "unknown parameter",
		rpcs:  "  " + ok,
		param: "flavour=vanilla",
		want:  `unknown parameter "flavour": protoc-gen-a2a accepts bindings=<list>, package_suffix=<suffix> and protocol_versions=<list> besides protoc-gen-go's paths=, module= and M…`,
	}, {
		name:  "protocol version that is not Major.Minor",
		rpcs:  "  " + ok,
		param: "protocol_versions=1.1,v1",
		want:  `protocol_versions: "v1" is not an A2A protocol version; give Major.Minor, newest first (e.g. protocol_versions=1.1,1.0)`,
	}, {
		name:  "protocol version listed twice",
		rpcs:  "  " + ok,
		param: "protocol_versions=1.1,1.0,1.1",
		want:  `protocol_versions: 1.1 is listed twice`,
	}, {
		name:  "package suffix that is no package name",
		rpcs:  "  " + ok,
		param: "package_suffix=A2A-x",
		want:  `package_suffix=A2A-x: the suffix is appended to a Go package name, so it may hold only lower-case letters, digits and underscores (e.g. package_suffix=a2a)`,
	}, {
		name:  "generated name collides with protoc-gen-go-grpc's for another service",
		rpcs:  "  " + ok,
		extra: "service SvcJSONRPC { rpc Get(Req) returns (Resp); }\n",
		param: "bindings=jsonrpc",
		want:  `bad.proto: bad.v1.Svc: generated identifier NewSvcJSONRPCClient (jsonrpc client constructor) collides with protoc-gen-go-grpc's client constructor of bad.v1.SvcJSONRPC (bad.proto) in Go package example.com/bad; rename one of them in the proto, or generate the A2A bindings into a package of their own with package_suffix=<suffix>`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := generateBad(t, tt.rpcs, tt.extra, tt.param)
			if err == nil {
				t.Fatalf("generated %d files, want error:\n%s", len(files), tt.want)
			}
			want := "protoc-gen-a2a: " + tt.want
			if got := err.Error(); got != want {
				t.Errorf("error:\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

// TestPluginAccepts pins inputs the plugin must serve, including the
// parameter spellings protoc produces.
func TestPluginAccepts(t *testing.T) {
	tests := []struct {
		name, rpcs, param string
		wantFiles         []string
	}{
		{"default bindings", `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}"}; }`, "", []string{"bad.pb.go", "bad.a2a.go"}},
		{"explicit and repeated binding", `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}"}; }`, "bindings=jsonrpc,jsonrpc", []string{"bad.pb.go", "bad.a2a.go"}},
		{"grpc binding only", `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}"}; }`, "bindings=grpc", []string{"bad.pb.go", "bad.a2a.go"}},
		{"rest binding only", `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}"}; }`, "bindings=rest", []string{"bad.pb.go", "bad.a2a.go"}},
		{"service without rules is skipped", `  rpc Get(Req) returns (Resp);`, "", []string{"bad.pb.go"}},
		{"client streaming without rules is ignored", `  rpc Up(stream Req) returns (Resp);`, "", []string{"bad.pb.go"}},
		{"nested variable, wildcards and verb", `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{inner.name=names/*/**}:look"}; }`, "", []string{"bad.pb.go", "bad.a2a.go"}},
		{"body field", `  rpc Put(Req) returns (Resp) { option (google.api.http) = {put: "/r/{id}" body: "inner"}; }`, "", []string{"bad.pb.go", "bad.a2a.go"}},
		{"own package", `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}"}; }`, "package_suffix=a2a", []string{"bad.pb.go", "badv1a2a/bad.a2a.go"}},
		{"own package after a binding list", `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}"}; }`, "bindings=jsonrpc,rest,package_suffix=x", []string{"bad.pb.go", "badv1x/bad.a2a.go"}},
		{"protocol versions then a binding list", `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}"}; }`, "protocol_versions=1.1,1.0,bindings=jsonrpc,rest", []string{"bad.pb.go", "bad.a2a.go"}},
		{"empty suffix is the message package", `  rpc Get(Req) returns (Resp) { option (google.api.http) = {get: "/r/{id}"}; }`, "package_suffix=", []string{"bad.pb.go", "bad.a2a.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := generateBad(t, tt.rpcs, "", tt.param)
			if err != nil {
				t.Fatal(err)
			}
			got := slices.Sorted(maps.Keys(files))
			slices.Sort(tt.wantFiles)
			if !slices.Equal(got, tt.wantFiles) {
				t.Errorf("files = %v, want %v", got, tt.wantFiles)
			}
		})
	}
}
