// Package gofile holds the source-text helpers both generators (protoc-gen-a2a
// in internal/gen and a2a-scaffold in internal/scaffold) apply to the Go code
// jennifer renders: goimports-style import grouping and comment wrapping.
package gofile

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// GroupImports puts the standard library imports of jennifer's single,
// sorted import block first and the others after a blank line, as goimports
// would. jennifer writes one import per line between "import (" and ")";
// source without such a block is returned unchanged.
func GroupImports(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	start += len("\nimport (\n")
	end := bytes.Index(src[start:], []byte("\n)"))
	if end < 0 {
		return src
	}
	end += start
	var std, other []string
	for line := range strings.SplitSeq(string(src[start:end]), "\n") {
		path := line[strings.IndexByte(line, '"')+1:]
		if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	if len(std) == 0 || len(other) == 0 {
		return src
	}
	block := strings.Join(std, "\n") + "\n\n" + strings.Join(other, "\n")
	out := append([]byte(nil), src[:start]...)
	out = append(out, block...)
	return append(out, src[end:]...)
}

// Wrap breaks text into lines of at most width runes at spaces (a longer
// word stays whole). A newline in text starts a new line; an empty
// paragraph is an empty line.
func Wrap(text string, width int) []string {
	var out []string
	for para := range strings.SplitSeq(text, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		out = append(out, line)
	}
	return out
}
