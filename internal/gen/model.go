package gen

import (
	"errors"
	"fmt"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// fileModel is what the generator emits for one .proto file: the services
// that have google.api.http rules, checked and resolved.
type fileModel struct {
	file     *protogen.File
	out      outputPackage
	services []*serviceModel
}

// serviceModel is one service to emit.
type serviceModel struct {
	service *protogen.Service
	names   *serviceNames
	ops     []*operation    // in rpc declaration order
	profile protocolProfile // protocols.go
}

// operation is one rpc with its checked HTTP bindings.
type operation struct {
	method *protogen.Method
	rules  []httpBinding // primary rule first, then additional_bindings
}

// streaming reports whether the rpc is server-streaming.
func (o *operation) streaming() bool { return o.method.Desc.IsStreamingServer() }

// clientStreaming reports whether the client of the rpc sends a stream of
// requests: a client-streaming or a bidirectional rpc. Such rpcs are served
// and called on gRPC only; A2A defines no JSON-RPC or HTTP+JSON form for
// them, so the runtime answers their method and routes there with
// UnsupportedOperation (docs/bindings.md).
func (o *operation) clientStreaming() bool { return o.method.Desc.IsStreamingClient() }

// streamingKind names how the rpc streams, for docs: "server", "client",
// "bidirectional", or "" for a unary rpc.
func (o *operation) streamingKind() string {
	switch {
	case o.clientStreaming() && o.streaming():
		return "bidirectional"
	case o.clientStreaming():
		return "client"
	case o.streaming():
		return "server"
	}
	return ""
}

// clientStreamsDoc is doc, the text of a generated declaration's comment
// about rpcs whose client streams its requests, when the service has any;
// "" when it has none.
func (e *serviceEmitter) clientStreamsDoc(doc string) string {
	if !e.sm.hasClientStreams() {
		return ""
	}
	return doc
}

// hasClientStreams reports whether any rpc of the service streams its
// requests; the docs of the generated declarations then say how those are
// served.
func (sm *serviceModel) hasClientStreams() bool {
	for _, op := range sm.ops {
		if op.clientStreaming() {
			return true
		}
	}
	return false
}

// buildFileModel checks the services of file and returns what to emit, or
// every problem found, each naming the file, position and rpc.
func buildFileModel(file *protogen.File) (*fileModel, error) {
	fm := &fileModel{file: file}
	var problems []error
	for _, svc := range file.Services {
		if !hasHTTPRules(svc) {
			continue // not an A2A-style service; other plugins may serve it
		}
		sm := &serviceModel{service: svc, names: newServiceNames(svc)}
		for _, m := range svc.Methods {
			op := &operation{method: m}
			rules, errs := httpBindings(file, m)
			problems = append(problems, errs...)
			op.rules = rules
			sm.ops = append(sm.ops, op)
		}
		fm.services = append(fm.services, sm)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return fm, nil
}

// hasHTTPRules reports whether any rpc of svc has a google.api.http option.
func hasHTTPRules(svc *protogen.Service) bool {
	for _, m := range svc.Methods {
		if httpRule(m) != nil {
			return true
		}
	}
	return false
}

// httpRule returns the google.api.http option of m, or nil.
func httpRule(m *protogen.Method) *annotations.HttpRule {
	opts := m.Desc.Options()
	if opts == nil || !proto.HasExtension(opts, annotations.E_Http) {
		return nil
	}
	rule, _ := proto.GetExtension(opts, annotations.E_Http).(*annotations.HttpRule)
	return rule
}

// problemf builds an input error "file:line:col: full.Name: message". The
// position is that of d in the source when source info is available.
func problemf(file *protogen.File, d protoreflect.Descriptor, format string, args ...any) error {
	where := file.Desc.Path()
	if loc := file.Desc.SourceLocations().ByDescriptor(d); loc.Path != nil {
		where = fmt.Sprintf("%s:%d:%d", where, loc.StartLine+1, loc.StartColumn+1)
	}
	return fmt.Errorf("%s: %s: %s", where, d.FullName(), fmt.Sprintf(format, args...))
}
