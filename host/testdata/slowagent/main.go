// Command slowagent is an agent of package host for the shutdown tests:
// its skill works for as long as the message says ("2s"), sending a
// progress chunk every 100ms, and stops when its context is canceled,
// failing the task with the cause — unless the message says "ignore", in
// which case it keeps working. It listens where A2A_LISTEN (or -listen)
// moves 127.0.0.1:18080 (HTTP) and 127.0.0.1:19090 (gRPC).
package main

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

const card = `{
  "name": "slow",
  "description": "works for a while",
  "supportedInterfaces": [
    {"url": "http://127.0.0.1:18080/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    {"url": "http://127.0.0.1:18080/a2a/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
    {"url": "127.0.0.1:19090", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
  ],
  "version": "1",
  "capabilities": {"streaming": true},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "work", "name": "Work", "description": "works", "tags": ["t"]}]
}`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	cfg := host.Config{
		CardJSON: []byte(card),
		Bindings: []host.Binding{
			{Protocol: runtime.BindingJSONRPC, Address: "127.0.0.1:18080", Path: "/a2a"},
			{Protocol: runtime.BindingHTTPJSON, Address: "127.0.0.1:18080", Path: "/a2a/rest"},
			{Protocol: runtime.BindingGRPC, Address: "127.0.0.1:19090"},
		},
		Skills: []host.Skill{{ID: "work", Run: work}},
	}
	code := host.Main(ctx, "slowagent", cfg, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// work works for the duration the message starts with.
func work(ctx context.Context, req *server.Request, ev *server.Events) error {
	fields := strings.Fields(req.Text())
	d, err := time.ParseDuration(fields[0])
	if err != nil {
		return runtime.InvalidParams("say how long to work, e.g. 2s")
	}
	ignore := len(fields) > 1 && fields[1] == "ignore"
	if err := ev.Working(); err != nil {
		return err
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	end := time.After(d)
	done := ctx.Done()
	for i := 0; ; i++ {
		select {
		case <-end:
			return ev.Complete(server.AgentMessage("done"))
		case <-tick.C:
			if err := ev.ArtifactChunk(server.TextArtifact("progress", "."), i > 0, false); err != nil {
				return err
			}
		case <-done:
			if ignore {
				done = nil
				continue
			}
			return ev.Fail(server.AgentMessage("stopped: " + context.Cause(ctx).Error()))
		}
	}
}
