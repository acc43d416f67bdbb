package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestEchoCommand starts the command on free ports, reads its endpoint lines,
// checks the card and calls the agent over every interface it lists.
func TestEchoCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--token", "s3cret"}, pw, io.Discard)
		pw.Close()
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()

	lines := bufio.NewScanner(pr)
	var endpoints [][2]string
	for len(endpoints) < 4 && lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) < 2 {
			t.Fatalf("unexpected output line %q", lines.Text())
		}
		endpoints = append(endpoints, [2]string{strings.Join(f[:len(f)-1], " "), f[len(f)-1]})
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if len(endpoints) != 4 || endpoints[0][0] != "agent card" {
		t.Fatalf("endpoint lines %v, want the card first, then three interfaces", endpoints)
	}

	resp, err := http.Get(endpoints[0][1])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	card := new(a2av1.AgentCard)
	if err := runtime.UnmarshalJSON(body, card); err != nil {
		t.Fatalf("card %s: %v", body, err)
	}
	caps := card.GetCapabilities()
	if !caps.GetStreaming() || !caps.GetPushNotifications() || !caps.GetExtendedAgentCard() {
		t.Fatalf("capabilities %v, want all three true", caps)
	}
	if len(card.GetSupportedInterfaces()) != 3 {
		t.Fatalf("card lists %d interfaces, want 3", len(card.GetSupportedInterfaces()))
	}
	for i, itf := range card.GetSupportedInterfaces() {
		if itf.GetProtocolVersion() != "1.0" || itf.GetProtocolBinding() != endpoints[i+1][0] || itf.GetUrl() != endpoints[i+1][1] {
			t.Fatalf("interface %d = %v, printed %v", i, itf, endpoints[i+1])
		}
		if itf.GetProtocolBinding() == runtime.BindingGRPC && strings.Contains(itf.GetUrl(), "://") {
			t.Fatalf("gRPC url %q, want host:port", itf.GetUrl())
		}
	}

	for _, itf := range card.GetSupportedInterfaces() {
		t.Run(itf.GetProtocolBinding(), func(t *testing.T) {
			c := clientFor(t, itf, runtime.WithHeader("Authorization", "Bearer s3cret"))
			cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
			defer ccancel()
			got, err := c.SendMessage(cctx, &a2av1.SendMessageRequest{Message: &a2av1.Message{
				MessageId: "m-" + itf.GetProtocolBinding(), Role: a2av1.Role_ROLE_USER, Parts: []*a2av1.Part{server.TextPart("hello")}}})
			if err != nil {
				t.Fatal(err)
			}
			task := got.GetTask()
			if task.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED ||
				server.MessageText(&a2av1.Message{Parts: task.GetArtifacts()[0].GetParts()}) != "Echo: hello" {
				t.Fatalf("hello answered %v", task)
			}
			ext, err := c.GetExtendedAgentCard(cctx, &a2av1.GetExtendedAgentCardRequest{})
			if err != nil || len(ext.GetSkills()) != len(card.GetSkills())+1 {
				t.Fatalf("extended card %v, %v; want one more skill", ext, err)
			}
			_, err = clientFor(t, itf, runtime.WithHeader("Authorization", "Bearer wrong")).GetExtendedAgentCard(cctx, &a2av1.GetExtendedAgentCardRequest{})
			if e := runtime.AsError(err); e == nil || e.Code() != runtime.CodeUnauthenticated {
				t.Fatalf("wrong token: %v, want Unauthenticated", err)
			}
		})
	}
}

func clientFor(t *testing.T, itf *a2av1.AgentInterface, opts ...runtime.ClientOption) a2av1.A2AServiceClient {
	t.Helper()
	switch itf.GetProtocolBinding() {
	case runtime.BindingJSONRPC:
		return a2av1.NewA2AServiceJSONRPCClient(itf.GetUrl(), opts...)
	case runtime.BindingREST:
		return a2av1.NewA2AServiceRESTClient(itf.GetUrl(), opts...)
	case runtime.BindingGRPC:
		c, err := a2av1.NewA2AServiceGRPCClient(itf.GetUrl(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	t.Fatalf("unknown binding %q", itf.GetProtocolBinding())
	return nil
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--rest-path", "/x", "--jsonrpc-path", "/x"},
		{"--rest-path", "/"},
		{"--jsonrpc-path", "relative"},
		{"extra"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
	c, err := parseFlags([]string{"--rest-path", "/r/"}, io.Discard)
	if err != nil || c.restPath != "/r" || c.httpAddr != "127.0.0.1:8080" || c.grpcAddr != "127.0.0.1:8081" {
		t.Fatalf("parseFlags = %+v, %v", c, err)
	}
}
