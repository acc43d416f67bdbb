package host_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server/store"
)

// TestMainHelpListsEnv: -help shows every flag with its environment
// variable, and docs/operating.md lists every one of them with its variable.
func TestMainHelpListsEnv(t *testing.T) {
	cfg, _ := plainConfig(t)
	var stdout, stderr syncBuffer
	if code := host.Main(context.Background(), "agent", cfg, []string{"-help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-help: exit %d", code)
	}
	help := stderr.String()
	flagLine := regexp.MustCompile(`(?m)^  -([a-z-]+)(.*)$`)
	lines := flagLine.FindAllStringSubmatch(help, -1)
	if len(lines) < 11 {
		t.Fatalf("-help lists %d flags:\n%s", len(lines), help)
	}
	operating, err := os.ReadFile("../docs/operating.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if l[1] == "version" { // the one flag without a variable (TestMainVersion)
			if strings.Contains(l[2], "$") || !strings.Contains(string(operating), "`-version`") {
				t.Errorf("-help line %q names a variable, or docs/operating.md does not list -version", l[0])
			}
			continue
		}
		if want := ", $" + host.EnvName(l[1]); !strings.HasSuffix(l[2], want) {
			t.Errorf("-help line %q does not end with its variable %q", l[0], want)
		}
		doc := string(operating)
		if !(strings.Contains(doc, "`-"+l[1]+" ") || strings.Contains(doc, "`-"+l[1]+"`")) || !strings.Contains(doc, "`"+host.EnvName(l[1])+"`") {
			t.Errorf("docs/operating.md does not list -%s with %s", l[1], host.EnvName(l[1]))
		}
	}
	for _, want := range []string{
		"  -shutdown-grace duration, $A2A_SHUTDOWN_GRACE\n",
		"  -listen FROM=TO, $A2A_LISTEN\n",
		"  -store URL, $A2A_STORE\n",
		"  -tls-cert string, $A2A_TLS_CERT\n",
		"  -grpc-reflection, $A2A_GRPC_REFLECTION\n",
		"(default 10s)",
		`(default "sqlite:data/agent.db")`,
		"GET /readyz",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("-help does not contain %q:\n%s", want, help)
		}
	}
	if host.EnvName("terminal-task-ttl") != "A2A_TERMINAL_TASK_TTL" || host.EnvName("store") != host.StoreEnv {
		t.Errorf("EnvName: %s, %s", host.EnvName("terminal-task-ttl"), host.EnvName("store"))
	}
}

// TestMainEnvErrors: a bad value from the environment is refused with the
// variable's name.
func TestMainEnvErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tc := range []struct {
		env  map[string]string
		code int
		want string
	}{
		{map[string]string{"A2A_SHUTDOWN_GRACE": "soon"}, 2, `agent: $A2A_SHUTDOWN_GRACE="soon": invalid value for -shutdown-grace: `},
		{map[string]string{"A2A_SHUTDOWN_DELAY": "-1s"}, 2, "agent: $A2A_SHUTDOWN_DELAY must not be negative (0 means none)"},
		{map[string]string{"A2A_MAX_TERMINAL_TASKS": "-1"}, 2, `agent: $A2A_MAX_TERMINAL_TASKS="-1": invalid value for -max-terminal-tasks: must not be negative (0 means no bound)`},
		{map[string]string{"A2A_GRPC_REFLECTION": "maybe"}, 2, `agent: $A2A_GRPC_REFLECTION="maybe": invalid value for -grpc-reflection`},
		{map[string]string{"A2A_LISTEN": "nonsense"}, 2, `agent: $A2A_LISTEN="nonsense": invalid value for -listen: "nonsense" is not FROM=TO`},
		{map[string]string{"A2A_LISTEN": "127.0.0.1:1=0.0.0.0:1"}, 2, "agent: $A2A_LISTEN: no binding listens on 127.0.0.1:1"},
		{map[string]string{"A2A_REQUIRE_CLIENT_CERT": "1"}, 2, "agent: $A2A_REQUIRE_CLIENT_CERT needs TLS with client CAs"},
		{map[string]string{"A2A_TLS_CERT": missing, "A2A_TLS_KEY": missing}, 1, "(from $A2A_TLS_CERT, $A2A_TLS_KEY)\n"},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		cfg, _ := plainConfig(t)
		var stdout, stderr syncBuffer
		code := host.Main(context.Background(), "agent", cfg, []string{"-store", "memory"}, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit %d and %q", tc.env, code, stderr.String(), tc.code, tc.want)
		}
		for k := range tc.env {
			t.Setenv(k, "")
		}
	}

	// A program's own store leaves the store variables nothing to do.
	cfg, _ := plainConfig(t)
	cfg.Store = store.NewMemory()
	defer cfg.Store.Close()
	t.Setenv("A2A_TERMINAL_TASK_TTL", "1h")
	var stdout, stderr syncBuffer
	if code := host.Main(context.Background(), "agent", cfg, nil, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "$A2A_TERMINAL_TASK_TTL does not apply: the program keeps its tasks in its own store") {
		t.Errorf("A2A_TERMINAL_TASK_TTL with the program's store: exit %d, %q", code, stderr.String())
	}
}

// reflects reports whether the gRPC server at addr serves reflection.
func reflects(t *testing.T, addr string) bool {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stream, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Without reflection the server ends the stream at once: Send may see
	// io.EOF, and Recv has the status.
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if status.Code(err) == codes.Unimplemented {
		return false
	}
	if err != nil {
		t.Fatalf("reflection: %v", err)
	}
	// grpcurl describes the service from the file that defines it.
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{
		FileContainingSymbol: "lf.a2a.v1.A2AService"}}); err != nil {
		t.Fatal(err)
	}
	if file, err := stream.Recv(); err != nil || len(file.GetFileDescriptorResponse().GetFileDescriptorProto()) == 0 {
		t.Errorf("reflection has no file for lf.a2a.v1.A2AService: %v %v", file, err)
	}
	_ = stream.CloseSend()
	if _, err := stream.Recv(); err != io.EOF {
		t.Logf("reflection stream end: %v", err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	for _, want := range []string{"lf.a2a.v1.A2AService", "grpc.health.v1.Health"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("reflection lists %v, not %s", names, want)
		}
	}
	return true
}

// TestMainPrecedence: a flag wins over its environment variable, which
// wins over Config (here: gRPC reflection, and -listen over A2A_LISTEN).
func TestMainPrecedence(t *testing.T) {
	configured := freeAddr(t)
	base := host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings: []host.Binding{{Protocol: runtime.BindingGRPC, Address: configured}}}
	for _, tc := range []struct {
		name   string
		config bool
		env    string
		args   []string
		want   bool
	}{
		{"default", false, "", nil, false},
		{"config", true, "", nil, true},
		{"env over config", true, "false", nil, false},
		{"flag over env", false, "false", []string{"-grpc-reflection"}, true},
		{"env", false, "true", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("A2A_GRPC_REFLECTION", tc.env)
			moved := freeAddr(t)
			// -listen on the command line wins over a variable that would
			// not even parse.
			t.Setenv("A2A_LISTEN", "nonsense")
			cfg := base
			cfg.GRPCReflection = tc.config
			_, stop := runMain(t, cfg, append([]string{"-listen", configured + "=" + moved}, tc.args...), 2) // no card line without HTTP
			defer stop()
			if got := reflects(t, moved); got != tc.want {
				t.Errorf("reflection served: %v, want %v", got, tc.want)
			}
		})
	}
}
