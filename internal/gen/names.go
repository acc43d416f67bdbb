package gen

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/a2agen/a2agen/internal/binding"
)

// serviceNames is the one place where the Go identifiers generated for a
// service are chosen. Every emitter reads names from here, so a rename is a
// one-line change and collisions are checked against the full set.
type serviceNames struct {
	// Desc is the exported runtime.ServiceDesc variable, e.g. A2AServiceDesc.
	Desc string
	// Handler is the server interface, e.g. A2AServiceHandler.
	Handler string
	// Unimplemented is the struct answering every rpc with
	// UnsupportedOperation, e.g. UnimplementedA2AServiceHandler.
	Unimplemented string
	// Runtime is the constructor binding a Handler to the operations,
	// returning *runtime.Service, e.g. NewA2AServiceRuntime.
	Runtime string
	// Client is the client interface, e.g. A2AServiceClient.
	Client string
	// ClientConstructor builds a Client over any transport, e.g.
	// NewA2AServiceClient.
	ClientConstructor string
	// clientImpl is the unexported type implementing Client.
	clientImpl string
	// ServiceName is the constant holding the proto full name of the
	// service, e.g. A2AServiceName.
	ServiceName string
	// opIndex maps an rpc (by proto name) to the unexported constant holding
	// its index in Desc.Operations, e.g. a2aServiceSendMessageOp.
	opIndex map[string]string
	// rpcGoNames maps an rpc (by proto name) to its Go name.
	rpcGoNames map[string]string

	service string // Go name of the service, e.g. A2AService
}

func newServiceNames(s *protogen.Service) *serviceNames {
	g := s.GoName
	n := &serviceNames{
		Desc:              g + "Desc",
		ServiceName:       g + "Name",
		Handler:           g + "Handler",
		Unimplemented:     "Unimplemented" + g + "Handler",
		Runtime:           "New" + g + "Runtime",
		Client:            g + "Client",
		ClientConstructor: "New" + g + "Client",
		clientImpl:        lowerCamel(g) + "Client",
		opIndex:           make(map[string]string, len(s.Methods)),
		rpcGoNames:        make(map[string]string, len(s.Methods)),
		service:           g,
	}
	for _, m := range s.Methods {
		n.opIndex[string(m.Desc.Name())] = lowerCamel(g) + m.GoName + "Op"
		n.rpcGoNames[string(m.Desc.Name())] = m.GoName
	}
	return n
}

// OpIndex returns the name of the index constant of rpc m.
func (n *serviceNames) OpIndex(m *protogen.Method) string { return n.opIndex[string(m.Desc.Name())] }

// ProcedureConst returns the name of the exported constant holding the gRPC
// full method name of rpc m, e.g. A2AServiceSendMessageProcedure (connect-go's
// spelling; protoc-gen-go-grpc's A2AService_SendMessage_FullMethodName does not
// clash with it).
func (n *serviceNames) ProcedureConst(m *protogen.Method) string {
	return n.service + m.GoName + "Procedure"
}

// JSONRPCMethodConst returns the name of the exported constant holding the
// JSON-RPC method name of rpc m, e.g. A2AServiceSendMessageJSONRPCMethod.
func (n *serviceNames) JSONRPCMethodConst(m *protogen.Method) string {
	return n.service + m.GoName + "JSONRPCMethod"
}

// HandlerConstructor returns the name of the constructor serving a Handler
// over binding b, e.g. NewA2AServiceJSONRPCHandler. gRPC has no handler
// value to construct: its function registers the Handler on a
// grpc.ServiceRegistrar, as protoc-gen-go-grpc's Register<S>Server does, and
// is named RegisterA2AServiceGRPC.
func (n *serviceNames) HandlerConstructor(b binding.Binding) string {
	if b == binding.GRPC {
		return "Register" + n.service + b.Ident()
	}
	return "New" + n.service + b.Ident() + "Handler"
}

// ClientBindingConstructor returns the name of the constructor of a Client
// over binding b, e.g. NewA2AServiceJSONRPCClient.
func (n *serviceNames) ClientBindingConstructor(b binding.Binding) string {
	return "New" + n.service + b.Ident() + "Client"
}

// GRPCClientFromConn returns the name of the constructor of a gRPC Client
// over a connection the caller owns, e.g. NewA2AServiceGRPCClientFromConn.
func (n *serviceNames) GRPCClientFromConn() string {
	return n.ClientBindingConstructor(binding.GRPC) + "FromConn"
}

