package runtime

import (
	"fmt"
	"net/url"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// appendQuery appends the populated fields of m to the query string dst
// (without "?"), in declaration order so that URLs are stable: scalars and
// enums (by name) as one parameter, repeated scalars as the key repeated,
// Timestamp/Duration/FieldMask and wrappers in their text form, other
// messages as their own fields under a dotted name ("configuration.historyLength").
// Parameter names are JSON names. skip holds the dotted proto paths of
// fields carried elsewhere (path variables, the body field). Maps and
// repeated messages cannot be written in a query string: an error names them.
func appendQuery(dst []byte, m protoreflect.Message, skip map[string]bool) ([]byte, error) {
	return appendQueryFields(dst, m, "", "", skip)
}

func appendQueryFields(dst []byte, m protoreflect.Message, protoPrefix, jsonPrefix string, skip map[string]bool) ([]byte, error) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		protoPath := protoPrefix + string(fd.Name())
		if skip[protoPath] {
			continue
		}
		key := jsonPrefix + fd.JSONName()
		v := m.Get(fd)
		switch {
		case fd.IsMap() || (fd.IsList() && fd.Message() != nil):
			return dst, fmt.Errorf("field %s cannot be sent in a query string (maps and repeated messages have no query form)", key)
		case fd.IsList():
			list := v.List()
			for j := range list.Len() {
				dst = appendQueryParam(dst, key, formatScalar(fd, list.Get(j)))
			}
		case fd.Message() != nil:
			if urlMessageKindOf(fd.Message()) == urlMessageNone {
				var err error
				if dst, err = appendQueryFields(dst, v.Message(), protoPath+".", key+".", skip); err != nil {
					return dst, err
				}
				continue
			}
			s, err := formatMessageText(v.Message())
			if err != nil {
				return dst, fmt.Errorf("field %s: %w", key, err)
			}
			dst = appendQueryParam(dst, key, s)
		default:
			dst = appendQueryParam(dst, key, formatScalar(fd, v))
		}
	}
	return dst, nil
}

func appendQueryParam(dst []byte, key, value string) []byte {
	if len(dst) > 0 {
		dst = append(dst, '&')
	}
	dst = append(dst, url.QueryEscape(key)...)
	dst = append(dst, '=')
	return append(dst, url.QueryEscape(value)...)
}
