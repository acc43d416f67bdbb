package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// handlerParams is the parameter list of a handler method; named says
// whether the parameters carry names.
func handlerParams(op *operation, named bool) []jen.Code {
	id := func(name string) *jen.Statement {
		if named {
			return jen.Id(name)
		}
		return jen.Null()
	}
	params := []jen.Code{id("ctx").Qual(contextPackage, "Context")}
	if op.clientStreaming() {
		params = append(params, id("reqs").Qual(iterPackage, "Seq2").Types(msgType(op.method.Input), jen.Error()))
	} else {
		params = append(params, id("req").Add(msgType(op.method.Input)))
	}
	if op.streaming() {
		params = append(params, id("stream").Qual(runtimePackage, "Stream").Types(msgType(op.method.Output)))
	}
	return params
}

// handlerResults is the result list of a handler method.
func handlerResults(op *operation) []jen.Code {
	if op.streaming() {
		return []jen.Code{jen.Error()}
	}
	return []jen.Code{msgType(op.method.Output), jen.Error()}
}

// emitHandler writes the handler interface.
// orList joins items as prose: "A", "A or B", "A, B or C".
func orList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func (e *serviceEmitter) emitHandler() {
	var serves []string
	for _, b := range e.bindings {
		serves = append(serves, e.n.HandlerConstructor(b))
	}
	e.f.Line()
	addComment(e.f, blocks(
		paragraphs(fmt.Sprintf("%s is the server side of the %s service: an agent implements it and serves it with %s. "+
			"Embed %s to leave rpcs out. "+
			"Return *runtime.Error values (runtime.TaskNotFound and friends) to send A2A errors; "+
			"any other error reaches the client as an internal error. "+
			"A server-streaming method sends each response on stream and returns when the stream is complete.%s",
			e.n.Handler, e.fullName(), orList(serves), e.n.Unimplemented, e.clientStreamsDoc(handlerRequestStreamDoc))),
		protoCommentLines(e.sm.service.Comments.Leading),
		paragraphs(e.serviceDeprecation()),
	))
	e.f.Type().Id(e.n.Handler).InterfaceFunc(func(g *jen.Group) {
		for i, op := range e.sm.ops {
			if i > 0 {
				g.Line()
			}
			addComment(g, e.methodDoc(op))
			g.Id(op.method.GoName).Params(handlerParams(op, true)...).Params(handlerResults(op)...)
		}
	})
}

// emitUnimplemented writes the handler that answers every rpc with an
// UnsupportedOperation error.
func (e *serviceEmitter) emitUnimplemented() {
	e.f.Line()
	addComment(e.f, paragraphs(
		fmt.Sprintf("%s answers every rpc with an UnsupportedOperation error. "+
			"Embed it in a handler that serves only some rpcs: the others then fail cleanly, "+
			"and rpcs added to the service later do not break the build.", e.n.Unimplemented),
	))
	e.f.Type().Id(e.n.Unimplemented).Struct()
	for _, op := range e.sm.ops {
		m := op.method
		e.f.Line()
		addComment(e.f, wrap(fmt.Sprintf("%s returns an UnsupportedOperation error.", m.GoName)))
		msg := jen.Qual(runtimePackage, "UnsupportedOperation").Call(jen.Lit(fmt.Sprintf("%s is not implemented", m.Desc.FullName())))
		body := jen.Return(jen.Nil(), msg)
		if op.streaming() {
			body = jen.Return(msg)
		}
		e.f.Func().Params(jen.Id(e.n.Unimplemented)).Id(m.GoName).Params(handlerParams(op, false)...).Params(handlerResults(op)...).Block(body)
	}
	e.f.Line()
	e.f.Var().Id("_").Id(e.n.Handler).Op("=").Id(e.n.Unimplemented).Values()
}

// emitRuntime writes the constructor binding a handler to the operations.
func (e *serviceEmitter) emitRuntime() {
	e.f.Line()
	addComment(e.f, paragraphs(
		fmt.Sprintf("%s binds h to the operations of %s. Every binding router is built from the result; "+
			"use it to serve h through a router for which no constructor was generated, "+
			"e.g. runtime.NewJSONRPCHandler(%s(h)).", e.n.Runtime, e.n.Desc, e.n.Runtime),
		e.serviceDeprecation(),
	))
	args := []jen.Code{jen.Op("&").Id(e.n.Desc)}
	for _, op := range e.sm.ops {
		ctor := "NewUnaryEndpoint"
		switch {
		case op.clientStreaming() && op.streaming():
			ctor = "NewBidiEndpoint"
		case op.clientStreaming():
			ctor = "NewClientStreamEndpoint"
		case op.streaming():
			ctor = "NewStreamEndpoint"
		}
		args = append(args, jen.Qual(runtimePackage, ctor).Custom(multilineArgs,
			e.opRef(op.method),
			newMsgFunc(op.method.Input),
			jen.Id("h").Dot(op.method.GoName),
		))
	}
	e.f.Func().Id(e.n.Runtime).Params(jen.Id("h").Id(e.n.Handler)).Op("*").Qual(runtimePackage, "Service").Block(
		jen.Return(jen.Qual(runtimePackage, "NewService").Custom(multilineArgs, args...)),
	)
}

// handlerRequestStreamDoc is the sentence of the handler's doc about rpcs
// whose client streams its requests (see clientStreamsDoc).
const handlerRequestStreamDoc = " A client- or bidirectional-streaming method ranges over reqs, which yields the client's requests as they arrive " +
	"(an error, then the end, when the stream fails or a request is refused) and ends when the client closes its side; " +
	"a bidirectional one sends on stream at any time, from any goroutine. " +
	"These rpcs are served on gRPC only: A2A defines no JSON-RPC or HTTP+JSON form for them, " +
	"so those bindings answer their method and routes with UnsupportedOperation."
