package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
)

// AgentCardPath is the well-known path of the public agent card (A2A §8.2,
// registered well-known URI suffix "agent-card.json").
const AgentCardPath = "/.well-known/agent-card.json"

// DefaultCardMaxAge is how long clients and shared caches may reuse the card
// without revalidating it, unless WithCardMaxAge says otherwise. Cards change
// rarely and revalidation with If-None-Match is cheap, so an hour keeps load
// low while a changed card still spreads within the hour.
const DefaultCardMaxAge = time.Hour

// cardAllowedMethods is the Allow list of the card handler.
const cardAllowedMethods = "GET, HEAD, OPTIONS"

// cardAllowedHeaders is the CORS preflight answer when the browser does not
// say which headers it wants to send.
const cardAllowedHeaders = "A2A-Version, A2A-Extensions, Authorization, Content-Type, If-None-Match"

// AgentCardOption configures NewAgentCardHandler.
type AgentCardOption func(*agentCardConfig)

type agentCardConfig struct {
	maxAge   time.Duration
	provider func(*http.Request) (proto.Message, error)
	logger   *slog.Logger
}

// WithCardMaxAge sets the Cache-Control max-age of the card (default
// DefaultCardMaxAge). Zero or a negative duration sends max-age=0, so clients
// revalidate with If-None-Match every time.
func WithCardMaxAge(d time.Duration) AgentCardOption {
	return func(c *agentCardConfig) { c.maxAge = max(d, 0) }
}

// WithCardProvider makes the handler ask p for the card on every GET or HEAD
// instead of serving the card given to NewAgentCardHandler, for cards that
// depend on the request (for example on its Host). The card is serialised and
// its ETag computed per request. An error from p is logged and answered with
// 500.
func WithCardProvider(p func(*http.Request) (proto.Message, error)) AgentCardOption {
	return func(c *agentCardConfig) { c.provider = p }
}

// WithCardLogger sets the logger for cards that cannot be served (a card that
// fails to serialise, a provider error). The default is slog.Default().
func WithCardLogger(l *slog.Logger) AgentCardOption {
	return func(c *agentCardConfig) {
		if l != nil {
			c.logger = l
		}
	}
}

// NewAgentCardHandler serves card (an AgentCard message) as ProtoJSON, on
// whatever path it is mounted at; mount it at AgentCardPath for discovery:
//
//	mux.Handle(runtime.AgentCardPath, runtime.NewAgentCardHandler(card))
//
// The card is serialised once, here. GET and HEAD answer 200 application/json
// with a strong ETag (a hash of the bytes) and Cache-Control: public, max-age;
// a matching If-None-Match answers 304. OPTIONS answers a CORS preflight with
// 204. Every answer carries Access-Control-Allow-Origin: * because the card is
// a public document that browsers may fetch from any origin (no credentials
// are involved). Other methods get 405 with an Allow header.
//
// A card that cannot be serialised does not panic: the error is logged once
// and every request is answered with 500.
func NewAgentCardHandler(card proto.Message, opts ...AgentCardOption) http.Handler {
	h, cfg := newCardHandler(opts)
	h.provider = cfg.provider
	if h.provider == nil {
		body, etag, err := renderCard(card)
		if err != nil {
			h.logger.Error("agent card cannot be served", "error", err)
		}
		h.static = cardDocument{body: body, etag: etag, err: err}
	}
	return h
}

// newCardHandler applies opts and returns a handler with the caching and
// logging they set, and the options for what is particular to each kind.
func newCardHandler(opts []AgentCardOption) (*agentCardHandler, agentCardConfig) {
	cfg := agentCardConfig{maxAge: DefaultCardMaxAge, logger: slog.Default()}
	for _, o := range opts {
		o(&cfg)
	}
	return &agentCardHandler{
		cacheControl: "public, max-age=" + strconv.FormatInt(int64(cfg.maxAge/time.Second), 10),
		logger:       cfg.logger,
	}, cfg
}

