package scaffold

import (
	"slices"
	"strings"
	"testing"

	"github.com/a2agen/a2agen/internal/manifest"
)

// TestContainer covers what the golden projects do not: the addresses
// ENTRYPOINT moves, the ports EXPOSE lists and the health check for every
// kind of address, a package of another module and the Go image of unusual
// go directives.
func TestContainer(t *testing.T) {
	parse := func(t *testing.T, bindings string) *manifest.Manifest {
		t.Helper()
		src := "apiVersion: a2agen/v1\nname: Box\ndescription: d\nversion: \"1\"\nmodule: example.com/box\nbindings:\n" + bindings +
			"skills:\n  - id: s\n    name: S\n    description: d\n    tags: [t]\n"
		m, err := manifest.Parse("agent.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, tc := range []struct {
		name, bindings string
		listen, ports  []string
		health         string
	}{
		{"every interface", "  - binding: JSONRPC\n    address: \"0.0.0.0:8080\"\n  - binding: GRPC\n    address: \"[::]:9090\"\n",
			nil, []string{"8080", "9090"}, "http://127.0.0.1:8080/healthz"},
		{"loopback and names", "  - binding: GRPC\n    address: \"[::1]:9090\"\n  - binding: HTTP+JSON\n    address: \"localhost:8080\"\n  - binding: JSONRPC\n    address: \"localhost:8080\"\n    path: /rpc\n",
			[]string{"[::1]:9090=0.0.0.0:9090", "localhost:8080=0.0.0.0:8080"}, []string{"9090", "8080"}, "http://127.0.0.1:8080/healthz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := parse(t, tc.bindings)
			c := container(m, "", "1.26.0", false)
			if !slices.Equal(c.Listen, tc.listen) || !slices.Equal(c.Ports, tc.ports) || c.HealthURL != tc.health {
				t.Errorf("listen %q, ports %q, health %q; want %q, %q, %q", c.Listen, c.Ports, c.HealthURL, tc.listen, tc.ports, tc.health)
			}
			files, err := Files(m, ProjectOptions{Module: m.Module, Standalone: true})
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(files, func(f ProjectFile) bool { return f.Path == "Dockerfile" })
			df := string(files[i].Data)
			for _, want := range []string{
				`HEALTHCHECK --interval=10s --timeout=3s CMD ["wget", "-q", "-Y", "off", "-O", "-", "` + tc.health + `"]`,
				"\nEXPOSE " + strings.Join(tc.ports, " ") + "\n",
				"\nENTRYPOINT " + c.Entrypoint + "\n",
			} {
				if !strings.Contains(df, want) {
					t.Errorf("the Dockerfile lacks %q:\n%s", want, df)
				}
			}
		})
	}

	m := parse(t, "  - binding: JSONRPC\n")
	c := container(m, "examples/box", "1.27rc2", false)
	if c.Package != "./examples/box" || c.Context != "../.." || c.Prefix != "examples/box/" || c.Ignore != "Dockerfile.dockerignore" || c.GoImage != "golang:1.27" {
		t.Errorf("a package of another module: %+v", c)
	}
	for v, want := range map[string]string{"1.26.0": "1.26", "1.25": "1.25", "1.30rc1": "1.30", "": "1.26", "go1.2": "1.26", "1": "1.26"} {
		if got := goMinor(v); got != want {
			t.Errorf("goMinor(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestHasLocalReplace: a replace by a directory makes the Dockerfile build
// from the vendor tree; a replace by a module version does not.
func TestHasLocalReplace(t *testing.T) {
	for gomod, want := range map[string]bool{
		"module m\n\nreplace github.com/a2agen/a2agen => /src/a2agen\n":          true,
		"module m\n\nreplace github.com/a2agen/a2agen => ../a2agen\n":            true,
		"module m\n\nreplace github.com/a2agen/a2agen => example.com/f v1.0.0\n": false,
		"module m\n\nrequire github.com/a2agen/a2agen v0.1.0\n":                  false,
	} {
		if got := hasLocalReplace([]byte(gomod)); got != want {
			t.Errorf("hasLocalReplace(%q) = %v, want %v", gomod, got, want)
		}
	}
}
