package runtime

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Service parameter names (A2A §3.2.6). HTTP bindings carry them as request
// headers (case-insensitive), gRPC as lower-case metadata keys; REST also
// accepts A2A-Version as a query parameter.
const (
	paramVersion    = "A2A-Version"
	paramExtensions = "A2A-Extensions"
)

// The canonical http.Header keys of the parameters ("A2a-Version"), computed
// once so that reading them costs no allocation per request.
var (
	canonicalVersion    = http.CanonicalHeaderKey(paramVersion)
	canonicalExtensions = http.CanonicalHeaderKey(paramExtensions)
)

// versionWhenAbsent is what the spec makes a server assume when a request
// carries no A2A-Version (or an empty one).
const versionWhenAbsent = "0.3"

// newCallInfo negotiates the service parameters of a request: A2A-Version
// (header, or queryVersion for REST) against c.supportedVersions under
// c.versionPolicy; A2A-Extensions (split, trimmed, merged, deduplicated) against
// c.requiredExtensions. It returns VersionNotSupported or
// ExtensionSupportRequired errors.
func (c *handlerConfig) newCallInfo(binding Binding, op *Operation, header http.Header, queryVersion string) (*CallInfo, *Error) {
	version, err := c.negotiateVersion(header, queryVersion)
	if err != nil {
		return nil, err
	}
	extensions, err := parseRequestExtensions(serviceParamValues(header, paramExtensions, canonicalExtensions))
	if err != nil {
		return nil, err
	}
	if e := c.missingExtensions(extensions); e != nil {
		return nil, e
	}
	return &CallInfo{
		Operation:  op,
		Binding:    binding,
		Version:    version,
		Extensions: extensions,
		Header:     header,
	}, nil
}

// missingExtensions is ExtensionSupportRequired naming the required
// extensions a request did not activate, or nil.
func (c *handlerConfig) missingExtensions(extensions []string) *Error {
	var missing []string
	for _, uri := range c.requiredExtensions {
		if !slices.Contains(extensions, uri) && !slices.Contains(missing, uri) {
			missing = append(missing, uri)
		}
	}
	if len(missing) > 0 {
		return ExtensionSupportRequired(missing...)
	}
	return nil
}

