package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
)

// function is one function declaration longer than linesOver.
type function struct {
	name, pos string
	lines     int
	// table: the body is one statement whose value is a composite literal (a table written
	// as code), which the threshold does not count.
	table bool
}

// longFunctions lists the functions over linesOver lines (from the func line to the closing
// brace), longest first.
func longFunctions(files []string) ([]function, error) {
	fset := token.NewFileSet()
	var out []function
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := end.Line - start.Line; n > linesOver {
				out = append(out, function{name: funcName(f, fn), pos: start.String(), lines: n, table: isTable(fn.Body)})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b function) int { return b.lines - a.lines })
	return out, nil
}

// funcName is gocyclo's spelling: package, (Receiver).Method or Function.
func funcName(f *ast.File, fn *ast.FuncDecl) string {
	name := fn.Name.Name
	if fn.Recv != nil && len(fn.Recv.List) == 1 {
		t, ptr := fn.Recv.List[0].Type, ""
		if star, ok := t.(*ast.StarExpr); ok {
			t, ptr = star.X, "*"
		}
		switch x := t.(type) {
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		}
		if id, ok := t.(*ast.Ident); ok {
			name = "(" + ptr + id.Name + ")." + name
		}
	}
	return f.Name.Name + "." + name
}

// isTable reports whether the body is a single return or assignment of a composite literal.
func isTable(body *ast.BlockStmt) bool {
	if len(body.List) != 1 {
		return false
	}
	var values []ast.Expr
	switch s := body.List[0].(type) {
	case *ast.ReturnStmt:
		values = s.Results
	case *ast.AssignStmt:
		values = s.Rhs
	case *ast.DeclStmt:
		if g, ok := s.Decl.(*ast.GenDecl); ok && len(g.Specs) == 1 {
			if v, ok := g.Specs[0].(*ast.ValueSpec); ok {
				values = v.Values
			}
		}
	}
	if len(values) != 1 {
		return false
	}
	v := values[0]
	if u, ok := v.(*ast.UnaryExpr); ok && u.Op == token.AND {
		v = u.X
	}
	_, ok := v.(*ast.CompositeLit)
	return ok
}
