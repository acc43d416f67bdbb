package runtime

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// PathPattern is a google.api.http path template compiled by protoc-gen-a2a
// into data, so that nothing is parsed at run time. The template
// "/{tenant}/tasks/{id=*}:cancel" compiles to
//
//	PathPattern{
//		Segments:  []string{"*", "tasks", "*"},
//		Variables: []PathVariable{{FieldPath: "tenant", Start: 0, End: 1}, {FieldPath: "id", Start: 2, End: 3}},
//		Verb:      "cancel",
//	}
//
// A template must not be written with unescaped characters that need
// escaping; literals are compared with the percent-decoded request path.
type PathPattern struct {
	// Segments are the path segments in order: a literal (as written in the
	// template), "*" (exactly one non-empty segment) or "**" (the rest of the
	// path, zero or more segments; only as the last segment). Templates
	// cannot hold a literal "*", so the two wildcards are unambiguous.
	Segments []string
	// Variables bind runs of Segments to request fields, in order.
	Variables []PathVariable
	// Verb is the custom verb after the final ':' ("cancel"), or "".
	Verb string
}

// PathVariable binds Segments[Start:End] of a PathPattern to the request
// field at FieldPath, a dotted path of proto field names ("id",
// "note.note_id"). A variable over one "*" captures one segment; a longer
// one captures the matched segments joined by "/".
type PathVariable struct {
	FieldPath  string
	Start, End int
}

// Wildcard segments of a PathPattern.
const (
	wildcardSegment     = "*"
	deepWildcardSegment = "**"
)

// String returns the template in canonical form ("{id}" is written
// "{id=*}"), as the generator's Path would print it.
func (p PathPattern) String() string {
	var b strings.Builder
	vi := 0
	for i := 0; i < len(p.Segments); {
		b.WriteByte('/')
		if vi < len(p.Variables) && p.Variables[vi].Start == i && p.Variables[vi].End > i && p.Variables[vi].End <= len(p.Segments) {
			v := p.Variables[vi]
			b.WriteString("{" + v.FieldPath + "=" + strings.Join(p.Segments[v.Start:v.End], "/") + "}")
			i = v.End
			vi++
			continue
		}
		b.WriteString(p.Segments[i])
		i++
	}
	if p.Verb != "" {
		b.WriteString(":" + p.Verb)
	}
	return b.String()
}

// segmentKind says what one compiled segment matches.
type segmentKind uint8

const (
	matchLiteral segmentKind = iota
	matchOne                 // "*"
	matchRest                // "**"
)

// pathMatcher is a PathPattern checked and prepared for matching.
type pathMatcher struct {
	pattern PathPattern
	kinds   []segmentKind
	// literals holds the percent-decoded literal of each literal segment
	// (compared with decoded request segments); "" for wildcards.
	literals []string
	// verbSuffix is ":" + Verb, or "".
	verbSuffix string
	rest       bool // the last segment is "**"
}

