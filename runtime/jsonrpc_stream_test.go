package runtime

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
)

// collect ranges over a stream and returns the seq of every message and the
// error that ended it.
func collect(t *testing.T, seq func(func(proto.Message, error) bool)) ([]int32, error) {
	t.Helper()
	var got []int32
	for m, err := range seq {
		if err != nil {
			return got, err
		}
		got = append(got, getInt(m, "seq"))
	}
	return got, nil
}

func TestJSONRPCClientStream(t *testing.T) {
	srv := newTestServer(t)
	c := newTestClient(srv)
	for _, tc := range []struct {
		name    string
		params  string
		want    []int32
		wantErr *Error
	}{
		{"events in order", `{"count":5}`, []int32{0, 1, 2, 3, 4}, nil},
		{"no events", `{"count":0}`, nil, nil},
		{"error mid-stream", `{"count":4,"fail":"TaskNotCancelable","failAfter":2}`, []int32{0, 1}, ErrTaskNotCancelable},
		{"error after the last event", `{"count":2,"fail":"UnsupportedOperation","failAfter":2}`, []int32{0, 1}, ErrUnsupportedOperation},
		{"error before the first event", `{"count":4,"fail":"TaskNotFound","failAfter":0}`, nil, ErrTaskNotFound},
		{"panic mid-stream", `{"count":4,"fail":"panic","failAfter":1}`, []int32{0}, ErrInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := collect(t, c.Stream(context.Background(), testOp("Stream"), newMessage(t, mdRequest, tc.params), newResponse))
			if !slices.Equal(got, tc.want) {
				t.Errorf("events %v, want %v", got, tc.want)
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestJSONRPCClientStreamSendsAcceptEventStream(t *testing.T) {
	srv, rec := newRecordingServer(t)
	if _, err := collect(t, newTestClient(srv).Stream(context.Background(), testOp("Stream"), newMessage(t, mdRequest, `{"count":1}`), newResponse)); err != nil {
		t.Fatal(err)
	}
	if _, h := rec.last(); h.Get("Accept") != "text/event-stream" {
		t.Errorf("Accept %q", h.Get("Accept"))
	}
}

func TestJSONRPCClientStreamFromOtherServers(t *testing.T) {
	const ev0 = `{"jsonrpc":"2.0","id":%ID%,"result":{"seq":0}}`
	const ev1 = `{"jsonrpc":"2.0","id":%ID%,"result":{"seq":1}}`
	const evErr = `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32001,"message":"gone","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`
	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		want        []int32
		wantErr     *Error
	}{
		{"official SDK pre-stream error: 200 SSE with one error event", "text/event-stream",
			"id: 4b1c\r\n: keep-alive\r\ndata: " + evErr + "\r\n\r\n", nil, ErrTaskNotFound},
		{"data without a space, event names, ids, retry", "text/event-stream; charset=utf-8",
			"retry: 100\nevent: message\nid: 1\ndata:" + ev0 + "\n\n: comment\n\nevent: message\ndata: " + ev1 + "\n\n", []int32{0, 1}, nil},
		{"JSON split over data lines", "text/event-stream",
			"data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":%ID%,\ndata: \"result\":{\"seq\":0}}\n\n", []int32{0}, nil},
		{"last event without a blank line", "text/event-stream", "data: " + ev0 + "\n\ndata: " + ev1, []int32{0, 1}, nil},
		{"pre-stream error as application/json", "application/json", evErr, nil, ErrTaskNotFound},
		{"single JSON result instead of a stream", "application/json", ev0, nil, ErrInvalidAgentResponse},
		{"event that is not JSON", "text/event-stream", "data: " + ev0 + "\n\ndata: hello\n\n", []int32{0}, ErrInvalidAgentResponse},
		{"event with a wrong id", "text/event-stream", `data: {"jsonrpc":"2.0","id":"zz","result":{}}` + "\n\n", nil, ErrInvalidAgentResponse},
		{"event without result", "text/event-stream", `data: {"jsonrpc":"2.0","id":%ID%}` + "\n\n", nil, ErrInvalidAgentResponse},
		{"unexpected content type", "text/html", "<html>", nil, ErrInvalidAgentResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeServer(t, 200, tc.contentType, tc.body)
			got, err := collect(t, newTestClient(srv).Stream(context.Background(), testOp("Stream"), newMessage(t, mdRequest, `{}`), newResponse))
			if !slices.Equal(got, tc.want) {
				t.Errorf("events %v, want %v", got, tc.want)
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestJSONRPCClientStreamEventTooLarge(t *testing.T) {
	srv := fakeServer(t, 200, "text/event-stream", `data: {"jsonrpc":"2.0","id":%ID%,"result":{"text":"`+strings.Repeat("x", 200)+`"}}`+"\n\n")
	_, err := collect(t, newTestClient(srv, WithMaxResponseBytes(100)).Stream(context.Background(), testOp("Stream"), newMessage(t, mdRequest, `{}`), newResponse))
	if !errors.Is(err, ErrInvalidAgentResponse) {
		t.Errorf("got %v, want InvalidAgentResponse", err)
	}
}

func TestJSONRPCClientStreamHTTPError(t *testing.T) {
	srv := fakeServer(t, http.StatusUnauthorized, "text/plain", "who are you")
	_, err := collect(t, newTestClient(srv).Stream(context.Background(), testOp("Stream"), newMessage(t, mdRequest, `{}`), newResponse))
	if !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "who are you") {
		t.Errorf("got %v", err)
	}
}

// streamTestServer serves the fixture with a dedicated client transport, so
// that the leak check can close every connection.
func streamTestServer(t *testing.T, blockDone chan<- error) (*httptest.Server, *http.Transport, ClientTransport) {
	srv := httptest.NewServer(NewJSONRPCHandler(newTestService(blockDone), WithLogger(slogDiscard())))
	tr := &http.Transport{}
	return srv, tr, NewJSONRPCTransport(srv.URL, WithHTTPClient(&http.Client{Transport: tr}))
}

// waitHandlerEnd waits (generously) for the Block handler to see its context
// end and checks that Send then failed.
func waitHandlerEnd(t *testing.T, blockDone <-chan error) {
	t.Helper()
	select {
	case err := <-blockDone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Send after the client left returned %v, want an error wrapping context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server handler's context was not cancelled after the client left")
	}
}

func TestJSONRPCStreamClientStopsRanging(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	blockDone := make(chan error, 1)
	srv, tr, c := streamTestServer(t, blockDone)
	defer srv.Close()
	defer tr.CloseIdleConnections()

	n := 0
	for m, err := range c.Stream(context.Background(), testOp("Block"), newMessage(t, mdRequest, `{}`), newResponse) {
		if err != nil {
			t.Fatal(err)
		}
		if getString(m, "text") != "first" {
			t.Errorf("event %v", m)
		}
		n++
		break
	}
	if n != 1 {
		t.Fatalf("got %d events", n)
	}
	waitHandlerEnd(t, blockDone)
}

func TestJSONRPCStreamClientCancels(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	blockDone := make(chan error, 1)
	srv, tr, c := streamTestServer(t, blockDone)
	defer srv.Close()
	defer tr.CloseIdleConnections()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var events int
	var last error
	for _, err := range c.Stream(ctx, testOp("Block"), newMessage(t, mdRequest, `{}`), newResponse) {
		if err != nil {
			last = err
			continue
		}
		events++
		cancel()
	}
	if events != 1 || !errors.Is(last, context.Canceled) {
		t.Errorf("got %d events and %v, want 1 event then context.Canceled", events, last)
	}
	waitHandlerEnd(t, blockDone)
}
