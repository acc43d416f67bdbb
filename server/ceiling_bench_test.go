package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/ceiling"
	"github.com/a2agen/a2agen/internal/echo"
	"github.com/a2agen/a2agen/server"
)

// BenchmarkCeilingInterleaved puts the default server (echo agent, memory
// store, the generated JSON-RPC and HTTP+JSON handlers) next to the ceiling
// of the load benchmark (internal/ceiling: net/http + protojson, nothing
// else) in one process: every iteration sends the same SendMessage "hello"
// bytes once to each, over loopback, with one net/http client each, and the
// benchmark reports both round-trip times and ceiling÷a2agen, the share of
// the ceiling's rate a2agen reaches. Drift of a busy machine hits both sides
// alike; the client's own work is in both times, so the share is higher than
// the servers' alone would be (interop/loadbench measures the servers'
// CPU in separate processes).
//
//	go test -run '^$' -bench CeilingInterleaved -benchtime 5000x -count 5 ./server/
func BenchmarkCeilingInterleaved(b *testing.B) {
	srv, err := server.New(echoCard(), &echo.Agent{ChunkInterval: -1}, server.WithLogger(discardLogger()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	mux := http.NewServeMux()
	mux.Handle("/a2a/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(srv))
	mux.Handle("/a2a/rest/", http.StripPrefix("/a2a/rest", a2av1.NewA2AServiceRESTHandler(srv)))
	ours := httptest.NewServer(mux)
	b.Cleanup(ours.Close)
	cmux := http.NewServeMux()
	cmux.HandleFunc("POST /a2a/jsonrpc", ceiling.ServeJSONRPC)
	cmux.HandleFunc("POST /a2a/rest/message:send", ceiling.ServeSend)
	theirs := httptest.NewServer(cmux)
	b.Cleanup(theirs.Close)

	for _, c := range []struct {
		name, path, prefix, suffix string
	}{
		{"JSONRPC", "/a2a/jsonrpc", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"`, `","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`},
		{"HTTP+JSON", "/a2a/rest/message:send", `{"message":{"messageId":"`, `","role":"ROLE_USER","parts":[{"text":"hello"}]}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			a := newRawPoster(b, ours.URL+c.path, c.prefix, c.suffix)
			z := newRawPoster(b, theirs.URL+c.path, c.prefix, c.suffix)
			a.post(b, "warm")
			z.post(b, "warm")
			var ta, tz time.Duration
			i := 0
			for b.Loop() {
				i++
				id := strconv.Itoa(i)
				if i%2 == 0 { // alternate which goes first
					tz += z.post(b, id)
					ta += a.post(b, id)
				} else {
					ta += a.post(b, id)
					tz += z.post(b, id)
				}
			}
			b.ReportMetric(float64(ta.Nanoseconds())/float64(b.N), "a2agen-ns/call")
			b.ReportMetric(float64(tz.Nanoseconds())/float64(b.N), "ceiling-ns/call")
			b.ReportMetric(float64(tz)/float64(ta), "share")
		})
	}
}

// rawPoster posts prefix + id + suffix to one URL and checks for a
// completed task.
type rawPoster struct {
	url, prefix, suffix string
	client              *http.Client
}

func newRawPoster(b *testing.B, url, prefix, suffix string) *rawPoster {
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	b.Cleanup(tr.CloseIdleConnections)
	return &rawPoster{url: url, prefix: prefix, suffix: suffix, client: &http.Client{Transport: tr}}
}

func (p *rawPoster) post(b *testing.B, id string) time.Duration {
	body := p.prefix + "m-" + id + p.suffix
	t0 := time.Now()
	req, err := http.NewRequest(http.MethodPost, p.url, bytes.NewReader([]byte(body)))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := p.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(t0)
	if err != nil || resp.StatusCode != http.StatusOK || !bytes.Contains(got, []byte("TASK_STATE_COMPLETED")) {
		b.Fatalf("%s: HTTP %d %.300s %v, want a completed task", p.url, resp.StatusCode, got, err)
	}
	return d
}