// requestedVersion is the A2A-Version a request names: the first non-empty
// header value, else the query parameter; "" for none.
func requestedVersion(header http.Header, queryVersion string) string {
	for _, v := range serviceParamValues(header, paramVersion, canonicalVersion) {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return strings.TrimSpace(queryVersion)
}

// negotiateVersion picks the protocol version of a request. The first
// non-empty A2A-Version header value wins over the query parameter. A
// version served only by a VersionAdapter is refused: the request is in the
// service's own wire form, which contradicts it.
func (c *handlerConfig) negotiateVersion(header http.Header, queryVersion string) (string, *Error) {
	requested := requestedVersion(header, queryVersion)
	if len(c.supportedVersions) == 0 {
		// A service that names no protocol version does not negotiate.
		v, _ := ParseVersion(requested)
		return v, nil
	}
	if requested == "" {
		if c.versionPolicy == VersionLenient {
			d := c.supportedVersions[0]
			if c.versionDefault != "" {
				d = c.versionDefault
			}
			v, ok := ParseVersion(d)
			if !ok {
				v = d
			}
			return v, nil
		}
		if c.supports(versionWhenAbsent) {
			return versionWhenAbsent, nil
		}
		e := VersionNotSupported(versionWhenAbsent, c.servedVersions()...)
		if c.adapterFor(versionWhenAbsent) != nil {
			e.message = "no A2A-Version was sent, which means " + versionWhenAbsent +
				", and this is an A2A " + strings.Join(c.supportedVersions, "/") + " method (strict version policy); send A2A-Version: " +
				strings.Join(c.supportedVersions, " or ") + ", or call the A2A " + versionWhenAbsent + " form of the operation"
			return "", e
		}
		e.message = "no A2A-Version was sent, which means " + versionWhenAbsent +
			", and this interface does not serve it; send A2A-Version: " + strings.Join(c.supportedVersions, " or ")
		return "", e
	}
	v, ok := ParseVersion(requested)
	if !ok || !c.supports(v) {
		e := VersionNotSupported(requested, c.servedVersions()...)
		if ok && c.adapterFor(v) != nil {
			e.message = fmt.Sprintf("A2A-Version %s does not match the request, which is in the A2A %s form; this interface serves %s, each in its own form (docs/bindings.md, versions)",
				requested, strings.Join(c.supportedVersions, "/"), strings.Join(c.servedVersions(), ", "))
		}
		return "", e
	}
	return v, nil
}

// supports reports whether v (Major.Minor) is one of c.supportedVersions.
func (c *handlerConfig) supports(v string) bool {
	for _, s := range c.supportedVersions {
		if n, ok := ParseVersion(s); ok && n == v {
			return true
		}
	}
	return false
}

// ParseVersion normalises an A2A protocol version to Major.Minor: a patch
// component is accepted and dropped ("1.0.1" → "1.0", as the spec says it MUST
// NOT be considered), surrounding space is trimmed and leading zeros are
// removed. It reports false for anything that is not two or three dot-separated
// decimal numbers ("abc", "1", "v1.0", "1.0.x").
func ParseVersion(v string) (string, bool) {
	v = strings.TrimSpace(v)
	major, rest, ok := strings.Cut(v, ".")
	if !ok || !isVersionNumber(major) {
		return "", false
	}
	minor, patch, hasPatch := strings.Cut(rest, ".")
	if !isVersionNumber(minor) || (hasPatch && !isVersionNumber(patch)) {
		return "", false
	}
	if (len(major) > 1 && major[0] == '0') || (len(minor) > 1 && minor[0] == '0') {
		maj, err1 := strconv.ParseUint(major, 10, 64)
		mnr, err2 := strconv.ParseUint(minor, 10, 64)
		if err1 != nil || err2 != nil {
			return "", false
		}
		return strconv.FormatUint(maj, 10) + "." + strconv.FormatUint(mnr, 10), true
	}
	return v[:len(major)+1+len(minor)], true
}

func isVersionNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Limits on the A2A-Extensions service parameter of a request, checked by
// every binding before authentication. A request over either limit is refused
// with InvalidRequest (JSON-RPC -32600, HTTP 400, gRPC InvalidArgument) whose
// message and "limit" metadata name the limit.
const (
	// MaxExtensionsHeaderBytes bounds the total size of the A2A-Extensions
	// values of one request (every header line or metadata entry together).
	MaxExtensionsHeaderBytes = 16 << 10
	// MaxExtensionURIs bounds the number of distinct extension URIs one
	// request may name.
	MaxExtensionURIs = 100
)

// parseRequestExtensions is ParseExtensions under MaxExtensionsHeaderBytes and
// MaxExtensionURIs.
func parseRequestExtensions(values []string) ([]string, *Error) {
	size := 0
	for _, v := range values {
		size += len(v)
	}
	if size > MaxExtensionsHeaderBytes {
		return nil, limitExceeded("MaxExtensionsHeaderBytes",
			fmt.Sprintf("A2A-Extensions is %d bytes, over the limit of %d bytes (MaxExtensionsHeaderBytes)", size, MaxExtensionsHeaderBytes),
			MaxExtensionsHeaderBytes)
	}
	out := parseExtensions(values, MaxExtensionURIs+1)
	if len(out) > MaxExtensionURIs {
		return nil, limitExceeded("MaxExtensionURIs",
			fmt.Sprintf("A2A-Extensions names more than %d extension URIs (MaxExtensionURIs)", MaxExtensionURIs),
			MaxExtensionURIs)
	}
	return out, nil
}

// limitExceeded is the InvalidRequest error of a request over one of the
// runtime's limits: the message and the metadata name the limit.
func limitExceeded(name, message string, value int) *Error {
	return &Error{code: CodeInvalidRequest, message: message,
		metadata: map[string]string{"limit": name, "limitValue": strconv.Itoa(value)}}
}

// ParseExtensions turns A2A-Extensions values into extension URIs: every value
// (one per header line or metadata entry) is split on commas, each item is
// trimmed, empty items are dropped and duplicates removed, keeping the order of
// first appearance. Clients send one comma-joined header, but some send one
// header per URI, so both forms are merged. It returns nil when there are none.
// It takes time linear in the size of values.
func ParseExtensions(values []string) []string {
	return parseExtensions(values, -1)
}

// dedupSetAfter is the number of distinct URIs from which parseExtensions
// looks duplicates up in a set rather than by scanning the list: a few URIs
// are the usual case and a scan is cheaper then.
const dedupSetAfter = 8

// parseExtensions is ParseExtensions stopping once it has max distinct URIs
// (max < 0: no limit).
func parseExtensions(values []string, max int) []string {
	var out []string
	var seen map[string]struct{}
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			if seen != nil {
				if _, dup := seen[item]; dup {
					continue
				}
				seen[item] = struct{}{}
			} else {
				if slices.Contains(out, item) {
					continue
				}
				if len(out) == dedupSetAfter {
					seen = make(map[string]struct{}, 2*dedupSetAfter)
					for _, u := range out {
						seen[u] = struct{}{}
					}
					seen[item] = struct{}{}
				}
			}
			out = append(out, item)
			if len(out) == max {
				return out
			}
		}
	}
	return out
}

// serviceParamValues returns every value of the header key, matching the key
// case-insensitively: http.Header canonicalises keys it parses
// ("A2a-Version"), but headers built by hand or from gRPC metadata may hold
// other spellings ("a2a-version").
func serviceParamValues(h http.Header, key, canonical string) []string {
	values := h[canonical]
	for k, vs := range h {
		if k != canonical && strings.EqualFold(k, key) {
			values = append(values[:len(values):len(values)], vs...)
		}
	}
	return values
}
