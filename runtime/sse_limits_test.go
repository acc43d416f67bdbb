package runtime

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// streamService serves Stream with body: the test's own streaming handler.
func streamService(body func(ctx context.Context, s Stream[*dynamicpb.Message]) error) *Service {
	newReq := func() *dynamicpb.Message { return dynamicpb.NewMessage(mdRequest) }
	return NewService(restTestDesc,
		NewStreamEndpoint(restTestDesc.Operation("Stream"), newReq, func(ctx context.Context, _ *dynamicpb.Message, s Stream[*dynamicpb.Message]) error {
			return body(ctx, s)
		}),
	)
}

func textResponse(text string) *dynamicpb.Message {
	m := dynamicpb.NewMessage(mdResponse)
	m.Set(mdResponse.Fields().ByName("text"), protoreflect.ValueOfString(text))
	return m
}

// sseBindings are the two HTTP bindings with the raw request of a Stream
// call on each.
var sseBindings = []struct {
	name    string
	handler func(*Service, ...HandlerOption) http.Handler
	path    string
	body    string
}{
	{"JSONRPC", NewJSONRPCHandler, "/", `{"jsonrpc":"2.0","id":1,"method":"Stream","params":{}}`},
	{"HTTP+JSON", NewRESTHandler, "/stream", `{}`},
}

func postStream(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestStreamOutlivesReadTimeout: a server's ReadTimeout (host sets one)
// bounds reading the request; a stream that goes on longer keeps its
// context and its events.
func TestStreamOutlivesReadTimeout(t *testing.T) {
	for _, b := range sseBindings {
		t.Run(b.name, func(t *testing.T) {
			svc := streamService(func(ctx context.Context, s Stream[*dynamicpb.Message]) error {
				if err := s.Send(textResponse("first")); err != nil {
					return err
				}
				select {
				case <-time.After(600 * time.Millisecond):
				case <-ctx.Done():
					return ctx.Err()
				}
				return s.Send(textResponse("second"))
			})
			ts := httptest.NewUnstartedServer(b.handler(svc, WithLogger(slogDiscard())))
			ts.Config.ReadTimeout = 200 * time.Millisecond
			ts.Start()
			defer ts.Close()
			resp := postStream(t, ts.URL+b.path, b.body)
			got, _ := io.ReadAll(resp.Body)
			if !bytes.Contains(got, []byte("second")) {
				t.Fatalf("the stream lost its second event after the ReadTimeout:\n%s", got)
			}
		})
	}
}

// TestStreamKeepAliveComments: a quiet stream gets keep-alive comments, so
// idle timeouts of proxies and clients do not close it.
func TestStreamKeepAliveComments(t *testing.T) {
	for _, b := range sseBindings {
		t.Run(b.name, func(t *testing.T) {
			svc := streamService(func(ctx context.Context, s Stream[*dynamicpb.Message]) error {
				if err := s.Send(textResponse("first")); err != nil {
					return err
				}
				time.Sleep(400 * time.Millisecond)
				return s.Send(textResponse("last"))
			})
			ts := httptest.NewServer(b.handler(svc, WithLogger(slogDiscard()), WithStreamKeepAlive(50*time.Millisecond)))
			defer ts.Close()
			resp := postStream(t, ts.URL+b.path, b.body)
			got, _ := io.ReadAll(resp.Body)
			if n := bytes.Count(got, []byte(": keep-alive\n\n")); n < 2 {
				t.Fatalf("%d keep-alive comments in a stream quiet for 400 ms with a 50 ms interval, want several:\n%s", n, got)
			}
			// The comments do not disturb readers.
			var events []string
			r := newSSEReader(bytes.NewReader(got), 1<<20)
			for {
				data, err := r.next()
				if err != nil {
					break
				}
				events = append(events, string(data))
			}
			if len(events) != 2 || !strings.Contains(events[1], "last") {
				t.Fatalf("events %q, want first and last", events)
			}
		})
	}
}

// TestStreamWriteTimeoutReleasesNeverReadingClient: a client that sends a
// stream request and never reads the answer makes the handler's Send fail
// once a write has blocked for the write timeout, so the stream ends and
// releases what it holds (before, it stayed blocked for as long as the
// client kept the connection open).
func TestStreamWriteTimeoutReleasesNeverReadingClient(t *testing.T) {
	for _, b := range sseBindings {
		t.Run(b.name, func(t *testing.T) {
			ended := make(chan error, 1)
			big := textResponse(strings.Repeat("x", 256<<10))
			svc := streamService(func(ctx context.Context, s Stream[*dynamicpb.Message]) error {
				for {
					if err := s.Send(big); err != nil {
						ended <- err
						return err
					}
				}
			})
			ts := httptest.NewServer(b.handler(svc, WithLogger(slogDiscard()), WithWriteTimeout(200*time.Millisecond)))
			defer ts.Close()
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
				b.path, len(b.body), b.body)
			_, _ = bufio.NewReader(conn).Peek(1) // the stream started; from now on nothing is read
			select {
			case err := <-ended:
				t.Logf("Send failed as the client stopped reading: %v", err)
			case <-time.After(20 * time.Second):
				t.Fatal("a stream whose client never reads was still blocked after 20 s")
			}
		})
	}
}

// TestUnaryWriteTimeoutReleasesNeverReadingClient: the same for a unary
// answer: a client that never reads a large response does not hold the
// handler (and the response) past the write timeout.
func TestUnaryWriteTimeoutReleasesNeverReadingClient(t *testing.T) {
	returned := make(chan struct{}, 1)
	big := textResponse(strings.Repeat("x", 48<<20)) // more than loopback's socket buffers hold
	newReq := func() *dynamicpb.Message { return dynamicpb.NewMessage(mdRequest) }
	svc := NewService(restTestDesc, NewUnaryEndpoint(restTestDesc.Operation("Echo"), newReq,
		func(context.Context, *dynamicpb.Message) (*dynamicpb.Message, error) { return big, nil }))
	h := NewRESTHandler(svc, WithLogger(slogDiscard()), WithWriteTimeout(200*time.Millisecond))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		returned <- struct{}{}
	}))
	defer ts.Close()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /echo/x HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case <-returned:
	case <-time.After(20 * time.Second):
		t.Fatal("a unary answer whose client never reads still held its handler after 20 s")
	}
}
