package main

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// agentArgs splits a command's arguments into the agent URL and the rest:
// the first argument is the URL when it starts with http:// or https://;
// otherwise A2A_AGENT_URL is, when set.
func (a *app) agentArgs(args []string) (string, []string, error) {
	if len(args) > 0 && isHTTPURL(args[0]) {
		return args[0], args[1:], nil
	}
	if u := a.env.getenv(envAgentURL); u != "" {
		if !isHTTPURL(u) {
			return "", nil, usagef("%s=%q: want an http:// or https:// URL", envAgentURL, u)
		}
		return u, args, nil
	}
	if len(args) == 0 {
		return "", nil, usagef("missing the agent URL: give it as the first argument (http:// or https://) or set %s", envAgentURL)
	}
	return "", nil, usagef("%q is not an agent URL: give the URL the agent card is served under (http:// or https://) first, or set %s", args[0], envAgentURL)
}

func isHTTPURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// authorization is the Authorization value to send: --auth, $A2A_AUTH or
// "Bearer $A2A_TOKEN"; "" for none.
func (a *app) authorization() string {
	switch {
	case a.auth != "":
		return a.auth
	case a.env.getenv(envAuth) != "":
		return a.env.getenv(envAuth)
	case a.env.getenv(envToken) != "":
		return "Bearer " + a.env.getenv(envToken)
	}
	return ""
}

// httpClient is the client for cards, JWKS and the HTTP bindings: with -v
// it logs card fetches (calls are logged by the interceptor).
func (a *app) httpClient() *http.Client {
	if !a.verbose {
		return http.DefaultClient
	}
	return &http.Client{Transport: &fetchLog{base: http.DefaultTransport, w: a.env.stderr}}
}

// clientOptions are the runtime options every call gets from the global
// flags. They come after what the card implies, so they win over it.
func (a *app) clientOptions() []runtime.ClientOption {
	var opts []runtime.ClientOption
	if auth := a.authorization(); auth != "" {
		opts = append(opts, runtime.WithHeader("Authorization", auth))
	}
	for _, h := range a.headers {
		k, v, _ := strings.Cut(h, "=")
		opts = append(opts, runtime.WithHeader(strings.TrimSpace(k), v))
	}
	if a.tenant != "" {
		opts = append(opts, runtime.WithClientTenant(a.tenant))
	}
	if a.version != "" {
		v, _ := runtime.ParseVersion(a.version)
		opts = append(opts, runtime.WithProtocolVersion(v))
	}
	if len(a.extensions) > 0 {
		opts = append(opts, runtime.WithExtensions(a.extensions...))
	}
	if a.verbose {
		// Calls are logged by the interceptor, as messages on every
		// binding; the HTTP bindings then use a client that does not
		// log again.
		opts = append(opts, runtime.WithHTTPClient(http.DefaultClient),
			runtime.WithClientInterceptors(&wireLog{w: a.env.stderr}))
	}
	return opts
}

// cardOptions are the agentcard options of the global flags, plus extra.
func (a *app) cardOptions(extra ...agentcard.Option) []agentcard.Option {
	opts := []agentcard.Option{agentcard.WithHTTPClient(a.httpClient()), agentcard.WithClientOptions(a.clientOptions()...)}
	if b, _ := bindingName(a.binding); b != "" {
		opts = append(opts, agentcard.WithBindings(b))
	}
	return append(opts, extra...)
}

// connect discovers the agent at url and returns a client of the interface
// the card and --binding choose.
func (a *app) connect(ctx context.Context, url string, extra ...agentcard.Option) (*agentcard.Client, error) {
	c, err := agentcard.Discover(ctx, url, a.cardOptions(extra...)...)
	if err != nil {
		var (
			none *agentcard.NoInterfaceError
			sig  *agentcard.SignatureError
		)
		if errors.As(err, &none) || errors.As(err, &sig) {
			return nil, err
		}
		return nil, transportError{err}
	}
	return c, nil
}

// withClient runs call with a client of the agent at url, under the
// command's timeout (none for streams unless --timeout), and closes it.
func (a *app) withClient(ctx context.Context, url string, streaming bool, call func(context.Context, *agentcard.Client) error) error {
	ctx, cancel := a.commandContext(ctx, streaming)
	defer cancel()
	c, err := a.connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close()
	return call(ctx, c)
}
