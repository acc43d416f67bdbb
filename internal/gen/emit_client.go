package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// clientCloseMethod is the method every generated client has besides its
// rpcs; an rpc of that name is refused (checkCollisions).
const clientCloseMethod = "Close"

// clientSignature is the parameter and result lists of a client method.
func clientSignature(op *operation) (params, results []jen.Code) {
	params = []jen.Code{jen.Id("ctx").Qual(contextPackage, "Context"), jen.Id("req").Add(msgType(op.method.Input))}
	if op.clientStreaming() {
		params[1] = jen.Id("reqs").Qual(iterPackage, "Seq").Types(msgType(op.method.Input))
	}
	if op.streaming() {
		return params, []jen.Code{jen.Qual(iterPackage, "Seq2").Types(msgType(op.method.Output), jen.Error())}
	}
	return params, []jen.Code{msgType(op.method.Output), jen.Error()}
}

// emitClient writes the client interface and its transport constructor.
func (e *serviceEmitter) emitClient() {
	e.f.Line()
	addComment(e.f, paragraphs(
		fmt.Sprintf("%s calls the %s service over any binding. "+
			"A2A errors come back as *runtime.Error; test them with errors.Is (runtime.ErrTaskNotFound…) or errors.As. "+
			"A server-streaming method returns an iterator: the request is sent when ranging starts, "+
			"and breaking out of the loop releases the connection.%s", e.n.Client, e.fullName(), e.clientStreamsDoc(clientRequestStreamDoc)),
		e.serviceDeprecation(),
	))
	e.f.Type().Id(e.n.Client).InterfaceFunc(func(g *jen.Group) {
		for i, op := range e.sm.ops {
			if i > 0 {
				g.Line()
			}
			addComment(g, e.methodDoc(op))
			params, results := clientSignature(op)
			g.Id(op.method.GoName).Params(params...).Params(results...)
		}
		g.Line()
		addComment(g, wrap(fmt.Sprintf("%s releases what the client holds (the connection a gRPC client opened). "+
			"Afterwards every call fails with runtime.ErrClientClosed, on every binding; calling it again returns the first result.", clientCloseMethod)))
		g.Id(clientCloseMethod).Params().Error()
	})

	e.f.Line()
	addComment(e.f, wrap(fmt.Sprintf("%s returns a client of the %s service that sends every call through t, whatever its binding.", e.n.ClientConstructor, e.fullName())))
	e.f.Func().Id(e.n.ClientConstructor).Params(jen.Id("t").Qual(runtimePackage, "ClientTransport")).Id(e.n.Client).Block(
		jen.Return(jen.Op("&").Id(e.n.clientImpl).Values(jen.Id("transport").Op(":").Qual(runtimePackage, "NewClosableTransport").Call(jen.Id("t")))),
	)
}

// emitClientImpl writes the unexported client implementation: one call of
// runtime.CallUnary or runtime.CallStream per rpc.
func (e *serviceEmitter) emitClientImpl() {
	e.f.Line()
	addComment(e.f, wrap(fmt.Sprintf("%s implements %s over a runtime.ClientTransport.", e.n.clientImpl, e.n.Client)))
	e.f.Type().Id(e.n.clientImpl).Struct(jen.Id("transport").Op("*").Qual(runtimePackage, "ClosableTransport"))
	for _, op := range e.sm.ops {
		m := op.method
		params, results := clientSignature(op)
		var call *jen.Statement
		switch {
		case op.clientStreaming() && op.streaming():
			call = jen.Qual(runtimePackage, "CallBidi").Call(jen.Id("ctx"), jen.Id("c").Dot("transport"), e.opRef(m), jen.Id("reqs"), newMsgFunc(m.Output))
		case op.clientStreaming():
			call = jen.Qual(runtimePackage, "CallClientStream").Call(jen.Id("ctx"), jen.Id("c").Dot("transport"), e.opRef(m), jen.Id("reqs"), newMsg(m.Output))
		case op.streaming():
			call = jen.Qual(runtimePackage, "CallStream").Call(jen.Id("ctx"), jen.Id("c").Dot("transport"), e.opRef(m), jen.Id("req"), newMsgFunc(m.Output))
		default:
			call = jen.Qual(runtimePackage, "CallUnary").Call(jen.Id("ctx"), jen.Id("c").Dot("transport"), e.opRef(m), jen.Id("req"), newMsg(m.Output))
		}
		e.f.Line()
		e.f.Func().Params(jen.Id("c").Op("*").Id(e.n.clientImpl)).Id(m.GoName).Params(params...).Params(results...).Block(jen.Return(call))
	}
	e.f.Line()
	e.f.Func().Params(jen.Id("c").Op("*").Id(e.n.clientImpl)).Id(clientCloseMethod).Params().Error().Block(jen.Return(jen.Id("c").Dot("transport").Dot("Close").Call()))
}

// clientOpts is runtime.ClientDefaults(&<Desc>, opts)..., the options of a
// binding's client constructor: the service's protocol version first, then
// the caller's.
func (e *serviceEmitter) clientOpts() *jen.Statement {
	return jen.Qual(runtimePackage, "ClientDefaults").Call(jen.Op("&").Id(e.n.Desc), jen.Id("opts")).Op("...")
}

// clientRequestStreamDoc is the sentence of the client's doc about rpcs
// whose client streams its requests (see clientStreamsDoc).
const clientRequestStreamDoc = " A client- or bidirectional-streaming method takes the requests as an iterator, which the client ranges over " +
	"on a goroutine of its own, sending each request as it is yielded and closing its side when the iterator returns " +
	"(runtime.Requests makes one of a channel; slices.Values of a fixed list); a bidirectional one yields the responses as they arrive. " +
	"These rpcs are called on gRPC only: on the JSON-RPC and HTTP+JSON clients they fail with UnsupportedOperation before anything is sent."
