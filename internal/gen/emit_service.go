package gen

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/a2agen/a2agen/internal/binding"
)

// serviceEmitter writes everything generated for one service into f.
type serviceEmitter struct {
	file     *protogen.File
	f        *jen.File
	sm       *serviceModel
	n        *serviceNames
	bindings []binding.Binding
	out      outputPackage
}

// multiline renders a composite literal or call arguments one per line.
var (
	multilineValues = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}
	multilineArgs   = jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}
	inlineBlock     = jen.Options{Open: "{ ", Close: " }"}
)

func (e *serviceEmitter) emit() {
	e.emitDesc()
	e.emitHandler()
	e.emitUnimplemented()
	e.emitRuntime()
	e.emitHandlerBindings()
	e.emitClient()
	e.emitClientBindings()
	e.emitClientImpl()
}

// fullName is the proto full name of the service.
func (e *serviceEmitter) fullName() string { return string(e.sm.service.Desc.FullName()) }

// emitDesc writes the runtime.ServiceDesc variable and the index constants.
func (e *serviceEmitter) emitDesc() {
	e.emitWireNames()
	e.emitProtoClaim()
	e.f.Line()
	addComment(e.f, paragraphs(
		fmt.Sprintf("%s describes the %s service as protoc-gen-a2a read it: its rpcs in declaration order, "+
			"with their request and response types and HTTP rules. "+
			"Binding routers and clients are built from it; tools may inspect it. "+
			"The fields marked (google.api.field_behavior) = REQUIRED are not listed: "+
			"the runtime reads them from the messages' descriptors.", e.n.Desc, e.fullName()),
	))
	ops := make([]jen.Code, 0, len(e.sm.ops))
	for _, op := range e.sm.ops {
		m := op.method
		fields := []jen.Code{
			jen.Id("Name").Op(":").Lit(string(m.Desc.Name())),
			jen.Id("JSONRPCMethod").Op(":").Id(e.n.JSONRPCMethodConst(m)),
			jen.Id("Procedure").Op(":").Id(e.n.ProcedureConst(m)),
			jen.Id("Request").Op(":").Lit(string(m.Input.Desc.FullName())),
			jen.Id("Response").Op(":").Lit(string(m.Output.Desc.FullName())),
			jen.Id("ServerStreaming").Op(":").Lit(op.streaming()),
		}
		if op.clientStreaming() { // only then: the descriptors of other services stay as they were
			fields = append(fields, jen.Id("ClientStreaming").Op(":").True())
		}
		if len(op.rules) > 0 {
			rules := make([]jen.Code, 0, len(op.rules))
			for _, r := range op.rules {
				kv := []jen.Code{jen.Id("Method").Op(":").Lit(r.Method), jen.Id("Path").Op(":").Lit(r.Path)}
				if r.Body != "" {
					kv = append(kv, jen.Id("Body").Op(":").Lit(r.Body))
				}
				rules = append(rules, jen.Custom(multilineValues, kv...))
			}
			fields = append(fields, jen.Id("HTTPRules").Op(":").Index().Qual(runtimePackage, "HTTPRule").Custom(multilineValues, rules...))
		}
		if v, ok := e.sm.profile.httpVerbs[string(m.Desc.Name())]; ok {
			fields = append(fields, jen.Id("HTTPVerbs").Op(":").Op("&").Qual(runtimePackage, "HTTPVerbs").Custom(multilineValues,
				jen.Id("Server").Op(":").Index().String().Values(stringLits(v.server)...),
				jen.Id("Client").Op(":").Index().String().Values(stringLits(v.client)...),
				jen.Id("RetryStatuses").Op(":").Index().Int().Values(intLits(v.retryStatuses)...),
			))
		}
		ops = append(ops, jen.Id(e.n.OpIndex(m)).Op(":").Custom(multilineValues, fields...))
	}
	desc := []jen.Code{
		jen.Id("Name").Op(":").Id(e.n.ServiceName),
		jen.Id("ProtocolVersions").Op(":").Index().String().Values(stringLits(e.sm.profile.versions)...),
	}
	if others := e.sm.profile.otherVersionMethods; len(others) > 0 {
		kv := make([]jen.Code, 0, len(others))
		for _, method := range slices.Sorted(maps.Keys(others)) {
			kv = append(kv, jen.Lit(method).Op(":").Lit(others[method]))
		}
		desc = append(desc, jen.Id("OtherVersionMethods").Op(":").Map(jen.String()).String().Custom(multilineValues, kv...))
	}
	desc = append(desc,
		jen.Id("Operations").Op(":").Index().Qual(runtimePackage, "Operation").Custom(multilineValues, ops...),
	)
	e.f.Var().Id(e.n.Desc).Op("=").Qual(runtimePackage, "ServiceDesc").Custom(multilineValues, desc...)

	e.f.Line()
	addComment(e.f, wrap(fmt.Sprintf("Indexes of the rpcs of %s in %s.Operations.", e.fullName(), e.n.Desc)))
	defs := make([]jen.Code, len(e.sm.ops))
	for i, op := range e.sm.ops {
		defs[i] = jen.Id(e.n.OpIndex(op.method)).Op("=").Lit(i)
	}
	e.f.Const().Defs(defs...)
}

