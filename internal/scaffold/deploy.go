package scaffold

import (
	"net"
	"strings"

	"github.com/a2agen/a2agen/internal/manifest"
)

// The deploy kit of a project (deploy-kubernetes.yaml.tmpl,
// deploy-compose.yaml.tmpl): what it needs from the manifest and the image.

// Deploy is what the deploy kit's files say besides their fixed lines.
type Deploy struct {
	// Name names the Kubernetes objects and the compose project: the
	// image's name, made a DNS label (lower case, a letter first, at most 48
	// characters, so that suffixes such as -credentials fit in 63).
	Name string
	// Ports are the agent's addresses, one per port, in the order of the
	// bindings: each gets a container port and a Service.
	Ports []DeployPort
	// HTTPPort is the port of the first HTTP address (the probes' port).
	HTTPPort string
	// GRPCPort is the port of the first gRPC address ("" when there is
	// none): the startup probe's (grpc.health.v1, the A2A service).
	GRPCPort string
	// ShutdownGrace is the -shutdown-grace the kit sets (A2A_SHUTDOWN_GRACE),
	// in seconds; TerminationGrace is what Kubernetes and compose wait for
	// before killing: above the longest shutdown (grace + about 9 s,
	// docs/operating.md) with room to spare.
	ShutdownGrace, TerminationGrace int
	// Replicas is how many agents the compose file runs on PostgreSQL.
	Replicas int
	// BuildContext and Dockerfile are the compose build's context, relative
	// to deploy/, and the Dockerfile relative to that context.
	BuildContext, Dockerfile string
}

// DeployPort is one address of the agent.
type DeployPort struct {
	// Port is the address's port (8080).
	Port string
	// Name is the port's name (at most 15 characters): http or grpc, with
	// the port appended when a name repeats.
	Name string
	// Bindings names the bindings on the address (JSONRPC, HTTP+JSON).
	Bindings string
	// GRPC says the address serves gRPC (no HTTP binding on it).
	GRPC bool
}

// Shutdown timing of the deploy kit: the agent's default grace, and the
// most a shutdown adds to it (connections 2 s, webhooks 2 s, cancels 5 s:
// docs/operating.md says "about 9 s").
const (
	deployShutdownGrace   = 10
	shutdownOverheadSecs  = 9
	deployTerminationPad  = 11
	deployComposeReplicas = 3
)

// deploy describes the project's deploy kit.
func deploy(m *manifest.Manifest, c Container) Deploy {
	d := Deploy{
		Name:             deployName(c.Binary),
		ShutdownGrace:    deployShutdownGrace,
		TerminationGrace: deployShutdownGrace + shutdownOverheadSecs + deployTerminationPad,
		Replicas:         deployComposeReplicas,
		BuildContext:     "../" + strings.TrimPrefix(c.Context, "./"),
		Dockerfile:       c.Prefix + "Dockerfile",
	}
	if c.Context == "." {
		d.BuildContext = ".."
	}
	byPort := map[string]int{}
	names := map[string]bool{}
	for _, b := range m.Bindings {
		_, port, err := net.SplitHostPort(b.Address)
		if err != nil {
			continue // the manifest checked it
		}
		if i, ok := byPort[port]; ok {
			d.Ports[i].Bindings += ", " + b.Protocol.String()
			d.Ports[i].GRPC = d.Ports[i].GRPC && !b.Protocol.IsHTTP()
			continue
		}
		byPort[port] = len(d.Ports)
		d.Ports = append(d.Ports, DeployPort{Port: port, Bindings: b.Protocol.String(), GRPC: !b.Protocol.IsHTTP()})
	}
	for i := range d.Ports {
		p := &d.Ports[i]
		p.Name = "http"
		if p.GRPC {
			p.Name = "grpc"
		}
		if names[p.Name] {
			p.Name += "-" + p.Port
		}
		names[p.Name] = true
		if !p.GRPC && d.HTTPPort == "" {
			d.HTTPPort = p.Port
		}
		if p.GRPC && d.GRPCPort == "" {
			d.GRPCPort = p.Port
		}
	}
	return d
}

// deployName makes s (a slug: lower-case letters, digits and dashes) a DNS
// label Kubernetes accepts for every object, Services included.
func deployName(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		s = "agent-" + s
	}
	if len(s) > 48 {
		s = strings.TrimRight(s[:48], "-")
	}
	return s
}
