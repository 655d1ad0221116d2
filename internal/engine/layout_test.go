// Package engine_test holds the engine's layout rules (DESIGN.md): its packages and, inside each,
// its files use each other in one direction only, so each can be read knowing only what it uses.
package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/fleetops/terraform-provider-fleet/internal/engine/"

// TestPackagesOneDirection: no two engine packages import each other, directly or through others.
func TestPackagesOneDirection(t *testing.T) {
	imports := map[string][]string{}
	for _, dir := range packageDirs(t) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if strings.HasPrefix(p, module) {
					imports[dir] = append(imports[dir], strings.TrimPrefix(p, module))
				}
			}
		}
	}
	// A cycle among packages cannot compile; what is left to hold is the order of the layers
	// previews stand on: facts (pure data) ← view (the interface) ← session (the I/O).
	for _, rule := range []struct{ pkg, mustNot string }{{"facts", "view"}, {"facts", "session"}, {"view", "session"}} {
		for _, p := range imports[rule.pkg] {
			if p == rule.mustNot {
				t.Errorf("engine/%s imports engine/%s: the layers go facts ← view ← session", rule.pkg, rule.mustNot)
			}
		}
	}
	for _, p := range imports["facts"] {
		if p == "kube" || strings.HasPrefix(p, "session") {
			t.Logf("facts imports %s (types only)", p)
		}
	}
}

// TestFilesOneDirection: inside the packages previews stand on (the snapshot, the view, the
// session), no two files use each other's declarations: each file can be read knowing only the
// files below it. Uses are resolved by name (a method by its name; selectors of an imported
// package, struct fields and the error and Stringer methods left out), which over-approximates.
func TestFilesOneDirection(t *testing.T) {
	checked := 0
	fields, methods := fieldAndMethodNames(t)
	for _, dir := range []string{"facts", "view", "session"} {
		fset := token.NewFileSet()
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		declared := map[string]string{} // top-level name → file (methods as Type.Name are left out: a method is used through its value)
		parsed := map[string]*ast.File{}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			parsed[f] = file
			for _, d := range file.Decls {
				switch x := d.(type) {
				case *ast.FuncDecl:
					if x.Recv == nil {
						declared[x.Name.Name] = f
					} else {
						declared["."+x.Name.Name] = f
					}
				case *ast.GenDecl:
					for _, s := range x.Specs {
						switch y := s.(type) {
						case *ast.TypeSpec:
							declared[y.Name.Name] = f
						case *ast.ValueSpec:
							for _, n := range y.Names {
								declared[n.Name] = f
							}
						}
					}
				}
			}
		}
		uses := map[string]map[string]string{} // file → file it uses → an example name
		for f, file := range parsed {
			pkgs := map[string]bool{}
			for _, imp := range file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				name := p[strings.LastIndex(p, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				pkgs[name] = true
			}
			ast.Inspect(file, func(n ast.Node) bool {
				var name string
				switch x := n.(type) {
				case *ast.Ident:
					name = x.Name
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && pkgs[id.Name] || fields[x.Sel.Name] || methods[x.Sel.Name][dir] < methods[x.Sel.Name]["*"] || x.Sel.Name == "Error" || x.Sel.Name == "String" {
						return false
					}
					name = "." + x.Sel.Name
				default:
					return true
				}
				if g, ok := declared[name]; ok && g != f {
					if uses[f] == nil {
						uses[f] = map[string]string{}
					}
					uses[f][g] = name
				}
				return true
			})
		}
		var pairs []string
		for a, bs := range uses {
			for b, name := range bs {
				if back, ok := uses[b][a]; ok && a < b {
					pairs = append(pairs, filepath.Base(a)+" uses "+filepath.Base(b)+" ("+name+") and "+filepath.Base(b)+" uses "+filepath.Base(a)+" ("+back+")")
				}
			}
		}
		sort.Strings(pairs)
		for _, p := range pairs {
			t.Errorf("engine/%s: %s", dir, p)
		}
		checked += len(parsed)
	}
	if checked < 15 {
		t.Fatalf("checked %d files, want those of facts, view and session", checked)
	}
}

// fieldAndMethodNames are the names of the struct fields declared in the engine's packages, and
// of the methods, with how many packages declare each ("*": all of them).
func fieldAndMethodNames(t *testing.T) (map[string]bool, map[string]map[string]int) {
	out, methods := map[string]bool{}, map[string]map[string]int{}
	for _, dir := range packageDirs(t) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && !strings.HasSuffix(f, "_test.go") {
					if methods[fd.Name.Name] == nil {
						methods[fd.Name.Name] = map[string]int{}
					}
					if methods[fd.Name.Name][dir] == 0 {
						methods[fd.Name.Name]["*"]++
					}
					methods[fd.Name.Name][dir] = 1
				}
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if st, ok := n.(*ast.StructType); ok {
					for _, fl := range st.Fields.List {
						for _, n := range fl.Names {
							out[n.Name] = true
						}
					}
				}
				return true
			})
		}
	}
	return out, methods
}

func packageDirs(t *testing.T) []string {
	var out []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != "." {
			return filepath.SkipDir
		}
		if d.IsDir() && p != "." {
			if m, _ := filepath.Glob(filepath.Join(p, "*.go")); len(m) > 0 {
				out = append(out, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
