package agentcard

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// maxCardBytes limits the size of a card document.
const maxCardBytes = 4 << 20

// CardURL returns the URL of the public agent card of the agent at baseURL:
// baseURL's path followed by /.well-known/agent-card.json
// ("https://agent.example.com" → "https://agent.example.com/.well-known/agent-card.json",
// "https://host/agents/echo/" → "https://host/agents/echo/.well-known/agent-card.json").
// A baseURL that already ends with the well-known path is returned as it is.
// Hosts serving one agent at the root are the common case the specification
// describes; keeping the path lets a host serve several agents under
// sub-paths.
func CardURL(baseURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return "", fmt.Errorf("agentcard: base URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("agentcard: base URL %q is not an absolute http(s) URL", baseURL)
	}
	u.Fragment, u.RawFragment = "", ""
	if !strings.HasSuffix(u.Path, runtime.AgentCardPath) {
		u.Path = strings.TrimSuffix(u.Path, "/") + runtime.AgentCardPath
		u.RawPath = ""
	}
	return u.String(), nil
}

// Cache fetches public agent cards and keeps them as HTTP caching allows
// (RFC 9111, as a private cache): a card is reused while fresh
// (Cache-Control max-age minus Age, else Expires); a stale card with an ETag
// or Last-Modified is revalidated with If-None-Match / If-Modified-Since,
// and a 304 answer keeps it (with the freshness the 304 gives); no-cache
// means revalidate every time; no-store, and answers without freshness
// information or validators, are not reused. A failed revalidation is an
// error: a stale card is not served. A Cache is safe for concurrent use;
// concurrent fetches of one card may both reach the network.
type Cache struct {
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	entries map[string]*cacheEntry // by card URL
}

type cacheEntry struct {
	card         *a2av1.AgentCard
	document     []byte // the card as received, for signature checks
	etag         string
	lastModified string
	expires      time.Time // fresh before this instant
}

// NewCache returns an empty cache fetching with client (http.DefaultClient
// when nil).
func NewCache(client *http.Client) *Cache {
	if client == nil {
		client = http.DefaultClient
	}
	return &Cache{client: client, now: time.Now, entries: make(map[string]*cacheEntry)}
}

// Fetch returns the public agent card of the agent at baseURL (see CardURL),
// from the cache when it is fresh. The returned card is the caller's to
// modify.
func (c *Cache) Fetch(ctx context.Context, baseURL string) (*a2av1.AgentCard, error) {
	card, _, err := c.FetchDocument(ctx, baseURL)
	return card, err
}

// FetchDocument is Fetch that also returns the card document exactly as the
// agent served it: what VerifyCard checks signatures against (A2A §8.4
// signs the JSON, not a re-serialisation). The bytes are shared; do not
// modify them.
func (c *Cache) FetchDocument(ctx context.Context, baseURL string) (*a2av1.AgentCard, []byte, error) {
	cardURL, err := CardURL(baseURL)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	entry := c.entries[cardURL]
	c.mu.Unlock()
	if entry == nil || !c.now().Before(entry.expires) {
		if entry, err = c.fetch(ctx, cardURL, entry); err != nil {
			return nil, nil, err
		}
	}
	return proto.Clone(entry.card).(*a2av1.AgentCard), entry.document, nil
}

// fetch GETs the card, conditionally when old has validators, and records
// the result.
func (c *Cache) fetch(ctx context.Context, cardURL string, old *cacheEntry) (*cacheEntry, error) {
	req, err := cardRequest(ctx, cardURL, old)
	if err != nil {
		return nil, fmt.Errorf("agentcard: fetching %s: %w", cardURL, err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("agentcard: fetching %s: %w", cardURL, err)
	}
	defer resp.Body.Close()
	now := c.now()

	var entry *cacheEntry
	switch {
	case resp.StatusCode == http.StatusNotModified && old != nil:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxCardBytes))
		entry = &cacheEntry{card: old.card, document: old.document,
			etag:         cmp.Or(resp.Header.Get("ETag"), old.etag),
			lastModified: cmp.Or(resp.Header.Get("Last-Modified"), old.lastModified)}
	case resp.StatusCode == http.StatusOK:
		if entry, err = readCardAnswer(cardURL, resp); err != nil {
			return nil, err
		}
	default:
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		msg := fmt.Sprintf("agentcard: fetching %s: HTTP %s", cardURL, resp.Status)
		if s := strings.TrimSpace(string(snippet)); s != "" {
			msg += ": " + s
		}
		return nil, errors.New(msg)
	}
	store, expires := freshness(resp.Header, now)
	entry.expires = expires
	c.remember(cardURL, entry, store && (entry.etag != "" || entry.lastModified != "" || now.Before(expires)))
	return entry, nil
}

