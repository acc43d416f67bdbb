package manifest

import (
	"iter"

	"gopkg.in/yaml.v3"
)

// Small readers shared by the section decoders: an optional section, a
// fixed value, a bounded number, and where to point at a key that may be
// missing. Each reports at the key's place, so that every error keeps its
// agent.yaml:line:col: path.

// optional decodes the value of the key name with decode when the mapping
// has the key; the zero T otherwise (absence is reported by the mapping
// when the key is required).
func optional[T any](f fields, name string, decode func(n *yaml.Node, path string) T) T {
	n := f.get(name)
	if n == nil {
		var zero T
		return zero
	}
	return decode(n, f.sub(name))
}

// fixed reads a text key whose only accepted value is want; format
// reports another value, given it and want.
func (f fields) fixed(name, want, format string) string {
	s := f.text(name)
	if s != "" && s != want {
		f.d.errorf(f.get(name), f.sub(name), format, s, want)
	}
	return s
}

// at is the node an error about the key name points at: its value, or the
// whole mapping when the key is absent.
func (f fields) at(name string) *yaml.Node {
	if n := f.get(name); n != nil {
		return n
	}
	return f.node
}

// bounded reports v, the value of the key name, when it lies outside
// [lo, hi]: format is the message, given the value. Absent (nil) is fine.
func bounded[T int | float64](f fields, name string, v *T, lo, hi T, format string) *T {
	if v != nil && (*v < lo || *v > hi) {
		f.d.errorf(f.get(name), f.sub(name), format, *v)
	}
	return v
}

// orZero is *p, or the zero T when p is nil.
func orZero[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// matches reports s, the value of the key name, when it is not empty and
// ok rejects it; format is the message, given s.
func (f fields) matches(name, s string, ok func(string) bool, format string) {
	if s != "" && !ok(s) {
		f.d.errorf(f.get(name), f.sub(name), format, s)
	}
}

// retries reads a retry count (push and modelProvider maxRetries): an
// optional integer from 0 to 100.
func (f fields) retries(name string) *int {
	return bounded(f, name, f.integer(name), 0, 100, "must be from 0 to 100, got %d")
}

// mappings yields the elements of the list key name that are mappings of
// shape s, each with its index, read as fields (their node is the
// element's); the others are reported.
func (f fields) mappings(name string, s *shape) iter.Seq2[int, fields] {
	return func(yield func(int, fields) bool) {
		for i, e := range f.items(name) {
			ef, ok := f.d.mapping(e, index(f.sub(name), i), s)
			if ok && !yield(i, ef) {
				return
			}
		}
	}
}

// pos is the position of the mapping f in the file.
func (f fields) pos() Position { return Position{f.node.Line, f.node.Column} }
