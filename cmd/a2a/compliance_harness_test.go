package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/internal/cardsig"
	"github.com/a2agen/a2agen/internal/jcs"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// The compliance tests (compliance_test.go) run the built a2a, as a user
// does, against live agents on loopback: examples/echo on every binding
// (started with a bearer token, so both anonymous and authenticated calls
// are exercised), and agents made in the test for what echo cannot show:
// artifacts of every part kind, AUTH_REQUIRED, API keys, TLS and mutual
// TLS, an OAuth server, a card catalog, and a hand-written agent whose
// tasks report TASK_STATE_UNSPECIFIED and whose streams break.

// a2aBinary is cmd/a2a, built once by TestMain.
var a2aBinary string

// cliRun is what one run of the built command printed and returned.
type cliRun struct {
	stdout, stderr string
	code           int
}

// cliOpts are the environment of one run.
type cliOpts struct {
	env   map[string]string // besides HOME (a fresh directory unless given) and PATH
	stdin string
	dir   string
	home  string
}

// cli runs the built a2a.
func cli(t *testing.T, o cliOpts, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, a2aBinary, args...)
	home := o.home
	if home == "" {
		home = t.TempDir()
	}
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	for k, v := range o.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = o.dir
	if cmd.Dir == "" {
		cmd.Dir = t.TempDir() // no .env of the repository's around
	}
	cmd.Stdin = strings.NewReader(o.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("a2a %s: %v", strings.Join(args, " "), err)
	}
	return cliRun{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// run0 runs the built a2a and fails the test unless it exits 0.
func run0(t *testing.T, args ...string) cliRun {
	t.Helper()
	r := cli(t, cliOpts{}, args...)
	if r.code != 0 {
		t.Fatalf("a2a %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// expect checks a run's exit code and that its stdout+stderr hold want.
func expect(t *testing.T, r cliRun, code int, want ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stdout+r.stderr, w) {
			t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", w, r.stdout, r.stderr)
		}
	}
}

// oneJSON decodes stdout as exactly one JSON document.
func oneJSON(t *testing.T, r cliRun) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("stdout is no JSON document: %v\n%s", err, r.stdout)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON document:\n%s", r.stdout)
	}
	return m
}

// harness holds the live agents of the compliance tests.
type harness struct {
	echo string // examples/echo's base URL; it takes echoToken
	rich *richAgent
}

func newHarness(t *testing.T) *harness {
	return &harness{echo: startEcho(t), rich: startRichAgent(t, nil)}
}

// writeCardFile writes card (or the card at base, changed by edit) to a file and
// returns its path.
func writeCardFile(t *testing.T, base string, edit func(*a2av1.AgentCard)) string {
	t.Helper()
	r := run0(t, "card", "get", "-a", base, "-o", "json")
	card := new(a2av1.AgentCard)
	if err := runtime.UnmarshalJSON([]byte(r.stdout), card); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(card)
	}
	doc, err := runtime.MarshalJSON(card)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "card.json")
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// richAgent is an agent of this test: "artifacts" answers an artifact of
// every part kind, "auth" waits for authentication (AUTH_REQUIRED) and a
// follow-up completes it; anything else completes. Its HTTP handler
// records what reached it (headers, query, cookies) and may require an API
// key.
type richAgent struct {
	base string
	mu   sync.Mutex
	seen []*http.Request
	srv  *httptest.Server
}

type richExecutor struct{ base string }

func (e richExecutor) Execute(ctx context.Context, req *server.Request, ev *server.Events) error {
	if req.Task != nil {
		if err := ev.Artifact(server.TextArtifact("", "resumed: "+req.Text())); err != nil {
			return err
		}
		return ev.Complete(nil)
	}
	switch strings.TrimSpace(req.Text()) {
	case "artifacts":
		data, _ := a2av1.NewJSONDataPart([]byte(`{"city":"Oslo","days":3}`))
		art := &a2av1.Artifact{ArtifactId: "all-kinds", Name: "all kinds", Parts: []*a2av1.Part{
			a2av1.NewTextPart("a text part"),
			data,
			a2av1.NewFilePart("report.pdf", "application/pdf", []byte("%PDF-1.7 twelve")),
			a2av1.NewFileURLPart(e.base+"/files/big.zip", "big.zip", "application/zip"),
		}}
		if err := ev.Artifact(art); err != nil {
			return err
		}
		return ev.Complete(nil)
	case "auth":
		return ev.AuthRequired(server.AgentMessage("sign in to the calendar, then send any text to this task"))
	}
	if err := ev.Artifact(server.TextArtifact("", "ok: "+req.Text())); err != nil {
		return err
	}
	return ev.Complete(nil)
}