// all lists every package-level identifier generated for the service with
// what it is, for the collision check.
func (n *serviceNames) all(bindings []binding.Binding) map[string]string {
	ids := map[string]string{
		n.Desc:              "service description",
		n.ServiceName:       "service name constant",
		n.Handler:           "handler interface",
		n.Unimplemented:     "unimplemented handler",
		n.Runtime:           "runtime constructor",
		n.Client:            "client interface",
		n.ClientConstructor: "client constructor",
		n.clientImpl:        "client implementation",
	}
	for _, b := range bindings {
		ids[n.HandlerConstructor(b)] = b.Option() + " handler constructor"
		ids[n.ClientBindingConstructor(b)] = b.Option() + " client constructor"
		if b == binding.GRPC {
			ids[n.GRPCClientFromConn()] = b.Option() + " client constructor over a connection"
		}
	}
	for rpc, id := range n.opIndex {
		ids[id] = "operation index of rpc " + rpc
	}
	for rpc, goName := range n.rpcGoNames {
		ids[n.service+goName+"Procedure"] = "gRPC procedure constant of rpc " + rpc
		ids[n.service+goName+"JSONRPCMethod"] = "JSON-RPC method constant of rpc " + rpc
	}
	return ids
}

// lowerCamel unexports a Go name, lowering a leading acronym as a whole:
// A2AService → a2aService, HTTPServer → httpServer, Foo → foo.
func lowerCamel(s string) string {
	r := []rune(s)
	n := 0
	for n < len(r) && (unicode.IsUpper(r[n]) || unicode.IsDigit(r[n])) {
		n++
	}
	// Keep the last capital of a run when a lower-case letter follows: it
	// starts the next word ("A2AS|ervice" → "a2a" + "Service").
	if n > 1 && n < len(r) && unicode.IsLower(r[n]) && unicode.IsUpper(r[n-1]) {
		n--
	}
	if n == 0 {
		n = 1
	}
	return strings.ToLower(string(r[:n])) + string(r[n:])
}

// packageIdentifiers returns the package-level identifiers protoc-gen-go
// declares in the Go package path, for every file of that package in the
// request, with a description of their origin.
func packageIdentifiers(plugin *protogen.Plugin, path protogen.GoImportPath) map[string]string {
	ids := protocIdentifiers{}
	for _, f := range plugin.Files {
		if f.GoImportPath != path {
			continue
		}
		ids.add(f.GoDescriptorIdent.GoName, "file descriptor variable", f)
		ids.addEnums(f, f.Enums)
		ids.addMessages(f, f.Messages)
		ids.addExtensions(f, f.Extensions)
	}
	return ids
}

// protocIdentifiers are identifiers protoc-gen-go declares, each with a
// description of its origin.
type protocIdentifiers map[string]string

// add records name, declared for what in file f, unless an earlier
// declaration took it.
func (ids protocIdentifiers) add(name, what string, f *protogen.File) {
	if _, ok := ids[name]; !ok {
		ids[name] = fmt.Sprintf("%s (%s)", what, f.Desc.Path())
	}
}

// addEnums records each enum's type, name and value maps, and values.
func (ids protocIdentifiers) addEnums(f *protogen.File, enums []*protogen.Enum) {
	for _, e := range enums {
		ids.add(e.GoIdent.GoName, "enum "+string(e.Desc.FullName()), f)
		ids.add(e.GoIdent.GoName+"_name", "enum name map of "+string(e.Desc.FullName()), f)
		ids.add(e.GoIdent.GoName+"_value", "enum value map of "+string(e.Desc.FullName()), f)
		for _, v := range e.Values {
			ids.add(v.GoIdent.GoName, "enum value "+string(v.Desc.FullName()), f)
		}
	}
}

// addMessages records each message's type, its oneof wrappers, and what
// it nests (map entries declare nothing).
func (ids protocIdentifiers) addMessages(f *protogen.File, msgs []*protogen.Message) {
	for _, m := range msgs {
		if m.Desc.IsMapEntry() {
			continue
		}
		ids.add(m.GoIdent.GoName, "message "+string(m.Desc.FullName()), f)
		for _, fld := range m.Fields {
			if fld.Oneof != nil && !fld.Oneof.Desc.IsSynthetic() {
				ids.add(fld.GoIdent.GoName, "oneof wrapper of "+string(fld.Desc.FullName()), f)
			}
		}
		ids.addEnums(f, m.Enums)
		ids.addMessages(f, m.Messages)
		ids.addExtensions(f, m.Extensions)
	}
}

// addExtensions records each extension's E_ variable.
func (ids protocIdentifiers) addExtensions(f *protogen.File, xs []*protogen.Extension) {
	for _, x := range xs {
		ids.add("E_"+x.GoIdent.GoName, "extension "+string(x.Desc.FullName()), f)
	}
}

