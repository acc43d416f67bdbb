package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// auth login (SPEC.md §12.2) obtains an OAuth 2.1 access token as the
// card's security scheme describes — an OAuth 2.0 scheme's device-code or
// client-credentials flow, or an OpenID Connect scheme's provider
// metadata — and stores it for the agent (tokens.go). Later commands to
// the agent send it as the scheme's bearer token.

// maxOAuthBytes bounds an answer of an authorization server.
const maxOAuthBytes = 1 << 20

// oauthEndpoints are the endpoints and scopes of one flow.
type oauthEndpoints struct {
	scheme       string
	device, tok  string
	scopes       []string
	clientCreds  bool // the scheme offers the client-credentials flow
	deviceCode   bool // the scheme offers the device-code flow
	openIDConfig string
}

func (a *app) authCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Obtain credentials for an agent",
		Long:  `auth obtains credentials from the authorization server an agent's card names.`,
		Example: `  a2a auth login -a https://agent.example.com --client-id CLIENT
  a2a auth login -a https://agent.example.com --flow client-credentials --client-id CLIENT`,
		Args: func(cmd *cobra.Command, args []string) error {
			return usagef("auth needs a command: login")
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(a.loginCommand())
	return cmd
}

// loginFlags are auth login's flags.
type loginFlags struct {
	flow, scheme, clientID, clientSecret string
	scopes                               []string
}

func (a *app) loginCommand() *cobra.Command {
	var lf loginFlags
	login := &cobra.Command{
		Use:   "login",
		Short: "Log in with OAuth 2.1 (device code or client credentials) and store the token",
		Long: `login reads the agent's card, takes its OAuth 2.0 or OpenID Connect security
scheme (--scheme names one when there are several) and runs a flow it
offers: the device-code flow (RFC 8628: it prints a URL and a code to
enter there, then waits for the approval) or the client-credentials flow
(--client-secret, best given as A2ACLI_CLIENT_SECRET). --flow chooses when
the scheme offers both.

The access token is stored in ~/.config/a2a-cli/tokens.json (mode 0600;
$XDG_CONFIG_HOME honoured), under the agent's name; later commands to that
agent send it as the scheme's bearer token unless --bearer gives another.
Delete the file (or its entry) to log out.`,
		Example: `  a2a auth login -a https://agent.example.com --client-id CLIENT
  A2ACLI_CLIENT_SECRET=… a2a auth login -a https://agent.example.com --flow client-credentials --client-id CLIENT --scope tasks`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.login(cmd.Context(), lf) },
	}
	f := login.Flags()
	f.StringVar(&lf.flow, "flow", "", "OAuth flow: device-code or client-credentials (default: the one the scheme offers; device-code without a client secret)")
	f.StringVar(&lf.scheme, "scheme", "", "the card's security scheme `NAME` (default: its only OAuth 2.0 or OpenID Connect scheme)")
	f.StringVar(&lf.clientID, "client-id", "", "the OAuth client `ID`")
	f.StringVar(&lf.clientSecret, "client-secret", "", "the OAuth client secret (prefer A2ACLI_CLIENT_SECRET)")
	f.StringArrayVar(&lf.scopes, "scope", nil, "a scope to ask for (repeatable; default: the flow's scopes on the card)")
	return login
}

// login runs auth login: the card's OAuth scheme, a flow it offers, the
// token stored for the agent.
func (a *app) login(ctx context.Context, lf loginFlags) error {
	ref, _, err := a.agentArgs(nil)
	if err != nil {
		return err
	}
	if lf.clientID == "" {
		return usagef("--client-id is required: the client the authorization server knows this tool as")
	}
	if lf.clientSecret != "" {
		a.secrets = append(a.secrets, lf.clientSecret)
	}
	ctx, cancel := a.commandContext(ctx, true)
	defer cancel()
	r, err := a.resolveCard(ctx, ref)
	if err != nil {
		return err
	}
	hc, err := a.httpClient()
	if err != nil {
		return err
	}
	ep, err := a.oauthEndpointsOf(ctx, hc, r.card, lf.scheme)
	if err != nil {
		return err
	}
	if len(lf.scopes) > 0 {
		ep.scopes = lf.scopes
	}
	flow, err := chooseFlow(lf.flow, ep, lf.clientSecret != "")
	if err != nil {
		return err
	}
	tok, err := a.runFlow(ctx, hc, ep, flow, lf)
	if err != nil {
		return err
	}
	return a.storeLogin(r.card, ep.scheme, flow, tok)
}

