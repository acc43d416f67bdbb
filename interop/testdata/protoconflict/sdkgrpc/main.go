// Command sdkgrpc links the official Go SDK's gRPC transport (a2agrpc/v1,
// which imports a2apb/v1) next to a2agen's a2a/v1: both register the
// proto names lf.a2a.v1.*. TestProtoConflict runs it.
package main

import (
	"fmt"

	_ "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"

	_ "github.com/a2agen/a2agen/a2a/v1"
)

func main() { fmt.Println("started") }
