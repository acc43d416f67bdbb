// Command sdkpeer03 is the official Go SDK's A2A v0.3 line
// (github.com/a2aproject/a2a-go v0.3.15, the old module path, the newest
// v0.3.x the module proxy serves) on the other side of a2agen's interop
// tests. It is a module of its own: its types would clash with the v2 SDK's
// in ./sdkpeer, and it imports nothing of a2agen's.
//
// Usage:
//
//	sdkpeer03 serve   [-http 127.0.0.1:0] [-grpc 127.0.0.1:0]
//	sdkpeer03 webhook [-http 127.0.0.1:0]
//
// serve runs the examples/echo contract as a v0.3 AgentExecutor behind the
// SDK's JSON-RPC handler (a2asrv.NewJSONRPCHandler) and gRPC handler
// (a2agrpc, a2a.v1.A2AService of the v0.3 proto), with its v0.3 card, an
// extended card and its HTTP push sender; the v0.3 line serves no
// HTTP+JSON. It prints "card URL", "jsonrpc URL" and "grpc host:port" and
// serves until standard input closes or SIGTERM arrives.
//
// webhook is a push notification receiver built as a v0.3 SDK user builds
// one: it decodes every POST body into the SDK's a2a.Task, as the SDK's own
// sender (a2asrv/push) posts it. It prints "webhook URL" and answers
// GET /received with what it decoded, one entry per delivery.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2agrpc"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"
	"github.com/a2aproject/a2a-go/a2asrv/push"
	"google.golang.org/grpc"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sdkpeer03 serve|webhook [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "webhook":
		err = webhook(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "sdkpeer03: unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sdkpeer03 %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// waitForStop returns when standard input ends or SIGTERM/SIGINT arrives.
func waitForStop() {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); done <- struct{}{} }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-done:
	case <-sig:
	}
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	httpAddr := fs.String("http", "127.0.0.1:0", "address for the JSON-RPC handler and the card")
	grpcAddr := fs.String("grpc", "127.0.0.1:0", "address for gRPC")
	if err := fs.Parse(args); err != nil {
		return err
	}
	httpLn, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return err
	}
	grpcLn, err := net.Listen("tcp", *grpcAddr)
	if err != nil {
		return err
	}
	base := "http://" + httpLn.Addr().String()
	card := &a2a.AgentCard{
		Name:               "echo",
		Description:        "The echo contract of a2agen examples/echo, served by the official Go SDK's v0.3 line.",
		URL:                base + "/a2a/jsonrpc",
		PreferredTransport: a2a.TransportProtocolJSONRPC,
		AdditionalInterfaces: []a2a.AgentInterface{
			{Transport: a2a.TransportProtocolJSONRPC, URL: base + "/a2a/jsonrpc"},
			{Transport: a2a.TransportProtocolGRPC, URL: grpcLn.Addr().String()},
		},
		ProtocolVersion:                   "0.3.0",
		Version:                           "1.0.0",
		Capabilities:                      a2a.AgentCapabilities{Streaming: true, PushNotifications: true},
		DefaultInputModes:                 []string{"text/plain"},
		DefaultOutputModes:                []string{"text/plain"},
		Skills:                            []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "Replies with the text it received.", Tags: []string{"echo"}}},
		SupportsAuthenticatedExtendedCard: true,
	}
	extended := *card
	extended.Skills = append(append([]a2a.AgentSkill(nil), card.Skills...),
		a2a.AgentSkill{ID: "echo-extended", Name: "Echo (extended)", Description: "Only on the extended card.", Tags: []string{"echo"}})

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	handler := a2asrv.NewHandler(&echoAgent{},
		a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: 10 * time.Second})),
		a2asrv.WithExtendedAgentCard(&extended),
		a2asrv.WithLogger(logger))

	mux := http.NewServeMux()
	mux.Handle("/.well-known/agent-card.json", a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/a2a/jsonrpc", a2asrv.NewJSONRPCHandler(handler))
	httpSrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = httpSrv.Serve(httpLn) }()
	grpcSrv := grpc.NewServer()
	a2agrpc.NewHandler(handler).RegisterWith(grpcSrv)
	go func() { _ = grpcSrv.Serve(grpcLn) }()

	fmt.Printf("card %s/.well-known/agent-card.json\njsonrpc %s/a2a/jsonrpc\ngrpc %s\n", base, base, grpcLn.Addr())
	waitForStop()
	grpcSrv.Stop()
	return httpSrv.Close()
}

// received is one delivery as the webhook decoded it.
type received struct {
	Kind    string `json:"kind"`            // the body's kind member
	TaskID  string `json:"taskId"`          // the decoded a2a.Task's id
	State   string `json:"state"`           // its status.state
	Token   string `json:"token,omitempty"` // X-A2A-Notification-Token
	Auth    string `json:"authorization,omitempty"`
	Problem string `json:"problem,omitempty"` // why the body is no Task
}

