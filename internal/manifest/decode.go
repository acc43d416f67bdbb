package manifest

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/a2agen/a2agen/internal/dataschema"
)

// decoder walks the YAML node tree, collecting every problem instead of
// stopping at the first.
type decoder struct {
	file string
	errs Errors
	// read records the keys the decoder looked up, per shape, so a test can
	// check that every declared key is decoded.
	read map[*shape]map[string]bool
	// skillIDs are the skill ids seen so far, public and extended.
	skillIDs []skillRef
	// skillPaths are the paths of the decoded skills, public then
	// extended, in the order of Manifest.Skills and ExtendedCard.Skills.
	skillPaths []string
	// paramValues counts the values converted in extension params.
	paramValues int
	// llmRefs are the decoded llm sections of skills.
	llmRefs []llmRef
}

func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	e := &Error{File: d.file, Path: path, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
}

// sorted returns the problems in file order; problems at the same place keep
// the order they were found in.
func (d *decoder) sorted() Errors {
	slices.SortStableFunc(d.errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return d.errs
}

// join appends a key to a path, as dataschema.JoinKey writes it (the data
// a manifest embeds reports its paths the same way).
func join(path, name string) string { return dataschema.JoinKey(path, name) }

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// deref follows aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// describe names the YAML type of a node for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!null":
		return "nothing"
	case "!!bool":
		return "a boolean (" + n.Value + ")"
	case "!!int":
		return "an integer (" + n.Value + ")"
	case "!!float":
		return "a number (" + n.Value + ")"
	case "!!str":
		return strconv.Quote(n.Value)
	default:
		return "a " + strings.TrimPrefix(n.ShortTag(), "!!")
	}
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// fields is a decoded mapping of a known shape: its values by key.
type fields struct {
	d     *decoder
	shape *shape
	node  *yaml.Node
	path  string
	vals  map[string]*yaml.Node
	keys  map[string]*yaml.Node
}

// get returns the value of a declared key, or nil when the mapping does not
// have it.
func (f fields) get(name string) *yaml.Node {
	if _, ok := f.shape.lookup(name); !ok {
		panic(fmt.Sprintf("manifest: the decoder reads %q, which the %s shape does not declare", name, f.shape.name))
	}
	if f.d.read != nil {
		if f.d.read[f.shape] == nil {
			f.d.read[f.shape] = map[string]bool{}
		}
		f.d.read[f.shape][name] = true
	}
	return f.vals[name]
}

func (f fields) sub(name string) string { return join(f.path, name) }

func (f fields) required(name string) bool {
	k, _ := f.shape.lookup(name)
	return k.required
}

// mapping checks that n is a mapping of shape s: string keys, no duplicates,
// no unknown keys (with a did-you-mean), every required key present. It
// returns false when n is not a mapping at all.
func (d *decoder) mapping(n *yaml.Node, path string, s *shape) (fields, bool) {
	n = deref(n)
	f := fields{d: d, shape: s, node: n, path: path, vals: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "expected a mapping, got %s", describe(n))
		return f, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, path, "keys must be plain names, got %s", describe(k))
			continue
		}
		name := k.Value
		if name == "<<" {
			d.errorf(k, join(path, name), "YAML merge keys are not supported; write the keys out")
			continue
		}
		if first, dup := f.keys[name]; dup {
			d.errorf(k, join(path, name), "duplicate key (first at line %d)", first.Line)
			continue
		}
		f.keys[name] = k
		if _, known := s.lookup(name); !known {
			d.unknownKey(k, join(path, name), name, s)
			continue
		}
		f.vals[name] = v
	}
	for _, k := range s.keys {
		if k.required && f.keys[k.name] == nil {
			d.errorf(n, join(path, k.name), "required")
		}
	}
	return f, true
}

func (d *decoder) unknownKey(k *yaml.Node, path, name string, s *shape) {
	if why, ok := retiredKeys[s.name][name]; ok {
		d.errorf(k, path, "%s", why)
		return
	}
	if best := suggest(name, s.names()); best != "" {
		d.errorf(k, path, "unknown key; did you mean %q?", best)
		return
	}
	d.errorf(k, path, "unknown key (allowed here: %s)", strings.Join(s.names(), ", "))
}

