package agentcard

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	a2av03pb "github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
	"github.com/a2agen/a2agen/compat/a2av03grpc"
	"github.com/a2agen/a2agen/runtime"
)

// v03 is the older protocol version this client also speaks, through the
// conversions of compat/a2av03 (JSON-RPC, HTTP+JSON) and compat/a2av03grpc
// (gRPC).
const v03 = "0.3"

// v03Transports are the transport constructors of the bindings for a v0.3
// interface: the v1.0 client calls a v0.3-only agent through them.
var v03Transports = map[runtime.Binding]TransportFunc{
	runtime.BindingJSONRPC: func(u string, opts ...runtime.ClientOption) (runtime.ClientTransport, error) {
		return a2av03.NewJSONRPCClientTransport(u, opts...), nil
	},
	runtime.BindingHTTPJSON: func(u string, opts ...runtime.ClientOption) (runtime.ClientTransport, error) {
		return a2av03.NewRESTClientTransport(u, opts...), nil
	},
	runtime.BindingGRPC: func(u string, opts ...runtime.ClientOption) (runtime.ClientTransport, error) {
		t, err := runtime.NewGRPCTransport(u, runtime.ClientDefaults(&a2av03pb.A2AServiceDesc, opts)...)
		if err != nil {
			return nil, err
		}
		return a2av03grpc.NewTransport(t), nil
	},
}

// supportedMajor is the protocol major version this client speaks: that of
// the newest version of the generated service it wraps.
var supportedMajor, _, _ = strings.Cut(a2av1.A2AServiceDesc.ProtocolVersion(), ".")

// builtinTransport returns the transport constructor of a binding this
// package builds by itself (runtime.BindingSpec.NewTransport), or nil: the
// bindings a client speaks without WithTransport.
func builtinTransport(binding runtime.Binding) TransportFunc {
	if spec, ok := runtime.BindingSpecOf(binding); ok {
		return spec.NewTransport
	}
	return nil
}

// bindingKey is the comparison form of a binding name: the built-in binding
// it names (runtime.ParseBinding: any case, "json-rpc", "rest"…), or a
// custom binding URI upper-cased.
func bindingKey[S ~string](b S) runtime.Binding {
	if known, err := runtime.ParseBinding(string(b)); err == nil {
		return known
	}
	return runtime.Binding(strings.ToUpper(strings.TrimSpace(string(b))))
}

// transportFor returns the constructor for binding: WithTransport's first,
// then the built-in one; nil when the binding is not spoken.
func (c *config) transportFor(binding runtime.Binding) TransportFunc {
	if f, ok := c.transports[binding]; ok && f != nil {
		return f
	}
	return builtinTransport(binding)
}

// supportedBindings lists the bindings this configuration speaks, for
// error messages.
func (c *config) supportedBindings() []string {
	var out []string
	for _, b := range runtime.Bindings() {
		out = append(out, b.String())
	}
	builtin := len(out)
	for b := range c.transports {
		if !slices.Contains(out, b.String()) {
			out = append(out, b.String())
		}
	}
	slices.Sort(out[builtin:])
	return out
}

// Refusal says why one supportedInterfaces entry was not chosen.
type Refusal struct {
	// Index is the entry's position in card.supportedInterfaces.
	Index int
	// Interface is the entry itself.
	Interface *a2av1.AgentInterface
	// Reason is a sentence a user can act on.
	Reason string
}

// String renders the refusal as it appears in NoInterfaceError's message.
func (r Refusal) String() string {
	i := r.Interface
	return fmt.Sprintf("supportedInterfaces[%d] (%s %s, protocolVersion %q): %s",
		r.Index, i.GetProtocolBinding(), i.GetUrl(), i.GetProtocolVersion(), r.Reason)
}

// NoInterfaceError is returned when no interface of a card can be used. It
// lists every entry of supportedInterfaces and why it was refused.
type NoInterfaceError struct {
	// Card is the card's name.
	Card string
	// Refused has one entry per interface of the card, in card order.
	Refused []Refusal
}

