package scaffold

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/a2agen/a2agen/internal/manifest"
)

// TestDeployKit checks the deploy kit of every golden manifest and of
// examples/travel-agent (the committed files): the Kubernetes objects,
// decoded as YAML and checked field by field against the manifest (no
// Kubernetes module: a structural check of what a cluster would be given),
// and the compose file, by its fields and, where Debian's docker-compose is
// installed, by `docker-compose config`.
func TestDeployKit(t *testing.T) {
	base := filepath.Join("..", "..", "testdata", "golden", "scaffold")
	cases, err := filepath.Glob(filepath.Join(base, "*", ManifestFile))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden manifest (%v)", err)
	}
	for _, path := range cases {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := manifest.Parse(ManifestFile, data)
			if err != nil {
				t.Fatal(err)
			}
			files, err := Files(m, ProjectOptions{Module: m.Module, Standalone: true, A2agenVersion: "v0.1.0", Manifest: data})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for _, f := range files {
				to := filepath.Join(dir, filepath.FromSlash(f.Path))
				if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(to, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkDeployKit(t, m, dir)
		})
	}
	t.Run("examples/travel-agent", func(t *testing.T) {
		dir := filepath.Join("..", "..", "examples", "travel-agent")
		m, err := manifest.Load(filepath.Join(dir, ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		checkDeployKit(t, m, dir)
	})
}

// obj is a decoded YAML mapping.
type obj = map[string]any

// get walks a decoded YAML document along keys (string keys of mappings,
// int indexes of sequences); nil when a step is missing.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(obj)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

// manifestPorts are the ports of m's addresses, each once, in binding order,
// with whether an HTTP binding is on it.
func manifestPorts(t *testing.T, m *manifest.Manifest) (ports []string, http map[string]bool) {
	http = map[string]bool{}
	for _, b := range m.Bindings {
		_, port, err := net.SplitHostPort(b.Address)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ports, port) {
			ports = append(ports, port)
		}
		http[port] = http[port] || b.Protocol.IsHTTP()
	}
	return ports, http
}

