package scaffold

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/a2agen/a2agen/internal/gofile"
)

// Import paths of the a2agen packages a project's code calls.
const (
	pkgA2A      = "github.com/a2agen/a2agen/a2a/v1"
	pkgAuth     = "github.com/a2agen/a2agen/auth"
	pkgHost     = "github.com/a2agen/a2agen/host"
	pkgHostTest = "github.com/a2agen/a2agen/host/hosttest"
	pkgPush     = "github.com/a2agen/a2agen/server/push"
	pkgRuntime  = "github.com/a2agen/a2agen/runtime"
	pkgServer   = "github.com/a2agen/a2agen/server"
)

// newGoFile starts a file of package main; generated files get the
// GeneratedMarker header and the line naming the a2a-scaffold version
// (VersionLine).
func newGoFile(generated bool) *jen.File {
	f := jen.NewFile("main")
	if generated {
		f.HeaderComment(GeneratedMarker)
		f.HeaderComment(VersionLine)
	}
	f.ImportName(pkgA2A, "a2av1")
	for _, p := range []string{pkgAuth, pkgHost, pkgHostTest, pkgPush, pkgRuntime, pkgServer, pkgSkillData, pkgLLM, pkgLLMTest, pkgAgentCard} {
		f.ImportName(p, p[strings.LastIndexByte(p, '/')+1:])
	}
	return f
}

// render formats a file, with the standard library's imports grouped
// before the others, as goimports does.
func render(f *jen.File) ([]byte, error) {
	var b bytes.Buffer
	if err := f.Render(&b); err != nil {
		return nil, err
	}
	return gofile.GroupImports(b.Bytes()), nil
}

// docLines adds text to f as a comment block, wrapped at 76 columns, for the
// declaration that follows.
func docLines(f *jen.File, text string) {
	for _, line := range gofile.Wrap(text, 76) {
		if line == "" {
			f.Comment("")
			continue
		}
		f.Comment(line)
	}
}

// stringConst renders s as a raw string literal when it can be one (no
// backquote, no carriage return, valid UTF-8), otherwise quoted.
func stringConst(s string) jen.Code {
	if !strings.ContainsAny(s, "`\r") && utf8.ValidString(s) && !strings.ContainsRune(s, '\ufeff') {
		return jen.Op("`" + s + "`")
	}
	return jen.Lit(s)
}

// multi is a composite literal body with one element per line.
var multi = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}

// multiTerminated is multi for elements that end with their own comma
// (to be followed by a comment).
var multiTerminated = jen.Options{Open: "{", Close: "}", Multi: true}

// duration renders d as Go code: 10 * time.Second, 500 * time.Millisecond.
func duration(d time.Duration) jen.Code {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"}} {
		if d%u.d == 0 {
			return jen.Lit(int(d/u.d)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int64(d)))
}
