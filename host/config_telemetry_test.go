package host_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// TestConfigTelemetry: Config.Telemetry is the one route of an agent's
// instrumentation. Its interceptors wrap the program's Interceptors (so
// they see what those do) and its MetricsHandler answers GET /metrics next
// to the program's Routes.
func TestConfigTelemetry(t *testing.T) {
	cfg, addr := plainConfig(t)
	var mu sync.Mutex
	var order []string
	named := func(name string) runtime.Interceptor {
		return runtime.InterceptorFuncs{Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
			return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
				return next(ctx, call, req)
			}
		}}
	}
	cfg.Telemetry = &telemetry.Setup{
		Interceptors:   []runtime.Interceptor{named("telemetry")},
		MetricsHandler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "metrics of the test\n") }),
		Shutdown:       func(context.Context) error { return nil },
	}
	cfg.Interceptors = []runtime.Interceptor{named("program")}
	cfg.Routes = func(mux *http.ServeMux) {
		mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "v1") })
	}
	a, err := host.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown(context.Background())
	if _, err := a2av1.NewA2AServiceJSONRPCClient("http://"+addr+"/").SendMessage(context.Background(), message("hi", "")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := slices.Clone(order)
	mu.Unlock()
	if want := []string{"telemetry", "program"}; !slices.Equal(got, want) {
		t.Errorf("interceptors ran in the order %q, want %q (Telemetry's outermost)", got, want)
	}
	for path, want := range map[string]string{"/metrics": "metrics of the test\n", "/version": "v1"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != want {
			t.Errorf("GET %s = %d %q, want 200 %q", path, resp.StatusCode, body, want)
		}
	}
}
