// Command sdkclient links the official Go SDK's a2a, a2aclient and a2asrv
// packages next to a2agen's a2a/v1: they do not register the A2A proto, so
// the program starts. TestProtoConflict runs it.
package main

import (
	"fmt"

	_ "github.com/a2aproject/a2a-go/v2/a2a"
	_ "github.com/a2aproject/a2a-go/v2/a2aclient"
	_ "github.com/a2aproject/a2a-go/v2/a2asrv"

	_ "github.com/a2agen/a2agen/a2a/v1"
)

func main() { fmt.Println("started") }
