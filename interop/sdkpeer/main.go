// Command sdkpeer is the official Go SDK (github.com/a2aproject/a2a-go/v2,
// v2.4.0 as go.mod pins it; v2.3.1 built with -modfile=go.sdk-v2.3.1.mod
// -tags sdk_v2_3) on the other side of a2agen's interoperability tests. It imports
// only the SDK, never a2agen's generated package: both register the
// lf.a2a.v1 protobuf types, so they can only meet over the wire, as two
// processes.
//
// Usage:
//
//	sdkpeer serve  [-http 127.0.0.1:0] [-grpc 127.0.0.1:0] [-version 1.0|0.3] [flags]
//	sdkpeer client -card URL [-binding JSONRPC|HTTP+JSON|GRPC] [-scenario NAME] [-webhook URL] [flags]
//
// serve runs the examples/echo contract as an SDK AgentExecutor behind the
// SDK's JSON-RPC, HTTP+JSON and gRPC handlers and its agent card, prints one
// line per endpoint ("card URL", "jsonrpc URL", "rest URL", "grpc host:port",
// card first) and serves until standard input closes or it receives SIGTERM.
// With -version 0.3 it serves only A2A v0.3: the SDK's a2acompat/a2av0
// JSON-RPC and HTTP+JSON handlers, its a2agrpc/v0 gRPC handler
// (a2a.v1.A2AService) and its v0.3 card.
//
// client builds an SDK client for one binding from a card and runs a named
// scenario (send, tasks, cancel, errors, stream, resubscribe, card, push, or
// all), printing one JSON report per step on standard output. It exits 0
// when every expectation held, 1 otherwise (the failing steps are named on
// standard error), and 2 on bad usage.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = runServe(os.Args[2:])
	case "client":
		err = runClient(os.Args[2:])
	case "-h", "-help", "--help", "help":
		usage()
		return
	default:
		fmt.Fprintf(os.Stderr, "sdkpeer: unknown mode %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sdkpeer %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprint(os.Stderr, `Usage:
  sdkpeer serve  [-http addr] [-grpc addr] [-version 1.0|0.3] [-jsonrpc-path p] [-rest-path p] [-chunk-interval d] [-log level]
  sdkpeer client -card URL [-binding JSONRPC|HTTP+JSON|GRPC] [-version 1.0|0.3] [-scenario name|all] [-webhook URL] [-expect spec|sdk]

Run "sdkpeer serve -h" or "sdkpeer client -h" for the flags.
`)
}
