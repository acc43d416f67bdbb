package jcs

import (
	"slices"
	"unicode/utf16"
)

// Canonicalize parses data as one JSON value and returns its RFC 8785
// canonical form. Errors name the byte offset of the problem.
func Canonicalize(data []byte) ([]byte, error) {
	v, err := parse(data)
	if err != nil {
		return nil, err
	}
	return appendValue(make([]byte, 0, len(data)), v)
}

func appendValue(dst []byte, v *value) ([]byte, error) {
	var err error
	switch v.kind {
	case kindNull:
		dst = append(dst, "null"...)
	case kindTrue:
		dst = append(dst, "true"...)
	case kindFalse:
		dst = append(dst, "false"...)
	case kindNumber:
		dst, err = AppendNumber(dst, v.num)
	case kindString:
		dst = AppendString(dst, v.str)
	case kindArray:
		dst = append(dst, '[')
		for i, e := range v.elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendValue(dst, e); err != nil {
				return dst, err
			}
		}
		dst = append(dst, ']')
	case kindObject:
		dst, err = appendObject(dst, v.members)
	}
	return dst, err
}

// appendObject writes members sorted by the UTF-16 code units of their names
// (RFC 8785 §3.2.3), which differs from UTF-8 byte order for characters
// beyond the Basic Multilingual Plane.
func appendObject(dst []byte, members []member) ([]byte, error) {
	type keyed struct {
		units []uint16
		m     member
	}
	sorted := make([]keyed, len(members))
	for i, m := range members {
		sorted[i] = keyed{utf16.Encode([]rune(m.name)), m}
	}
	slices.SortFunc(sorted, func(a, b keyed) int { return slices.Compare(a.units, b.units) })
	dst = append(dst, '{')
	for i, k := range sorted {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k.m.name)
		dst = append(dst, ':')
		var err error
		if dst, err = appendValue(dst, k.m.val); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// AppendString appends s as an RFC 8785 §3.2.2.2 string literal: only '"',
// '\\' and the control characters are escaped, the five common ones with
// their short forms and the rest as \u00xx in lower-case hex; every other
// character is written as itself in UTF-8. s must be valid UTF-8.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
