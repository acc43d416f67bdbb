// Package pathtemplate parses and validates google.api.http path templates,
// once, for everyone: protoc-gen-a2a checks a proto's templates with it (and
// then checks each variable against the request message), and the runtime's
// HTTP+JSON router and client parse the template strings generated code
// carries with it and match and build paths from the result. So a template
// has one grammar, one set of error messages and one parsed form.
//
// It imports only the standard library, so the runtime may import it.
package pathtemplate

import (
	"fmt"
	"strings"
)

// Template is a parsed google.api.http path template, e.g.
// "/{tenant}/tasks/{id=*}:cancel". Parse returns only valid templates: every
// literal and the verb hold only RFC 3986 pchar characters with well-formed
// percent escapes, "**" is last, variables neither nest nor repeat and cover
// increasing runs of segments.
//
// The grammar is the one of google/api/http.proto:
//
//	Template = "/" Segments [ Verb ] ;
//	Segments = Segment { "/" Segment } ;
//	Segment  = "*" | "**" | LITERAL | Variable ;
//	Variable = "{" FieldPath [ "=" Segments ] "}" ;
//	FieldPath = IDENT { "." IDENT } ;
//	Verb     = ":" LITERAL ;
//
// A variable without "=" captures one segment ("{id}" is "{id=*}"); "**"
// matches the rest of the path and must be the last segment.
type Template struct {
	// Segments are the path segments in order, variables expanded: the
	// template "/tasks/{id=*}:cancel" has the segments "tasks" and "*".
	Segments []Segment
	// Variables are the variables in order of appearance.
	Variables []Variable
	// Verb is the custom verb after the final ":" ("cancel"), or "".
	Verb string
}

// SegmentKind says what a path segment matches.
type SegmentKind int

const (
	// SegmentLiteral matches its Literal exactly.
	SegmentLiteral SegmentKind = iota
	// SegmentWildcard ("*") matches exactly one segment.
	SegmentWildcard
	// SegmentDeepWildcard ("**") matches zero or more trailing segments.
	SegmentDeepWildcard
)

// Segment is one segment of a template.
type Segment struct {
	Kind    SegmentKind
	Literal string // for SegmentLiteral
}

// Variable binds Segments[Start:End] of the template to a request field.
type Variable struct {
	// FieldPath is the dotted field path split at the dots, e.g.
	// ["task_id"] or ["config", "name"].
	FieldPath  []string
	Start, End int
}

// Name returns the dotted field path of the variable, e.g. "config.name".
func (v Variable) Name() string { return strings.Join(v.FieldPath, ".") }

// SingleSegment reports whether the variable captures exactly one segment
// ("{id}" or "{id=*}"), i.e. its value can never contain a "/".
func (t *Template) SingleSegment(v Variable) bool {
	return v.End-v.Start == 1 && t.Segments[v.Start].Kind == SegmentWildcard
}

// Error reports why a path template does not parse.
type Error struct {
	Template string
	Offset   int // byte offset in Template where the problem was found
	Problem  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("path template %q: %s (at offset %d)", e.Template, e.Problem, e.Offset)
}

