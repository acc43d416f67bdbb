package gen

import (
	"strings"

	"github.com/a2agen/a2agen/internal/gofile"

	"github.com/dave/jennifer/jen"
	"google.golang.org/protobuf/compiler/protogen"
)

// commentWidth is where generated prose is wrapped (the proto's own comments
// keep their line breaks).
const commentWidth = 77

// protoCommentLines turns a proto leading comment into comment lines without
// the "//": internal notes between "(--" and "--)" (the AIP convention for
// comments not meant for readers of generated code) are dropped, the single
// space protoc keeps after "//" is removed, trailing blanks are trimmed and
// blank lines around the text are dropped.
func protoCommentLines(c protogen.Comments) []string {
	var lines []string
	for line := range strings.SplitSeq(withoutInternalNotes(string(c)), "\n") {
		line = strings.TrimRight(line, " \t\r")
		line = strings.TrimPrefix(line, " ")
		lines = append(lines, line)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return collapseBlankRuns(lines)
}

// withoutInternalNotes is a comment's text without the notes between "(--"
// and "--)"; an unclosed "(--" is kept.
func withoutInternalNotes(text string) string {
	for {
		start := strings.Index(text, "(--")
		if start < 0 {
			return text
		}
		end := strings.Index(text[start:], "--)")
		if end < 0 {
			return text
		}
		text = text[:start] + text[start+end+len("--)"):]
	}
}

// collapseBlankRuns makes each run of blank lines (left where internal
// notes were removed) one empty line, in place; no lines is nil.
func collapseBlankRuns(lines []string) []string {
	out := lines[:0]
	for i, l := range lines {
		if strings.TrimSpace(l) == "" && i > 0 && strings.TrimSpace(lines[i-1]) == "" {
			continue
		}
		if strings.TrimSpace(l) == "" {
			l = ""
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// wrap breaks prose into lines of at most commentWidth characters.
func wrap(text string) []string { return gofile.Wrap(text, commentWidth) }

// paragraphs wraps each paragraph and separates them with blank lines.
func paragraphs(ps ...string) []string {
	var lines []string
	for _, p := range ps {
		if p == "" {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, wrap(p)...)
	}
	return lines
}

// blocks joins blocks of comment lines with blank lines, skipping empty ones.
func blocks(bs ...[]string) []string {
	var lines []string
	for _, b := range bs {
		if len(b) == 0 {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, b...)
	}
	return lines
}

// commentCode renders comment lines (without "//") as one jennifer comment
// per line; a line starting with a tab is a preformatted (code block) line.
func commentCode(lines []string) []jen.Code {
	out := make([]jen.Code, 0, len(lines))
	for _, l := range lines {
		switch {
		case l == "":
			out = append(out, jen.Comment("//"))
		case strings.HasPrefix(l, "\t"):
			out = append(out, jen.Comment("//"+l))
		default:
			out = append(out, jen.Comment("// "+l))
		}
	}
	return out
}

// addComment appends comment lines to a jennifer group (a file or a block).
func addComment(g interface {
	Add(...jen.Code) *jen.Statement
}, lines []string) {
	for _, c := range commentCode(lines) {
		g.Add(c)
	}
}
