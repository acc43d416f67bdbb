package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/a2agen/a2agen/internal/binding"
)

// emitHandlerBindings writes one server constructor per requested binding.
func (e *serviceEmitter) emitHandlerBindings() {
	for _, b := range e.bindings {
		switch b {
		case binding.JSONRPC:
			name := e.n.HandlerConstructor(b)
			e.f.Line()
			addComment(e.f, paragraphs(
				fmt.Sprintf("%s serves h over the A2A JSON-RPC 2.0 binding. Mount it at the URL of the agent card's JSONRPC interface: "+
					"every call is a POST of a JSON-RPC request whose method is the rpc name, and server-streaming rpcs answer with Server-Sent Events.", name),
				e.serviceDeprecation(),
			))
			e.f.Func().Id(name).Params(jen.Id("h").Id(e.n.Handler), jen.Id("opts").Op("...").Qual(runtimePackage, "HandlerOption")).Qual(httpPackage, "Handler").Block(
				jen.Return(jen.Qual(runtimePackage, "NewJSONRPCHandler").Call(jen.Id(e.n.Runtime).Call(jen.Id("h")), jen.Id("opts").Op("..."))),
			)
		case binding.HTTPJSON:
			e.emitRESTHandler()
		case binding.GRPC:
			e.emitGRPCRegister()
		}
	}
}

// emitClientBindings writes one client constructor per requested binding.
func (e *serviceEmitter) emitClientBindings() {
	for _, b := range e.bindings {
		switch b {
		case binding.JSONRPC:
			name := e.n.ClientBindingConstructor(b)
			e.f.Line()
			addComment(e.f, paragraphs(
				fmt.Sprintf("%s returns a client of the %s service that calls the agent's JSON-RPC 2.0 interface at url "+
					"(the url of the agent card's JSONRPC interface).", name, e.fullName()),
				e.serviceDeprecation(),
			))
			e.f.Func().Id(name).Params(jen.Id("url").String(), jen.Id("opts").Op("...").Qual(runtimePackage, "ClientOption")).Id(e.n.Client).Block(
				jen.Return(jen.Id(e.n.ClientConstructor).Call(jen.Qual(runtimePackage, "NewJSONRPCTransport").Call(jen.Id("url"), e.clientOpts()))),
			)
		case binding.HTTPJSON:
			e.emitRESTClient()
		case binding.GRPC:
			e.emitGRPCClients()
		}
	}
}