func webhook(args []string) error {
	fs := flag.NewFlagSet("webhook", flag.ContinueOnError)
	addr := fs.String("http", "127.0.0.1:0", "address to listen on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	var got []received
	mux := http.NewServeMux()
	mux.HandleFunc("POST /push", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		rec := received{Token: r.Header.Get("X-A2A-Notification-Token"), Auth: r.Header.Get("Authorization")}
		var kind struct {
			Kind string `json:"kind"`
		}
		_ = json.Unmarshal(body, &kind)
		rec.Kind = kind.Kind
		var task a2a.Task
		switch err := json.Unmarshal(body, &task); {
		case err != nil:
			rec.Problem = err.Error()
		case task.ID == "":
			rec.Problem = fmt.Sprintf("not a Task (no id): %.200s", body)
		default:
			rec.TaskID, rec.State = string(task.ID), string(task.Status.State)
		}
		mu.Lock()
		got = append(got, rec)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("GET /received", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(got)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("webhook http://%s/push\n", ln.Addr())
	waitForStop()
	return srv.Close()
}

// echoAgent is the echo contract of examples/echo as a v0.3 AgentExecutor.
type echoAgent struct{}

var _ a2asrv.AgentExecutor = (*echoAgent)(nil)

func (*echoAgent) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	text := strings.TrimSpace(messageText(rc.Message))
	echo := "Echo: " + text
	write := func(evs ...a2a.Event) error {
		for _, ev := range evs {
			if err := q.Write(ctx, ev); err != nil {
				return err
			}
		}
		return nil
	}
	if rc.StoredTask != nil && rc.StoredTask.Status.State == a2a.TaskStateInputRequired {
		return write(wholeArtifact(rc, echo), final(rc, a2a.TaskStateCompleted, nil))
	}
	fields := strings.Fields(text)
	word, arg := "", ""
	if len(fields) > 0 {
		word = strings.ToLower(fields[0])
	}
	if len(fields) > 1 {
		arg = fields[1]
	}
	if word == "message" {
		reply := a2a.NewMessage(a2a.MessageRoleAgent, a2a.TextPart{Text: echo})
		reply.ContextID = rc.ContextID
		return write(reply)
	}
	if rc.StoredTask == nil {
		if err := write(a2a.NewSubmittedTask(rc, rc.Message)); err != nil {
			return err
		}
	}
	switch word {
	case "stream":
		n, err := strconv.Atoi(arg)
		if err != nil {
			n = 3
		}
		n = min(max(n, 1), 50)
		if err := write(a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, nil)); err != nil {
			return err
		}
		id := a2a.NewArtifactID()
		for i := 1; i <= n; i++ {
			if i > 1 && !sleep(ctx, 10*time.Millisecond) {
				return nil
			}
			if err := write(&a2a.TaskArtifactUpdateEvent{TaskID: rc.TaskID, ContextID: rc.ContextID, Append: i > 1, LastChunk: i == n,
				Artifact: &a2a.Artifact{ID: id, Parts: a2a.ContentParts{a2a.TextPart{Text: fmt.Sprintf("chunk %d/%d;", i, n)}}}}); err != nil {
				return err
			}
		}
		return write(final(rc, a2a.TaskStateCompleted, nil))
	case "input":
		return write(final(rc, a2a.TaskStateInputRequired, agentMessage(rc, "Echo needs more input: reply with any text to complete the task.")))
	case "slow":
		ms, err := strconv.Atoi(arg)
		if err != nil {
			ms = 1000
		}
		if err := write(a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, nil)); err != nil {
			return err
		}
		if !sleep(ctx, time.Duration(min(max(ms, 0), 600000))*time.Millisecond) {
			return nil
		}
		return write(wholeArtifact(rc, echo), final(rc, a2a.TaskStateCompleted, nil))
	case "fail":
		return write(a2a.NewStatusUpdateEvent(rc, a2a.TaskStateWorking, nil), final(rc, a2a.TaskStateFailed, agentMessage(rc, "Echo failed the task as asked.")))
	case "reject":
		return write(final(rc, a2a.TaskStateRejected, agentMessage(rc, "Echo rejected the task as asked.")))
	default:
		return write(wholeArtifact(rc, echo), final(rc, a2a.TaskStateCompleted, nil))
	}
}

func (*echoAgent) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	return q.Write(ctx, final(rc, a2a.TaskStateCanceled, agentMessage(rc, "Echo canceled the task.")))
}

// final is a status update that ends the execution (v0.3's final flag).
func final(rc *a2asrv.RequestContext, state a2a.TaskState, msg *a2a.Message) *a2a.TaskStatusUpdateEvent {
	ev := a2a.NewStatusUpdateEvent(rc, state, msg)
	ev.Final = true
	return ev
}

func wholeArtifact(rc *a2asrv.RequestContext, text string) *a2a.TaskArtifactUpdateEvent {
	ev := a2a.NewArtifactEvent(rc, a2a.TextPart{Text: text})
	ev.LastChunk = true
	return ev
}

func agentMessage(rc *a2asrv.RequestContext, text string) *a2a.Message {
	return a2a.NewMessageForTask(a2a.MessageRoleAgent, rc, a2a.TextPart{Text: text})
}

func messageText(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(a2a.TextPart); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
