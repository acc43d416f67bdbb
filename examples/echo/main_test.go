package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

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
			got, err := c.SendMessage(cctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
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
			if !errors.Is(err, runtime.ErrUnauthenticated) {
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
	case runtime.BindingHTTPJSON:
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
		{"--max-terminal-tasks", "-1"},
		{"--terminal-task-ttl", "-1s"},
		{"--interrupted-task-ttl", "-1s"},
		{"--run-lease", "500ms"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
	c, err := parseFlags([]string{"--rest-path", "/r/"}, io.Discard)
	if err != nil || c.restPath != "/r" || c.httpAddr != "127.0.0.1:8080" || c.grpcAddr != "127.0.0.1:8081" ||
		c.store != "memory" || c.terminalTaskTTL != 24*time.Hour || c.maxTerminalTasks != 10000 || c.interruptedTaskTTL != 24*time.Hour || c.runLease != 30*time.Second {
		t.Fatalf("parseFlags = %+v, %v", c, err)
	}
}

// startEcho runs the command with args and returns its JSON-RPC URL and a
// function that stops it and returns run's error.
func startEcho(t *testing.T, args ...string) (jsonrpcURL string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"--http", "127.0.0.1:0", "--grpc", ""}, args...), pw, io.Discard)
		pw.CloseWithError(err)
		done <- err
	}()
	lines := bufio.NewScanner(pr)
	var store string
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		switch {
		case len(f) == 2 && f[0] == runtime.BindingJSONRPC:
			jsonrpcURL = f[1]
		case len(f) == 2 && f[0] == "store":
			store = f[1]
		}
		if store != "" {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	stop = func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("echo still running 10s after its context was canceled")
			return nil
		}
	}
	if jsonrpcURL == "" || store == "" {
		stop()
		t.Fatalf("echo %q printed no JSON-RPC and store lines (%v)", args, lines.Err())
	}
	t.Cleanup(cancel)
	return jsonrpcURL, stop
}

// TestStoreKeepsTasksAcrossRuns: with --store sqlite:FILE a task finished
// in one run is still there, unchanged, in the next run on the same file.
func TestStoreKeepsTasksAcrossRuns(t *testing.T) {
	storeURL := "sqlite:" + filepath.Join(t.TempDir(), "echo.db")
	ctx := context.Background()

	url, stop := startEcho(t, "--store", storeURL)
	resp, err := a2av1.NewA2AServiceJSONRPCClient(url).SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hello")))
	if err != nil {
		t.Fatal(err)
	}
	first := resp.GetTask()
	if first.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || len(first.GetArtifacts()) == 0 {
		t.Fatalf("hello answered %v, want a completed task with artifacts", first)
	}
	if err := stop(); err != nil {
		t.Fatalf("first run: %v", err)
	}

	url, stop = startEcho(t, "--store", storeURL)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("second run: %v", err)
		}
	}()
	got, err := a2av1.NewA2AServiceJSONRPCClient(url).GetTask(ctx, &a2av1.GetTaskRequest{Id: first.GetId()})
	if err != nil {
		t.Fatalf("GetTask in the second run: %v", err)
	}
	if got.GetStatus().GetState() != a2av1.TaskState_TASK_STATE_COMPLETED || !proto.Equal(&a2av1.Task{Artifacts: got.GetArtifacts()}, &a2av1.Task{Artifacts: first.GetArtifacts()}) {
		t.Errorf("GetTask in the second run = %v\nwant the completed task %v", got, first)
	}
}

// TestStrictVersion: with --strict-version a request without A2A-Version is
// refused as 0.3 naming the version to send; with the header it is served.
// Without the flag the same request is served as 1.0.
func TestStrictVersion(t *testing.T) {
	ctx := context.Background()
	get := func(url string, opts ...runtime.ClientOption) error {
		t.Helper()
		// A bare transport sends no A2A-Version unless told.
		c := a2av1.NewA2AServiceClient(runtime.NewJSONRPCTransport(url, opts...))
		_, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "no-such-task"})
		return err
	}
	url, stop := startEcho(t, "--strict-version")
	err := get(url)
	if !errors.Is(err, runtime.ErrVersionNotSupported) || !strings.Contains(err.Error(), "send A2A-Version: 1.0") {
		t.Errorf("strict, no header: %v, want VersionNotSupported asking for A2A-Version: 1.0", err)
	}
	if err := get(url, runtime.WithProtocolVersion("1.0")); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Errorf("strict, A2A-Version 1.0: %v, want TaskNotFound (served)", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	url, stop = startEcho(t)
	defer stop()
	if err := get(url); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Errorf("lenient, no header: %v, want TaskNotFound (served as 1.0)", err)
	}
}

// TestBadStore: a store that cannot be opened is an error naming it.
func TestBadStore(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{"nonsense", "sqlite:" + file + "/echo.db", "postgres://u:secret@h/db"} {
		err := run(context.Background(), []string{"--http", "127.0.0.1:0", "--grpc", "", "--store", store}, io.Discard, io.Discard)
		if err == nil || !strings.HasPrefix(err.Error(), "store "+strings.Replace(store, "secret", "xxxxx", 1)+": ") {
			t.Errorf("--store %s: %v, want an error naming the store", store, err)
		}
	}
}

// TestV11Draft: with --v11-draft the card lists a 1.1 interface next to
// each 1.0 one and a call of A2A-Version 1.1 is served; without it, such a
// call is refused with VersionNotSupported naming 1.0.
func TestV11Draft(t *testing.T) {
	ctx := context.Background()
	send := func(url string) error {
		t.Helper()
		c := a2av1.NewA2AServiceJSONRPCClient(url, runtime.WithProtocolVersion("1.1"))
		_, err := c.GetTask(ctx, &a2av1.GetTaskRequest{Id: "no-such-task"})
		return err
	}
	url, stop := startEcho(t)
	if err := send(url); !errors.Is(err, runtime.ErrVersionNotSupported) {
		t.Errorf("without --v11-draft, A2A-Version 1.1: %v, want VersionNotSupported", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	url, stop = startEcho(t, "--v11-draft")
	defer stop()
	if err := send(url); !errors.Is(err, runtime.ErrTaskNotFound) {
		t.Errorf("--v11-draft, A2A-Version 1.1: %v, want TaskNotFound (served)", err)
	}
	resp, err := http.Get(strings.TrimSuffix(url, "/a2a/jsonrpc") + runtime.AgentCardPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	card := new(a2av1.AgentCard)
	if err := runtime.UnmarshalJSON(body, card); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, itf := range card.GetSupportedInterfaces() {
		count[itf.GetProtocolVersion()]++
	}
	if count["1.0"] == 0 || count["1.1"] != count["1.0"] || len(count) != 2 {
		t.Errorf("card interfaces by version %v, want as many 1.1 as 1.0", count)
	}
}
