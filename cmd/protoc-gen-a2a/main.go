// Command protoc-gen-a2a is a protoc plugin that generates, next to
// protoc-gen-go's types, a typed A2A handler interface, binding constructors
// and typed clients for every service with google.api.http rules.
//
// Run it with protoc (or buf) together with protoc-gen-go; `protoc-gen-a2a
// --help` shows a command and the parameters, README.md the buf setup.
package main

import (
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/compiler/protogen"

	"github.com/a2agen/a2agen/internal/gen"
	"github.com/a2agen/a2agen/internal/version"
)

const usage = `protoc-gen-a2a generates A2A handler interfaces, binding constructors and
typed clients for the services of .proto files that have google.api.http rules.
It is a protoc plugin: protoc runs it, it is not run by hand.

Usage (a2a-scaffold proto writes the A2A proto and the files it imports;
any .proto with google.api.http rules works the same):
  a2a-scaffold proto --out proto
  protoc -I proto \
    --go_out=. --go_opt=module=example.com/agent,Mlf/a2a/v1/a2a.proto=example.com/agent/a2av1 \
    --a2a_out=. --a2a_opt=module=example.com/agent,Mlf/a2a/v1/a2a.proto=example.com/agent/a2av1 \
    --a2a_opt=bindings=jsonrpc,rest,grpc \
    lf/a2a/v1/a2a.proto

Parameters (--a2a_opt, comma separated):
  bindings=<names>        bindings to emit server and client constructors for,
                          comma separated: jsonrpc, rest, grpc (or the card's
                          JSONRPC, HTTP+JSON, GRPC; default: all three);
                          unknown names are errors
  package_suffix=<s>      write the bindings into a Go package of their own,
                          <message package name><s>, in a directory of that
                          name next to <name>.pb.go, importing the message
                          package (as connect-go's package_suffix); needed
                          when protoc-gen-go-grpc writes into the message
                          package, since both declare <Service>Client
  protocol_versions=<v>   the A2A protocol versions (Major.Minor, newest
                          first, comma separated) of every generated service,
                          e.g. protocol_versions=1.1,1.0 after a proto upgrade
                          that keeps serving 1.0 clients; default: 1.0 for
                          lf.a2a.v1.A2AService (and any other service), 0.3
                          for a2a.v1.A2AService
  paths=source_relative   place output next to the .proto instead of by
                          Go import path (as for protoc-gen-go)
  module=<path>           strip this module path from output file names
                          (as for protoc-gen-go)
  M<file>=<import path>   set the Go import path of a .proto file
                          (as for protoc-gen-go)

Pass protoc-gen-go the same paths=, module= and M options so that
<name>.a2a.go lands next to <name>.pb.go, in the same Go package.

Flags:
  -h, --help     print this help and exit
      --version  print what it was built from (version, commit, Go) and exit
`

func main() {
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case "--version":
			fmt.Print(version.Line("protoc-gen-a2a"))
			return
		case "-h", "--help":
			fmt.Print(usage)
			return
		}
	}
	if len(os.Args) > 1 {
		fmt.Fprintf(os.Stderr, "protoc-gen-a2a: unknown argument %q\n\n", os.Args[1])
		io.WriteString(os.Stderr, usage)
		os.Exit(2)
	}
	var opts gen.Options
	protogen.Options{ParamFunc: opts.Set}.Run(func(p *protogen.Plugin) error {
		return gen.Generate(p, opts)
	})
}