// NewAgentCardJSONHandler is NewAgentCardHandler for a card that is already
// serialised: it serves body byte for byte (for a card whose exact bytes
// matter, such as a signed one or the one a2a-scaffold card prints), with
// the same ETag, caching and CORS answers. body must be a JSON document; one
// that is not is logged once and answered with 500. WithCardProvider does
// not apply.
func NewAgentCardJSONHandler(body []byte, opts ...AgentCardOption) http.Handler {
	h, _ := newCardHandler(opts)
	if !json.Valid(body) {
		err := fmt.Errorf("the agent card is not a JSON document")
		h.logger.Error("agent card cannot be served", "error", err)
		h.static = cardDocument{err: err}
		return h
	}
	body = slices.Clone(body)
	h.static = cardDocument{body: body, etag: cardETag(body)}
	return h
}

type agentCardHandler struct {
	static       cardDocument
	provider     func(*http.Request) (proto.Message, error)
	cacheControl string
	logger       *slog.Logger
}

// cardDocument is a serialised card with its entity tag, or the reason there is
// none.
type cardDocument struct {
	body []byte
	etag string
	err  error
}

// renderCard serialises a card and computes its strong ETag.
func renderCard(card proto.Message) ([]byte, string, error) {
	if card == nil || !card.ProtoReflect().IsValid() {
		return nil, "", fmt.Errorf("agent card is nil")
	}
	body, err := MarshalJSON(card)
	if err != nil {
		return nil, "", fmt.Errorf("serialising the agent card: %w", err)
	}
	return body, cardETag(body), nil
}

// cardETag is the strong entity tag of a serialised card: a hash of its
// bytes.
func cardETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

func (h *agentCardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Access-Control-Allow-Origin", "*")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		h.preflight(w, r)
		return
	default:
		hdr.Set("Allow", cardAllowedMethods)
		http.Error(w, "method not allowed; the agent card is read with GET", http.StatusMethodNotAllowed)
		return
	}

	doc := h.static
	if h.provider != nil {
		doc = h.provide(r)
	}
	if doc.err != nil {
		http.Error(w, "agent card unavailable (see the server log)", http.StatusInternalServerError)
		return
	}
	hdr.Set("ETag", doc.etag)
	hdr.Set("Cache-Control", h.cacheControl)
	// ETag is not a CORS-safelisted response header; expose it so browser
	// clients can revalidate.
	hdr.Set("Access-Control-Expose-Headers", "ETag")
	if etagMatches(r.Header.Values("If-None-Match"), doc.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Content-Length", strconv.Itoa(len(doc.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(doc.body) // a failed write means the client went away
	}
}

// provide asks the configured provider for this request's card.
func (h *agentCardHandler) provide(r *http.Request) cardDocument {
	card, err := h.provider(r)
	if err != nil {
		err = fmt.Errorf("agent card provider: %w", err)
	} else {
		var doc cardDocument
		if doc.body, doc.etag, err = renderCard(card); err == nil {
			return doc
		}
	}
	h.logger.Error("agent card cannot be served", "error", err)
	return cardDocument{err: err}
}

// preflight answers a CORS preflight request.
func (h *agentCardHandler) preflight(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Allow", cardAllowedMethods)
	hdr.Set("Access-Control-Allow-Methods", cardAllowedMethods)
	if requested := r.Header.Values("Access-Control-Request-Headers"); len(requested) > 0 {
		// Echoing is safe: the card is public and no credentials are allowed.
		hdr.Set("Access-Control-Allow-Headers", strings.Join(requested, ", "))
		hdr.Add("Vary", "Access-Control-Request-Headers")
	} else {
		hdr.Set("Access-Control-Allow-Headers", cardAllowedHeaders)
	}
	hdr.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// etagMatches applies If-None-Match (RFC 9110 §13.1.2): "*" or any listed tag
// equal to etag under weak comparison (a W/ prefix is ignored).
func etagMatches(ifNoneMatch []string, etag string) bool {
	for _, line := range ifNoneMatch {
		for tag := range strings.SplitSeq(line, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}
