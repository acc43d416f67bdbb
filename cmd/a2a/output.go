package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"
	"gopkg.in/yaml.v3"

	"github.com/a2agen/a2agen/runtime"
)

// compactJSON is the ProtoJSON of m (the runtime's codec: camelCase names,
// REQUIRED fields always present) on one line, with stable spacing.
func compactJSON(m proto.Message) ([]byte, error) {
	raw, err := runtime.MarshalJSON(m)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// emit writes m in the -o format: one JSON object per line, one YAML
// document per message ("---" separated), or the text text writes.
func (a *app) emit(w io.Writer, m proto.Message, text func(io.Writer)) error {
	var encode func(proto.Message) ([]byte, error)
	var format string
	switch a.output {
	case "json":
		encode, format = compactJSON, "%s\n"
	case "yaml":
		encode, format = yamlOf, "---\n%s"
	default:
		text(w)
		return nil
	}
	b, err := encode(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, format, b)
	return err
}

// yamlOf is the ProtoJSON of m as block-style YAML, members in the same
// order.
func yamlOf(m proto.Message) ([]byte, error) {
	b, err := compactJSON(m)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	blockStyle(&doc)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// blockStyle turns JSON's flow style into YAML's block style, and its
// double-quoted strings into plain ones where YAML allows.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}