// emitWireNames writes the exported constants naming the service and its rpcs
// on the wire, for interceptors, routing and logs that compare names.
func (e *serviceEmitter) emitWireNames() {
	e.f.Line()
	addComment(e.f, paragraphs(
		fmt.Sprintf("Wire names of the %s service and its rpcs: %s is the proto full name; "+
			"<Rpc>Procedure is the gRPC full method name (CallInfo.Operation.Procedure, grpc.UnaryServerInfo.FullMethod) "+
			"and <Rpc>JSONRPCMethod the JSON-RPC method name. The HTTP routes are in %s.", e.fullName(), e.n.ServiceName, e.n.Desc),
	))
	defs := []jen.Code{jen.Id(e.n.ServiceName).Op("=").Lit(e.fullName())}
	for _, op := range e.sm.ops {
		m := op.method
		defs = append(defs,
			jen.Id(e.n.ProcedureConst(m)).Op("=").Lit(procedure(m)),
			jen.Id(e.n.JSONRPCMethodConst(m)).Op("=").Lit(e.sm.profile.jsonrpcMethod(string(m.Desc.Name()))),
		)
	}
	e.f.Const().Defs(defs...)
}

// emitProtoClaim writes, in the message package only, the variable whose
// initializer claims the service for this Go package (runtime.ClaimProtoService).
// A package of its own (package_suffix) imports the message package, which
// registers the proto before this package initializes, so it has none.
func (e *serviceEmitter) emitProtoClaim() {
	if !e.out.inMessagePackage(e.file) {
		return
	}
	e.f.Line()
	addComment(e.f, paragraphs(
		"Runs before this package's .pb.go registers the proto: when another Go package generated from the same proto "+
			"is linked into the program, the program stops with a message naming both packages and what to do, "+
			"instead of protobuf's name-conflict panic.",
	))
	e.f.Var().Id("_").Op("=").Qual(runtimePackage, "ClaimProtoService").Call(jen.Id(e.n.ServiceName), jen.Lit(string(e.out.importPath)))
}

// stringLits and intLits are the literals of a list's values.
func stringLits(values []string) []jen.Code {
	out := make([]jen.Code, len(values))
	for i, v := range values {
		out[i] = jen.Lit(v)
	}
	return out
}

func intLits(values []int) []jen.Code {
	out := make([]jen.Code, len(values))
	for i, v := range values {
		out[i] = jen.Lit(v)
	}
	return out
}

// procedure is the gRPC full method name, "/pkg.Service/Method".
func procedure(m *protogen.Method) string {
	return fmt.Sprintf("/%s/%s", m.Parent.Desc.FullName(), m.Desc.Name())
}

// opRef is &<Desc>.Operations[<index>].
func (e *serviceEmitter) opRef(m *protogen.Method) *jen.Statement {
	return jen.Op("&").Id(e.n.Desc).Dot("Operations").Index(jen.Id(e.n.OpIndex(m)))
}

// msgType is *<Message>, qualified when it lives in another Go package.
func msgType(m *protogen.Message) *jen.Statement {
	return jen.Op("*").Qual(string(m.GoIdent.GoImportPath), m.GoIdent.GoName)
}

// newMsg is new(<Message>).
func newMsg(m *protogen.Message) *jen.Statement {
	return jen.New(jen.Qual(string(m.GoIdent.GoImportPath), m.GoIdent.GoName))
}

// newMsgFunc is func() *<Message> { return new(<Message>) }.
func newMsgFunc(m *protogen.Message) *jen.Statement {
	return jen.Func().Params().Add(msgType(m)).Custom(inlineBlock, jen.Return(newMsg(m)))
}

// factKeyWidth aligns the values of the wire facts in method docs.
const factKeyWidth = len("Streaming: ")

// methodDoc is the doc comment of an rpc's handler and client method: the
// proto comment, then the wire facts as a preformatted block, then a
// Deprecated paragraph when the rpc is deprecated.
func (e *serviceEmitter) methodDoc(op *operation) []string {
	m := op.method
	lines := protoCommentLines(m.Comments.Leading)
	if len(lines) == 0 {
		lines = wrap(fmt.Sprintf("%s is the %s rpc.", m.GoName, m.Desc.FullName()))
	}
	fact := func(key, value string) string {
		return "\t" + key + ":" + strings.Repeat(" ", factKeyWidth-len(key)-1) + value
	}
	unserved := ""
	if op.clientStreaming() {
		unserved = " (UnsupportedOperation: gRPC only)"
	}
	lines = append(lines, "", fact("JSON-RPC", e.sm.profile.jsonrpcMethod(string(m.Desc.Name()))+unserved))
	for _, r := range op.rules {
		lines = append(lines, fact("HTTP", r.Method+" "+r.Path+unserved))
	}
	lines = append(lines, fact("gRPC", procedure(m)))
	if kind := op.streamingKind(); kind != "" {
		lines = append(lines, fact("Streaming", kind))
	}
	if isDeprecated(m) {
		lines = append(lines, "", fmt.Sprintf("Deprecated: the %s rpc is marked deprecated in %s.", m.Desc.Name(), e.file.Desc.Path()))
	}
	return lines
}

// serviceDeprecation is the Deprecated paragraph of the service-level
// declarations, or "".
func (e *serviceEmitter) serviceDeprecation() string {
	opts, _ := e.sm.service.Desc.Options().(*descriptorpb.ServiceOptions)
	if !opts.GetDeprecated() {
		return ""
	}
	return fmt.Sprintf("Deprecated: the %s service is marked deprecated in %s.", e.fullName(), e.file.Desc.Path())
}

func isDeprecated(m *protogen.Method) bool {
	opts, _ := m.Desc.Options().(*descriptorpb.MethodOptions)
	return opts.GetDeprecated()
}
