package gen

import (
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/a2agen/a2agen/internal/pathtemplate"
)

// httpBinding is one checked google.api.http rule of an rpc.
type httpBinding struct {
	Method string // "GET", "PUT", "POST", "DELETE" or "PATCH"
	Path   string // the template as written in the proto
	Body   string // "", "*" or a top-level field name
}

// httpBindings returns the primary rule of m followed by its
// additional_bindings, or the problems that make them unusable.
func httpBindings(file *protogen.File, m *protogen.Method) ([]httpBinding, []error) {
	rule := httpRule(m)
	if rule == nil {
		return nil, nil
	}
	var (
		out      []httpBinding
		problems []error
	)
	check := func(r *annotations.HttpRule, label string) {
		b, errs := checkRule(file, m, r, label)
		problems = append(problems, errs...)
		if len(errs) == 0 {
			out = append(out, b)
		}
	}
	check(rule, "google.api.http")
	for i, extra := range rule.GetAdditionalBindings() {
		label := fmt.Sprintf("google.api.http additional_bindings[%d]", i)
		if len(extra.GetAdditionalBindings()) > 0 {
			problems = append(problems, problemf(file, m.Desc, "%s has additional_bindings of its own; list every binding in the top-level additional_bindings", label))
			continue
		}
		check(extra, label)
	}
	return out, problems
}

// checkRule checks one rule against the request message of m.
func checkRule(file *protogen.File, m *protogen.Method, r *annotations.HttpRule, label string) (httpBinding, []error) {
	method, path, err := rulePattern(file, m, r, label)
	if err != nil {
		return httpBinding{}, []error{err}
	}
	b := httpBinding{Method: method, Path: path, Body: r.GetBody()}
	what := fmt.Sprintf("%s %s %q", label, strings.ToLower(b.Method), b.Path)
	var problems []error
	for _, msg := range ruleProblems(m.Input.Desc, r, b) {
		problems = append(problems, problemf(file, m.Desc, "%s: %s", what, msg))
	}
	return b, problems
}

// rulePattern is the HTTP method and path template of a rule's pattern, or
// why the pattern is not supported.
func rulePattern(file *protogen.File, m *protogen.Method, r *annotations.HttpRule, label string) (method, path string, err error) {
	switch p := r.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return "GET", p.Get, nil
	case *annotations.HttpRule_Put:
		return "PUT", p.Put, nil
	case *annotations.HttpRule_Post:
		return "POST", p.Post, nil
	case *annotations.HttpRule_Delete:
		return "DELETE", p.Delete, nil
	case *annotations.HttpRule_Patch:
		return "PATCH", p.Patch, nil
	case *annotations.HttpRule_Custom:
		return "", "", problemf(file, m.Desc, "%s uses custom kind %q, which is not supported; use get, put, post, delete or patch", label, p.Custom.GetKind())
	}
	return "", "", problemf(file, m.Desc, "%s sets no pattern; set one of get, put, post, delete or patch", label)
}

// ruleProblems says what is wrong with rule r, whose method, path and body
// b holds, for the request message req: its response body, its body, then
// its path.
func ruleProblems(req protoreflect.MessageDescriptor, r *annotations.HttpRule, b httpBinding) []string {
	var out []string
	if rb := r.GetResponseBody(); rb != "" {
		out = append(out, fmt.Sprintf("response_body %q is not supported; remove it (the whole response message is the HTTP body)", rb))
	}
	if b.Body != "" && (b.Method == "GET" || b.Method == "DELETE") {
		out = append(out, fmt.Sprintf("sets body %q, but %s requests carry no body; remove body and bind fields through the path or query", b.Body, b.Method))
	}
	if b.Body != "" && b.Body != "*" && req.Fields().ByName(protoreflect.Name(b.Body)) == nil {
		out = append(out, fmt.Sprintf("body %q names no field of %s %s; use \"*\" for the whole request or the name of a top-level field", b.Body, req.FullName(), fieldList(req)))
	}
	return append(out, pathProblems(req, b.Path)...)
}

// pathProblems says what is wrong with a rule's path template: that it
// does not parse, or each of its variables that does not resolve to a
// field of req a path can bind.
func pathProblems(req protoreflect.MessageDescriptor, path string) []string {
	tmpl, err := pathtemplate.Parse(path)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, v := range tmpl.Variables {
		if msg := checkVariable(req, tmpl, v); msg != "" {
			out = append(out, msg)
		}
	}
	return out
}

// checkVariable resolves a path variable through the request message and
// returns what is wrong with it, or "".
func checkVariable(req protoreflect.MessageDescriptor, t *pathtemplate.Template, v pathtemplate.Variable) string {
	md := req
	var fd protoreflect.FieldDescriptor
	for i, name := range v.FieldPath {
		if fd != nil {
			// The previous element must lead into a message.
			if fd.Message() == nil || fd.Cardinality() == protoreflect.Repeated {
				return fmt.Sprintf("path variable {%s}: field %s is %s, so it has no field %s; a path variable may only go through singular message fields",
					v.Name(), strings.Join(v.FieldPath[:i], "."), kindOf(fd), name)
			}
			md = fd.Message()
		}
		fd = md.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			return fmt.Sprintf("path variable {%s} names no field of %s %s; rename the variable or add the field to the request", v.Name(), md.FullName(), fieldList(md))
		}
	}
	switch {
	case fd.IsMap() || fd.Cardinality() == protoreflect.Repeated || fd.Message() != nil:
		return fmt.Sprintf("path variable {%s}: field %s is %s; a path variable must name a singular scalar field (string, number, bool, enum or bytes)", v.Name(), v.Name(), kindOf(fd))
	case !t.SingleSegment(v) && fd.Kind() != protoreflect.StringKind:
		return fmt.Sprintf("path variable {%s} captures more than one \"*\" segment, so field %s must be a string, not %s", v.Name(), v.Name(), kindOf(fd))
	}
	return ""
}

// kindOf describes a field's type for error messages.
func kindOf(fd protoreflect.FieldDescriptor) string {
	switch {
	case fd.IsMap():
		return "a map"
	case fd.Cardinality() == protoreflect.Repeated:
		return "repeated"
	case fd.Message() != nil:
		return "a message (" + string(fd.Message().FullName()) + ")"
	case fd.Enum() != nil:
		return "an enum"
	}
	k := fd.Kind().String()
	if strings.IndexByte("aeiou", k[0]) >= 0 {
		return "an " + k
	}
	return "a " + k
}

// fieldList lists the fields of md for error messages: "(fields: a, b)".
func fieldList(md protoreflect.MessageDescriptor) string {
	fields := md.Fields()
	if fields.Len() == 0 {
		return "(it has no fields)"
	}
	names := make([]string, fields.Len())
	for i := range fields.Len() {
		names[i] = string(fields.Get(i).Name())
	}
	return "(fields: " + strings.Join(names, ", ") + ")"
}