// richOptions choose the rich agent's card and transport.
type richOptions struct {
	apiKey   *a2av1.APIKeySecurityScheme // declared and required when set
	tls      *tls.Config                 // serve TLS with this config
	noSchema bool                        // declare no security scheme
}

func startRichAgent(t *testing.T, o *richOptions) *richAgent {
	t.Helper()
	if o == nil {
		o = &richOptions{}
	}
	ra := &richAgent{}
	mux := http.NewServeMux()
	var handler http.Handler = mux
	ra.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ra.mu.Lock()
		ra.seen = append(ra.seen, r.Clone(context.Background()))
		ra.mu.Unlock()
		if o.apiKey != nil && r.URL.Path != runtime.AgentCardPath && apiKeyOf(r, o.apiKey) != "k3y-value" {
			http.Error(w, `{"error":{"code":401,"status":"UNAUTHENTICATED","message":"API key required"}}`, http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	if o.tls != nil {
		ra.srv.TLS = o.tls
		ra.srv.StartTLS()
	} else {
		ra.srv.Start()
	}
	t.Cleanup(ra.srv.Close)
	ra.base = ra.srv.URL
	v := a2av1.A2AServiceDesc.ProtocolVersion()
	card := &a2av1.AgentCard{
		Name: "rich", Description: "an agent of the compliance tests", Version: "1",
		SupportedInterfaces: []*a2av1.AgentInterface{
			{Url: ra.base + "/jsonrpc", ProtocolBinding: runtime.BindingJSONRPC, ProtocolVersion: v},
			{Url: ra.base + "/rest", ProtocolBinding: runtime.BindingHTTPJSON, ProtocolVersion: v},
		},
		Capabilities:       &a2av1.AgentCapabilities{Streaming: proto.Bool(true)},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain", "application/json", "application/pdf", "application/zip"},
		Skills:             []*a2av1.AgentSkill{{Id: "rich", Name: "rich", Description: "answers with every part kind", Tags: []string{"test"}}},
	}
	switch {
	case o.apiKey != nil:
		card.SecuritySchemes = map[string]*a2av1.SecurityScheme{"key": {Scheme: &a2av1.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: o.apiKey}}}
	case !o.noSchema:
		card.SecuritySchemes = map[string]*a2av1.SecurityScheme{"bearer": {Scheme: &a2av1.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &a2av1.HTTPAuthSecurityScheme{Scheme: "Bearer"}}}}
	}
	srv, err := server.New(card, richExecutor{base: ra.base})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(card))
	mux.HandleFunc("/files/big.zip", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "zip bytes") })
	mux.Handle("/jsonrpc", a2av1.NewA2AServiceJSONRPCHandler(srv))
	mux.Handle("/rest/", a2av1.NewA2AServiceRESTHandler(srv))
	return ra
}

func apiKeyOf(r *http.Request, s *a2av1.APIKeySecurityScheme) string {
	switch s.GetLocation() {
	case "query":
		return r.URL.Query().Get(s.GetName())
	case "cookie":
		if c, err := r.Cookie(s.GetName()); err == nil {
			return c.Value
		}
		return ""
	}
	return r.Header.Get(s.GetName())
}

// requests returns and forgets what reached the agent.
func (ra *richAgent) requests() []*http.Request {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	out := ra.seen
	ra.seen = nil
	return out
}

