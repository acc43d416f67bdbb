package runtime

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// GRPCTarget is what a gRPC client dials for an agent interface URL.
type GRPCTarget struct {
	// Target is the grpc-go target name, e.g. "agent.example.com:443" or
	// "dns:///agent.example.com:443".
	Target string
	// TLS is true when the connection uses TLS unless dial options say
	// otherwise.
	TLS bool
}

// ParseGRPCTarget turns the url of a GRPC agent interface into a grpc-go
// target. A2A v1.0.1 describes that url as an absolute HTTPS URL
// ("https://agent.example.com/a2a/grpc"), later revisions as host:port
// ("agent.example.com:443"); both are accepted (docs/bindings.md):
//
//	url form                          target                  TLS
//	host:port, [v6]:port              host:port               yes, unless the host is loopback
//	host (no port)                    host:443                yes, unless the host is loopback
//	https://host[:port][/path]        host:port (default 443) yes
//	grpcs://host[:port][/path]        host:port (default 443) yes
//	http://host[:port][/path]         host:port (default 80)  no
//	grpc://host[:port][/path]         host:port (default 80)  no
//	dns:///host:port, other grpc-go   verbatim                yes, unless the host is loopback
//	  resolver URLs (xds:///…)
//	unix:path, unix:///path,          verbatim                no
//	  unix-abstract:name
//
// Paths, queries and fragments of http(s)/grpc(s) URLs are dropped: gRPC
// method paths are fixed ("/lf.a2a.v1.A2AService/SendMessage"), so an agent
// cannot be served under a path prefix. A bare host:port that is not
// loopback gets TLS because the A2A gRPC binding requires it in production
// and such URLs name public endpoints (grpc.example.com:443); loopback
// hosts (localhost, 127.0.0.0/8, ::1) get plaintext so that local agents
// work without certificates. grpc.WithTransportCredentials among the dial
// options (WithGRPCDialOptions) overrides the choice either way.
func ParseGRPCTarget(rawURL string) (GRPCTarget, error) {
	s := strings.TrimSpace(rawURL)
	if s == "" {
		return GRPCTarget{}, fmt.Errorf("a2a: empty gRPC interface URL")
	}
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		switch strings.ToLower(scheme) {
		case "http", "grpc":
			return hostPortTarget(rawURL, rest, "80", false)
		case "https", "grpcs":
			return hostPortTarget(rawURL, rest, "443", true)
		case "unix", "unix-abstract":
			return GRPCTarget{Target: s}, nil
		}
		u, err := url.Parse(s)
		if err != nil {
			return GRPCTarget{}, fmt.Errorf("a2a: gRPC interface URL %q: %w", rawURL, err)
		}
		// A grpc-go resolver URL, e.g. dns:///host:port or
		// dns://resolver:53/host:port: the endpoint is the path.
		host, _, err := splitHostPort(strings.TrimPrefix(u.Path, "/"), "443")
		if err != nil {
			return GRPCTarget{}, fmt.Errorf("a2a: gRPC interface URL %q: %w", rawURL, err)
		}
		return GRPCTarget{Target: s, TLS: !isLoopbackHost(host)}, nil
	}
	if strings.HasPrefix(s, "unix:") || strings.HasPrefix(s, "unix-abstract:") {
		return GRPCTarget{Target: s}, nil
	}
	target, err := hostPortTarget(rawURL, s, "443", false)
	if err != nil {
		return GRPCTarget{}, err
	}
	host, _, _ := net.SplitHostPort(target.Target)
	target.TLS = !isLoopbackHost(host)
	return target, nil
}

// hostPortTarget builds a host:port target from the authority at the start
// of rest (anything from the first '/', '?' or '#' on is dropped).
func hostPortTarget(rawURL, rest, defaultPort string, tls bool) (GRPCTarget, error) {
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		return GRPCTarget{}, fmt.Errorf("a2a: gRPC interface URL %q carries user information, which gRPC cannot send; pass credentials as call metadata instead", rawURL)
	}
	host, port, err := splitHostPort(rest, defaultPort)
	if err != nil {
		return GRPCTarget{}, fmt.Errorf("a2a: gRPC interface URL %q: %w", rawURL, err)
	}
	return GRPCTarget{Target: net.JoinHostPort(host, port), TLS: tls}, nil
}

// splitHostPort splits "host", "host:port", "[v6]", "[v6]:port" or a bare
// IPv6 address, supplying defaultPort, and checks both parts.
func splitHostPort(hp, defaultPort string) (host, port string, err error) {
	switch {
	case hp == "":
		return "", "", fmt.Errorf("no host")
	case net.ParseIP(hp) != nil: // a bare IPv6 (or IPv4) address
		host, port = hp, defaultPort
	case strings.HasPrefix(hp, "[") && strings.HasSuffix(hp, "]"):
		host, port = hp[1:len(hp)-1], defaultPort
	case strings.Contains(hp, ":"):
		if host, port, err = net.SplitHostPort(hp); err != nil {
			return "", "", err
		}
	default:
		host, port = hp, defaultPort
	}
	if host == "" {
		return "", "", fmt.Errorf("no host in %q", hp)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("port %q is not a number between 1 and 65535", port)
	}
	return host, port, nil
}

// isLoopbackHost reports whether host names this machine: localhost (and
// *.localhost, RFC 6761) or a loopback IP address.
func isLoopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
