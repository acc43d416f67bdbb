package manifest

import (
	"errors"
	"fmt"
	"mime"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/a2agen/a2agen/internal/dataschema"
)

// checkHTTPURL accepts absolute http and https URLs with a host.
func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("invalid URL %q: %v", s, unwrapURLError(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("invalid URL %q: must be an absolute http:// or https:// URL", s)
	}
	if u.Host == "" {
		return fmt.Errorf("invalid URL %q: no host", s)
	}
	return nil
}

// checkBaseURL accepts an http(s) URL without query or fragment, to which
// binding paths are appended.
func checkBaseURL(s string) error {
	if err := checkHTTPURL(s); err != nil {
		return err
	}
	u, _ := url.Parse(s)
	if u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#") {
		return fmt.Errorf("invalid base URL %q: no query or fragment allowed (binding paths are appended to it)", s)
	}
	return nil
}

// ValidateBaseURL reports whether s can serve as the public base URL of an
// agent (the --url of a2a-scaffold card): an absolute http or https URL with
// a host and without query or fragment.
func ValidateBaseURL(s string) error { return checkBaseURL(s) }

// checkURI accepts any absolute URI (extension identifiers may be URNs).
func checkURI(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("invalid URI %q: %v", s, unwrapURLError(err))
	}
	if u.Scheme == "" {
		return fmt.Errorf("invalid URI %q: must be absolute, such as \"https://example.com/ext/v1\"", s)
	}
	return nil
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// checkMediaType accepts a media type (RFC 6838) with optional parameters.
func checkMediaType(s string) error {
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		return fmt.Errorf("invalid media type %q: %v", s, err)
	}
	if typ, sub, ok := strings.Cut(mt, "/"); !ok || typ == "" || sub == "" {
		return fmt.Errorf("invalid media type %q: must be type/subtype, such as \"text/plain\"", s)
	}
	return nil
}

// checkModulePath accepts what `go mod init` accepts for a module path, in
// the common subset: slash-separated elements of letters, digits and
// "-._~", none empty, none starting or ending with a dot.
func checkModulePath(s string) error {
	if strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") {
		return fmt.Errorf("invalid module path %q: must not start or end with a slash", s)
	}
	for elem := range strings.SplitSeq(s, "/") {
		if err := checkModuleElem(elem); err != nil {
			return fmt.Errorf("invalid module path %q: %w", s, err)
		}
	}
	return nil
}

// checkModuleElem checks one element of a module path.
func checkModuleElem(elem string) error {
	if elem == "" {
		return errors.New("empty path element")
	}
	if strings.HasPrefix(elem, ".") || strings.HasSuffix(elem, ".") {
		return fmt.Errorf("element %q starts or ends with a dot", elem)
	}
	if r, bad := firstRuneNot(elem, isUnreserved); bad {
		return fmt.Errorf("character %q not allowed (use letters, digits, \"-\", \".\", \"_\", \"~\")", r)
	}
	return nil
}

// isUnreserved reports whether r is an unreserved URL character (RFC 3986
// §2.3): an ASCII letter or digit, "-", ".", "_" or "~".
func isUnreserved(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~", r)
}

// firstRuneNot is the first rune of s that ok rejects, and whether there
// is one.
func firstRuneNot(s string, ok func(rune) bool) (rune, bool) {
	for _, r := range s {
		if !ok(r) {
			return r, true
		}
	}
	return 0, false
}

// checkAddress accepts host:port with a numeric port from 1 to 65535; the
// host may be empty (all interfaces).
func checkAddress(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("invalid address %q: must be host:port or :port, such as \":8080\"", s)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("invalid address %q: port must be a number from 1 to 65535", s)
	}
	return nil
}

// checkPath accepts a clean absolute URL path.
func checkPath(s string) error {
	if !strings.HasPrefix(s, "/") {
		return fmt.Errorf("invalid path %q: must start with \"/\"", s)
	}
	if strings.ContainsAny(s, "?# \t") {
		return fmt.Errorf("invalid path %q: no query, fragment or spaces allowed", s)
	}
	if path.Clean(s) != s {
		return fmt.Errorf("invalid path %q: write it as %q", s, path.Clean(s))
	}
	if s == "/.well-known/agent-card.json" || strings.HasPrefix(s, "/.well-known/") {
		return fmt.Errorf("invalid path %q: /.well-known/ is reserved for the agent card", s)
	}
	return nil
}

// checkName accepts identifiers for skill ids and scheme names: a letter,
// then letters, digits, "-", "_" or "." (dataschema.CheckName, the rule of
// property names). Generated file and Go names are derived from them.
func checkName(s string) error {
	if err := dataschema.CheckName(s); err != nil {
		return fmt.Errorf("%q %w", s, err)
	}
	return nil
}

// checkTenant accepts one URL path segment of unreserved characters, since
// HTTP+JSON carries the tenant as the first path segment.
func checkTenant(s string) error {
	if _, bad := firstRuneNot(s, isUnreserved); bad {
		return fmt.Errorf("invalid tenant %q: must be one URL path segment of letters, digits, \"-\", \".\", \"_\" and \"~\"", s)
	}
	return nil
}

// checkToken accepts an HTTP token (RFC 9110 §5.6.2), the syntax of header
// and cookie names.
func checkToken(s string) error {
	for _, r := range s {
		if r > 0x7e || r <= 0x20 || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return fmt.Errorf("invalid name %q: %q is not allowed in a header or cookie name", s, r)
		}
	}
	return nil
}