// certPEM writes the test server's certificate as PEM and returns the path.
func certPEM(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeAgent is a hand-written JSON-RPC agent: GetTask reports
// TASK_STATE_UNSPECIFIED twice, then COMPLETED; SendStreamingMessage sends
// the WORKING task and drops the connection; SendMessage answers a
// SUBMITTED task.
type fakeAgent struct {
	base     string
	mu       sync.Mutex
	getTasks int
}

func startFakeAgent(t *testing.T) *fakeAgent {
	t.Helper()
	fa := &fakeAgent{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(fa.serve))
	fa.base = "http://" + srv.Listener.Addr().String() // before the handler can read it
	srv.Start()
	t.Cleanup(srv.Close)
	return fa
}

func (fa *fakeAgent) task(state string) string {
	return fmt.Sprintf(`{"id":"fake-task","contextId":"fake-context","status":{"state":%q}}`, state)
}

func (fa *fakeAgent) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == runtime.AgentCardPath {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"fake","description":"hand-written","version":"1","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],`+
			`"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[{"id":"s","name":"s","description":"d","tags":["t"]}]}`, fa.base+"/rpc")
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.NewDecoder(r.Body).Decode(&req)
	reply := func(result string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}
	switch req.Method {
	case "GetTask":
		fa.mu.Lock()
		fa.getTasks++
		n := fa.getTasks
		fa.mu.Unlock()
		state := "TASK_STATE_UNSPECIFIED"
		if n > 2 {
			state = "TASK_STATE_COMPLETED"
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply(fa.task(state)))
	case "SendStreamingMessage":
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", reply(`{"task":`+fa.task("TASK_STATE_WORKING")+`}`))
		w.(http.Flusher).Flush()
		// then the connection ends before the task does
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply(`{"task":`+fa.task("TASK_STATE_SUBMITTED")+`}`))
	}
}

// oauthServer is an authorization server of the tests: the client
// "cli-client" with secret "cli-secret" gets the token it was made with
// (client credentials); the device-code flow is approved on the second
// poll. It also serves OpenID Connect metadata.
type oauthServer struct {
	url, token string
	mu         sync.Mutex
	polls      int
	grants     []string
}

func startOAuthServer(t *testing.T, token string) *oauthServer {
	t.Helper()
	o := &oauthServer{token: token}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q,"device_authorization_endpoint":%q,"grant_types_supported":["client_credentials","urn:ietf:params:oauth:grant-type:device_code"]}`,
			o.url, o.url+"/token", o.url+"/device")
	})
	mux.HandleFunc("/device", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.PostForm.Get("client_id") != "cli-client" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"device_code":"dev-123","user_code":"WDJB-MJHT","verification_uri":%q,"expires_in":60,"interval":1}`, o.url+"/activate")
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		grant := r.PostForm.Get("grant_type")
		o.mu.Lock()
		o.grants = append(o.grants, grant)
		o.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch grant {
		case "client_credentials":
			id, secret, _ := r.BasicAuth()
			if id != "cli-client" || secret != "cli-secret" {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"error":"invalid_client"}`)
				return
			}
		case "urn:ietf:params:oauth:grant-type:device_code":
			o.mu.Lock()
			o.polls++
			pending := o.polls < 2
			o.mu.Unlock()
			if r.PostForm.Get("device_code") != "dev-123" {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":"invalid_grant"}`)
				return
			}
			if pending {
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":"authorization_pending"}`)
				return
			}
		default:
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"unsupported_grant_type"}`)
			return
		}
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600}`, o.token)
	})
	srv := httptest.NewUnstartedServer(mux)
	o.url = "http://" + srv.Listener.Addr().String() // before the handlers can read it
	srv.Start()
	t.Cleanup(srv.Close)
	return o
}

// startDemoServer runs the built a2a demo-server and returns its base URL.
func startDemoServer(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(a2aBinary, "demo-server", "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0")
	cmd.Env = []string{"HOME=" + t.TempDir()}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if card, ok := strings.CutPrefix(sc.Text(), "Agent Card: "); ok {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return strings.TrimSuffix(card, runtime.AgentCardPath)
		}
	}
	t.Fatalf("demo-server printed no Agent Card line")
	return ""
}

// freePort reserves nothing; it names a loopback port nobody listens on.
func deadAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func pemOf(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

// startSignedCardServer serves a card signed with a fresh key and returns
// the base URL and a PEM file of the public key.
func startSignedCardServer(t *testing.T) (string, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	card := &a2av1.AgentCard{Name: "signed", Description: "a signed agent", Version: "1",
		SupportedInterfaces: []*a2av1.AgentInterface{{Url: "http://127.0.0.1:1/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}},
		Capabilities:        &a2av1.AgentCapabilities{}}
	unsigned, err := protojson.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := jcs.Canonicalize(unsigned)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := cardsig.Sign(payload, cardsig.Signer{Key: key, KeyID: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	card.Signatures = []*a2av1.AgentCardSignature{sig}
	signed, _ := protojson.Marshal(card)
	mux := http.NewServeMux()
	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardJSONHandler(signed))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	pemFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(pemFile, pemOf("PUBLIC KEY", der), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv.URL, pemFile
}