// text reads a string-valued key. An empty or null value of a required key
// is reported.
func (f fields) text(name string) string {
	n := f.get(name)
	if n == nil {
		return ""
	}
	s, ok := f.d.scalarText(n, f.sub(name))
	if ok && strings.TrimSpace(s) == "" && f.required(name) {
		f.d.errorf(n, f.sub(name), "must not be empty")
	}
	return s
}

// scalarText returns the text of a string scalar; null is "". Unquoted
// numbers and booleans are type errors: YAML tools disagree on how they read
// back (1.10 becomes 1.1), so text that looks like one must be quoted, as
// the JSON Schema says too.
func (d *decoder) scalarText(n *yaml.Node, path string) (string, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, path, "expected a string, got %s", describe(n))
		return "", false
	}
	switch n.ShortTag() {
	case "!!null":
		return "", true
	case "!!str", "!!timestamp":
		return n.Value, true
	default:
		d.errorf(n, path, "expected a string, got %s; quote it: \"%s\"", describe(n), n.Value)
		return "", false
	}
}

// boolean reads an optional true/false key; nil when absent or null.
func (f fields) boolean(name string) *bool {
	n := f.get(name)
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		f.d.errorf(n, f.sub(name), "expected true or false, got %s", describe(n))
		return nil
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		f.d.errorf(n, f.sub(name), "expected true or false: %v", err)
		return nil
	}
	return &b
}

// integer reads an optional integer key; nil when absent or null.
func (f fields) integer(name string) *int {
	n := f.get(name)
	if n == nil || isNull(n) {
		return nil
	}
	var i int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		f.d.errorf(n, f.sub(name), "expected an integer, got %s", describe(n))
		return nil
	}
	return &i
}

// duration reads an optional Go duration ("10s", "1m30s"); it must be
// positive.
func (f fields) duration(name string) time.Duration {
	n := f.get(name)
	if n == nil {
		return 0
	}
	s, ok := f.d.scalarText(n, f.sub(name))
	if !ok || s == "" {
		return 0
	}
	dur, err := time.ParseDuration(s)
	switch {
	case err != nil:
		f.d.errorf(n, f.sub(name), "invalid duration %q: use a number with a unit, such as \"500ms\", \"10s\" or \"1m\"", s)
	case dur <= 0:
		f.d.errorf(n, f.sub(name), "must be positive, got %q", s)
	}
	return dur
}

// items returns the elements of a list-valued key (nil when absent or
// null), reporting a non-list value.
func (f fields) items(name string) []*yaml.Node {
	n := f.get(name)
	if n == nil || isNull(n) {
		return nil
	}
	return f.d.sequence(n, f.sub(name))
}

func (d *decoder) sequence(n *yaml.Node, path string) []*yaml.Node {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "expected a list, got %s", describe(n))
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, e := range n.Content {
		out[i] = deref(e)
	}
	return out
}

// strings reads a list of strings; each element must be a non-empty
// string-like scalar. check, when not nil, validates each element.
func (f fields) strings(name string, check func(n *yaml.Node, path, s string)) []string {
	var out []string
	for i, e := range f.items(name) {
		p := index(f.sub(name), i)
		s, ok := f.d.scalarText(e, p)
		if !ok {
			continue
		}
		if strings.TrimSpace(s) == "" {
			f.d.errorf(e, p, "must not be empty")
			continue
		}
		if check != nil {
			check(e, p, s)
		}
		out = append(out, s)
	}
	return out
}

// nonEmptyList reports a required list that is present but empty.
func (f fields) nonEmptyList(name, what string) {
	if n := f.get(name); n != nil && (isNull(n) || (n.Kind == yaml.SequenceNode && len(n.Content) == 0)) {
		f.d.errorf(n, f.sub(name), "must list at least one %s", what)
	}
}

// oneOf checks an enumerated value, suggesting the closest allowed one.
func (d *decoder) oneOf(n *yaml.Node, path, what, value string, allowed []string) bool {
	if slices.Contains(allowed, value) {
		return true
	}
	if best := suggest(value, allowed); best != "" {
		d.errorf(n, path, "unknown %s %q; did you mean %q?", what, value, best)
	} else {
		d.errorf(n, path, "unknown %s %q (want one of %s)", what, value, strings.Join(allowed, ", "))
	}
	return false
}
