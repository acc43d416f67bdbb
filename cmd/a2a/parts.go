package main

import (
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// The parts of a message, in the order their flags are given (SPEC.md
// §10.2): --text, --file (a path: the bytes inline; a URL: a link the agent
// fetches), --data (a JSON file, - for stdin, or inline JSON), each
// repeatable; --media-type sets the media type of the part flag just
// before it.

// partSpec is one part flag as given.
type partSpec struct {
	kind      string // "text", "file", "data", "file-url"
	value     string
	mediaType string
}

// partList collects the part flags of one command line in order.
type partList struct{ parts []partSpec }

// partFlag is the pflag.Value of one part flag kind; every kind appends to
// the same list, which keeps the order across kinds.
type partFlag struct {
	list *partList
	kind string
}

func (f *partFlag) String() string { return "" }
func (f *partFlag) Type() string   { return "string" }
func (f *partFlag) Set(v string) error {
	f.list.parts = append(f.list.parts, partSpec{kind: f.kind, value: v})
	return nil
}

// mediaTypeFlag binds --media-type to the part flag before it.
type mediaTypeFlag struct{ list *partList }

func (f *mediaTypeFlag) String() string { return "" }
func (f *mediaTypeFlag) Type() string   { return "type" }
func (f *mediaTypeFlag) Set(v string) error {
	n := len(f.list.parts)
	if n == 0 {
		return usagef("--media-type %s: it sets the media type of the part flag before it (--text, --file, --data), and none comes before it", v)
	}
	if f.list.parts[n-1].mediaType != "" {
		return usagef("--media-type %s: the part before it already has --media-type %s", v, f.list.parts[n-1].mediaType)
	}
	f.list.parts[n-1].mediaType = v
	return nil
}

// build makes the message parts; text is the positional TEXT, first.
func (l *partList) build(text string, stdin io.Reader) ([]*a2av1.Part, error) {
	var parts []*a2av1.Part
	if text != "" {
		parts = append(parts, a2av1.NewTextPart(text))
	}
	for _, spec := range l.parts {
		p, err := spec.part(stdin)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func (s partSpec) part(stdin io.Reader) (*a2av1.Part, error) {
	switch s.kind {
	case "text":
		p := a2av1.NewTextPart(s.value)
		p.MediaType = s.mediaType
		return p, nil
	case "file":
		if isHTTPURL(s.value) {
			name := urlFileName(s.value)
			return a2av1.NewFileURLPart(s.value, name, s.mediaTypeOr(name)), nil
		}
		data, err := os.ReadFile(s.value)
		if err != nil {
			return nil, usagef("--file: %v", err)
		}
		return a2av1.NewFilePart(filepath.Base(s.value), s.mediaTypeOr(s.value), data), nil
	case "file-url":
		name := urlFileName(s.value)
		return a2av1.NewFileURLPart(s.value, name, s.mediaTypeOr(name)), nil
	case "data":
		raw, err := readData(s.value, stdin)
		if err != nil {
			return nil, err
		}
		p, err := a2av1.NewJSONDataPart(raw)
		if err != nil {
			return nil, usagef("--data %s: not JSON: %v", truncate(s.value, 40), err)
		}
		p.MediaType = s.mediaType
		return p, nil
	}
	return nil, fmt.Errorf("unknown part kind %q", s.kind)
}

// readData reads a --data value: - is stdin, @FILE or an existing path a
// file, anything else inline JSON.
func readData(v string, stdin io.Reader) ([]byte, error) {
	switch {
	case v == "-":
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("--data -: reading stdin: %w", err)
		}
		return b, nil
	case strings.HasPrefix(v, "@"):
		b, err := os.ReadFile(v[1:])
		if err != nil {
			return nil, usagef("--data: %v", err)
		}
		return b, nil
	}
	trimmed := strings.TrimSpace(v)
	if !strings.HasPrefix(trimmed, "{") && !strings.HasPrefix(trimmed, "[") {
		if b, err := os.ReadFile(v); err == nil {
			return b, nil
		}
	}
	return []byte(v), nil
}

// mediaTypeOr is --media-type, else the type of name's extension.
func (s partSpec) mediaTypeOr(name string) string {
	if s.mediaType != "" {
		return s.mediaType
	}
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		if mt, _, err := mime.ParseMediaType(t); err == nil {
			return mt
		}
	}
	return ""
}

func urlFileName(u string) string {
	path := strings.SplitN(u, "?", 2)[0]
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return ""
}