// chooseFlow checks --flow, or picks the flow the scheme offers when it is
// not given: device-code without a client secret, else client-credentials.
// The scheme may still lack the flow; runFlow says so.
func chooseFlow(flow string, ep oauthEndpoints, hasSecret bool) (string, error) {
	switch flow {
	case "device-code", "client-credentials":
		return flow, nil
	case "":
	default:
		return "", usagef("--flow %q: want device-code or client-credentials", flow)
	}
	switch {
	case ep.deviceCode && !hasSecret:
		return "device-code", nil
	case ep.clientCreds:
		return "client-credentials", nil
	case ep.deviceCode:
		return "device-code", nil
	}
	return "", nil
}

// runFlow runs the chosen flow if the scheme offers it.
func (a *app) runFlow(ctx context.Context, hc *http.Client, ep oauthEndpoints, flow string, lf loginFlags) (*tokenResponse, error) {
	switch {
	case flow == "device-code" && ep.deviceCode:
		return a.deviceCodeFlow(ctx, hc, ep, lf.clientID, lf.clientSecret)
	case flow == "client-credentials" && ep.clientCreds:
		if lf.clientSecret == "" {
			return nil, usagef("the client-credentials flow needs --client-secret (or A2ACLI_CLIENT_SECRET)")
		}
		return a.clientCredentialsFlow(ctx, hc, ep, lf.clientID, lf.clientSecret)
	}
	return nil, usagef("security scheme %q offers no %s flow this tool runs (it runs device-code and client-credentials)", ep.scheme, orName(flow, "OAuth"))
}

// storeLogin stores the token for the card's agent and reports where.
func (a *app) storeLogin(card *a2av1.AgentCard, scheme, flow string, tok *tokenResponse) error {
	st := storedToken{AccessToken: tok.AccessToken, TokenType: tok.TokenType, Scheme: scheme}
	if tok.ExpiresIn > 0 {
		st.Expiry = time.Now().Add(time.Duration(tok.ExpiresIn) * time.Second).UTC().Format(time.RFC3339)
	}
	path, err := a.saveToken(card, st)
	if err != nil {
		return fmt.Errorf("storing the token: %w", err)
	}
	labeled(a.env.stdout, "Agent", card.GetName())
	labeled(a.env.stdout, "Security Scheme", scheme)
	labeled(a.env.stdout, "Flow", flow)
	labeled(a.env.stdout, "Token Stored In", path)
	if st.Expiry != "" {
		labeled(a.env.stdout, "Expires", st.Expiry)
	}
	return nil
}

// oauthEndpointsOf finds the OAuth scheme of the card and its endpoints.
func (a *app) oauthEndpointsOf(ctx context.Context, hc *http.Client, card *a2av1.AgentCard, name string) (oauthEndpoints, error) {
	name, err := oauthSchemeName(card, name)
	if err != nil {
		return oauthEndpoints{}, err
	}
	s := card.GetSecuritySchemes()[name]
	if o := s.GetOauth2SecurityScheme(); o != nil {
		return oauth2Endpoints(name, o), nil
	}
	return openIDEndpoints(ctx, hc, name, s.GetOpenIdConnectSecurityScheme().GetOpenIdConnectUrl())
}

// oauthSchemeName is the card's OAuth 2.0 or OpenID Connect scheme: the one
// --scheme names, else the only one.
func oauthSchemeName(card *a2av1.AgentCard, name string) (string, error) {
	var names []string
	for _, n := range schemeNames(card) {
		s := card.GetSecuritySchemes()[n]
		if s.GetOauth2SecurityScheme() != nil || s.GetOpenIdConnectSecurityScheme() != nil {
			names = append(names, n)
		}
	}
	switch {
	case name != "" && !slices.Contains(names, name):
		return "", usagef("--scheme %q: the card's OAuth 2.0 and OpenID Connect schemes are: %s", name, listOr(names, "none"))
	case name != "":
		return name, nil
	case len(names) == 0:
		return "", &cliError{code: errUsage, hint: "use --bearer or --api-key as the card's schemes say ('a2a card get' lists them)",
			err: fmt.Errorf("the card of %q declares no OAuth 2.0 or OpenID Connect security scheme", card.GetName())}
	case len(names) > 1:
		return "", usagef("the card declares several OAuth schemes; choose one with --scheme: %s", strings.Join(names, ", "))
	}
	return names[0], nil
}