// compilePathPattern checks p and prepares it for matching. The checks
// guard against hand-written or corrupted data; generated patterns pass.
func compilePathPattern(p PathPattern) (*pathMatcher, error) {
	if len(p.Segments) == 0 {
		return nil, fmt.Errorf("path pattern has no segments (a template has at least one; regenerate the code with protoc-gen-a2a)")
	}
	m := &pathMatcher{pattern: p, kinds: make([]segmentKind, len(p.Segments)), literals: make([]string, len(p.Segments))}
	for i, s := range p.Segments {
		switch {
		case s == wildcardSegment:
			m.kinds[i] = matchOne
		case s == deepWildcardSegment:
			if i != len(p.Segments)-1 {
				return nil, fmt.Errorf("path pattern %s: \"**\" must be the last segment", p)
			}
			m.kinds[i] = matchRest
			m.rest = true
		case s == "" || strings.ContainsAny(s, "/*:?#{}"):
			return nil, fmt.Errorf("path pattern %s: segment %d (%q) is not a valid literal", p, i, s)
		default:
			lit, err := url.PathUnescape(s)
			if err != nil {
				return nil, fmt.Errorf("path pattern %s: literal %q: %w", p, s, err)
			}
			m.literals[i] = lit
		}
	}
	if p.Verb != "" {
		if strings.ContainsAny(p.Verb, "/*:?#{}") {
			return nil, fmt.Errorf("path pattern %s: verb %q is not a valid literal", p, p.Verb)
		}
		verb, err := url.PathUnescape(p.Verb)
		if err != nil {
			return nil, fmt.Errorf("path pattern %s: verb %q: %w", p, p.Verb, err)
		}
		m.verbSuffix = ":" + verb
	}
	end := 0
	for _, v := range p.Variables {
		if v.FieldPath == "" {
			return nil, fmt.Errorf("path pattern %s: a variable has no field path", p)
		}
		if v.Start < end || v.End <= v.Start || v.End > len(p.Segments) {
			return nil, fmt.Errorf("path pattern %s: variable {%s} spans segments [%d, %d), which is out of order or out of range", p, v.FieldPath, v.Start, v.End)
		}
		end = v.End
	}
	return m, nil
}

// segment returns request segment i as the pattern sees it: the last one
// without the verb suffix.
func (m *pathMatcher) segment(segs []string, i int) string {
	s := segs[i]
	if m.verbSuffix != "" && i == len(segs)-1 {
		return s[:len(s)-len(m.verbSuffix)]
	}
	return s
}

// matches reports whether the decoded request segments match the pattern.
// It does not allocate.
func (m *pathMatcher) matches(segs []string) bool {
	n := len(m.kinds)
	switch {
	case m.rest && len(segs) < n-1, !m.rest && len(segs) != n, len(segs) == 0:
		return false
	}
	if m.verbSuffix != "" && !strings.HasSuffix(segs[len(segs)-1], m.verbSuffix) {
		return false
	}
	for i, k := range m.kinds {
		switch k {
		case matchRest:
			return true
		case matchLiteral:
			if m.segment(segs, i) != m.literals[i] {
				return false
			}
		case matchOne:
			if m.segment(segs, i) == "" {
				return false
			}
		}
	}
	return true
}

// capture appends the value of every variable of the pattern to dst, for
// segments that match it. A variable over several segments gets them joined
// with "/"; only such a variable allocates.
func (m *pathMatcher) capture(segs []string, dst []string) []string {
	n := len(m.kinds)
	for _, v := range m.pattern.Variables {
		end := v.End
		if m.rest && end == n {
			end = len(segs)
		}
		if end-v.Start == 1 {
			dst = append(dst, m.segment(segs, v.Start))
			continue
		}
		var b strings.Builder
		for i := v.Start; i < end; i++ {
			if i > v.Start {
				b.WriteByte('/')
			}
			b.WriteString(m.segment(segs, i))
		}
		dst = append(dst, b.String())
	}
	return dst
}

// shape is the pattern without variable names: two patterns with the same
// shape match exactly the same paths.
func (m *pathMatcher) shape() string {
	var b strings.Builder
	for i, k := range m.kinds {
		b.WriteByte('/')
		switch k {
		case matchLiteral:
			b.WriteString(strconv.Quote(m.literals[i]))
		case matchOne:
			b.WriteString(wildcardSegment)
		case matchRest:
			b.WriteString(deepWildcardSegment)
		}
	}
	b.WriteString(m.verbSuffix)
	return b.String()
}

// moreSpecific orders patterns for routing: when several match a path, the
// first in this order wins. A pattern with a custom verb comes first (so
// "/tasks/x:cancel" is CancelTask, never GetTask of "x:cancel"), then one
// without "**", then, at the first position where they differ, a literal
// beats a wildcard, then the longer pattern.
func (m *pathMatcher) moreSpecific(o *pathMatcher) bool {
	if (m.verbSuffix != "") != (o.verbSuffix != "") {
		return m.verbSuffix != ""
	}
	if m.rest != o.rest {
		return !m.rest
	}
	for i := 0; i < len(m.kinds) && i < len(o.kinds); i++ {
		ml, ol := m.kinds[i] == matchLiteral, o.kinds[i] == matchLiteral
		if ml != ol {
			return ml
		}
	}
	return len(m.kinds) > len(o.kinds)
}

