package a2av1

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// NewTextPart returns a part holding text.
func NewTextPart(text string) *Part {
	b := &struct { // the part and its oneof wrapper in one allocation
		part Part
		text Part_Text
	}{text: Part_Text{Text: text}}
	b.part.Content = &b.text
	return &b.part
}

// NewDataPart returns a part holding structured data: v is anything
// structpb.NewValue accepts (maps with string keys, slices, strings,
// numbers, bools, nil). The error names the value it could not convert.
func NewDataPart(v any) (*Part, error) {
	value, err := structpb.NewValue(v)
	if err != nil {
		return nil, fmt.Errorf("a2a: data part: %w", err)
	}
	return &Part{Content: &Part_Data{Data: value}, MediaType: "application/json"}, nil
}

// NewJSONDataPart returns a part holding the JSON value in data (any JSON
// value, not only an object).
func NewJSONDataPart(data []byte) (*Part, error) {
	value := new(structpb.Value)
	if err := protojson.Unmarshal(data, value); err != nil {
		return nil, fmt.Errorf("a2a: data part: not JSON: %w", err)
	}
	return &Part{Content: &Part_Data{Data: value}, MediaType: "application/json"}, nil
}

// NewFilePart returns a part carrying a file's bytes inline (raw; base64 in
// JSON). filename and mediaType may be empty.
func NewFilePart(filename, mediaType string, data []byte) *Part {
	return &Part{Content: &Part_Raw{Raw: data}, Filename: filename, MediaType: mediaType}
}

// NewFileURLPart returns a part pointing to a file by URL, which the agent
// fetches itself. filename and mediaType may be empty.
func NewFileURLPart(url, filename, mediaType string) *Part {
	return &Part{Content: &Part_Url{Url: url}, Filename: filename, MediaType: mediaType}
}

// partsText concatenates the text parts of parts, skipping other kinds.
func partsText(parts []*Part) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0].GetText()
	}
	n := 0
	for _, p := range parts {
		n += len(p.GetText())
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p.GetText()...)
	}
	return string(b)
}
