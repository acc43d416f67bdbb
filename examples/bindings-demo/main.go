// Command bindings-demo serves one handler — the tiny in-memory test agent —
// over all three A2A bindings from the code protoc-gen-a2a generated for the
// bundled a2a.proto: JSON-RPC 2.0 and HTTP+JSON on one HTTP listener, gRPC on
// another, with an agent card listing the three interfaces. Then, for each
// binding, it discovers the agent from its card (package agentcard), builds
// the generated client for that interface and calls every one of the eleven
// operations, printing what happened. Loopback only; it exits when done
// unless -serve is given.
//
// Usage:
//
//	go run ./examples/bindings-demo             # run the exchanges and exit
//	go run ./examples/bindings-demo -serve      # keep serving afterwards
//	go run ./examples/bindings-demo -addr 127.0.0.1:8080 -grpc 127.0.0.1:8081 -serve
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/internal/testagent"
	"github.com/a2agen/a2agen/runtime"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "HTTP listen address for JSON-RPC, HTTP+JSON and the card (port 0 picks a free port)")
	grpcAddr := flag.String("grpc", "127.0.0.1:0", "gRPC listen address (port 0 picks a free port)")
	serve := flag.Bool("serve", false, "keep serving after the exchanges until interrupted")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: bindings-demo [-addr host:port] [-grpc host:port] [-serve]\n\n"+
			"Serves one A2A handler over JSON-RPC, HTTP+JSON and gRPC on loopback and calls all\n"+
			"eleven operations through the generated client of each binding, chosen from the card.\n\nFlags:\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*addr, *grpcAddr, *serve, os.Stdout); err != nil {
		log.Fatalf("bindings-demo: %v", err)
	}
}

func run(addr, grpcAddr string, serve bool, out io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	gln, err := net.Listen("tcp", grpcAddr)
	if err != nil {
		ln.Close()
		return fmt.Errorf("listen on %s: %w", grpcAddr, err)
	}
	base := "http://" + ln.Addr().String()
	card := &a2av1.AgentCard{
		Name: "bindings-demo", Description: "Echoes what it is sent.", Version: "0.1.0",
		SupportedInterfaces: []*a2av1.AgentInterface{
			{Url: base + "/a2a/jsonrpc", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: a2av1.A2AServiceDesc.ProtocolVersion()},
			{Url: base + "/a2a/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: a2av1.A2AServiceDesc.ProtocolVersion()},
			{Url: gln.Addr().String(), ProtocolBinding: runtime.BindingGRPC, ProtocolVersion: a2av1.A2AServiceDesc.ProtocolVersion()},
		},
		Capabilities:      &a2av1.AgentCapabilities{Streaming: proto.Bool(true), PushNotifications: proto.Bool(true), ExtendedAgentCard: proto.Bool(true)},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []*a2av1.AgentSkill{{Id: "echo", Name: "Echo", Description: "Replies with the text it received.", Tags: []string{"demo"}}},
	}
	agent := testagent.New()
	agent.ExtendedCard = proto.Clone(card).(*a2av1.AgentCard)
	agent.ExtendedCard.Skills = append(agent.ExtendedCard.Skills, &a2av1.AgentSkill{Id: "secret", Name: "Secret", Description: "Only for callers who asked.", Tags: []string{"demo"}})

	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(card))
	mux.Handle("/a2a/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(agent))
	mux.Handle("/a2a/rest/", a2av1.NewA2AServiceRESTHandler(agent)) // the subtree prefix is stripped automatically
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Shutdown
	defer srv.Close()
	gsrv := grpc.NewServer()
	a2av1.RegisterA2AServiceGRPC(gsrv, agent)
	go gsrv.Serve(gln) //nolint:errcheck // Serve returns after Stop
	defer gsrv.Stop()

	fmt.Fprintf(out, "serving  %s%s (agent card)\n", base, runtime.AgentCardPath)
	for _, in := range card.GetSupportedInterfaces() {
		fmt.Fprintf(out, "         %-10s %s\n", in.GetProtocolBinding(), in.GetUrl())
	}
	ctx := context.Background()
	for _, binding := range runtime.Bindings() {
		c, err := agentcard.Discover(ctx, base, agentcard.WithBindings(binding))
		if err != nil {
			return fmt.Errorf("discover a %s interface: %w", binding, err)
		}
		fmt.Fprintf(out, "\n== %s client for %s (chosen from the card)\n", binding, c.Interface.GetUrl())
		err = exchange(ctx, c, out)
		c.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", binding, err)
		}
	}
	if !serve {
		return nil
	}
	fmt.Fprintln(out, "\nserving until interrupted (Ctrl-C)")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	<-sig
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	gsrv.GracefulStop()
	return srv.Shutdown(ctx)
}