// Parse parses and validates a google.api.http path template. The error is
// an *Error naming the offending offset.
func Parse(s string) (*Template, error) {
	p := &templateParser{src: s, t: &Template{}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.t, nil
}

type templateParser struct {
	src string
	pos int
	t   *Template
}

func (p *templateParser) errorf(offset int, format string, args ...any) error {
	return &Error{Template: p.src, Offset: offset, Problem: fmt.Sprintf(format, args...)}
}

func (p *templateParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *templateParser) eof() bool { return p.pos >= len(p.src) }

func (p *templateParser) parse() error {
	if p.src == "" {
		return p.errorf(0, "empty template; a template starts with \"/\"")
	}
	if p.src[0] != '/' {
		return p.errorf(0, "must start with \"/\"")
	}
	p.pos++
	if err := p.segments(false); err != nil {
		return err
	}
	if err := p.verb(); err != nil {
		return err
	}
	if err := p.end(); err != nil {
		return err
	}
	for i, s := range p.t.Segments {
		if s.Kind == SegmentDeepWildcard && i != len(p.t.Segments)-1 {
			return p.errorf(0, "\"**\" must be the last segment of the path")
		}
	}
	return nil
}

// verb parses [ ":" Verb ].
func (p *templateParser) verb() error {
	if p.peek() != ':' {
		return nil
	}
	p.pos++
	verb, err := p.requiredLiteral(p.eof, "empty verb after \":\"", "verb")
	p.t.Verb = verb
	return err
}

// end refuses anything after the template.
func (p *templateParser) end() error {
	if p.eof() {
		return nil
	}
	switch c := p.peek(); c {
	case '}':
		return p.errorf(p.pos, "unbalanced \"}\"")
	case '/':
		return p.errorf(p.pos, "the verb must be the last part of the path")
	default:
		return p.errorf(p.pos, "unexpected %q", c)
	}
}

// segments parses Segment { "/" Segment }.
func (p *templateParser) segments(inVariable bool) error {
	for {
		if err := p.segment(inVariable); err != nil {
			return err
		}
		if p.peek() != '/' {
			return nil
		}
		p.pos++
	}
}

func (p *templateParser) segment(inVariable bool) error {
	start := p.pos
	switch {
	case p.peek() == '{':
		if inVariable {
			return p.errorf(p.pos, "variables cannot be nested")
		}
		return p.variable()
	case strings.HasPrefix(p.src[p.pos:], "**"):
		p.pos += 2
		p.t.Segments = append(p.t.Segments, Segment{Kind: SegmentDeepWildcard})
	case p.peek() == '*':
		p.pos++
		p.t.Segments = append(p.t.Segments, Segment{Kind: SegmentWildcard})
	default:
		if err := p.literalSegment(); err != nil {
			return err
		}
	}
	if !p.eof() && !p.atSegmentEnd() {
		return p.errorf(p.pos, "unexpected %q after %q", p.peek(), p.src[start:p.pos])
	}
	return nil
}

// atSegmentEnd reports whether the next byte ends a segment: "/", ":" or
// "}" (or the end of the template).
func (p *templateParser) atSegmentEnd() bool {
	c := p.peek()
	return p.eof() || c == '/' || c == ':' || c == '}'
}

// literalSegment parses a segment of literal characters.
func (p *templateParser) literalSegment() error {
	lit, err := p.requiredLiteral(p.atSegmentEnd, "empty path segment", "path segment")
	if err != nil {
		return err
	}
	p.t.Segments = append(p.t.Segments, Segment{Kind: SegmentLiteral, Literal: lit})
	return nil
}

// requiredLiteral reads a literal that must not be empty (what it is part
// of: in): where none is, the problem is empty when atEnd holds, else the
// character no literal may hold.
func (p *templateParser) requiredLiteral(atEnd func() bool, empty, in string) (string, error) {
	start := p.pos
	lit := p.literal()
	switch {
	case lit != "":
		return lit, nil
	case atEnd():
		return "", p.errorf(start, "%s", empty)
	}
	return "", p.errorf(p.pos, "unexpected %q in %s", p.peek(), in)
}

// variable parses "{" FieldPath [ "=" Segments ] "}".
func (p *templateParser) variable() error {
	open := p.pos
	p.pos++ // '{'
	path, err := p.fieldPath(open)
	if err != nil {
		return err
	}
	v := Variable{FieldPath: path, Start: len(p.t.Segments)}
	for _, other := range p.t.Variables {
		if other.Name() == v.Name() {
			return p.errorf(open, "variable %q appears twice", v.Name())
		}
	}
	if err := p.variableSegments(open); err != nil {
		return err
	}
	p.pos++
	v.End = len(p.t.Segments)
	p.t.Variables = append(p.t.Variables, v)
	return nil
}

// fieldPath parses FieldPath of the variable opened at open.
func (p *templateParser) fieldPath(open int) ([]string, error) {
	var path []string
	for {
		start := p.pos
		id := p.ident()
		if id == "" {
			if p.eof() {
				return nil, p.errorf(open, "unbalanced \"{\"")
			}
			return nil, p.errorf(start, "expected a field name, found %q", p.peek())
		}
		path = append(path, id)
		if p.peek() != '.' {
			return path, nil
		}
		p.pos++
	}
}

// variableSegments parses [ "=" Segments ] of the variable opened at open,
// up to its "}": without segments, the variable is one wildcard segment.
func (p *templateParser) variableSegments(open int) error {
	switch p.peek() {
	case '=':
		p.pos++
		if err := p.segments(true); err != nil {
			return err
		}
	case '}':
		p.t.Segments = append(p.t.Segments, Segment{Kind: SegmentWildcard})
	case 0:
		return p.errorf(open, "unbalanced \"{\"")
	default:
		return p.errorf(p.pos, "unexpected %q in variable; want \"=\" or \"}\"", p.peek())
	}
	switch {
	case p.eof():
		return p.errorf(open, "unbalanced \"{\"")
	case p.peek() == ':':
		return p.errorf(p.pos, "a verb cannot appear inside a variable")
	case p.peek() != '}':
		return p.errorf(p.pos, "unexpected %q in variable", p.peek())
	}
	return nil
}

// ident reads [A-Za-z_][A-Za-z0-9_]*.
func (p *templateParser) ident() string {
	start := p.pos
	for !p.eof() {
		c := p.peek()
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || p.pos > start && '0' <= c && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

// literal reads the characters a literal segment or verb may hold: RFC 3986
// pchar without ":" (it starts the verb) and "*" (a wildcard).
func (p *templateParser) literal() string {
	start := p.pos
	for !p.eof() {
		c := p.peek()
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!$&'()+,;=@", c) >= 0:
			p.pos++
		case c == '%' && p.pos+2 < len(p.src) && isHex(p.src[p.pos+1]) && isHex(p.src[p.pos+2]):
			p.pos += 3
		default:
			return p.src[start:p.pos]
		}
	}
	return p.src[start:p.pos]
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// String returns the template in canonical form: "{id}" is written "{id=*}".
func (t *Template) String() string {
	var b strings.Builder
	vars := map[int]Variable{}
	for _, v := range t.Variables {
		vars[v.Start] = v
	}
	for i := 0; i < len(t.Segments); {
		b.WriteByte('/')
		if v, ok := vars[i]; ok {
			b.WriteString("{" + v.Name() + "=")
			for j := v.Start; j < v.End; j++ {
				if j > v.Start {
					b.WriteByte('/')
				}
				b.WriteString(t.Segments[j].String())
			}
			b.WriteByte('}')
			i = v.End
			continue
		}
		b.WriteString(t.Segments[i].String())
		i++
	}
	if t.Verb != "" {
		b.WriteString(":" + t.Verb)
	}
	return b.String()
}

// String returns the segment as written in a template.
func (s Segment) String() string {
	switch s.Kind {
	case SegmentWildcard:
		return "*"
	case SegmentDeepWildcard:
		return "**"
	}
	return s.Literal
}
