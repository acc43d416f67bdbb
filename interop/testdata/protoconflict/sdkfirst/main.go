// Command sdkfirst links the official Go SDK's a2apb/v1, then claims the
// A2A service for another Go package the way code protoc-gen-a2a generates
// does when its package is initialised after the SDK's (a generated package
// whose import path sorts after github.com/a2aproject/…, such as
// example.com/myagent/a2av1). TestProtoConflict runs it.
package main

import (
	"fmt"

	_ "github.com/a2aproject/a2a-go/v2/a2apb/v1"

	"github.com/a2agen/a2agen/runtime"
)

func main() {
	runtime.ClaimProtoService("lf.a2a.v1.A2AService", "example.com/myagent/a2av1")
	fmt.Println("started")
}
