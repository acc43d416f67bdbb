package runtime

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/protobuf/proto"
)

// VersionAdapter serves the wire form of another version of the A2A
// protocol (its JSON-RPC method names, HTTP+JSON routes and JSON shapes)
// through the endpoints of a service, so that one handler, one Executor and
// one store answer both generations. The runtime knows nothing of the other
// version: the adapter maps its method names and routes onto the service's
// operations and converts its JSON to the service's request messages and the
// response messages back (compat/a2av03.Adapter is the one of A2A v0.3).
//
// With an adapter, a binding negotiates versions by wire form: a request in
// the adapter's form is served as Version when it carries no A2A-Version, and
// one whose A2A-Version names another version is refused with
// VersionNotSupported; a request in the service's own form that names
// Version is refused the same way (the form contradicts the header). See
// WithVersionAdapter.
type VersionAdapter struct {
	// Version is the protocol version (Major.Minor) of the wire form, "0.3".
	Version string
	// Methods are the JSON-RPC methods of the version.
	Methods []AdaptedMethod
	// Routes are the HTTP+JSON routes of the version.
	Routes []AdaptedRoute
	// ExtensionHeaders are further request headers that carry
	// A2A-Extensions in this version ("X-A2A-Extensions" in v0.3); they
	// are merged with A2A-Extensions.
	ExtensionHeaders []string
	// ErrorCode, when set, is the code to answer this version's clients
	// with for an error of code c (a code the version does not know).
	ErrorCode func(c ErrorCode) ErrorCode
	// ErrorDataObject makes the data of this version's JSON-RPC errors an
	// object, the google.rpc.ErrorInfo alone (in its ProtoJSON Any form,
	// with "@type"), instead of the array of details, for requests that
	// carry no A2A-Version: the clients of the version's own generation
	// (A2A v0.3 has no A2A-Version; the Go SDK's v0.3 line decodes data as
	// an object and fails on an array). A request that names the version
	// comes from a client of a later generation speaking it (the Go SDK v2's
	// a2av0 sends A2A-Version: 0.3 and decodes data as the array), and keeps
	// the array. Field violations are named by the message only in the
	// object form.
	ErrorDataObject bool
	// RESTErrorCode adds the JSON-RPC code and message of an error at the
	// top level of this version's HTTP+JSON error bodies, beside the
	// google.rpc.Status member "error" ({"code":-32001,"message":…,"error":{…}}),
	// and sends the final error event of a stream as an SSE event of type
	// "error": the A2A v0.3 REST clients disagree on the error body (the JS
	// SDK reads the top-level code and message and an "event: error", the Go
	// SDK the Status, ignoring event types), and this one body serves both.
	RESTErrorCode bool
	// RESTPrefix is the first path segment of the version's HTTP+JSON
	// routes ("v1" in v0.3: "/v1/message:send"). Routes are served under
	// it whatever A2A-Version says, except when the header names a version
	// the service itself serves (then the path is the service's, e.g. the
	// v1.0 route of tenant "v1"), and at their plain path ("/message:send")
	// when A2A-Version names Version.
	RESTPrefix string
}

// AdaptedMethod is one JSON-RPC method of a VersionAdapter.
type AdaptedMethod struct {
	// Method is the JSON-RPC method name ("message/send").
	Method string
	// Operation is the rpc of the service that serves it ("SendMessage").
	Operation string
	// DecodeParams fills req, a new request message of Operation, from the
	// params ({} when the request has none). Errors should be *Error
	// (InvalidParams naming the offending field); others become
	// InvalidParams with their text.
	DecodeParams func(params []byte, req proto.Message) error
	// EncodeResult writes a response message of Operation (for a
	// streaming rpc, one event) as the version's JSON result.
	EncodeResult func(resp proto.Message) ([]byte, error)
}

// AdaptedRoute is one HTTP+JSON route of a VersionAdapter.
type AdaptedRoute struct {
	// HTTPMethod is the verb ("GET", "POST", "DELETE").
	HTTPMethod string
	// Path is the route below the interface URL and RESTPrefix, with
	// {name} variables that match one non-empty segment each and an
	// optional ":verb" suffix on the last segment ("/tasks/{id}:cancel").
	Path string
	// Operation is the rpc of the service that serves it.
	Operation string
	// Body is true when the route reads a request body (POST).
	Body bool
	// Decode fills req, a new request message of Operation, from the
	// request.
	Decode func(r *AdaptedRequest, req proto.Message) error
	// Encode writes a response message (or one event) as the version's
	// JSON body.
	Encode func(resp proto.Message) ([]byte, error)
}

// AdaptedRequest is what an AdaptedRoute decodes: the body (nil without
// one), the path variables, the query string and whether the route was
// matched at its plain path (A2A-Version naming the version) rather than
// under RESTPrefix.
type AdaptedRequest struct {
	Body  []byte
	Vars  map[string]string
	Query url.Values
	Plain bool
	// Encode, when the route's Decode sets it, encodes this request's
	// response (or each event) instead of the route's Encode: for a
	// version with several wire forms, the form the request came in.
	Encode func(resp proto.Message) ([]byte, error)
}

