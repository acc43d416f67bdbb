package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/a2agen/a2agen/internal/binding"
)

// emitGRPCRegister writes Register<S>GRPC, which registers a Handler on a
// grpc.ServiceRegistrar. The grpc.ServiceDesc is built by the runtime from
// <S>Desc, so users need no protoc-gen-go-grpc output.
func (e *serviceEmitter) emitGRPCRegister() {
	name := e.n.HandlerConstructor(binding.GRPC)
	e.f.Line()
	addComment(e.f, paragraphs(
		fmt.Sprintf("%s registers h on r (usually a *grpc.Server) as the gRPC service %s: "+
			"one method per rpc under /%s/<rpc>, server streaming for the streaming rpcs. "+
			"The runtime builds the service description from %s, so no protoc-gen-go-grpc output is needed. "+
			"List the server's address as the url of the agent card's GRPC interface.",
			name, e.fullName(), e.fullName(), e.n.Desc),
		e.clientStreamsDoc(grpcRequestStreamDoc),
		e.serviceDeprecation(),
	))
	e.f.Func().Id(name).Params(
		jen.Id("r").Qual(grpcPackage, "ServiceRegistrar"),
		jen.Id("h").Id(e.n.Handler),
		jen.Id("opts").Op("...").Qual(runtimePackage, "HandlerOption"),
	).Block(
		jen.Qual(runtimePackage, "RegisterGRPC").Call(jen.Id("r"), jen.Id(e.n.Runtime).Call(jen.Id("h")), jen.Id("opts").Op("...")),
	)
}

// emitGRPCClients writes New<S>GRPCClient, which opens its own connection,
// and New<S>GRPCClientFromConn, which uses the caller's.
func (e *serviceEmitter) emitGRPCClients() {
	name := e.n.ClientBindingConstructor(binding.GRPC)
	fromConn := e.n.GRPCClientFromConn()
	e.f.Line()
	addComment(e.f, paragraphs(
		fmt.Sprintf("%s returns a client of the %s service that calls the agent's gRPC interface at target, "+
			"the url of the agent card's GRPC interface: host:port, dns:///host:port, or an http(s):// or grpc(s):// URL "+
			"whose scheme and path are dropped (see runtime.ParseGRPCTarget for the TLS and port defaults). "+
			"It fails only on a malformed target or dial options; the connection is made on the first call.", name, e.fullName()),
		fmt.Sprintf("The client owns its connection: Close releases it (a client dropped without Close has it closed once unreachable, "+
			"but only Close says when). To share or close a connection yourself, use %s.", fromConn),
		e.serviceDeprecation(),
	))
	e.f.Func().Id(name).Params(
		jen.Id("target").String(),
		jen.Id("opts").Op("...").Qual(runtimePackage, "ClientOption"),
	).Params(jen.Id(e.n.Client), jen.Error()).Block(
		jen.List(jen.Id("t"), jen.Err()).Op(":=").Qual(runtimePackage, "NewGRPCTransport").Call(jen.Id("target"), e.clientOpts()),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id(e.n.ClientConstructor).Call(jen.Id("t")), jen.Nil()),
	)

	e.f.Line()
	addComment(e.f, paragraphs(
		fmt.Sprintf("%s returns a client of the %s service that calls it over cc, a connection the caller "+
			"opened (grpc.NewClient) and closes; the client's Close does not close cc.", fromConn, e.fullName()),
		e.serviceDeprecation(),
	))
	e.f.Func().Id(fromConn).Params(
		jen.Id("cc").Qual(grpcPackage, "ClientConnInterface"),
		jen.Id("opts").Op("...").Qual(runtimePackage, "ClientOption"),
	).Id(e.n.Client).Block(
		jen.Return(jen.Id(e.n.ClientConstructor).Call(jen.Qual(runtimePackage, "NewGRPCTransportFromConn").Call(jen.Id("cc"), e.clientOpts()))),
	)
}

// grpcRequestStreamDoc is the paragraph of Register<S>GRPC about the rpcs
// whose client streams its requests (see clientStreamsDoc).
const grpcRequestStreamDoc = "Client- and bidirectional-streaming rpcs are served natively here, the one binding A2A defines them on: " +
	"each request goes through the checks of a unary request, and the call through the same interceptors, errors and metadata."
