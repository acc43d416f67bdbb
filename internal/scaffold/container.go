package scaffold

import (
	"net"
	"strconv"
	"strings"

	"github.com/a2agen/a2agen/internal/manifest"
	"github.com/a2agen/a2agen/internal/version"
)

// The container image of a project (Dockerfile.tmpl, dockerignore.tmpl):
// what it needs from the manifest and the module.

// Container is what the Dockerfile of a project says besides its fixed
// lines.
type Container struct {
	// Binary is the program's name in the image (/usr/local/bin/<Binary>).
	Binary string
	// GoImage is the default image of the build stage (build argument
	// GO_IMAGE): golang:<major.minor of the module's go directive>.
	GoImage string
	// RuntimeImage is the default image the agent runs in (build argument
	// RUNTIME_IMAGE).
	RuntimeImage string
	// Vendor says that go.mod replaces a module with a local directory,
	// which a build context cannot reach: the build stage then builds from
	// the vendor tree (make vendor), offline, instead of downloading.
	Vendor bool
	// CommitSymbol and DirtySymbol are the linker symbols the build stamps
	// with the COMMIT and DIRTY build arguments (version.CommitSymbol).
	CommitSymbol, DirtySymbol string
	// Package is what go build builds, from the build context: "." for a
	// project that is a module of its own, "./<dir>" for a package of an
	// enclosing module (whose root is then the build context).
	Package string
	// Context is the build context relative to the project directory: "."
	// or the enclosing module's root ("../..").
	Context string
	// Prefix is the project directory inside the build context, with a
	// trailing slash ("" for a module of its own), for .dockerignore.
	Prefix string
	// Ignore is the name of the ignore file: .dockerignore at the context
	// root, or Dockerfile.dockerignore next to the Dockerfile of a package
	// (BuildKit reads <Dockerfile>.dockerignore first, so a package does not
	// claim its module's .dockerignore).
	Ignore string
	// Ports are the ports of the manifest's addresses, each once, in the
	// order of the bindings (EXPOSE).
	Ports []string
	// Listen are the -listen arguments (FROM=TO) that move the addresses
	// with a host (127.0.0.1:18080, localhost:8080) to every interface
	// (0.0.0.0:18080), so that the agent is reachable from outside its
	// container.
	Listen []string
	// Entrypoint is the exec form of ENTRYPOINT: the binary with a -listen
	// flag for each of Listen.
	Entrypoint string
	// HealthURL is what the HEALTHCHECK fetches: /healthz on the first HTTP
	// address (a valid manifest has one: it serves the agent card).
	HealthURL string
}

// RuntimeImage is the default base image of a project's image: alpine, for
// the wget of the HEALTHCHECK and the CA certificates of HTTPS webhooks and
// exporters, which distroless and scratch images lack.
const RuntimeImage = "alpine:3.23"

// container describes the project's image. pkgDir is the project's
// directory inside its enclosing module, slash-separated ("" for a module of
// its own); goVersion is the module's go directive.
func container(m *manifest.Manifest, pkgDir, goVersion string, vendor bool) Container {
	bin := manifest.Slug(m.Name)
	c := Container{
		Binary:       bin,
		GoImage:      "golang:" + goMinor(goVersion),
		RuntimeImage: RuntimeImage,
		Vendor:       vendor,
		CommitSymbol: version.CommitSymbol,
		DirtySymbol:  version.DirtySymbol,
		Package:      ".",
		Context:      ".",
		Ignore:       ".dockerignore",
	}
	if pkgDir != "" && pkgDir != "." {
		c.Package = "./" + pkgDir
		c.Context = strings.Repeat("../", strings.Count(pkgDir, "/")) + ".."
		c.Prefix = pkgDir + "/"
		c.Ignore = "Dockerfile.dockerignore"
	}
	entry := []string{"/usr/local/bin/" + bin}
	seen := map[string]bool{}
	for _, b := range m.Bindings {
		if seen[b.Address] {
			continue
		}
		seen[b.Address] = true
		host, port, err := net.SplitHostPort(b.Address)
		if err != nil {
			continue // the manifest checked it
		}
		c.Ports = append(c.Ports, port)
		if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
			c.Listen = append(c.Listen, b.Address+"=0.0.0.0:"+port)
			entry = append(entry, "-listen", c.Listen[len(c.Listen)-1])
		}
		if c.HealthURL == "" && b.Protocol.IsHTTP() {
			c.HealthURL = "http://127.0.0.1:" + port + "/healthz"
		}
	}
	c.Entrypoint = execForm(entry)
	return c
}

// execForm is the JSON array of a Dockerfile instruction's exec form.
func execForm(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a) // JSON-compatible for the ASCII of addresses and names
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// goMinor is the major.minor of a go directive ("1.26.0" → "1.26");
// GoVersion's when v is not a Go version.
func goMinor(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 || parts[0] == "" || strings.Trim(parts[0], "0123456789") != "" {
		return goMinor(GoVersion)
	}
	minor := parts[1]
	if i := strings.IndexFunc(minor, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = minor[:i] // 1.27rc1
	}
	if minor == "" {
		return goMinor(GoVersion)
	}
	return parts[0] + "." + minor
}