// WithVersionAdapter makes a JSON-RPC or HTTP+JSON binding serve the wire
// form of another protocol version through the same endpoints (see
// VersionAdapter). The versions named in VersionNotSupported errors are then
// the service's and the adapters'. Adding two adapters for one version,
// or one whose Operation the service lacks, panics when the handler is built.
func WithVersionAdapter(a *VersionAdapter) HandlerOption {
	return func(c *handlerConfig) {
		if a != nil {
			c.adapters = append(c.adapters, a)
		}
	}
}

// servedVersions are the versions an interface serves: its own, then the
// adapters'.
func (c *handlerConfig) servedVersions() []string {
	if len(c.adapters) == 0 {
		return c.supportedVersions
	}
	out := append([]string(nil), c.supportedVersions...)
	for _, a := range c.adapters {
		out = append(out, a.Version)
	}
	return out
}

// adapterFor is the adapter of version v (Major.Minor), or nil.
func (c *handlerConfig) adapterFor(v string) *VersionAdapter {
	for _, a := range c.adapters {
		if n, ok := ParseVersion(a.Version); ok && n == v {
			return a
		}
	}
	return nil
}

// adaptedCall is one operation of an adapter, bound to its endpoint.
type adaptedCall struct {
	adapter *VersionAdapter
	ep      *Endpoint
	method  *AdaptedMethod // JSON-RPC
	route   *AdaptedRoute  // HTTP+JSON
}

// adaptedMethods indexes the JSON-RPC methods of the adapters of c.
func (c *handlerConfig) adaptedMethods(svc *Service) map[string]*adaptedCall {
	if len(c.adapters) == 0 {
		return nil
	}
	out := map[string]*adaptedCall{}
	seen := map[string]bool{}
	for _, a := range c.adapters {
		if seen[a.Version] {
			panic(fmt.Sprintf("a2a: two version adapters for A2A %s", a.Version))
		}
		seen[a.Version] = true
		for i := range a.Methods {
			m := &a.Methods[i]
			out[m.Method] = &adaptedCall{adapter: a, ep: svc.adaptedEndpoint(a, m.Operation), method: m}
		}
	}
	return out
}

// adaptedEndpoint is the endpoint of rpc name, or a panic naming the adapter.
func (s *Service) adaptedEndpoint(a *VersionAdapter, name string) *Endpoint {
	for _, ep := range s.Endpoints {
		if ep.Operation.Name == name {
			return ep
		}
	}
	panic(fmt.Sprintf("a2a: the A2A %s adapter maps onto rpc %q, which service %s does not have", a.Version, name, s.Desc.Name))
}

// newAdaptedCallInfo negotiates the service parameters of a request in the
// wire form of adapter a: no A2A-Version means a.Version; another version
// is VersionNotSupported. Extensions are read from A2A-Extensions and the
// adapter's ExtensionHeaders.
func (c *handlerConfig) newAdaptedCallInfo(binding Binding, a *VersionAdapter, op *Operation, form string, header http.Header, queryVersion string) (*CallInfo, *Error) {
	requested := requestedVersion(header, queryVersion)
	version, _ := ParseVersion(a.Version)
	if requested != "" {
		if v, ok := ParseVersion(requested); !ok || v != version {
			e := VersionNotSupported(requested, c.servedVersions()...)
			e.message = fmt.Sprintf("A2A-Version %s does not match %s, which is A2A %s; this interface serves %s",
				requested, form, a.Version, strings.Join(c.servedVersions(), ", "))
			return nil, e
		}
	}
	values := serviceParamValues(header, paramExtensions, canonicalExtensions)
	for _, h := range a.ExtensionHeaders {
		values = append(values, header.Values(h)...)
	}
	extensions, err := parseRequestExtensions(values)
	if err != nil {
		return nil, err
	}
	if e := c.missingExtensions(extensions); e != nil {
		return nil, e
	}
	return &CallInfo{Operation: op, Binding: binding, Version: version, Extensions: extensions, Header: header, adapter: a,
		versionNamed: requested != ""}, nil
}

// wireError is e as the client of info's version should see it: with the
// adapter's error code and form.
func wireError(info *CallInfo, e *Error) *Error {
	if info == nil || info.adapter == nil {
		return e
	}
	return adaptError(info.adapter, e, info.versionNamed)
}

// errorForm says how an error is rendered for a VersionAdapter's client
// (ErrorDataObject, RESTErrorCode).
type errorForm struct {
	dataObject bool // JSON-RPC error.data is the ErrorInfo object
	restCode   bool // HTTP+JSON bodies carry the JSON-RPC code and message
}

// adaptError is e with the code adapter a answers it with, rendered in the
// error form of a for a request that named its version (versionNamed) or
// not.
func adaptError(a *VersionAdapter, e *Error, versionNamed bool) *Error {
	if e == nil {
		return e
	}
	c := e.code
	if a.ErrorCode != nil {
		c = a.ErrorCode(e.code)
	}
	form := errorForm{dataObject: a.ErrorDataObject && !versionNamed, restCode: a.RESTErrorCode}
	if c == e.code && form == e.form {
		return e
	}
	out := *e
	out.code, out.form = c, form
	return &out
}

// decodeAdapted runs an adapter's decoder; errors that are not *Error are
// InvalidParams with their text.
func decodeAdapted(decode func() error) *Error {
	if err := decode(); err != nil {
		return paramsError(err)
	}
	return nil
}
