package host_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestMainTelemetry: Main writes one request-log line per call (off with
// -request-log=false) and, with OTEL_METRICS_EXPORTER=prometheus, serves
// the call metrics at /metrics on the agent's HTTP listener.
func TestMainTelemetry(t *testing.T) {
	t.Setenv("OTEL_METRICS_EXPORTER", "prometheus")
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	for _, requestLog := range []bool{true, false} {
		logs := &syncBuffer{} // main_test.go
		addr := freeAddr(t)
		cfg := host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
			Bindings: []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: addr, Path: "/"}},
			Logger:   slog.New(slog.NewJSONHandler(logs, nil))}
		args := []string{}
		if !requestLog {
			args = append(args, "-request-log=false")
		}
		_, stop := runMain(t, cfg, args, 3)
		c := a2av1.NewA2AServiceJSONRPCClient("http://" + addr)
		if _, err := c.SendMessage(context.Background(), &a2av1.SendMessageRequest{Message: &a2av1.Message{
			MessageId: "m1", Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{server.TextPart("hi")}}}); err != nil {
			t.Fatal(err)
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "rpc_server_call_duration_seconds") {
			t.Fatalf("/metrics: %d, %d bytes; want the call duration histogram", resp.StatusCode, len(body))
		}
		if code := stop(); code != 0 {
			t.Fatalf("Main exited with %d", code)
		}
		lines := strings.Count(logs.String(), `"lf.a2a.v1.A2AService/SendMessage"`) + strings.Count(logs.String(), `"SendMessage"`)
		if requestLog && lines == 0 {
			t.Fatalf("request log on: no line for SendMessage in %s", logs.String())
		}
		if !requestLog && lines != 0 {
			t.Fatalf("-request-log=false: the log has the call: %s", logs.String())
		}
	}
}

// TestMainTelemetryWrapsProgramInterceptors: under Main the request log
// wraps the program's own interceptors (Config.Interceptors), so that it
// logs the calls they answer themselves, with their outcome.
func TestMainTelemetryWrapsProgramInterceptors(t *testing.T) {
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	logs := &syncBuffer{}
	addr := freeAddr(t)
	refuse := runtime.InterceptorFuncs{Unary: func(next runtime.UnaryFunc) runtime.UnaryFunc {
		return func(ctx context.Context, call *runtime.CallInfo, req proto.Message) (proto.Message, error) {
			if call.Operation.Name == "GetTask" {
				return nil, runtime.NewError(runtime.CodeUnauthorized, "reading tasks is closed today")
			}
			return next(ctx, call, req)
		}
	}}
	cfg := host.Config{CardJSON: plainCard(t), Skills: []host.Skill{{ID: "a", Run: completeWith}},
		Bindings:     []host.Binding{{Protocol: runtime.BindingJSONRPC, Address: addr, Path: "/"}},
		Logger:       slog.New(slog.NewJSONHandler(logs, nil)),
		Interceptors: []runtime.Interceptor{refuse}}
	_, stop := runMain(t, cfg, nil, 3)
	c := a2av1.NewA2AServiceJSONRPCClient("http://" + addr)
	if _, err := c.GetTask(context.Background(), &a2av1.GetTaskRequest{Id: "t1"}); !errors.Is(err, runtime.ErrUnauthorized) {
		t.Fatalf("GetTask: %v, want the interceptor's Unauthorized", err)
	}
	if code := stop(); code != 0 {
		t.Fatalf("Main exited with %d", code)
	}
	if s := logs.String(); !strings.Contains(s, `"method":"GetTask"`) || !strings.Contains(s, `"outcome":"Unauthorized"`) {
		t.Fatalf("the request log has no GetTask line with the interceptor's outcome:\n%s", s)
	}
}