// oauth2Endpoints reads the device-code and client-credentials flows of an
// OAuth 2.0 scheme; the device-code flow's token URL and scopes come first.
func oauth2Endpoints(name string, o *a2av1.OAuth2SecurityScheme) oauthEndpoints {
	ep := oauthEndpoints{scheme: name}
	if dc := o.GetFlows().GetDeviceCode(); dc != nil {
		ep.deviceCode, ep.device, ep.tok = true, dc.GetDeviceAuthorizationUrl(), dc.GetTokenUrl()
		ep.scopes = slices.Sorted(maps.Keys(dc.GetScopes()))
	}
	if cc := o.GetFlows().GetClientCredentials(); cc != nil {
		ep.clientCreds = true
		if ep.tok == "" {
			ep.tok = cc.GetTokenUrl()
		}
		if len(ep.scopes) == 0 {
			ep.scopes = slices.Sorted(maps.Keys(cc.GetScopes()))
		}
	}
	return ep
}

// openIDEndpoints reads the endpoints from an OpenID Connect provider's
// metadata at configURL.
func openIDEndpoints(ctx context.Context, hc *http.Client, name, configURL string) (oauthEndpoints, error) {
	ep := oauthEndpoints{scheme: name, openIDConfig: configURL}
	var meta struct {
		TokenEndpoint       string   `json:"token_endpoint"`
		DeviceEndpoint      string   `json:"device_authorization_endpoint"`
		GrantTypesSupported []string `json:"grant_types_supported"`
	}
	if err := getJSON(ctx, hc, configURL, &meta); err != nil {
		return ep, unreachable(fmt.Errorf("OpenID Connect metadata %s: %w", configURL, err), "check the card's openIdConnectUrl")
	}
	ep.tok, ep.device = meta.TokenEndpoint, meta.DeviceEndpoint
	ep.deviceCode = meta.DeviceEndpoint != ""
	ep.clientCreds = len(meta.GrantTypesSupported) == 0 || slices.Contains(meta.GrantTypesSupported, "client_credentials")
	ep.scopes = []string{"openid"}
	return ep, nil
}

// tokenResponse is a token endpoint's answer (RFC 6749 §5.1, §5.2).
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// clientCredentialsFlow asks the token endpoint for a token as the client.
func (a *app) clientCredentialsFlow(ctx context.Context, hc *http.Client, ep oauthEndpoints, id, secret string) (*tokenResponse, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(ep.scopes) > 0 {
		form.Set("scope", strings.Join(ep.scopes, " "))
	}
	tok, status, err := postForm(ctx, hc, ep.tok, form, id, secret)
	if err != nil {
		return nil, err
	}
	if tok.AccessToken == "" {
		return nil, &cliError{code: errAuthFailed, hint: "check --client-id and --client-secret",
			err: fmt.Errorf("the token endpoint refused the client (HTTP %d): %s %s", status, tok.Error, tok.Description)}
	}
	return tok, nil
}

// deviceAuthorization is a device authorization endpoint's answer (RFC
// 8628 §3.2).
type deviceAuthorization struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	ExpiresIn               int    `json:"expires_in"`
	Interval                int    `json:"interval"`
}

// schedule is how often to poll for the token and until when, counted
// from now: what the authorization server said, else every 5 seconds for
// 15 minutes.
func (dc *deviceAuthorization) schedule(now time.Time) (interval time.Duration, deadline time.Time) {
	interval, lifetime := 5*time.Second, 15*time.Minute
	if dc.Interval > 0 {
		interval = time.Duration(dc.Interval) * time.Second
	}
	if dc.ExpiresIn > 0 {
		lifetime = time.Duration(dc.ExpiresIn) * time.Second
	}
	return interval, now.Add(lifetime)
}

// errDeviceCodeExpired is the device-code flow's failure when the code
// expired before the user approved it.
func errDeviceCodeExpired() error {
	return &cliError{code: errAuthFailed, hint: "run a2a auth login again and approve sooner", err: errors.New("the device code expired before it was approved")}
}