// checkDeployKit checks deploy/kubernetes.yaml and deploy/compose.yaml of
// the project in dir against its manifest m.
func checkDeployKit(t *testing.T, m *manifest.Manifest, dir string) {
	t.Helper()
	ports, http := manifestPorts(t, m)
	firstHTTP, firstGRPC := "", ""
	for _, p := range ports {
		if http[p] && firstHTTP == "" {
			firstHTTP = p
		}
		if !http[p] && firstGRPC == "" {
			firstGRPC = p
		}
	}

	// Kubernetes: every document an object with apiVersion, kind and name.
	data, err := os.ReadFile(filepath.Join(dir, "deploy", "kubernetes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !IsGenerated(data) {
		t.Error("deploy/kubernetes.yaml lacks the generated header")
	}
	byKind := map[string][]obj{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc obj
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("deploy/kubernetes.yaml: %v", err)
		}
		if doc == nil {
			continue
		}
		kind, _ := doc["kind"].(string)
		if doc["apiVersion"] == nil || kind == "" || get(doc, "metadata", "name") == nil {
			t.Errorf("an object without apiVersion, kind or metadata.name: %v", doc)
		}
		byKind[kind] = append(byKind[kind], doc)
	}
	for kind, n := range map[string]int{"Deployment": 1, "Secret": 1, "PersistentVolumeClaim": 1, "Service": len(ports)} {
		if len(byKind[kind]) != n {
			t.Fatalf("%d %s objects, want %d", len(byKind[kind]), kind, n)
		}
	}
	d := byKind["Deployment"][0]
	pod := get(d, "spec", "template", "spec")
	labels, _ := get(d, "spec", "template", "metadata", "labels").(obj)
	if sel, _ := get(d, "spec", "selector", "matchLabels").(obj); len(sel) == 0 || !subset(sel, labels) {
		t.Errorf("the Deployment's selector %v does not select its pods %v", sel, labels)
	}
	c := get(pod, "containers", 0)
	// Ports: one container port per address, named.
	named := map[string]string{} // name → port
	for i := 0; get(c, "ports", i) != nil; i++ {
		name, _ := get(c, "ports", i, "name").(string)
		named[name] = strconv.Itoa(toInt(get(c, "ports", i, "containerPort")))
	}
	var containerPorts []string
	for _, p := range named {
		containerPorts = append(containerPorts, p)
	}
	slices.Sort(containerPorts)
	if want := slices.Sorted(slices.Values(ports)); !slices.Equal(containerPorts, want) {
		t.Errorf("container ports %v, want the manifest's %v", containerPorts, want)
	}
	// Probes (docs/operating.md): /healthz for liveness, /readyz for
	// readiness on the first HTTP address; grpc.health.v1 on the gRPC one.
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
		if get(c, probe, "httpGet", "path") != path || strconv.Itoa(toInt(get(c, probe, "httpGet", "port"))) != firstHTTP {
			t.Errorf("%s %v, want GET %s on port %s", probe, get(c, probe), path, firstHTTP)
		}
	}
	if firstGRPC != "" {
		if strconv.Itoa(toInt(get(c, "startupProbe", "grpc", "port"))) != firstGRPC || get(c, "startupProbe", "grpc", "service") != "lf.a2a.v1.A2AService" {
			t.Errorf("startupProbe %v, want grpc on port %s for lf.a2a.v1.A2AService", get(c, "startupProbe"), firstGRPC)
		}
	} else if get(c, "startupProbe") != nil {
		t.Errorf("a startup probe without a gRPC address: %v", get(c, "startupProbe"))
	}
	// Shutdown: Kubernetes waits longer than the longest shutdown.
	grace := -1
	for i := 0; get(c, "env", i) != nil; i++ {
		if get(c, "env", i, "name") == "A2A_SHUTDOWN_GRACE" {
			if dur, err := time.ParseDuration(get(c, "env", i, "value").(string)); err == nil {
				grace = int(dur.Seconds())
			}
		}
	}
	if tg := toInt(get(pod, "terminationGracePeriodSeconds")); grace < 0 || tg <= grace+shutdownOverheadSecs {
		t.Errorf("terminationGracePeriodSeconds %d with A2A_SHUTDOWN_GRACE %ds: want more than the grace and %ds", tg, grace, shutdownOverheadSecs)
	}
	// The image's user, not root; the SQLite store on the PVC; the Secret
	// in the environment.
	if get(pod, "securityContext", "runAsNonRoot") != true || toInt(get(pod, "securityContext", "runAsUser")) != 10001 {
		t.Errorf("the pod's securityContext %v, want runAsNonRoot and the image's user 10001", get(pod, "securityContext"))
	}
	pvc := get(byKind["PersistentVolumeClaim"][0], "metadata", "name")
	if get(pod, "volumes", 0, "persistentVolumeClaim", "claimName") != pvc || get(c, "volumeMounts", 0, "mountPath") != "/home/agent/data" || get(c, "volumeMounts", 0, "name") != get(pod, "volumes", 0, "name") {
		t.Errorf("the data volume: mounts %v, volumes %v; want the PVC %v on /home/agent/data (the SQLite store)", get(c, "volumeMounts"), get(pod, "volumes"), pvc)
	}
	if get(c, "envFrom", 0, "secretRef", "name") != get(byKind["Secret"][0], "metadata", "name") {
		t.Errorf("envFrom %v does not name the Secret", get(c, "envFrom"))
	}
	// A Service per address, selecting the pods, aimed at a named port.
	var servicePorts []string
	for _, s := range byKind["Service"] {
		if sel, _ := get(s, "spec", "selector").(obj); len(sel) == 0 || !subset(sel, labels) {
			t.Errorf("Service %v selects %v, not the pods", get(s, "metadata", "name"), sel)
		}
		target, _ := get(s, "spec", "ports", 0, "targetPort").(string)
		if named[target] == "" || strconv.Itoa(toInt(get(s, "spec", "ports", 0, "port"))) != named[target] {
			t.Errorf("Service %v: port %v to %q, want a named container port", get(s, "metadata", "name"), get(s, "spec", "ports", 0, "port"), target)
		}
		servicePorts = append(servicePorts, named[target])
	}
	if !slices.Equal(servicePorts, ports) {
		t.Errorf("Services on ports %v, want one per address %v", servicePorts, ports)
	}

	// Compose: N agents on PostgreSQL.
	data, err = os.ReadFile(filepath.Join(dir, "deploy", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var compose obj
	if err := yaml.Unmarshal(data, &compose); err != nil {
		t.Fatalf("deploy/compose.yaml: %v", err)
	}
	agent := get(compose, "services", "agent")
	if toInt(get(agent, "deploy", "replicas")) < 2 {
		t.Errorf("compose runs %v replicas, want several", get(agent, "deploy", "replicas"))
	}
	if store, _ := get(agent, "environment", "A2A_STORE").(string); !strings.HasPrefix(store, "postgres://") || !strings.Contains(store, "@postgres:5432/") {
		t.Errorf("compose's A2A_STORE %q, want the postgres service", store)
	}
	if get(agent, "depends_on", "postgres", "condition") != "service_healthy" || get(compose, "services", "postgres", "healthcheck") == nil {
		t.Errorf("the agents do not wait for a healthy PostgreSQL: %v", get(agent, "depends_on"))
	}
	stop, err := time.ParseDuration(get(agent, "stop_grace_period").(string))
	if g, _ := time.ParseDuration(get(agent, "environment", "A2A_SHUTDOWN_GRACE").(string)); err != nil || stop <= g+shutdownOverheadSecs*time.Second {
		t.Errorf("stop_grace_period %v with A2A_SHUTDOWN_GRACE %v: want more than the grace and %ds", stop, g, shutdownOverheadSecs)
	}
	var published []string
	for i := 0; get(agent, "ports", i) != nil; i++ {
		published = append(published, get(agent, "ports", i).(string))
	}
	if !slices.Equal(published, ports) {
		t.Errorf("compose publishes %v, want the container ports %v (host ports left to Docker: replicas cannot share one)", published, ports)
	}
	ctx, _ := get(agent, "build", "context").(string)
	dockerfile, _ := get(agent, "build", "dockerfile").(string)
	if _, err := os.Stat(filepath.Join(dir, "deploy", ctx, dockerfile)); err != nil {
		t.Errorf("compose builds %s in %s: %v", dockerfile, ctx, err)
	}

	composeBin, err := exec.LookPath("docker-compose")
	if err != nil {
		t.Log("docker-compose is not installed (Debian: apt-get install docker-compose): the compose file was checked by its fields only")
		return
	}
	cmd := exec.Command(composeBin, "-f", filepath.Join("deploy", "compose.yaml"), "config", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("docker-compose config: %v\n%s", err, out)
	}
}

// subset reports whether every key of a has the same value in b.
func subset(a, b obj) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// toInt reads a YAML integer (-1 when v is none).
func toInt(v any) int {
	if n, ok := v.(int); ok {
		return n
	}
	return -1
}
