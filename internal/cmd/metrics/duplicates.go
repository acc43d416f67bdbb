package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

type duplicates struct {
	pairs int
	rows  string
}

// pairsLine is the first line `duplicates` prints: "N pairs of places (M files read), …" or
// "no duplicates …".
var pairsLine = regexp.MustCompile(`^(\d+) pairs? of places`)

// duplicatePairs copies the files into a scratch directory (so that tests and generated files
// are not read), their import declarations blanked (withoutImports), and counts the pairs the
// `duplicates` tool finds there.
func duplicatePairs(files []string, seconds int) (duplicates, error) {
	if _, err := exec.LookPath("duplicates"); err != nil {
		return duplicates{}, errors.New("the duplicates tool is not on PATH")
	}
	dir, err := os.MkdirTemp("", "a2agen-metrics-")
	if err != nil {
		return duplicates{}, err
	}
	defer os.RemoveAll(dir)
	for _, path := range files {
		if err := copyWithoutImports(path, dir); err != nil {
			return duplicates{}, err
		}
	}
	out, err := exec.Command("duplicates", "--repo", dir, "--most", "200", "--seconds", strconv.Itoa(seconds)).Output()
	if err != nil {
		return duplicates{}, fmt.Errorf("duplicates: %w", err)
	}
	text := string(out)
	if strings.Contains(text, "\nincomplete:") || strings.HasPrefix(text, "incomplete:") {
		return duplicates{}, fmt.Errorf("duplicates did not finish: %s", strings.TrimSpace(text[strings.Index(text, "incomplete:"):]))
	}
	first, _, _ := strings.Cut(text, "\n")
	if strings.HasPrefix(first, "no duplicates") {
		return duplicates{rows: text}, nil
	}
	m := pairsLine.FindStringSubmatch(first)
	if m == nil {
		return duplicates{}, fmt.Errorf("duplicates answered %q", first)
	}
	n, _ := strconv.Atoi(m[1])
	return duplicates{pairs: n, rows: text}, nil
}

// copyWithoutImports copies the file at path to the same path below dir,
// its import declarations blanked (withoutImports).
func copyWithoutImports(path, dir string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if b, err = withoutImports(path, b); err != nil {
		return err
	}
	dst := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// withoutImports returns the source with the lines of its import declarations blank, the line
// count unchanged (so that the rows still name the file's own lines). `duplicates` passes over
// an `import "x"` line but reads the lines of an import block as code, so two files importing
// the same packages made a pair: a list Go requires, which no refactoring can share.
func withoutImports(path string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		for i := fset.Position(g.Pos()).Line; i <= fset.Position(g.End()).Line; i++ {
			lines[i-1] = []byte("\n")
		}
	}
	return bytes.Join(lines, nil), nil
}
