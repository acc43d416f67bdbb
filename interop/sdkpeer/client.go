package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// clientConfig holds the flags of "sdkpeer client".
type clientConfig struct {
	cardURL  string
	binding  string
	scenario string
	webhook  string
	bearer   string
	expect   string
	version  string
	timeout  time.Duration
}

// expectSpec and expectSDK select which answers count as right where the
// SDK itself deviates from the spec: "spec" is what a2agen's
// server must send; "sdk" lets the peer check itself against its own server.
const (
	expectSpec = "spec"
	expectSDK  = "sdk"
)

func runClient(args []string) error {
	var cfg clientConfig
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.StringVar(&cfg.cardURL, "card", "", "URL of the agent card to build the SDK client from (required)")
	fs.StringVar(&cfg.binding, "binding", "JSONRPC", "binding to use: JSONRPC, HTTP+JSON or GRPC")
	fs.StringVar(&cfg.scenario, "scenario", "all", "scenario to run: "+strings.Join(scenarioNames(), ", ")+" or all")
	fs.StringVar(&cfg.webhook, "webhook", "", "push notification receiver URL (required by the push scenario)")
	fs.StringVar(&cfg.bearer, "bearer", "", "bearer token sent as Authorization on GetExtendedAgentCard")
	fs.StringVar(&cfg.expect, "expect", expectSpec, "answers to expect where the SDK deviates from the spec: spec or sdk")
	fs.DurationVar(&cfg.timeout, "timeout", 15*time.Second, "limit for each step")
	fs.StringVar(&cfg.version, "version", "1.0", "A2A protocol version of the interface to call: 1.0, or 0.3 (the SDK's a2acompat/a2av0 JSON-RPC and HTTP+JSON and a2agrpc/v0 gRPC client transports)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.cardURL == "" {
		return errors.New("-card is required")
	}
	if cfg.expect != expectSpec && cfg.expect != expectSDK {
		return fmt.Errorf("-expect %q: want spec or sdk", cfg.expect)
	}
	binding := a2a.TransportProtocol(cfg.binding)
	switch binding {
	case a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC:
	default:
		return fmt.Errorf("-binding %q: want JSONRPC, HTTP+JSON or GRPC", cfg.binding)
	}
	var run []scenario
	if cfg.scenario == "all" {
		for _, s := range scenarios {
			if !s.alone && (s.name != "push" || cfg.webhook != "") {
				run = append(run, s)
			}
		}
	} else {
		i := slices.IndexFunc(scenarios, func(s scenario) bool { return s.name == cfg.scenario })
		if i < 0 {
			return fmt.Errorf("-scenario %q: want one of %s or all", cfg.scenario, strings.Join(scenarioNames(), ", "))
		}
		run = append(run, scenarios[i])
	}

	ctx := context.Background()
	if cfg.version != "1.0" && cfg.version != "0.3" {
		return fmt.Errorf("-version %q: want 1.0 or 0.3", cfg.version)
	}
	client, card, err := newSDKClient(ctx, cfg.cardURL, binding, cfg.version)
	if err != nil {
		return err
	}
	defer client.Destroy()

	r := &runner{
		client:  client,
		card:    card,
		cfg:     cfg,
		binding: binding,
		out:     json.NewEncoder(os.Stdout),
	}
	for _, s := range run {
		r.scenario = s.name
		r.runScenario(ctx, s)
	}
	if len(r.failed) > 0 {
		return fmt.Errorf("%d step(s) failed: %s", len(r.failed), strings.Join(r.failed, ", "))
	}
	return nil
}

// newSDKClient resolves the card with the SDK's resolver and builds an SDK
// client restricted to one binding, so that the requested binding is used
// and not silently another one the card also lists.
func newSDKClient(ctx context.Context, cardURL string, binding a2a.TransportProtocol, version string) (*a2aclient.Client, *a2a.AgentCard, error) {
	u, err := url.Parse(cardURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, nil, fmt.Errorf("-card %q is not an absolute URL", cardURL)
	}
	base := u.Scheme + "://" + u.Host
	card, err := agentcard.DefaultResolver.Resolve(ctx, base, agentcard.WithPath(u.Path))
	if err != nil {
		return nil, nil, fmt.Errorf("resolve card %s with the SDK: %w", cardURL, err)
	}
	only := *card
	only.SupportedInterfaces = nil
	for _, iface := range card.SupportedInterfaces {
		if iface.ProtocolBinding == binding && strings.HasPrefix(string(iface.ProtocolVersion), version) {
			only.SupportedInterfaces = append(only.SupportedInterfaces, iface)
		}
	}
	if len(only.SupportedInterfaces) == 0 {
		return nil, nil, fmt.Errorf("card %s lists no %s interface of version %s", cardURL, binding, version)
	}
	client, err := a2aclient.NewFromCard(ctx, &only,
		a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())),
		a2agrpcv0.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}))
	if err != nil {
		return nil, nil, fmt.Errorf("SDK client for %s from %s: %w", binding, cardURL, err)
	}
	return client, &only, nil
}

