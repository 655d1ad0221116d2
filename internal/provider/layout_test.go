package provider

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The layout's rule (DESIGN.md): a domain package (a directory here with a
// registration.go) imports shared and never another domain, nor the provider
// (its acceptance tests, package <domain>_test, drive the whole provider);
// shared imports no domain.
func TestDomainsImportNoOtherDomain(t *testing.T) {
	const self = "github.com/fleetops/terraform-provider-fleet/internal/provider"
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	domains := map[string]bool{}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(e.Name(), "registration.go")); e.IsDir() && err == nil {
			domains[e.Name()] = true
		}
	}
	if len(domains) < 5 {
		t.Fatalf("found the domains %v: want every domain package to have a registration.go", domains)
	}
	for _, dir := range append(keys(domains), "shared") {
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
				case rest == "shared" || rest == "sharedtest":
				case (rest == dir || rest == "") && strings.HasSuffix(f, "_test.go"): // external tests drive the provider
				default:
					t.Errorf("%s imports %s: a domain imports shared (and its tests sharedtest), never another domain or the provider", f, p)
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
