package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads and parses the manifest at path; messages name the file as
// path is written.
func Load(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes and validates a manifest. name is the file name used in
// messages. On any problem it returns nil and an Errors holding every
// problem found, in file order.
func Parse(name string, data []byte) (*Manifest, error) {
	return parse(name, data, nil)
}

func parse(name string, data []byte, read map[*shape]map[string]bool) (*Manifest, error) {
	d := &decoder{file: name, read: read}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.errs = append(d.errs, &Error{File: name, Line: 1, Col: 1, Message: "the manifest is empty; start from `a2a-scaffold new` or docs/manifest.md"})
		} else {
			d.errs = append(d.errs, syntaxError(name, err))
		}
		return nil, d.errs
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		at := &extra
		if len(extra.Content) > 0 {
			at = extra.Content[0]
		}
		d.errorf(at, "", "only one YAML document is allowed; remove the second one (after ---)")
	} else if !errors.Is(err, io.EOF) {
		d.errs = append(d.errs, syntaxError(name, err))
	}
	m := d.agent(doc.Content[0])
	if len(d.errs) > 0 {
		return nil, d.sorted()
	}
	return m, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). yaml.v3 reports them with the 0-based line of the construct
// being parsed (it adds 1 only for scanner errors), so they need one more
// to name the line, 1-based, where the unclosed construct starts.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// syntaxError turns a yaml.v3 syntax error ("yaml: line 3: ...") into an
// Error; yaml.v3 does not say the column.
func syntaxError(file string, err error) *Error {
	e := &Error{File: file, Message: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Message = "invalid YAML: " + m[2]
		if parserProblems[m[2]] {
			e.Line++
		}
	}
	return e
}
