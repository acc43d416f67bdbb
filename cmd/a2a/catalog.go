package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// Catalog resolution (SPEC.md §10.1): wherever --agent-card takes a
// reference it also takes an AI Catalog entry, the catalog's URL (normally
// ORIGIN/.well-known/ai-catalog.json) followed by #ENTRY, the entry's
// identifier or display name; the fragment may be left out when the catalog
// lists one A2A agent card. The entry's card is fetched from its url, or
// read from its embedded data.

// catalogPath is where an origin serves its AI Catalog.
const catalogPath = "/.well-known/ai-catalog.json"

// a2aCardTypes are the catalog entry types of an A2A agent card.
var a2aCardTypes = []string{"application/a2a-agent-card+json", "application/agent-card+json"}

// maxCatalogBytes bounds a catalog document.
const maxCatalogBytes = 4 << 20

type catalogEntryRef struct{ url, entry string }

// catalogRef reports whether ref names a catalog entry.
func catalogRef(ref string) (catalogEntryRef, bool) {
	u, frag, _ := strings.Cut(ref, "#")
	if !strings.HasSuffix(u, catalogPath) && !strings.HasSuffix(u, "ai-catalog.json") {
		return catalogEntryRef{}, false
	}
	if !isHTTPURL(u) {
		u = "https://" + u
	}
	return catalogEntryRef{url: u, entry: frag}, true
}

type aiCatalog struct {
	SpecVersion string           `json:"specVersion"`
	Entries     []aiCatalogEntry `json:"entries"`
}

type aiCatalogEntry struct {
	Identifier  string          `json:"identifier"`
	DisplayName string          `json:"displayName"`
	Type        string          `json:"type"`
	URL         string          `json:"url"`
	Data        json.RawMessage `json:"data"`
}

// resolveCatalog reads the catalog and returns the entry's card.
func (a *app) resolveCatalog(ctx context.Context, hc *http.Client, ref catalogEntryRef) (*resolved, error) {
	cat, err := fetchCatalog(ctx, hc, ref.url)
	if err != nil {
		return nil, err
	}
	e, err := cat.entry(ref)
	if err != nil {
		return nil, err
	}
	if len(e.Data) > 0 {
		card := new(a2av1.AgentCard)
		if err := runtime.UnmarshalJSON(e.Data, card); err != nil {
			return nil, &cliError{code: errCardInvalid, hint: "the catalog entry's data is not an A2A agent card", err: fmt.Errorf("catalog entry %s: %w", e.Identifier, err)}
		}
		return &resolved{card: card, doc: e.Data, ref: ref.url + "#" + e.Identifier}, nil
	}
	if e.URL == "" {
		return nil, &cliError{code: errCardInvalid, hint: "a catalog entry needs a url or data", err: fmt.Errorf("catalog entry %s has neither url nor data", e.Identifier)}
	}
	return a.fetchCard(ctx, hc, e.URL)
}

// fetchCatalog reads the AI Catalog at url.
func fetchCatalog(ctx context.Context, hc *http.Client, url string) (*aiCatalog, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, usagef("catalog %s: %v", url, err)
	}
	req.Header.Set("Accept", "application/ai-catalog+json, application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, cardError(url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &cliError{code: errCardNotFound, hint: "no AI Catalog at " + url, err: fmt.Errorf("fetching the catalog %s: HTTP %s", url, resp.Status)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCatalogBytes))
	if err != nil {
		return nil, cardError(url, err)
	}
	var cat aiCatalog
	if err := json.Unmarshal(body, &cat); err != nil {
		return nil, &cliError{code: errCardInvalid, hint: "the document is not an AI Catalog", err: fmt.Errorf("catalog %s: %w", url, err)}
	}
	return &cat, nil
}

// entry is the A2A agent card entry ref names (by identifier or display
// name), or the catalog's only one when ref names none.
func (cat *aiCatalog) entry(ref catalogEntryRef) (aiCatalogEntry, error) {
	var names []string
	var found []int
	for i, e := range cat.Entries {
		if !isA2ACardType(e.Type) {
			continue
		}
		names = append(names, e.Identifier)
		if ref.entry == "" || ref.entry == e.Identifier || ref.entry == e.DisplayName {
			found = append(found, i)
		}
	}
	switch {
	case len(found) == 0:
		return aiCatalogEntry{}, &cliError{code: errCardNotFound, hint: "the catalog's A2A agents: " + listOr(names, "none"),
			err: fmt.Errorf("catalog %s has no A2A agent card entry %q", ref.url, ref.entry)}
	case len(found) > 1 && ref.entry == "":
		return aiCatalogEntry{}, usagef("catalog %s lists several A2A agents; name one after #: %s", ref.url, strings.Join(names, ", "))
	}
	return cat.Entries[found[0]], nil
}

func isA2ACardType(t string) bool {
	t = strings.TrimSpace(strings.SplitN(t, ";", 2)[0])
	for _, c := range a2aCardTypes {
		if strings.EqualFold(t, c) {
			return true
		}
	}
	return false
}