// splitPath splits an escaped absolute path into its percent-decoded
// segments, appending them to dst: "/tasks/a%3Ab" is ["tasks", "a:b"], and
// "%2F" stays inside its segment. "/" is one empty segment. Segments without
// escapes are substrings of path (no allocation).
func splitPath(path string, dst []string) ([]string, error) {
	path = strings.TrimPrefix(path, "/")
	for {
		seg, rest, more := strings.Cut(path, "/")
		if strings.IndexByte(seg, '%') >= 0 {
			dec, err := url.PathUnescape(seg)
			if err != nil {
				return dst, fmt.Errorf("path segment %q: %w", seg, err)
			}
			seg = dec
		}
		dst = append(dst, seg)
		if !more {
			return dst, nil
		}
		path = rest
	}
}

// buildPath renders the path of p for values, one per variable in order,
// appending it to dst. Values are escaped with url.PathEscape; the value of
// a variable over several segments is split at "/" and each part escaped.
// It reports an error when a value does not fit its variable: empty, or
// not shaped like the segments it must fill.
func (m *pathMatcher) buildPath(dst []byte, values []string) ([]byte, error) {
	p := m.pattern
	if len(values) != len(p.Variables) {
		return dst, fmt.Errorf("path %s needs %d values, got %d", p, len(p.Variables), len(values))
	}
	vi := 0
	for i := 0; i < len(p.Segments); {
		dst = append(dst, '/')
		if vi < len(p.Variables) && p.Variables[vi].Start == i {
			v := p.Variables[vi]
			val := values[vi]
			if v.End-v.Start == 1 && m.kinds[v.Start] == matchOne {
				if val == "" {
					return dst, fmt.Errorf("field %s is empty, but path %s needs it", v.FieldPath, p)
				}
				dst = append(dst, url.PathEscape(val)...)
			} else {
				var err error
				if dst, err = m.appendMultiSegment(dst, v, val); err != nil {
					return dst, err
				}
			}
			i = v.End
			vi++
			continue
		}
		dst = append(dst, p.Segments[i]...)
		i++
	}
	if p.Verb != "" {
		dst = append(dst, ':')
		dst = append(dst, p.Verb...)
	}
	return dst, nil
}

// appendMultiSegment renders the value of a variable over several segments
// (e.g. {folder=folders/*} or {name=**}) after checking its shape.
func (m *pathMatcher) appendMultiSegment(dst []byte, v PathVariable, val string) ([]byte, error) {
	parts := strings.Split(val, "/")
	kinds := m.kinds[v.Start:v.End]
	ok := len(parts) == len(kinds) || (kinds[len(kinds)-1] == matchRest && len(parts) >= len(kinds)-1)
	if val == "" && kinds[0] != matchRest {
		ok = false
	}
	for i := 0; ok && i < len(kinds) && kinds[i] != matchRest; i++ {
		switch kinds[i] {
		case matchLiteral:
			ok = parts[i] == m.literals[v.Start+i]
		case matchOne:
			ok = parts[i] != ""
		}
	}
	if !ok {
		return dst, fmt.Errorf("field %s = %q does not match {%s=%s} of path %s", v.FieldPath, val, v.FieldPath,
			strings.Join(m.pattern.Segments[v.Start:v.End], "/"), m.pattern)
	}
	if val == "" {
		return dst[:len(dst)-1], nil // "**" matching nothing: no segment at all
	}
	for i, part := range parts {
		if i > 0 {
			dst = append(dst, '/')
		}
		dst = append(dst, url.PathEscape(part)...)
	}
	return dst, nil
}
