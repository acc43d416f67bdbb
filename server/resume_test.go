package server_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// resumeHeader is the header (gRPC: metadata key) a binding's client names
// the last generation it received in.
func resumeHeader(b binding) string {
	if b.name == runtime.BindingGRPC {
		return runtime.MetadataLastEventID
	}
	return runtime.HeaderLastEventID
}

// TestResumeReplaysMissed: SubscribeToTask with the last generation a
// client received replays exactly the events after it from the store's
// log (the task is terminal by then: a resumed stream gets the end it
// missed), nothing when it had them all, and the snapshot when it names
// no generation of the log; a 1.0 call ignores the header.
func TestResumeReplaysMissed(t *testing.T) {
	forEachBinding(t, func(t *testing.T, b binding) {
		e := newEnv(t, b, nil, nil)
		full, err := collect(e.client11().SendStreamingMessage(ctxT(t), &a2av1.SendMessageRequest{Message: userMsg("stream 5")}))
		if err != nil || len(full) != 8 {
			t.Fatalf("stream 5: %d events, %v", len(full), err)
		}
		id := full[0].GetTask().GetId()
		last := generationOf(full[len(full)-1])
		for _, after := range []int64{1, 4, last - 1} {
			c := e.client(runtime.WithProtocolVersion("1.1"), runtime.WithHeader(resumeHeader(b), strconv.FormatInt(after, 10)))
			evs, err := collect(c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: id}))
			if err != nil {
				t.Fatalf("resume after %d: %v", after, err)
			}
			want := full[after:] // full[i] is at generation i+1
			if len(evs) != len(want) {
				t.Fatalf("resume after %d: %s; want the %d events after it", after, describeAll(evs), len(want))
			}
			for i := range evs {
				if !proto.Equal(evs[i], want[i]) {
					t.Fatalf("resume after %d: event %d is %s, want %s", after, i, describe(evs[i]), describe(want[i]))
				}
			}
		}
		c := e.client(runtime.WithProtocolVersion("1.1"), runtime.WithHeader(resumeHeader(b), strconv.FormatInt(last, 10)))
		if evs, err := collect(c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: id})); err != nil || len(evs) != 0 {
			t.Fatalf("resume after the last generation: %s, %v; want an empty stream", describeAll(evs), err)
		}
		for _, after := range []int64{0, last + 5} {
			c := e.client(runtime.WithProtocolVersion("1.1"), runtime.WithHeader(resumeHeader(b), strconv.FormatInt(after, 10)))
			evs, err := collect(c.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: id}))
			if err != nil || len(evs) != 1 || evs[0].GetTask().GetGeneration() != last {
				t.Fatalf("resume after %d (no generation of the log): %s, %v; want the task's snapshot", after, describeAll(evs), err)
			}
		}
		bad := e.client(runtime.WithProtocolVersion("1.1"), runtime.WithHeader(resumeHeader(b), "x1"))
		_, err = collect(bad.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: id}))
		if e := (*runtime.Error)(nil); !errors.As(err, &e) || e.Code() != runtime.CodeInvalidParams {
			t.Fatalf("resume after x1: %v, want InvalidParams", err)
		}
		old := e.client(runtime.WithHeader(resumeHeader(b), "3"))
		_, err = collect(old.SubscribeToTask(ctxT(t), &a2av1.SubscribeToTaskRequest{Id: id}))
		if e := (*runtime.Error)(nil); !errors.As(err, &e) || e.Code() != runtime.CodeUnsupportedOperation {
			t.Fatalf("a 1.0 call with %s on a terminal task: %v, want UnsupportedOperation (the header is 1.1's)", resumeHeader(b), err)
		}
	})
}

// sseIDs posts body to url with A2A-Version version (none when empty) and
// returns the id fields and the number of events of the SSE answer.
func sseIDs(t *testing.T, url, version, body string) (ids []string, events int) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxT(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			ids = append(ids, strings.TrimPrefix(line, "id: "))
		case strings.HasPrefix(line, "data: "):
			events++
		}
	}
	return ids, events
}

// TestSSEEventIDs: on both HTTP bindings every event of a 1.1 stream has
// the generation as its SSE id (the task snapshot's first, then +1 each),
// and a 1.0 stream, whose events carry no generation, has none.
func TestSSEEventIDs(t *testing.T) {
	srv, err := server.New(echoCard(), &echo.Agent{ChunkInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	mux := http.NewServeMux()
	mux.Handle("/rpc", a2av1.NewA2AServiceJSONRPCHandler(srv, bothVersions))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2av1.NewA2AServiceRESTHandler(srv, bothVersions)))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	msg := func() string {
		return `{"message":{"messageId":"` + userMsg("").GetMessageId() + `","role":"ROLE_USER","parts":[{"text":"stream 3"}]}}`
	}
	for _, tc := range []struct {
		name      string
		url, body func() string
	}{
		{"JSONRPC", func() string { return ts.URL + "/rpc" }, func() string {
			return `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":` + msg() + `}`
		}},
		{"HTTP+JSON", func() string { return ts.URL + "/rest/message:stream" }, msg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, events := sseIDs(t, tc.url(), "1.1", tc.body())
			if events < 3 || len(ids) != events {
				t.Fatalf("1.1 stream: %d events, ids %v; want an id on every event", events, ids)
			}
			for i, id := range ids {
				if id != strconv.Itoa(i+1) {
					t.Fatalf("1.1 stream: ids %v, want 1, 2, 3, …", ids)
				}
			}
			if ids, events := sseIDs(t, tc.url(), "1.0", tc.body()); events < 3 || len(ids) != 0 {
				t.Fatalf("1.0 stream: %d events, ids %v; want none", events, ids)
			}
		})
	}
}
