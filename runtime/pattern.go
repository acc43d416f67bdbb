package runtime

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2agen/a2agen/internal/pathtemplate"
)

// segmentKind says what one compiled segment matches.
type segmentKind uint8

const (
	matchLiteral segmentKind = iota
	matchOne                 // "*"
	matchRest                // "**"
)

// pathMatcher is a path template (HTTPRule.Path), parsed by
// internal/pathtemplate, the generator's parser, and prepared for matching.
type pathMatcher struct {
	path  string // the template as written
	tmpl  *pathtemplate.Template
	vars  []pathVariable
	kinds []segmentKind
	// literals holds the percent-decoded literal of each literal segment
	// (compared with decoded request segments); "" for wildcards.
	literals []string
	// verbSuffix is ":" + the decoded verb, or "".
	verbSuffix string
	rest       bool // the last segment is "**"
}

// pathVariable binds segments [start, end) of a template to the request
// field at the dotted path name.
type pathVariable struct {
	name       string
	start, end int
}

// compilePath parses the template path and prepares it for matching. The
// parser is the one protoc-gen-a2a checked the template with, so generated
// rules always compile; the error is for hand-written descriptions.
func compilePath(path string) (*pathMatcher, error) {
	t, err := pathtemplate.Parse(path)
	if err != nil {
		return nil, err
	}
	m := &pathMatcher{path: path, tmpl: t, kinds: make([]segmentKind, len(t.Segments)), literals: make([]string, len(t.Segments))}
	for i, s := range t.Segments {
		switch s.Kind {
		case pathtemplate.SegmentWildcard:
			m.kinds[i] = matchOne
		case pathtemplate.SegmentDeepWildcard:
			m.kinds[i] = matchRest
			m.rest = true
		default:
			// Parse accepts only well-formed escapes, so this cannot fail.
			if m.literals[i], err = url.PathUnescape(s.Literal); err != nil {
				return nil, fmt.Errorf("path template %q: literal %q: %w", path, s.Literal, err)
			}
		}
	}
	if t.Verb != "" {
		verb, err := url.PathUnescape(t.Verb)
		if err != nil {
			return nil, fmt.Errorf("path template %q: verb %q: %w", path, t.Verb, err)
		}
		m.verbSuffix = ":" + verb
	}
	for _, v := range t.Variables {
		m.vars = append(m.vars, pathVariable{name: v.Name(), start: v.Start, end: v.End})
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
	for _, v := range m.vars {
		end := v.end
		if m.rest && end == n {
			end = len(segs)
		}
		if end-v.start == 1 {
			dst = append(dst, m.segment(segs, v.start))
			continue
		}
		var b strings.Builder
		for i := v.start; i < end; i++ {
			if i > v.start {
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
			b.WriteString("*")
		case matchRest:
			b.WriteString("**")
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
	if len(values) != len(m.vars) {
		return dst, fmt.Errorf("path %s needs %d values, got %d", m.path, len(m.vars), len(values))
	}
	vi := 0
	for i := 0; i < len(m.kinds); {
		dst = append(dst, '/')
		if vi < len(m.vars) && m.vars[vi].start == i {
			v := m.vars[vi]
			val := values[vi]
			if v.end-v.start == 1 && m.kinds[v.start] == matchOne {
				if val == "" {
					return dst, fmt.Errorf("field %s is empty, but path %s needs it", v.name, m.path)
				}
				dst = append(dst, url.PathEscape(val)...)
			} else {
				var err error
				if dst, err = m.appendMultiSegment(dst, v, val); err != nil {
					return dst, err
				}
			}
			i = v.end
			vi++
			continue
		}
		dst = append(dst, m.tmpl.Segments[i].String()...)
		i++
	}
	if m.tmpl.Verb != "" {
		dst = append(dst, ':')
		dst = append(dst, m.tmpl.Verb...)
	}
	return dst, nil
}

// appendMultiSegment renders the value of a variable over several segments
// (e.g. {folder=folders/*} or {name=**}) after checking its shape.
func (m *pathMatcher) appendMultiSegment(dst []byte, v pathVariable, val string) ([]byte, error) {
	parts := strings.Split(val, "/")
	kinds := m.kinds[v.start:v.end]
	ok := len(parts) == len(kinds) || (kinds[len(kinds)-1] == matchRest && len(parts) >= len(kinds)-1)
	if val == "" && kinds[0] != matchRest {
		ok = false
	}
	for i := 0; ok && i < len(kinds) && kinds[i] != matchRest; i++ {
		switch kinds[i] {
		case matchLiteral:
			ok = parts[i] == m.literals[v.start+i]
		case matchOne:
			ok = parts[i] != ""
		}
	}
	if !ok {
		segs := make([]string, 0, v.end-v.start)
		for _, s := range m.tmpl.Segments[v.start:v.end] {
			segs = append(segs, s.String())
		}
		return dst, fmt.Errorf("field %s = %q does not match {%s=%s} of path %s", v.name, val, v.name,
			strings.Join(segs, "/"), m.path)
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