// cardRequest is the GET of the card at cardURL, conditional when old has
// validators.
func cardRequest(ctx context.Context, cardURL string, old *cacheEntry) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	// The version this client speaks, so that an agent choosing its card by
	// A2A-Version (the spec allows it) serves the card of that version, not
	// the v0.3 card it would assume for a request without the header.
	req.Header.Set("A2A-Version", a2av1.A2AServiceDesc.ProtocolVersion())
	if old != nil && old.etag != "" {
		req.Header.Set("If-None-Match", old.etag)
	}
	if old != nil && old.lastModified != "" {
		req.Header.Set("If-Modified-Since", old.lastModified)
	}
	return req, nil
}

// readCardAnswer reads the card a 200 answer carries, with its validators.
func readCardAnswer(cardURL string, resp *http.Response) (*cacheEntry, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes+1))
	if err != nil {
		return nil, fmt.Errorf("agentcard: reading %s: %w", cardURL, err)
	}
	if len(body) > maxCardBytes {
		return nil, fmt.Errorf("agentcard: the agent card at %s is larger than %d bytes", cardURL, maxCardBytes)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, fmt.Errorf("agentcard: the agent card at %s is empty", cardURL)
	}
	card, err := readCard(body)
	if err != nil {
		return nil, fmt.Errorf("agentcard: the document at %s is not an A2A agent card: %w", cardURL, err)
	}
	return &cacheEntry{card: card, document: body, etag: resp.Header.Get("ETag"), lastModified: resp.Header.Get("Last-Modified")}, nil
}

// remember keeps entry for cardURL when keep, and forgets the URL's
// entry otherwise.
func (c *Cache) remember(cardURL string, entry *cacheEntry, keep bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if keep {
		c.entries[cardURL] = entry
	} else {
		delete(c.entries, cardURL)
	}
}

// freshness reads Cache-Control, Age and Expires: whether the answer may be
// stored, and until when it is fresh (now when it must be revalidated
// before every use).
func freshness(h http.Header, now time.Time) (store bool, expires time.Time) {
	maxAge, hasMaxAge := time.Duration(0), false
	for _, line := range h.Values("Cache-Control") {
		for d := range strings.SplitSeq(line, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store":
				return false, now
			case "no-cache":
				return true, now
			case "max-age":
				secs, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(value), `"`), 10, 64)
				if err == nil && secs >= 0 {
					maxAge, hasMaxAge = time.Duration(min(secs, 1<<32))*time.Second, true
				}
			}
		}
	}
	if hasMaxAge {
		if age, err := strconv.ParseInt(strings.TrimSpace(h.Get("Age")), 10, 64); err == nil && age > 0 {
			maxAge -= time.Duration(min(age, 1<<32)) * time.Second
		}
		return true, now.Add(maxAge)
	}
	if v := h.Get("Expires"); v != "" {
		t, err := http.ParseTime(v)
		if err != nil {
			return true, now // an invalid Expires means already expired (RFC 9111 §5.3)
		}
		if date, err := http.ParseTime(h.Get("Date")); err == nil {
			return true, now.Add(t.Sub(date)) // immune to clock skew between us and the server
		}
		return true, t
	}
	return true, now
}

// readCard reads a card document: a v1.0 card, or a v0.3 card (a top-level
// url and no supportedInterfaces), whose url, preferredTransport and
// additionalInterfaces become supportedInterfaces of its protocolVersion
// (compat/a2av03.ReadCard). A v1.0 card's security scheme that is empty
// in its v1.0 members is read from its v0.3 ones (compat/a2av03.CompleteSchemes:
// the official Go SDK's dual card nests the v1.0 form under other names).
func readCard(doc []byte) (*a2av1.AgentCard, error) {
	if a2av03.IsV03Card(doc) {
		return a2av03.ReadCard(doc)
	}
	card := new(a2av1.AgentCard)
	if err := runtime.UnmarshalJSON(doc, card); err != nil {
		return nil, err
	}
	if err := a2av03.CompleteSchemes(doc, card); err != nil {
		return nil, err
	}
	return card, nil
}