// stepReport is one line of the client's JSON report.
type stepReport struct {
	Scenario string         `json:"scenario"`
	Binding  string         `json:"binding"`
	Step     string         `json:"step"`
	Op       string         `json:"op"`
	OK       bool           `json:"ok"`
	Reason   string         `json:"reason,omitempty"` // A2A error reason the SDK decoded, if the call failed
	Error    string         `json:"error,omitempty"`  // the call's error text, if any
	Problem  string         `json:"problem,omitempty"`
	Fields   map[string]any `json:"fields,omitempty"`
}

type runner struct {
	client   *a2aclient.Client
	card     *a2a.AgentCard
	cfg      clientConfig
	binding  a2a.TransportProtocol
	scenario string
	out      *json.Encoder
	failed   []string
}

// step runs one operation with its own deadline and prints its report. fn
// fills the report and returns a non-nil error when an expectation failed.
func (r *runner) step(ctx context.Context, name, op string, fn func(ctx context.Context, rep *stepReport) error) bool {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.timeout)
	defer cancel()
	rep := &stepReport{Scenario: r.scenario, Binding: string(r.binding), Step: name, Op: op, Fields: map[string]any{}}
	err := fn(ctx, rep)
	rep.OK = err == nil
	if err != nil {
		rep.Problem = err.Error()
		r.failed = append(r.failed, r.scenario+"/"+name)
	}
	if len(rep.Fields) == 0 {
		rep.Fields = nil
	}
	_ = r.out.Encode(rep)
	return rep.OK
}

// noteErr records a call's error in the report.
func noteErr(rep *stepReport, err error) {
	if err == nil {
		return
	}
	rep.Error = err.Error()
	rep.Reason = reasonOf(err)
}

// sentinels are the SDK's error values, each with its ErrorInfo reason.
var sentinels = []error{
	a2a.ErrTaskNotFound, a2a.ErrTaskNotCancelable, a2a.ErrPushNotificationNotSupported,
	a2a.ErrUnsupportedOperation, a2a.ErrUnsupportedContentType, a2a.ErrInvalidAgentResponse,
	a2a.ErrExtendedCardNotConfigured, a2a.ErrExtensionSupportRequired, a2a.ErrVersionNotSupported,
	a2a.ErrParseError, a2a.ErrInvalidRequest, a2a.ErrMethodNotFound, a2a.ErrInvalidParams,
	a2a.ErrInternalError, a2a.ErrServerError, a2a.ErrUnauthenticated, a2a.ErrUnauthorized,
}

// reasonOf names the A2A error the SDK decoded, or UNRECOGNIZED when the
// error is none of them (a transport or decoding failure).
func reasonOf(err error) string {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return a2a.ErrorReason(s)
		}
	}
	return "UNRECOGNIZED"
}

// wantReason checks that err is one of the A2A errors named.
func wantReason(rep *stepReport, err error, reasons ...string) error {
	noteErr(rep, err)
	if err == nil {
		return fmt.Errorf("succeeded, want error %s", strings.Join(reasons, " or "))
	}
	if got := reasonOf(err); !slices.Contains(reasons, got) {
		return fmt.Errorf("error %s (%v), want %s", got, err, strings.Join(reasons, " or "))
	}
	return nil
}

// wantOK checks that the call succeeded.
func wantOK(rep *stepReport, err error) error {
	noteErr(rep, err)
	if err != nil {
		return fmt.Errorf("failed: %w", err)
	}
	return nil
}

// sdkOr returns sdk when the peer checks the SDK's own server and spec otherwise.
func (r *runner) sdkOr(sdk, spec []string) []string {
	if r.cfg.expect == expectSDK {
		return sdk
	}
	return spec
}
