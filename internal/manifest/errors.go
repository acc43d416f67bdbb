package manifest

import (
	"fmt"
	"strings"
)

// Error is one problem in a manifest, at a position, about the value at a
// path such as skills[1].id.
type Error struct {
	File    string
	Line    int // 1-based; 0 when unknown
	Col     int // 1-based; 0 when unknown
	Path    string
	Message string
}

// Error formats the problem as file:line:col: path: message, the form
// editors and CI annotators recognise. Unknown parts are left out.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Errors is every problem found in a manifest, in file order. It is the
// error Parse and Load return for an invalid manifest.
type Errors []*Error

// Error lists the problems, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives errors.As and errors.Is access to each problem.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
