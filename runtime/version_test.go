package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/a2agen/a2agen/internal/version"
)

// TestHandshakeIsDeclared checks that the constant protoc-gen-a2a makes
// generated code refer to is declared by this package.
func TestHandshakeIsDeclared(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "version.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if obj := f.Scope.Lookup(version.RuntimeHandshake); obj == nil || obj.Kind != ast.Con {
		t.Fatalf("runtime/version.go declares no constant %s, which generated code refers to", version.RuntimeHandshake)
	}
}
