package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// workload is what one request asks the echo agent to do.
type workload struct {
	text      string
	streaming bool
	events    int // events a streaming answer must carry
}

var workloads = map[string]workload{
	// Task SUBMITTED → artifact → COMPLETED, answered in one response.
	"hello": {text: "hello"},
	// Task, WORKING, 10 artifact chunks, COMPLETED: 13 events.
	"stream10": {text: "stream 10", streaming: true, events: 13},
}

// driver sends one request of a workload to one server and checks the answer.
type driver interface {
	do(ctx context.Context, messageID string) error
	close()
}

// newDriver builds the neutral load client for a binding. endpoints are the
// lines the server printed (jsonrpc, rest, grpc); conc sizes the HTTP
// connection pool so that each worker keeps its own connection.
func newDriver(binding string, w workload, endpoints map[string]string, conc int) (driver, error) {
	switch binding {
	case "JSONRPC", "HTTP+JSON":
		hr := newHTTPRequest(binding, w, endpoints)
		return newHTTPDriver(hr.url, w, conc, hr.prefix, hr.suffix), nil
	case "GRPC":
		return newGRPCDriver(endpoints["grpc"], w)
	}
	return nil, fmt.Errorf("unknown binding %q", binding)
}

// httpRequest is the request of a workload on an HTTP binding: its URL and
// its body, prefix + message id + suffix. Both load clients (net/http and
// wrk) send exactly these bytes.
type httpRequest struct {
	url, prefix, suffix string
}

func newHTTPRequest(binding string, w workload, endpoints map[string]string) httpRequest {
	if binding == "JSONRPC" {
		method := "SendMessage"
		if w.streaming {
			method = "SendStreamingMessage"
		}
		return httpRequest{endpoints["jsonrpc"],
			`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"message":{"messageId":"`,
			`","role":"ROLE_USER","parts":[{"text":"` + w.text + `"}]}}}`}
	}
	route := "/message:send"
	if w.streaming {
		route = "/message:stream"
	}
	return httpRequest{strings.TrimRight(endpoints["rest"], "/") + route,
		`{"message":{"messageId":"`,
		`","role":"ROLE_USER","parts":[{"text":"` + w.text + `"}]}}`}
}

// httpDriver posts the same bytes to either server: the body is prefix +
// message id + suffix.
type httpDriver struct {
	url            string
	w              workload
	prefix, suffix string
	client         *http.Client
}

func newHTTPDriver(url string, w workload, conc int, prefix, suffix string) *httpDriver {
	tr := &http.Transport{
		MaxIdleConns:        conc * 2,
		MaxIdleConnsPerHost: conc * 2,
		DisableCompression:  true,
		IdleConnTimeout:     time.Minute,
	}
	return &httpDriver{url: url, w: w, prefix: prefix, suffix: suffix, client: &http.Client{Transport: tr}}
}

func (d *httpDriver) close() { d.client.CloseIdleConnections() }

func (d *httpDriver) do(ctx context.Context, messageID string) error {
	body := make([]byte, 0, len(d.prefix)+len(messageID)+len(d.suffix))
	body = append(append(append(body, d.prefix...), messageID...), d.suffix...)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	if d.w.streaming {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json")
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	if d.w.streaming {
		return readEvents(resp.Body, d.w.events)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte("TASK_STATE_COMPLETED")) {
		return fmt.Errorf("answer is not a completed task: %.300s", b)
	}
	return nil
}

// readEvents reads an SSE stream to its end and checks that it carried
// want data lines, the last one completing the task.
func readEvents(r io.Reader, want int) error {
	br := bufio.NewReaderSize(r, 16<<10)
	n := 0
	var last []byte
	for {
		line, err := br.ReadSlice('\n')
		if bytes.HasPrefix(line, []byte("data:")) {
			n++
			last = append(last[:0], line...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
	if n != want || !bytes.Contains(last, []byte("TASK_STATE_COMPLETED")) {
		return fmt.Errorf("stream carried %d events ending with %.200q, want %d ending with the COMPLETED state", n, last, want)
	}
	return nil
}

// grpcDriver calls the gRPC methods by name with a2agen's message types.
type grpcDriver struct {
	conn *grpc.ClientConn
	w    workload
}

var streamDesc = &grpc.StreamDesc{StreamName: "SendStreamingMessage", ServerStreams: true}

func newGRPCDriver(target string, w workload) (*grpcDriver, error) {
	conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("gRPC client for %s: %w", target, err)
	}
	return &grpcDriver{conn: conn, w: w}, nil
}

func (d *grpcDriver) close() { _ = d.conn.Close() }

func (d *grpcDriver) do(ctx context.Context, messageID string) error {
	ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", "1.0")
	req := &a2av1.SendMessageRequest{Message: &a2av1.Message{
		MessageId: messageID,
		Role:      a2av1.Role_ROLE_USER,
		Parts:     []*a2av1.Part{{Content: &a2av1.Part_Text{Text: d.w.text}}},
	}}
	if !d.w.streaming {
		resp := &a2av1.SendMessageResponse{}
		if err := d.conn.Invoke(ctx, "/lf.a2a.v1.A2AService/SendMessage", req, resp); err != nil {
			return err
		}
		if s := resp.GetTask().GetStatus().GetState(); s != a2av1.TaskState_TASK_STATE_COMPLETED {
			return fmt.Errorf("task state %s, want COMPLETED", s)
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := d.conn.NewStream(ctx, streamDesc, "/lf.a2a.v1.A2AService/SendStreamingMessage")
	if err != nil {
		return err
	}
	if err := stream.SendMsg(req); err != nil {
		return err
	}
	if err := stream.CloseSend(); err != nil {
		return err
	}
	n := 0
	var last a2av1.TaskState
	for {
		ev := &a2av1.StreamResponse{}
		if err := stream.RecvMsg(ev); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return err
		}
		n++
		last = ev.GetStatusUpdate().GetStatus().GetState()
	}
	if n != d.w.events || last != a2av1.TaskState_TASK_STATE_COMPLETED {
		return fmt.Errorf("stream carried %d events ending in %s, want %d ending in COMPLETED", n, last, d.w.events)
	}
	return nil
}
