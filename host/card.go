package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/runtime"
)

// CardWithTLS returns the agent card document doc as an agent serving TLS
// serves it: every interface URL a client would use without TLS is made a
// TLS one — http:// becomes https://, grpc:// becomes grpcs://, and a gRPC
// host:port that clients read as plaintext (a loopback host, see
// runtime.ParseGRPCTarget) becomes https://host:port. Other URLs (https://,
// a public host:port, which clients already reach over TLS) and the rest of
// the document are kept byte for byte, so a card without plaintext URLs is
// returned unchanged; a dual card (with the top-level url and
// protocolVersion of a v0.3 card) also gets its v0.3 members rewritten
// (a2av03.WithV03Fields).
//
// A signed card (one with signatures) cannot be changed without breaking
// its signatures: when it has a plaintext URL, CardWithTLS refuses it with
// an error saying to generate the card with https URLs (agent.yaml's url,
// a2a-scaffold card --url https://…) and sign it again.
func CardWithTLS(doc []byte) ([]byte, error) {
	card := &a2av1.AgentCard{}
	if err := runtime.UnmarshalJSON(doc, card); err != nil {
		return nil, fmt.Errorf("host: the agent card does not decode: %w", err)
	}
	return cardWithTLS(doc, card, "agent card")
}

// cardWithTLS rewrites the plaintext interface URLs of card (in place) and
// of its document doc (when not nil) for TLS; what names the card in
// errors.
func cardWithTLS(doc []byte, card *a2av1.AgentCard, what string) ([]byte, error) {
	var changed []string
	urls := make([]string, len(card.GetSupportedInterfaces()))
	for i, itf := range card.GetSupportedInterfaces() {
		urls[i] = tlsURL(runtime.Binding(itf.GetProtocolBinding()), itf.GetUrl())
		if urls[i] != itf.GetUrl() {
			changed = append(changed, itf.GetUrl())
		}
	}
	if len(changed) == 0 {
		return doc, nil
	}
	if len(card.GetSignatures()) > 0 {
		return nil, fmt.Errorf("host: the %s is signed, and its interface URLs %s are not TLS ones, although the agent serves TLS; "+
			"a signed card cannot be rewritten: generate it with https URLs (agent.yaml url: https://…, or a2a-scaffold card --url https://…) and sign it again",
			what, strings.Join(changed, ", "))
	}
	if doc != nil {
		var err error
		if doc, err = replaceInterfaceURLs(doc, card, urls); err != nil {
			return nil, fmt.Errorf("host: rewriting the interface URLs of the %s for TLS: %w", what, err)
		}
	}
	for i, itf := range card.GetSupportedInterfaces() {
		itf.Url = urls[i]
	}
	if doc != nil && hasTopLevel(doc, "protocolVersion", "url") {
		// A dual card (a2a-scaffold's, protocolVersions: ["1.0", "0.3"]):
		// its v0.3 url and additionalInterfaces follow the interfaces.
		var err error
		if doc, err = a2av03.WithV03Fields(doc, card); err != nil {
			return nil, fmt.Errorf("host: rewriting the v0.3 fields of the %s for TLS: %w", what, err)
		}
	}
	return doc, nil
}

// tlsURL is the URL of an interface served over TLS: u itself unless
// clients would reach it without TLS.
func tlsURL(binding runtime.Binding, u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	switch {
	case ok && strings.EqualFold(scheme, "http"):
		return "https://" + rest
	case ok && strings.EqualFold(scheme, "grpc") && binding == runtime.BindingGRPC:
		return "grpcs://" + rest
	case ok || binding != runtime.BindingGRPC:
		return u
	}
	// A gRPC host:port (or a resolver URL without "://", unix:…).
	t, err := runtime.ParseGRPCTarget(u)
	if err != nil || t.TLS || strings.HasPrefix(u, "unix") {
		return u
	}
	if _, _, err := net.SplitHostPort(u); err != nil {
		return u
	}
	return "https://" + u
}

// replaceInterfaceURLs returns doc with the url of its i-th supported
// interface replaced by urls[i], and every other byte kept.
func replaceInterfaceURLs(doc []byte, card *a2av1.AgentCard, urls []string) ([]byte, error) {
	spans, err := interfaceURLSpans(doc)
	if err != nil {
		return nil, err
	}
	if len(spans) != len(urls) {
		return nil, fmt.Errorf("found %d interfaces, the card has %d", len(spans), len(urls))
	}
	var out bytes.Buffer
	last := int64(0)
	for i, sp := range spans {
		if sp.start < 0 || urls[i] == card.GetSupportedInterfaces()[i].GetUrl() {
			continue
		}
		out.Write(doc[last:sp.start])
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(urls[i]); err != nil {
			return nil, err
		}
		out.Truncate(out.Len() - 1) // Encode's newline
		last = sp.end
	}
	out.Write(doc[last:])
	return out.Bytes(), nil
}

// span is where a JSON string value stands in a document, its quotes
// included; start is -1 for an interface without a url.
type span struct{ start, end int64 }

// interfaceURLSpans finds the url string of every supported interface of
// the card document doc, in order.
func interfaceURLSpans(doc []byte) ([]span, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var spans []span
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key == "supportedInterfaces" || key == "supported_interfaces" {
			spans, err = appendURLSpans(spans, dec, doc, key)
		} else {
			err = skipValue(dec)
		}
		if err != nil {
			return nil, err
		}
	}
	return spans, nil
}

// appendURLSpans appends where the url of each interface of the array key
// stands.
func appendURLSpans(spans []span, dec *json.Decoder, doc []byte, key any) ([]span, error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, fmt.Errorf("%s is not an array", key)
	}
	for dec.More() {
		sp, err := urlSpan(dec, doc, key)
		if err != nil {
			return nil, err
		}
		spans = append(spans, sp)
	}
	_, err := dec.Token() // ']'
	return spans, err
}

// urlSpan reads one interface object of the array key and returns where its
// url stands.
func urlSpan(dec *json.Decoder, doc []byte, key any) (span, error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return span{}, fmt.Errorf("an entry of %s is not an object", key)
	}
	sp := span{-1, -1}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return span{}, err
		}
		if k != "url" {
			if err := skipValue(dec); err != nil {
				return span{}, err
			}
			continue
		}
		// The offset is past the key; the value's quote follows the colon
		// and any white space.
		from := dec.InputOffset()
		v, err := dec.Token()
		if _, isString := v.(string); err != nil || !isString {
			return span{}, errors.New("an interface url is not a string")
		}
		end := dec.InputOffset()
		sp = span{from + int64(bytes.IndexByte(doc[from:end], '"')), end}
	}
	_, err := dec.Token() // '}'
	return sp, err
}

// skipValue reads the next value of dec, whatever it is.
func skipValue(dec *json.Decoder) error {
	var v json.RawMessage
	return dec.Decode(&v)
}
