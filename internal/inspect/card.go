package inspect

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/agentcard"
	"github.com/a2agen/a2agen/runtime"
)

// agentState is the agent the page looks at: its URL and public card.
type agentState struct {
	url  string
	card *a2av1.AgentCard
	doc  []byte // the card as served (what signatures cover)
}

// cardView is a card as the page shows it.
type cardView struct {
	URL      string          `json:"url,omitempty"`
	Card     json.RawMessage `json:"card"`               // A2A v1.0 ProtoJSON
	Document string          `json:"document,omitempty"` // as served
	Checks   []Check         `json:"checks"`
	Signed   int             `json:"signatures"`
}

func newCardView(card *a2av1.AgentCard) (*cardView, error) {
	b, err := runtime.MarshalJSON(card)
	if err != nil {
		return nil, err
	}
	return &cardView{Card: b, Checks: CheckCard(card), Signed: len(card.GetSignatures())}, nil
}

// httpClient is the client of card fetches and of the HTTP bindings: the
// base transport (with the client certificate, when given) under the wire
// recorder.
func (s *Server) httpClient(creds *credentials) *http.Client {
	base := s.opts.HTTPTransport
	if creds != nil && creds.cert != nil {
		base = base.Clone()
		if base.TLSClientConfig == nil {
			base.TLSClientConfig = new(tls.Config)
		}
		base.TLSClientConfig.Certificates = append(base.TLSClientConfig.Certificates, *creds.cert)
	}
	return &http.Client{Transport: &wireTransport{base: base, rec: s.rec}, Timeout: 0}
}

// handleCard fetches the public card of the agent at {url} and makes it the
// page's agent.
func (s *Server) handleCard(w http.ResponseWriter, r *http.Request) {
	var in struct {
		URL string `json:"url"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	in.URL = strings.TrimSpace(in.URL)
	if !strings.HasPrefix(in.URL, "http://") && !strings.HasPrefix(in.URL, "https://") {
		writeError(w, http.StatusBadRequest, "give the agent's http:// or https:// URL (where /.well-known/agent-card.json is served)")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	s.mu.Lock()
	creds := s.creds
	s.mu.Unlock()
	card, doc, err := agentcard.NewCache(s.httpClient(creds)).FetchDocument(ctx, in.URL)
	if err != nil {
		writeError(w, http.StatusBadGateway, err.Error())
		return
	}
	view, err := newCardView(card)
	if err != nil {
		writeError(w, http.StatusBadGateway, "the card does not encode: "+err.Error())
		return
	}
	view.URL, view.Document = in.URL, string(doc)
	s.mu.Lock()
	s.agent = &agentState{url: in.URL, card: card, doc: doc}
	// The credentials follow the new card's schemes, so a token a2a auth
	// login stored for this agent applies from the first call; what the
	// Auth view gave that this card cannot take waits for the next Apply,
	// which reports it.
	if creds, err := credentialsFor(card, s.auth, s.opts.Tokens); err == nil {
		s.creds = creds
		s.rec.mask.set(creds.maskHeaders, creds.maskQuery, creds.secrets)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, view)
}

// handleChecks runs the spec checks on a card the page holds (the extended
// card).
func (s *Server) handleChecks(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Card json.RawMessage `json:"card"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	card := new(a2av1.AgentCard)
	if err := runtime.UnmarshalJSON(in.Card, card); err != nil {
		writeError(w, http.StatusBadRequest, "card: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"checks": CheckCard(card)})
}

// handleVerify checks the public card's signatures against the keys given
// (PEM, JWK or JWKS text) and/or a JWKS URL.
func (s *Server) handleVerify(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Keys    string `json:"keys"`
		JWKSURL string `json:"jwksUrl"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	s.mu.Lock()
	agent, creds := s.agent, s.creds
	s.mu.Unlock()
	if agent == nil {
		writeError(w, http.StatusConflict, "open an agent's card first")
		return
	}
	opts := []agentcard.Option{agentcard.WithHTTPClient(s.httpClient(creds))}
	if strings.TrimSpace(in.Keys) != "" {
		keys, err := agentcard.ParseVerificationKeys([]byte(in.Keys))
		if err != nil {
			writeError(w, http.StatusBadRequest, "keys: "+err.Error())
			return
		}
		opts = append(opts, agentcard.WithVerificationKeys(keys...))
	}
	if u := strings.TrimSpace(in.JWKSURL); u != "" {
		opts = append(opts, agentcard.WithJWKSURL(u))
	}
	if len(opts) == 1 {
		writeError(w, http.StatusBadRequest, "give a public key (PEM, JWK or JWKS) or a JWKS URL to verify against")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	results, err := agentcard.VerifyCard(ctx, agent.doc, opts...)
	out := map[string]any{"results": results, "signatures": len(agent.card.GetSignatures())}
	verified := false
	for _, res := range results {
		verified = verified || res.Verified
	}
	switch {
	case err != nil:
		out["verdict"], out["problem"] = "failed", err.Error()
	case len(agent.card.GetSignatures()) == 0:
		out["verdict"] = "unsigned"
	case verified:
		out["verdict"] = "verified"
	default:
		out["verdict"] = "not verified"
	}
	writeJSON(w, http.StatusOK, out)
}

// handleAuth replaces the credentials the calls send.
func (s *Server) handleAuth(w http.ResponseWriter, r *http.Request) {
	var in Auth
	if !readJSON(w, r, &in) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	card := new(a2av1.AgentCard)
	if s.agent != nil {
		card = s.agent.card
	}
	creds, err := credentialsFor(card, in, s.opts.Tokens)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.auth, s.creds = in, creds
	s.rec.mask.set(creds.maskHeaders, creds.maskQuery, creds.secrets)
	writeJSON(w, http.StatusOK, map[string]any{"applied": creds.applied})
}

// cardFor is the card to call through: the public card, narrowed to the
// interface the page chose, with the protocol version the page chose.
func cardFor(card *a2av1.AgentCard, index int, version string) (*a2av1.AgentCard, *a2av1.AgentInterface, bool) {
	if index < 0 || index >= len(card.GetSupportedInterfaces()) {
		return nil, nil, false
	}
	c := proto.Clone(card).(*a2av1.AgentCard)
	iface := c.SupportedInterfaces[index]
	if version != "" {
		iface.ProtocolVersion = version
	}
	c.SupportedInterfaces = []*a2av1.AgentInterface{iface}
	return c, iface, true
}