// grpcIdentifiers returns the package-level identifiers protoc-gen-go-grpc
// (v1.x, with or without generic streams) declares for the services of the
// files in Go package path, with a description of their origin. skip names
// services left out: a service protoc-gen-a2a generates into its own
// message package necessarily shares <S>Client and New<S>Client with
// protoc-gen-go-grpc's output (the documented clash package_suffix avoids),
// so only its other services are checked there.
func grpcIdentifiers(plugin *protogen.Plugin, path protogen.GoImportPath, skip map[*protogen.Service]bool) map[string]string {
	ids := map[string]string{}
	for _, f := range plugin.Files {
		if f.GoImportPath != path {
			continue
		}
		for _, s := range f.Services {
			if skip[s] {
				continue
			}
			g := s.GoName
			what := func(kind string) string {
				return fmt.Sprintf("protoc-gen-go-grpc's %s of %s (%s)", kind, s.Desc.FullName(), f.Desc.Path())
			}
			unexported := strings.ToLower(g[:1]) + g[1:]
			for id, kind := range map[string]string{
				g + "Client":                   "client interface",
				"New" + g + "Client":           "client constructor",
				unexported + "Client":          "client implementation",
				g + "Server":                   "server interface",
				"Unimplemented" + g + "Server": "unimplemented server",
				"Unsafe" + g + "Server":        "unsafe server interface",
				"Register" + g + "Server":      "server registration",
				g + "_ServiceDesc":             "service description",
			} {
				ids[id] = what(kind)
			}
			for _, m := range s.Methods {
				ids[g+"_"+m.GoName+"_FullMethodName"] = what("method name constant")
				ids["_"+g+"_"+m.GoName+"_Handler"] = what("method handler")
				if m.Desc.IsStreamingClient() || m.Desc.IsStreamingServer() {
					ids[g+"_"+m.GoName+"Client"] = what("client stream type")
					ids[g+"_"+m.GoName+"Server"] = what("server stream type")
					ids[unexported+m.GoName+"Client"] = what("client stream implementation")
					ids[unexported+m.GoName+"Server"] = what("server stream implementation")
				}
			}
		}
	}
	return ids
}

// checkCollisions reports generated identifiers that clash with each other,
// with what protoc-gen-go declares in the same Go package, or with what
// protoc-gen-go-grpc would declare there.
func checkCollisions(plugin *protogen.Plugin, models []*fileModel, bindings []binding.Binding) error {
	paths, byPackage := modelsByPackage(models)
	var problems []string
	for _, path := range paths {
		fms := byPackage[path]
		ids := packageIDs{
			path:      path,
			protoc:    packageIdentifiers(plugin, path),
			grpc:      grpcIdentifiers(plugin, path, messagePackageServices(fms)),
			generated: map[string]string{},
		}
		for _, fm := range fms {
			for _, sm := range fm.services {
				owner := fmt.Sprintf("%s: %s", fm.file.Desc.Path(), sm.service.Desc.FullName())
				problems = append(problems, closeCollisions(owner, sm)...)
				problems = append(problems, ids.add(owner, sm.names.all(bindings))...)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}

// modelsByPackage groups the file models by the Go package they are
// generated into; paths are the packages in the order the models name them.
func modelsByPackage(models []*fileModel) (paths []protogen.GoImportPath, byPackage map[protogen.GoImportPath][]*fileModel) {
	byPackage = map[protogen.GoImportPath][]*fileModel{}
	for _, fm := range models {
		if _, ok := byPackage[fm.out.importPath]; !ok {
			paths = append(paths, fm.out.importPath)
		}
		byPackage[fm.out.importPath] = append(byPackage[fm.out.importPath], fm)
	}
	return paths, byPackage
}

// messagePackageServices are the services of fms generated into their
// message package, which grpcIdentifiers leaves out.
func messagePackageServices(fms []*fileModel) map[*protogen.Service]bool {
	services := map[*protogen.Service]bool{}
	for _, fm := range fms {
		if !fm.out.inMessagePackage(fm.file) {
			continue
		}
		for _, sm := range fm.services {
			services[sm.service] = true
		}
	}
	return services
}

// closeCollisions reports the rpcs of sm named like the generated client's
// Close method.
func closeCollisions(owner string, sm *serviceModel) []string {
	var problems []string
	for _, op := range sm.ops {
		if op.method.GoName == clientCloseMethod {
			problems = append(problems, fmt.Sprintf("%s: rpc %s collides with the %s method of the generated client (%s); rename the rpc", owner, op.method.Desc.Name(), clientCloseMethod, sm.names.Client))
		}
	}
	return problems
}

// packageIDs are the identifiers of one Go package a generated identifier
// must not take: protoc-gen-go's, protoc-gen-go-grpc's, and those already
// generated (by owner).
type packageIDs struct {
	path                    protogen.GoImportPath
	protoc, grpc, generated map[string]string
}

// add records the identifiers generated for owner (identifier to what it
// is) and reports each that another declaration already takes, in
// identifier order.
func (p packageIDs) add(owner string, ids map[string]string) []string {
	var problems []string
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		if other, ok := p.protoc[id]; ok {
			problems = append(problems, fmt.Sprintf("%s: generated identifier %s (%s) collides with %s; rename one of them in the proto", owner, id, ids[id], other))
		}
		if other, ok := p.grpc[id]; ok {
			problems = append(problems, fmt.Sprintf("%s: generated identifier %s (%s) collides with %s in Go package %s; rename one of them in the proto, or generate the A2A bindings into a package of their own with package_suffix=<suffix>", owner, id, ids[id], other, string(p.path)))
		}
		if other, ok := p.generated[id]; ok {
			problems = append(problems, fmt.Sprintf("%s: generated identifier %s (%s) is also generated for %s; rename one of the services or rpcs", owner, id, ids[id], other))
		}
		p.generated[id] = owner
	}
	return problems
}
