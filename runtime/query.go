package runtime

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Query binding of the HTTP+JSON binding (A2A §11.5): fields of the request
// message that neither the path nor the body carries may come from the query
// string. It is generic over the request type, driven by the descriptors:
//
//   - a parameter names a field by its JSON (lowerCamelCase) or proto name;
//     a dotted name ("configuration.historyLength") reaches into singular
//     message fields;
//   - values use the URL text form of query_values.go: booleans, decimal
//     numbers (range-checked for their type), enums by name or number, RFC
//     3339 timestamps for google.protobuf.Timestamp;
//   - a repeated field takes every occurrence of its key, each split at
//     commas; a singular field given twice is an error;
//   - unknown parameters are ignored, as is A2A-Version (a service
//     parameter, read by newCallInfo);
//   - queryAliases maps names that clients send for a field in place of its
//     own.

// queryAliases maps query parameter names some clients send to the field
// they mean. It is data rather than code: add a line when a client is found
// to use another name. An alias only applies to a request that has the
// target field.
var queryAliases = map[string]string{
	// The official Go SDK (v2.3.1) client sends the pre-release name of
	// ListTasksRequest.status_timestamp_after (docs/bindings.md).
	"lastUpdatedAfter": "statusTimestampAfter",
}

// queryParam returns the value of the first parameter of rawQuery named key
// (compared case-insensitively, as service parameter names are), decoded;
// "" when absent. It does not allocate unless the value is escaped.
func queryParam(rawQuery, key string) string {
	for rawQuery != "" {
		var kv string
		kv, rawQuery, _ = strings.Cut(rawQuery, "&")
		k, v, _ := strings.Cut(kv, "=")
		if k, err := unescapeQuery(k); err != nil || !strings.EqualFold(k, key) {
			continue
		}
		if v, err := unescapeQuery(v); err == nil {
			return v
		}
	}
	return ""
}

// unescapeQuery decodes one key or value of a query string; it returns s
// itself when nothing is escaped.
func unescapeQuery(s string) (string, error) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, nil
	}
	return url.QueryUnescape(s)
}

// bindQuery sets the fields of msg named by the parameters of rawQuery.
// skip, when not nil, is a field the query must not set (the body field of a
// rule with body: "<field>"); a parameter naming it is ignored. Errors are
// InvalidParams naming the parameter as sent and the field's JSON path.
func bindQuery(msg protoreflect.Message, rawQuery string, skip protoreflect.FieldDescriptor) *Error {
	var seenBuf [8]string
	seen := seenBuf[:0]
	for rawQuery != "" {
		var (
			kv string
			e  *Error
		)
		kv, rawQuery, _ = strings.Cut(rawQuery, "&")
		if seen, e = bindQueryParam(msg, kv, skip, seen); e != nil {
			return e
		}
	}
	return nil
}

// bindQueryParam sets the field that one key=value parameter names. seen
// holds the singular fields set so far, which a parameter must not set
// again; it returns seen with the field it set.
func bindQueryParam(msg protoreflect.Message, kv string, skip protoreflect.FieldDescriptor, seen []string) ([]string, *Error) {
	if kv == "" {
		return seen, nil
	}
	rawKey, rawValue, _ := strings.Cut(kv, "=")
	sent, err := unescapeQuery(rawKey)
	if err != nil {
		return seen, InvalidParams(fmt.Sprintf("query parameter %q is not properly escaped", rawKey))
	}
	md := msg.Descriptor()
	name, leaf, depth := resolveQueryParam(md, sent)
	if leaf == nil || (skip != nil && firstQueryField(md, name) == skip) {
		return seen, nil // unknown parameters are ignored
	}
	value, err := unescapeQuery(rawValue)
	if err != nil {
		return seen, queryError(sent, md, name, fmt.Sprintf("value %q is not properly escaped", rawValue))
	}
	if !leaf.IsList() {
		id := string(leaf.Name())
		if depth > 1 {
			id = strings.Join(queryFieldPath(md, name, false), ".")
		}
		if slices.Contains(seen, id) {
			return seen, queryError(sent, md, name, "given more than once; only repeated fields take several values")
		}
		seen = append(seen, id)
	}
	if problem := setQueryValue(msg, name, leaf, depth, value); problem != "" {
		return seen, queryError(sent, md, name, problem)
	}
	return seen, nil
}

