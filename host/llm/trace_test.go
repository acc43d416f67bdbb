package llm_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/host/hosttest"
	"github.com/a2agen/a2agen/host/llm"
	"github.com/a2agen/a2agen/host/llm/llmtest"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/telemetry"
)

// TestDelegationIsOneTrace: with tracing on both agents and the tracing
// client interceptor in the remote agent's options, the specialist's
// server span continues the trace of the planner's call: one trace spans
// the user's call, the planner's call of the specialist and the
// specialist's work.
func TestDelegationIsOneTrace(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	tracing := telemetry.Tracing(telemetry.WithTracerProvider(tp), telemetry.WithPropagator(propagation.TraceContext{}))

	t.Setenv("LLMTEST_KEY", "sk-test")
	specialistModel := llmtest.Start(t, llmtest.Step{Tokens: []string{"Pack a coat."}})
	sp := &llm.Provider{BaseURL: specialistModel.URL, Model: "scripted", APIKeyEnv: "LLMTEST_KEY"}
	specialist := hosttest.Start(t, host.Config{CardJSON: []byte(card), Bindings: bindings, Interceptors: []runtime.Interceptor{tracing},
		Skills: []host.Skill{{ID: "chat", Run: sp.Skill(llm.Skill{ID: "chat"})}}})
	tools, err := llm.RemoteAgent{Card: reachable(specialist), Options: []agentcard.Option{
		agentcard.WithClientOptions(runtime.WithClientInterceptors(tracing)),
	}}.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	plannerModel := llmtest.Start(t,
		llmtest.Step{Calls: []llmtest.Call{{Name: "chat", Arguments: `{"message":"What to pack?"}`}}},
		llmtest.Step{Tokens: []string{"A coat."}})
	pp := &llm.Provider{BaseURL: plannerModel.URL, Model: "scripted", APIKeyEnv: "LLMTEST_KEY"}
	planner := hosttest.Start(t, host.Config{CardJSON: []byte(card), Bindings: bindings, Interceptors: []runtime.Interceptor{tracing},
		Skills: []host.Skill{{ID: "chat", Run: pp.Skill(llm.Skill{ID: "chat", Tools: tools})}}})

	if resp := send(t, planner, hosttest.Message("Plan my trip", "chat")); resp.State() != a2av1.TaskState_TASK_STATE_COMPLETED {
		t.Fatalf("planner %s: %s", resp.State(), resp.Text())
	}
	var servers, clients []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		switch s.SpanKind() {
		case trace.SpanKindServer:
			servers = append(servers, s)
		case trace.SpanKindClient:
			clients = append(clients, s)
		}
	}
	if len(servers) < 2 || len(clients) < 1 {
		t.Fatalf("%d server and %d client spans, want the planner's and the specialist's server spans and the tool's client span", len(servers), len(clients))
	}
	traces := map[trace.TraceID]int{}
	for _, s := range servers {
		traces[s.SpanContext().TraceID()]++
	}
	var tool sdktrace.ReadOnlySpan
	for _, c := range clients {
		if traces[c.SpanContext().TraceID()] >= 2 {
			tool = c
		}
	}
	if tool == nil {
		t.Fatalf("no trace holds both agents' server spans and the tool's client span: server traces %v", traces)
	}
}
