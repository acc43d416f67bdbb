package runtime

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// fieldPath is a resolved dotted field path of a request message, such as
// the target of a path variable ("note.note_id"): every element but the last
// is a singular message field.
type fieldPath []protoreflect.FieldDescriptor

// resolveFieldPath resolves a dotted path of proto field names in md. The
// leaf must be a singular scalar field (what a path variable can fill).
func resolveFieldPath(md protoreflect.MessageDescriptor, dotted string) (fieldPath, error) {
	var out fieldPath
	cur := md
	for name := range strings.SplitSeq(dotted, ".") {
		if cur == nil {
			return nil, fmt.Errorf("field path %s of %s goes through %s, which is not a message field", dotted, md.FullName(), out[len(out)-1].Name())
		}
		fd := cur.Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			return nil, fmt.Errorf("field path %s: %s has no field %s", dotted, cur.FullName(), name)
		}
		out = append(out, fd)
		cur = nil
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() {
			cur = fd.Message()
		}
	}
	leaf := out[len(out)-1]
	if leaf.IsList() || leaf.IsMap() || leaf.Message() != nil {
		return nil, fmt.Errorf("field path %s of %s ends at a field that is not a singular scalar", dotted, md.FullName())
	}
	return out, nil
}

// jsonPath returns the path in JSON names ("note.noteId"), as field
// violations name fields.
func (p fieldPath) jsonPath() string {
	if len(p) == 1 {
		return p[0].JSONName()
	}
	names := make([]string, len(p))
	for i, fd := range p {
		names[i] = fd.JSONName()
	}
	return strings.Join(names, ".")
}

// set parses text as the leaf's value and sets it in m, creating the
// messages on the way.
func (p fieldPath) set(m protoreflect.Message, text string) error {
	for _, fd := range p[:len(p)-1] {
		m = m.Mutable(fd).Message()
	}
	leaf := p[len(p)-1]
	v, err := parseScalar(leaf, text)
	if err != nil {
		return err
	}
	m.Set(leaf, v)
	return nil
}

// get returns the leaf's value in m and whether it is set (for fields
// without presence: different from the default), without creating anything.
func (p fieldPath) get(m protoreflect.Message) (protoreflect.Value, bool) {
	for _, fd := range p[:len(p)-1] {
		if !m.Has(fd) {
			return protoreflect.Value{}, false
		}
		m = m.Get(fd).Message()
	}
	leaf := p[len(p)-1]
	return m.Get(leaf), m.Has(leaf)
}

// clear clears the leaf in m if the messages on the way exist.
func (p fieldPath) clear(m protoreflect.Message) {
	for _, fd := range p[:len(p)-1] {
		if !m.Has(fd) {
			return
		}
		m = m.Mutable(fd).Message()
	}
	m.Clear(p[len(p)-1])
}