// deviceCodeFlow runs RFC 8628: ask for a device code, tell the user where
// to approve it, and poll the token endpoint until it is approved, denied
// or expired.
func (a *app) deviceCodeFlow(ctx context.Context, hc *http.Client, ep oauthEndpoints, id, secret string) (*tokenResponse, error) {
	dc, err := requestDeviceCode(ctx, hc, ep, id)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(a.env.stderr, "To log in, open %s and enter the code %s\n", dc.VerificationURI, dc.UserCode)
	if dc.VerificationURIComplete != "" {
		fmt.Fprintf(a.env.stderr, "(or open %s)\n", dc.VerificationURIComplete)
	}
	interval, deadline := dc.schedule(time.Now())
	poll := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "device_code": {dc.DeviceCode}, "client_id": {id}}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(interval):
		}
		if time.Now().After(deadline) {
			return nil, errDeviceCodeExpired()
		}
		tok, _, err := postForm(ctx, hc, ep.tok, poll, "", secret)
		if err != nil {
			return nil, err
		}
		if tok.Error == "slow_down" {
			interval += 5 * time.Second
		}
		if done, err := devicePollDone(tok); err != nil {
			return nil, err
		} else if done {
			return tok, nil
		}
	}
}

// requestDeviceCode asks the device authorization endpoint for a code.
func requestDeviceCode(ctx context.Context, hc *http.Client, ep oauthEndpoints, id string) (*deviceAuthorization, error) {
	form := url.Values{"client_id": {id}}
	if len(ep.scopes) > 0 {
		form.Set("scope", strings.Join(ep.scopes, " "))
	}
	resp, err := postFormRaw(ctx, hc, ep.device, form, "", "")
	if err != nil {
		return nil, err
	}
	var dc deviceAuthorization
	if err := json.Unmarshal(resp, &dc); err != nil || dc.DeviceCode == "" {
		return nil, &cliError{code: errAuthFailed, hint: "check --client-id", err: fmt.Errorf("the device authorization endpoint %s gave no device code: %s", ep.device, truncate(string(resp), 200))}
	}
	return &dc, nil
}

// devicePollDone reads one answer of the token endpoint to the device-code
// poll (RFC 8628 §3.5): done with the token, done with an error, or not
// done (pending, or asked to slow down).
func devicePollDone(tok *tokenResponse) (bool, error) {
	switch tok.Error {
	case "":
		if tok.AccessToken != "" {
			return true, nil
		}
		return true, &cliError{code: errAuthFailed, err: errors.New("the token endpoint answered without an access token")}
	case "authorization_pending", "slow_down":
		return false, nil
	case "access_denied":
		return true, &cliError{code: errAuthFailed, hint: "the login was denied at the verification page", err: errors.New("access denied")}
	case "expired_token":
		return true, errDeviceCodeExpired()
	}
	return true, &cliError{code: errAuthFailed, err: fmt.Errorf("the token endpoint refused: %s %s", tok.Error, tok.Description)}
}

// postForm posts an x-www-form-urlencoded request and decodes the token
// answer, whatever its status (errors come as JSON too).
func postForm(ctx context.Context, hc *http.Client, endpoint string, form url.Values, id, secret string) (*tokenResponse, int, error) {
	body, status, err := postFormStatus(ctx, hc, endpoint, form, id, secret)
	if err != nil {
		return nil, 0, err
	}
	var tok tokenResponse
	if err := json.Unmarshal(body, &tok); err != nil {
		return nil, status, &cliError{code: errAuthFailed, err: fmt.Errorf("the token endpoint %s answered HTTP %d, not JSON: %s", endpoint, status, truncate(string(body), 200))}
	}
	return &tok, status, nil
}

func postFormRaw(ctx context.Context, hc *http.Client, endpoint string, form url.Values, id, secret string) ([]byte, error) {
	body, _, err := postFormStatus(ctx, hc, endpoint, form, id, secret)
	return body, err
}

func postFormStatus(ctx context.Context, hc *http.Client, endpoint string, form url.Values, id, secret string) ([]byte, int, error) {
	if endpoint == "" {
		return nil, 0, &cliError{code: errCardInvalid, err: errors.New("the security scheme names no endpoint for this flow")}
	}
	if id != "" && secret == "" {
		form.Set("client_id", id)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, 0, usagef("endpoint %q: %v", endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if id != "" && secret != "" {
		req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, unreachable(err, "check that the authorization server "+endpoint+" is reachable")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOAuthBytes))
	return body, resp.StatusCode, err
}

// getJSON fetches and decodes a JSON document.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, maxOAuthBytes)).Decode(v)
}
