package jcs

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 1000

// kind is the JSON type of a parsed value.
type kind byte

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is a parsed JSON value. Objects keep their members in input order;
// the writer sorts them.
type value struct {
	kind    kind
	num     float64
	str     string
	elems   []*value
	members []member
}

type member struct {
	name string
	val  *value
}

// parser is a strict I-JSON parser that reports byte offsets.
type parser struct {
	data  []byte
	pos   int
	depth int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("jcs: offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) && strings.IndexByte(" \t\n\r", p.data[p.pos]) >= 0 {
		p.pos++
	}
}

func parse(data []byte) (*value, error) {
	p := &parser{data: data}
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errorf("unexpected %q after the JSON value", p.data[p.pos])
	}
	return v, nil
}

func (p *parser) value() (*value, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &value{kind: kindString, str: s}, nil
	case c == 't':
		return p.literal("true", kindTrue)
	case c == 'f':
		return p.literal("false", kindFalse)
	case c == 'n':
		return p.literal("null", kindNull)
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	default:
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *parser) literal(word string, k kind) (*value, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.errorf("invalid literal (want %s)", word)
	}
	p.pos += len(word)
	return &value{kind: k}, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf("nested deeper than %d levels", maxDepth)
	}
	return nil
}

func (p *parser) object() (*value, error) {
	v := &value{kind: kindObject}
	seen := map[string]bool{}
	err := p.items('}', "object", func() error {
		m, err := p.member(seen)
		v.members = append(v.members, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// member reads a member of an object: a name that seen lacks, a colon and
// a value.
func (p *parser) member(seen map[string]bool) (member, error) {
	if !p.at('"') {
		return member{}, p.errorf("expected a member name")
	}
	at := p.pos
	name, err := p.string()
	if err != nil {
		return member{}, err
	}
	if seen[name] {
		p.pos = at
		return member{}, p.errorf("duplicate member name %q (I-JSON forbids it)", name)
	}
	seen[name] = true
	p.skipSpace()
	if !p.at(':') {
		return member{}, p.errorf("expected ':' after member name %q", name)
	}
	p.pos++
	p.skipSpace()
	val, err := p.value()
	if err != nil {
		return member{}, err
	}
	return member{name: name, val: val}, nil
}

func (p *parser) array() (*value, error) {
	v := &value{kind: kindArray}
	err := p.items(']', "array", func() error {
		elem, err := p.value()
		v.elems = append(v.elems, elem)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// items reads the members or elements of an object or array (what), from
// its opening byte to closing; item reads one.
func (p *parser) items(closing byte, what string, item func() error) error {
	if err := p.enter(); err != nil {
		return err
	}
	defer func() { p.depth-- }()
	p.pos++ // the opening byte
	p.skipSpace()
	if p.at(closing) {
		p.pos++
		return nil
	}
	for {
		p.skipSpace()
		if err := item(); err != nil {
			return err
		}
		if done, err := p.next(closing, what); err != nil || done {
			return err
		}
	}
}

// at reports whether the next byte is c.
func (p *parser) at(c byte) bool { return p.pos < len(p.data) && p.data[p.pos] == c }

// next reads what follows a member or element of an object or array
// (what): a comma, or the closing byte, which ends it (done).
func (p *parser) next(closing byte, what string) (done bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return false, p.errorf("unterminated %s", what)
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, p.errorf("expected ',' or '%c' in %s, got %q", closing, what, p.data[p.pos])
}

// number reads a number with the JSON grammar and converts it to a double,
// as I-JSON requires; magnitudes beyond the double range are errors.
func (p *parser) number() (*value, error) {
	start := p.pos
	p.skip('-')
	if !p.skip('0') && p.digits() == 0 {
		return nil, p.errorf("invalid number")
	}
	if p.skip('.') && p.digits() == 0 {
		return nil, p.errorf("invalid number: no digits after '.'")
	}
	if p.skip('e') || p.skip('E') {
		_ = p.skip('+') || p.skip('-')
		if p.digits() == 0 {
			return nil, p.errorf("invalid number: no digits in the exponent")
		}
	}
	text := string(p.data[start:p.pos])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		p.pos = start
		return nil, p.errorf("number %s does not fit an IEEE-754 double", text)
	}
	return &value{kind: kindNumber, num: f}, nil
}

// skip moves past the byte c if it comes next, and says whether it did.
func (p *parser) skip(c byte) bool {
	if p.pos < len(p.data) && p.data[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// digits moves past the decimal digits that come next and counts them.
func (p *parser) digits() int {
	n := 0
	for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}

// string reads a string literal, decoding escapes. Lone surrogates, raw
// control characters and invalid UTF-8 are errors.
func (p *parser) string() (string, error) {
	p.pos++ // opening quote
	var out []byte
	for {
		if p.pos >= len(p.data) {
			return "", p.errorf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(out), nil
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			out = utf8.AppendRune(out, r)
		case c < 0x20:
			return "", p.errorf("control character %#x in a string must be escaped", c)
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				return "", p.errorf("invalid UTF-8")
			}
			out = append(out, p.data[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

// shortEscapes are the escapes of one letter after the backslash and what
// they stand for.
var shortEscapes = map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape decodes one backslash escape, joining UTF-16 surrogate pairs.
func (p *parser) escape() (rune, error) {
	if p.pos+1 >= len(p.data) {
		return 0, p.errorf("unterminated escape")
	}
	c := p.data[p.pos+1]
	p.pos += 2
	if r, ok := shortEscapes[c]; ok {
		return r, nil
	}
	if c != 'u' {
		return 0, p.errorf("invalid escape \\%c", c)
	}
	r, err := p.hex4()
	if err != nil || !utf16.IsSurrogate(r) {
		return r, err
	}
	if r >= 0xDC00 || p.pos+1 >= len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
		return 0, p.errorf("lone UTF-16 surrogate %U", r)
	}
	p.pos += 2
	r2, err := p.hex4()
	if err != nil {
		return 0, err
	}
	joined := utf16.DecodeRune(r, r2)
	if joined == utf8.RuneError {
		return 0, p.errorf("lone UTF-16 surrogate %U", r)
	}
	return joined, nil
}

func (p *parser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errorf("short \\u escape")
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 16)
	if err != nil {
		return 0, p.errorf("invalid \\u escape %q", p.data[p.pos:p.pos+4])
	}
	p.pos += 4
	return rune(n), nil
}
