package runtime

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// restRoute is one HTTP verb on one compiled path pattern, bound to the
// endpoint that serves it.
type restRoute struct {
	ep      *Endpoint
	method  string
	matcher *pathMatcher
	// vars are the request fields of the pattern's variables, in order.
	vars []fieldPath
	// body is the rule's body selector: "" (no body: fields come from the
	// query string), "*" (the whole request) or the name of a top-level field.
	body      string
	bodyField protoreflect.FieldDescriptor // for a field selector
}

// readsBody reports whether the route decodes a request body.
func (rt *restRoute) readsBody() bool { return rt.body != "" }

// bodyFieldLevel is the number of JSON levels the request message adds
// around the body: 1 when the body is one of its fields, else 0.
func (rt *restRoute) bodyFieldLevel() int {
	if rt.bodyField != nil {
		return 1
	}
	return 0
}

// readsQuery reports whether fields may come from the query string: every
// field the path and the body do not carry (google.api.http semantics).
func (rt *restRoute) readsQuery() bool { return rt.body != "*" }

// routeNode gathers the routes that share one path shape (the same pattern
// up to variable names), one per verb.
type routeNode struct {
	matcher *pathMatcher
	routes  []*restRoute
	allow   string // the verbs, for the Allow header of a 405
}

// restRouter finds the route of a request. Nodes are ordered most specific
// first (pathMatcher.moreSpecific); the first node whose pattern matches the
// path decides: it serves the request when it has a route for the verb,
// else the answer is 405 listing its verbs. Less specific patterns are not
// tried, so "GET /tasks/x:cancel" is a 405 (CancelTask is POST), not a
// GetTask of the id "x:cancel".
type restRouter struct {
	nodes []*routeNode
}

// newRESTRouter compiles the HTTP rules of every endpoint of svc, plus the
// verbs of each operation's HTTPVerbs. Rules that cannot be served (data that does not fit
// the request message; hand-written descriptions) are skipped and logged,
// as are rules that repeat a verb and shape already routed.
func newRESTRouter(svc *Service, logger *slog.Logger) *restRouter {
	r := &restRouter{}
	byShape := map[string]*routeNode{}
	for _, ep := range svc.Endpoints {
		op := ep.Operation
		md := ep.NewRequest().ProtoReflect().Descriptor()
		for _, rule := range op.HTTPRules {
			rt, err := newRESTRoute(ep, md, rule)
			if err != nil {
				logger.Error("a2a: HTTP+JSON rule not served", slog.String("method", op.Name),
					slog.String("rule", rule.Method+" "+rule.Path), slog.Any("error", err))
				continue
			}
			r.nodeFor(byShape, rt.matcher).addVerbs(rt, rule, logger)
		}
	}
	slices.SortStableFunc(r.nodes, func(a, b *routeNode) int {
		switch {
		case a.matcher.moreSpecific(b.matcher):
			return -1
		case b.matcher.moreSpecific(a.matcher):
			return 1
		}
		return 0
	})
	for _, n := range r.nodes {
		n.allow = n.verbs()
	}
	return r
}

// nodeFor returns the node of the paths m matches, added when it is the
// first pattern of its shape (byShape indexes the nodes by shape).
func (r *restRouter) nodeFor(byShape map[string]*routeNode, m *pathMatcher) *routeNode {
	shape := m.shape()
	node := byShape[shape]
	if node == nil {
		node = &routeNode{matcher: m}
		byShape[shape] = node
		r.nodes = append(r.nodes, node)
	}
	return node
}

// addVerbs routes the verb of rule, and the server verbs the operation's
// HTTPVerbs add, to rt; a verb the node already routes keeps its route
// (logged when another operation holds it).
func (n *routeNode) addVerbs(rt *restRoute, rule HTTPRule, logger *slog.Logger) {
	op := rt.ep.Operation
	methods := []string{rule.Method}
	if op.HTTPVerbs != nil {
		methods = append(methods, op.HTTPVerbs.Server...)
	}
	for _, m := range methods {
		if i := slices.IndexFunc(n.routes, func(o *restRoute) bool { return o.method == m }); i >= 0 {
			if other := n.routes[i]; other.ep != rt.ep {
				logger.Warn("a2a: HTTP+JSON route already taken", slog.String("method", op.Name),
					slog.String("route", m+" "+rule.Path), slog.String("servedBy", other.ep.Operation.Name))
			}
			continue
		}
		verbRoute := *rt
		verbRoute.method = m
		if m != rule.Method && (m == http.MethodGet || m == http.MethodDelete) {
			// A verb added by an override that carries no body: the
			// fields come from the query string, as the client sends
			// them.
			verbRoute.body, verbRoute.bodyField = "", nil
		}
		n.routes = append(n.routes, &verbRoute)
	}
}

// verbs lists the node's verbs, sorted, for the Allow header of a 405.
func (n *routeNode) verbs() string {
	methods := make([]string, len(n.routes))
	for i, rt := range n.routes {
		methods[i] = rt.method
	}
	slices.Sort(methods)
	return strings.Join(methods, ", ")
}

// newRESTRoute compiles one rule against the request message md.
func newRESTRoute(ep *Endpoint, md protoreflect.MessageDescriptor, rule HTTPRule) (*restRoute, error) {
	m, err := compilePath(rule.Path)
	if err != nil {
		return nil, err
	}
	rt := &restRoute{ep: ep, method: rule.Method, matcher: m, body: rule.Body}
	for _, v := range m.vars {
		fp, err := resolveFieldPath(md, v.name)
		if err != nil {
			return nil, err
		}
		if multi := v.end-v.start != 1 || m.kinds[v.start] != matchOne; multi && fp[len(fp)-1].Kind() != protoreflect.StringKind {
			return nil, fmt.Errorf("path variable {%s} spans several segments, so its field must be a string", v.name)
		}
		rt.vars = append(rt.vars, fp)
	}
	if rule.Body != "" && rule.Body != "*" {
		rt.bodyField = md.Fields().ByName(protoreflect.Name(rule.Body))
		if rt.bodyField == nil {
			return nil, fmt.Errorf("body %q names no field of %s", rule.Body, md.FullName())
		}
	}
	switch rule.Method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil, fmt.Errorf("HTTP method %q is not one of GET, POST, PUT, PATCH, DELETE", rule.Method)
	}
	return rt, nil
}

// match returns the route for method on the decoded path segments; the node
// alone when the path is known but not the verb; neither for an unknown path.
func (r *restRouter) match(method string, segs []string) (*restRoute, *routeNode) {
	for _, n := range r.nodes {
		if !n.matcher.matches(segs) {
			continue
		}
		for _, rt := range n.routes {
			if rt.method == method {
				return rt, n
			}
		}
		return nil, n
	}
	return nil, nil
}
