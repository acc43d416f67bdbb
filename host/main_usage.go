package host

import (
	"flag"
	"fmt"

	"github.com/a2agen/a2agen/server/store"
	"github.com/a2agen/a2agen/server/storeurl"
)

// usage prints the help of Main, with the program's own addresses in the
// examples.
func usage(flags *flag.FlagSet, name string, cfg Config) {
	out := flags.Output()
	fmt.Fprintf(out, "Usage: %s [flags]\n\nServes the A2A agent on the addresses of its agent.yaml:\n", name)
	for _, b := range cfg.Bindings {
		fmt.Fprintf(out, "  %-9s %s%s\n", b.Protocol, b.Address, b.Path)
	}
	fmt.Fprintf(out, "\nTasks are kept in %s unless -store or $%s names another store:\n  %s\n", DefaultStore, StoreEnv, storeurl.Forms)
	fmt.Fprintf(out, `
Every HTTP address answers GET %s (alive) and GET %s (ready: the store
answers and no shutdown has begun; else 503); gRPC addresses serve
grpc.health.v1. On SIGTERM or SIGINT the agent turns not ready, stops
accepting calls, lets running tasks go on for -shutdown-grace, then cancels
them; every open stream ends with its task's state; a second signal exits at
once.
`, HealthzPath, ReadyzPath)
	fmt.Fprintf(out, "\n$%s names this machine in execution records and delivery leases (default: the hostname);\n"+
		"set it where machines may share a hostname (to a Kubernetes pod's name, say).\n", store.NodeNameEnv)
	fmt.Fprintf(out, "\nLimits on bodies, headers, timeouts and streams have a flag each (-max-body-bytes,\n"+
		"-read-timeout, -write-timeout, …); their defaults are the program's (docs/limits.md).\n")
	fmt.Fprintf(out, "\nFlags, each also settable by the environment variable shown (the flag wins):\n")
	printFlags(out, flags)
	from := "127.0.0.1:8080"
	if len(cfg.Bindings) > 0 {
		from = cfg.Bindings[0].Address
	}
	fmt.Fprintf(out, `
Examples:
  # serve as configured
  %[1]s
  # listen on all interfaces (in a container, say); the card keeps its URLs
  %[1]s -listen %[2]s=0.0.0.0:8080
  A2A_LISTEN=%[2]s=0.0.0.0:8080 %[1]s
  # serve HTTPS and gRPC over TLS
  %[1]s -tls-cert cert.pem -tls-key key.pem
  # keep finished tasks for an hour, at most 1000 of them
  %[1]s -terminal-task-ttl 1h -max-terminal-tasks 1000
  # keep tasks in memory only: nothing survives a restart
  %[1]s -store memory
  # keep tasks in a SQLite file elsewhere (-store wins over the variable)
  %[3]s=sqlite:/var/lib/agent/agent.db %[1]s
  # give running tasks 30s on SIGTERM
  %[1]s -shutdown-grace 30s
  # accept request bodies up to 1 MiB; drop clients that read nothing for 10s
  %[1]s -max-body-bytes 1MiB -write-timeout 10s
`, name, from, StoreEnv)
}
