package provider

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layout's rule (DESIGN.md): a domain package (a directory here with a
// registration.go) imports preview, backend and shared (its tests also sharedtest) and never
// another domain, nor the provider (its acceptance tests, package <domain>_test, drive the whole
// provider); preview imports backend and shared; backend imports shared; shared imports none of them.
func TestDomainsImportNoOtherDomain(t *testing.T) {
	const self = "github.com/fleetops/terraform-provider-fleet/internal/provider"
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	// What each layer may import of the provider's packages; a domain, the three layers below it.
	allowed := map[string][]string{"shared": nil, "backend": {"shared"}, "preview": {"backend", "shared"}}
	domains := map[string]bool{}
	for _, e := range entries {
		_, layer := allowed[e.Name()] // shared has a registration.go too: the Registration type
		if _, err := os.Stat(filepath.Join(e.Name(), "registration.go")); e.IsDir() && err == nil && !layer {
			domains[e.Name()] = true
		}
	}
	if len(domains) < 5 {
		t.Fatalf("found the domains %v: want every domain package to have a registration.go", domains)
	}
	for d := range domains {
		allowed[d] = []string{"preview", "backend", "shared"}
	}
	for _, dir := range append(keys(domains), "shared", "backend", "preview") {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p != self && !strings.HasPrefix(p, self+"/") {
					continue
				}
				rest := strings.TrimPrefix(strings.TrimPrefix(p, self), "/")
				switch {
				case slices.Contains(allowed[dir], rest):
				case rest == "sharedtest" && domains[dir] && strings.HasSuffix(f, "_test.go"):
				case (rest == dir || rest == "") && strings.HasSuffix(f, "_test.go"): // external tests drive the provider
				default:
					t.Errorf("%s imports %s: a domain imports preview, backend and shared (and its tests sharedtest), never another domain or the provider; "+
						"preview imports backend and shared, backend imports shared, shared none of them", f, p)
				}
			}
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The layout's other rule (DESIGN.md): no file passes 900 lines. Every non-test
// .go file under the module's internal/ directory is held to it.
func TestNoFileOverNineHundredLines(t *testing.T) {
	const limit = 900
	root := moduleRoot(t)
	checked := 0
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		n := bytes.Count(b, []byte("\n"))
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		if n > limit {
			rel, _ := filepath.Rel(root, p)
			t.Errorf("%s has %d lines; no file passes %d: split it by concern", filepath.ToSlash(rel), n, limit)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files under %s: want the whole internal/ tree", checked, filepath.Join(root, "internal"))
	}
}

// moduleRoot is the nearest directory at or above the working directory that holds go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod at or above the working directory")
		}
		dir = parent
	}
}