// exchange calls every operation once and prints a line for each.
func exchange(ctx context.Context, c a2av1.A2AServiceClient, out io.Writer) error {
	step := 0
	show := func(op string, m proto.Message, err error) error {
		step++
		if err != nil {
			fmt.Fprintf(out, "%2d. %-33s error: %v\n", step, op, err)
			return nil
		}
		b, _ := protojson.Marshal(m)
		if len(b) > 150 {
			b = append(b[:147], "..."...)
		}
		fmt.Fprintf(out, "%2d. %-33s %s\n", step, op, b)
		return nil
	}

	sent, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
	show("SendMessage", sent, err)
	if err != nil {
		return fmt.Errorf("SendMessage: %w", err)
	}
	done := sent.GetTask()
	if !done.GetStatus().GetState().Terminal() {
		return fmt.Errorf("SendMessage(hello) answered %s, want a finished task", sent.State().Short())
	}

	var last *a2av1.StreamResponse
	n := 0
	for ev, err := range c.SendStreamingMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("stream me"))) {
		if err != nil {
			return fmt.Errorf("SendStreamingMessage: %w", err)
		}
		n++
		last = ev
	}
	show(fmt.Sprintf("SendStreamingMessage (%d events)", n), last, nil)

	got, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: done.GetId(), HistoryLength: proto.Int32(1)})
	show("GetTask", got, err)
	list, err := c.ListTasks(ctx, &a2av1.ListTasksRequest{PageSize: proto.Int32(10)})
	show("ListTasks", list, err)

	waiting, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("input")))
	if err != nil {
		return fmt.Errorf("SendMessage(input): %w", err)
	}
	open := waiting.GetTask()
	for ev, err := range c.SubscribeToTask(ctx, &a2av1.SubscribeToTaskRequest{Id: open.GetId()}) {
		show("SubscribeToTask", ev, err)
	}
	canceled, err := c.CancelTask(ctx, &a2av1.CancelTaskRequest{Id: open.GetId()})
	show("CancelTask", canceled, err)

	cfg, err := c.CreateTaskPushNotificationConfig(ctx, &a2av1.TaskPushNotificationConfig{TaskId: done.GetId(), Url: "https://example.invalid/webhook", Token: "t0k3n"})
	show("CreateTaskPushNotificationConfig", cfg, err)
	if err != nil {
		return fmt.Errorf("CreateTaskPushNotificationConfig: %w", err)
	}
	one, err := c.GetTaskPushNotificationConfig(ctx, &a2av1.GetTaskPushNotificationConfigRequest{TaskId: done.GetId(), Id: cfg.GetId()})
	show("GetTaskPushNotificationConfig", one, err)
	all, err := c.ListTaskPushNotificationConfigs(ctx, &a2av1.ListTaskPushNotificationConfigsRequest{TaskId: done.GetId()})
	show("ListTaskPushNotificationConfigs", all, err)
	card, err := c.GetExtendedAgentCard(ctx, &a2av1.GetExtendedAgentCardRequest{})
	show("GetExtendedAgentCard", card, err)
	empty, err := c.DeleteTaskPushNotificationConfig(ctx, &a2av1.DeleteTaskPushNotificationConfigRequest{TaskId: done.GetId(), Id: cfg.GetId()})
	show("DeleteTaskPushNotificationConfig", empty, err)

	_, err = c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "no-such-task"})
	if !errors.Is(err, runtime.ErrTaskNotFound) {
		return fmt.Errorf("GetTask(unknown) = %v, want TaskNotFound", err)
	}
	fmt.Fprintf(out, "\nand errors come back typed: GetTask(no-such-task) → %v\n", err)
	return nil
}