// resolveQueryParam resolves a parameter name as sent, through queryAliases
// when it names no field itself. It returns the name resolved, and a nil
// leaf for a parameter that sets no field: A2A-Version, or an unknown name.
func resolveQueryParam(md protoreflect.MessageDescriptor, sent string) (string, protoreflect.FieldDescriptor, int) {
	if sent == "" || strings.EqualFold(sent, paramVersion) {
		return sent, nil, 0
	}
	if leaf, depth := resolveQueryName(md, sent); leaf != nil {
		return sent, leaf, depth
	}
	alias, ok := queryAliases[sent]
	if !ok {
		return sent, nil, 0
	}
	leaf, depth := resolveQueryName(md, alias)
	return alias, leaf, depth
}

// resolveQueryName resolves a parameter name, dotted or not, against md
// without allocating: it returns the leaf field and the number of dotted
// components, or nil when some component names no field or the path cannot
// go on (through a repeated, map or well-known field).
func resolveQueryName(md protoreflect.MessageDescriptor, name string) (protoreflect.FieldDescriptor, int) {
	depth := 0
	for {
		comp, rest, more := strings.Cut(name, ".")
		fd := lookupQueryField(md, comp)
		depth++
		if fd == nil {
			return nil, 0
		}
		if !more {
			return fd, depth
		}
		if fd.Message() == nil || fd.IsList() || fd.IsMap() || urlMessageKindOf(fd.Message()) != urlMessageNone {
			return nil, 0
		}
		md, name = fd.Message(), rest
	}
}

// lookupQueryField finds a field by JSON name, then by proto name.
func lookupQueryField(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	fields := md.Fields()
	if fd := fields.ByJSONName(name); fd != nil {
		return fd
	}
	return fields.ByName(protoreflect.Name(name))
}

// firstQueryField returns the top-level field a parameter name starts with.
func firstQueryField(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	comp, _, _ := strings.Cut(name, ".")
	return lookupQueryField(md, comp)
}

// queryFieldPath returns the proto or JSON names of the fields along a
// resolvable parameter name.
func queryFieldPath(md protoreflect.MessageDescriptor, name string, jsonNames bool) []string {
	var out []string
	for comp := range strings.SplitSeq(name, ".") {
		fd := lookupQueryField(md, comp)
		if fd == nil {
			break
		}
		if jsonNames {
			out = append(out, fd.JSONName())
		} else {
			out = append(out, string(fd.Name()))
		}
		if fd.Message() != nil {
			md = fd.Message()
		}
	}
	return out
}

// setQueryValue sets the field a resolved parameter name designates,
// creating the messages on the way. It returns what is wrong with the
// value, or "". A refused value may leave part of a repeated field set: the
// request is refused anyway.
func setQueryValue(msg protoreflect.Message, name string, leaf protoreflect.FieldDescriptor, depth int, value string) string {
	if leaf.IsMap() || (leaf.IsList() && leaf.Message() != nil) ||
		(leaf.Message() != nil && urlMessageKindOf(leaf.Message()) == urlMessageNone) {
		return "this field cannot be set in the query string"
	}
	for ; depth > 1; depth-- {
		comp, rest, _ := strings.Cut(name, ".")
		fd := lookupQueryField(msg.Descriptor(), comp)
		msg, name = msg.Mutable(fd).Message(), rest
	}
	switch {
	case leaf.IsList():
		list := msg.Mutable(leaf).List()
		for item := range strings.SplitSeq(value, ",") {
			v, err := parseScalar(leaf, item)
			if err != nil {
				return err.Error()
			}
			list.Append(v)
		}
	case leaf.Message() != nil:
		m := msg.NewField(leaf).Message()
		if err := parseMessageText(m, value); err != nil {
			return err.Error()
		}
		msg.Set(leaf, protoreflect.ValueOfMessage(m))
	default:
		v, err := parseScalar(leaf, value)
		if err != nil {
			return err.Error()
		}
		msg.Set(leaf, v)
	}
	return ""
}

// queryError is the InvalidParams error for a bad parameter: the message
// names the parameter as sent, the field violation the field's JSON path.
func queryError(sent string, md protoreflect.MessageDescriptor, name, problem string) *Error {
	field := strings.Join(queryFieldPath(md, name, true), ".")
	if field == "" {
		field = sent
	}
	return InvalidParams(fmt.Sprintf("query parameter %s: %s", sent, problem),
		FieldViolation{Field: field, Description: problem})
}
