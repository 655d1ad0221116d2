package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The view's rule (DESIGN.md): a preview reads the fleet only through the view.Fleet it is given.
// For every preview.Spec in the domain packages, its Compute and every function of the package it
// reaches (calls resolved by name: a method by its name alone, which over-approximates) must not
// touch the provider's session (`.Clients`, package session) nor a backend operation (package
// backend, but for wording its errors), so that a live read from a preview is caught here even
// where the compiler cannot see it.
func TestPreviewsReadOnlyThroughTheView(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	specs := 0
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(e.Name(), "registration.go")); !e.IsDir() || err != nil {
			continue
		}
		funcs := map[string][]*ast.FuncDecl{} // by name (methods by method name)
		var computes []ast.Node
		fset := token.NewFileSet()
		files, _ := filepath.Glob(filepath.Join(e.Name(), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					funcs[fd.Name.Name] = append(funcs[fd.Name.Name], fd)
				}
			}
			ast.Inspect(file, func(n ast.Node) bool {
				cl, ok := n.(*ast.CompositeLit)
				if !ok || !isPreviewSpec(cl.Type) {
					return true
				}
				for _, elt := range cl.Elts {
					if kv, ok := elt.(*ast.KeyValueExpr); ok && identName(kv.Key) == "Compute" {
						computes = append(computes, kv.Value)
					}
				}
				return true
			})
		}
		specs += len(computes)
		for _, c := range computes {
			seen := map[string]bool{}
			var walk func(n ast.Node, via string)
			walk = func(n ast.Node, via string) {
				ast.Inspect(n, func(n ast.Node) bool {
					switch x := n.(type) {
					case *ast.SelectorExpr:
						if x.Sel.Name == "Clients" || identName(x.X) == "session" || identName(x.X) == "backend" && x.Sel.Name != "AddBackendError" {
							t.Errorf("%s: the preview reads the fleet outside its view (%s.%s, reached via %s)", fset.Position(x.Pos()), exprName(x.X), x.Sel.Name, via)
						}
					case *ast.CallExpr:
						name := identName(x.Fun)
						if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
							name = sel.Sel.Name
						}
						if name == "" || seen[name] {
							return true
						}
						seen[name] = true
						for _, fd := range funcs[name] {
							if fd.Body != nil {
								walk(fd.Body, via+" → "+name)
							}
						}
					}
					return true
				})
			}
			if id, ok := c.(*ast.Ident); ok {
				for _, fd := range funcs[id.Name] {
					walk(fd, "Compute "+id.Name)
				}
				continue
			}
			walk(c, "Compute")
		}
	}
	if specs < 10 {
		t.Fatalf("found %d preview.Spec Compute functions in the domains, want one per previewed resource (at least 10)", specs)
	}
}

func isPreviewSpec(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.IndexExpr:
		return isPreviewSpec(x.X)
	case *ast.SelectorExpr:
		return identName(x.X) == "preview" && x.Sel.Name == "Spec"
	}
	return false
}

func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func exprName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprName(x.X) + "." + x.Sel.Name
	}
	return "…"
}