// Error names the card and lists every refusal.
func (e *NoInterfaceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "agentcard: no usable interface in the agent card %q", e.Card)
	if len(e.Refused) == 0 {
		b.WriteString(": it lists no supportedInterfaces (and, read as an A2A v0.3 card, no url)")
		return b.String()
	}
	for i, r := range e.Refused {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// SelectInterface returns the interface of card a client configured with
// opts would use: the first supportedInterfaces entry (in card order, or in
// WithBindings order) whose protocolBinding the client speaks, whose
// protocolVersion has major version 1, and whose url fits the binding
// (an absolute http(s) URL for the HTTP bindings, anything
// runtime.ParseGRPCTarget accepts for gRPC). Otherwise it returns a
// *NoInterfaceError.
func SelectInterface(card *a2av1.AgentCard, opts ...Option) (*a2av1.AgentInterface, error) {
	_, iface, err := newConfig(opts).selectInterface(card)
	return iface, err
}

// selectInterface returns the chosen interface and its transport constructor.
func (c *config) selectInterface(card *a2av1.AgentCard) (TransportFunc, *a2av1.AgentInterface, error) {
	ifaces := card.GetSupportedInterfaces()
	reasons := make([]string, len(ifaces))
	order := c.candidateOrder(ifaces, reasons)
	// The highest version both sides speak: every v1.x interface first,
	// then v0.3 ones.
	for _, want03 := range []bool{false, true} {
		for _, i := range order {
			iface := ifaces[i]
			if is03(iface) != want03 {
				continue
			}
			f, reason := c.check(iface)
			if reason == "" {
				return f, iface, nil
			}
			reasons[i] = reason
		}
	}
	e := &NoInterfaceError{Card: card.GetName()}
	for i, iface := range ifaces {
		e.Refused = append(e.Refused, Refusal{Index: i, Interface: iface, Reason: reasons[i]})
	}
	return nil, nil, e
}

// askedFor lists the bindings of WithBindings, for messages.
func (c *config) askedFor() string {
	names := make([]string, len(c.bindings))
	for i, b := range c.bindings {
		names[i] = b.String()
	}
	return strings.Join(names, ", ")
}

// candidateOrder returns the indexes of the interfaces to try, in order.
// With WithBindings, interfaces of other bindings get their refusal reason
// here.
func (c *config) candidateOrder(ifaces []*a2av1.AgentInterface, reasons []string) []int {
	if len(c.bindings) == 0 {
		order := make([]int, len(ifaces))
		for i := range order {
			order[i] = i
		}
		return order
	}
	var order []int
	for _, want := range c.bindings {
		for i, iface := range ifaces {
			if bindingKey(iface.GetProtocolBinding()) == want && !slices.Contains(order, i) {
				order = append(order, i)
			}
		}
	}
	for i := range ifaces {
		if !slices.Contains(order, i) {
			reasons[i] = fmt.Sprintf("binding %q is not among the bindings asked for (%s)", ifaces[i].GetProtocolBinding(), c.askedFor())
		}
	}
	return order
}

// check returns the transport constructor of a usable interface, or why the
// interface cannot be used.
func (c *config) check(iface *a2av1.AgentInterface) (TransportFunc, string) {
	name := iface.GetProtocolBinding()
	binding := bindingKey(name)
	f := c.transportFor(binding)
	switch {
	case strings.TrimSpace(name) == "":
		return nil, "it has no protocolBinding"
	case f == nil:
		return nil, fmt.Sprintf("binding %q is not supported by this client (supported: %s; WithTransport adds others)",
			name, strings.Join(c.supportedBindings(), ", "))
	}
	if reason := checkVersion(iface.GetProtocolVersion()); reason != "" {
		return nil, reason
	}
	if is03(iface) {
		if f = v03Transports[binding]; f == nil {
			return nil, fmt.Sprintf("binding %q is not supported by this client for protocol version 0.3 (it speaks v0.3 over JSONRPC, HTTP+JSON and GRPC)", name)
		}
	}
	if reason := checkURL(binding, iface.GetUrl()); reason != "" {
		return nil, reason
	}
	return f, ""
}

// is03 reports whether iface speaks protocol version 0.3.
func is03(iface *a2av1.AgentInterface) bool {
	v, _ := runtime.ParseVersion(iface.GetProtocolVersion())
	return v == v03
}

// checkVersion accepts protocol versions of major version 1, and 0.3.
func checkVersion(v string) string {
	if strings.TrimSpace(v) == "" {
		return "it has no protocolVersion (required; a v1.0 interface says \"1.0\")"
	}
	mm, ok := runtime.ParseVersion(v)
	if !ok {
		return fmt.Sprintf("protocolVersion %q is not a Major.Minor version", v)
	}
	if major, _, _ := strings.Cut(mm, "."); major != supportedMajor && mm != v03 {
		return fmt.Sprintf("protocol version %s is not supported (this client speaks %s.x and %s)", mm, supportedMajor, v03)
	}
	return ""
}

// checkURL checks that an interface url can be used by the built-in
// transports of its binding; URLs of other bindings are the transport's
// business.
func checkURL(binding runtime.Binding, raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "it has no url"
	}
	switch {
	case binding.IsHTTP():
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Sprintf("url %q does not parse: %v", raw, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("url %q is not an absolute http(s) URL", raw)
		}
	case binding == runtime.BindingGRPC:
		if _, err := runtime.ParseGRPCTarget(raw); err != nil {
			return err.Error()
		}
	}
	return ""
}
