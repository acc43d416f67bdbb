package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/a2agen/a2agen/internal/binding"
)

// bindingEmitters write, per binding, its server constructor and its
// client constructors (emit_rest.go, emit_grpc.go and below for JSON-RPC).
var bindingEmitters = map[binding.Binding]struct{ handler, client func(*serviceEmitter) }{
	binding.JSONRPC:  {(*serviceEmitter).emitJSONRPCHandler, (*serviceEmitter).emitJSONRPCClient},
	binding.HTTPJSON: {(*serviceEmitter).emitRESTHandler, (*serviceEmitter).emitRESTClient},
	binding.GRPC:     {(*serviceEmitter).emitGRPCRegister, (*serviceEmitter).emitGRPCClients},
}

// emitHandlerBindings writes one server constructor per requested binding.
func (e *serviceEmitter) emitHandlerBindings() {
	for _, b := range e.bindings {
		bindingEmitters[b].handler(e)
	}
}

// emitClientBindings writes the client constructors of every requested binding.
func (e *serviceEmitter) emitClientBindings() {
	for _, b := range e.bindings {
		bindingEmitters[b].client(e)
	}
}

// emitJSONRPCHandler writes the JSON-RPC server constructor.
func (e *serviceEmitter) emitJSONRPCHandler() {
	e.emitHTTPHandler(binding.JSONRPC, "NewJSONRPCHandler", func(name string) string {
		return fmt.Sprintf("%s serves h over the A2A JSON-RPC 2.0 binding. Mount it at the URL of the agent card's JSONRPC interface: "+
			"every call is a POST of a JSON-RPC request whose method is the rpc name, and server-streaming rpcs answer with Server-Sent Events.", name)
	})
}

// emitJSONRPCClient writes the JSON-RPC client constructor.
func (e *serviceEmitter) emitJSONRPCClient() {
	e.emitHTTPClient(binding.JSONRPC, "url", "NewJSONRPCTransport", func(name string) string {
		return fmt.Sprintf("%s returns a client of the %s service that calls the agent's JSON-RPC 2.0 interface at url "+
			"(the url of the agent card's JSONRPC interface).", name, e.fullName())
	})
}

// emitHTTPHandler writes the server constructor of an HTTP binding (JSON-RPC
// or HTTP+JSON): New<S><B>Handler(h, opts...) returns the http.Handler that
// runtime.<newHandler> builds for the service. doc is the first paragraph
// of its comment, given the constructor's name.
func (e *serviceEmitter) emitHTTPHandler(b binding.Binding, newHandler string, doc func(name string) string) {
	name := e.n.HandlerConstructor(b)
	e.f.Line()
	addComment(e.f, paragraphs(doc(name), e.unservedOnHTTPDoc(), e.serviceDeprecation()))
	e.f.Func().Id(name).Params(jen.Id("h").Id(e.n.Handler), jen.Id("opts").Op("...").Qual(runtimePackage, "HandlerOption")).Qual(httpPackage, "Handler").Block(
		jen.Return(jen.Qual(runtimePackage, newHandler).Call(jen.Id(e.n.Runtime).Call(jen.Id("h")), jen.Id("opts").Op("..."))),
	)
}

// emitHTTPClient writes the client constructor of an HTTP binding:
// New<S><B>Client(<address> string, opts...) returns a client over the
// transport runtime.<newTransport> opens to the address. doc is the first
// paragraph of its comment, given the constructor's name.
func (e *serviceEmitter) emitHTTPClient(b binding.Binding, address, newTransport string, doc func(name string) string) {
	name := e.n.ClientBindingConstructor(b)
	e.f.Line()
	addComment(e.f, paragraphs(doc(name), e.unservedOnHTTPDoc(), e.serviceDeprecation()))
	e.f.Func().Id(name).Params(jen.Id(address).String(), jen.Id("opts").Op("...").Qual(runtimePackage, "ClientOption")).Id(e.n.Client).Block(
		jen.Return(jen.Id(e.n.ClientConstructor).Call(jen.Qual(runtimePackage, newTransport).Call(jen.Id(address), e.clientOpts()))),
	)
}

// unservedOnHTTPDoc is the paragraph of the HTTP bindings' constructors
// about the rpcs they do not serve (client- and bidirectional-streaming),
// naming them, when the service has any.
func (e *serviceEmitter) unservedOnHTTPDoc() string {
	var names []string
	for _, op := range e.sm.ops {
		if op.clientStreaming() {
			names = append(names, op.method.GoName)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s streams its requests, which A2A defines on gRPC only: this binding answers it with UnsupportedOperation, "+
		"and its client fails the same way before sending anything.", orList(names))
}
