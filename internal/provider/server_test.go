package provider

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

func mustServer(t *testing.T) tfprotov6.ProviderServer {
	t.Helper()
	s, err := NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServedServerHasEveryFrameworkMethod fails the day the framework's protocol 6 server gains
// an RPC (a new optional interface) that the served value does not declare: tf6server would not
// find it, and Terraform would tell users to upgrade a provider that has the feature.
func TestServedServerHasEveryFrameworkMethod(t *testing.T) {
	framework, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	served := reflect.TypeOf(mustServer(t))
	ft := reflect.TypeOf(framework)
	if ft.NumMethod() < 30 {
		t.Fatalf("the framework's server has %d methods: not the server this test expects", ft.NumMethod())
	}
	for i := range ft.NumMethod() {
		m := ft.Method(i)
		got, ok := served.MethodByName(m.Name)
		if !ok {
			t.Errorf("the served server lacks %s, which the framework's server implements: declare it in server_optional.go", m.Name)
			continue
		}
		// Compare the signatures without the receiver.
		if !sameSignature(m.Type, got.Type) {
			t.Errorf("%s: the served server's signature %s differs from the framework's %s", m.Name, got.Type, m.Type)
		}
	}
	for name, ok := range map[string]bool{
		"ProviderServerWithListResource": implements[tfprotov6.ProviderServerWithListResource](mustServer(t)),
		"ProviderServerWithActions":      implements[tfprotov6.ProviderServerWithActions](mustServer(t)),
		"ProviderServerWithStateStores":  implements[tfprotov6.ProviderServerWithStateStores](mustServer(t)),
	} {
		if !ok {
			t.Errorf("the served server is not a tfprotov6.%s", name)
		}
	}
}

func implements[I any](v any) bool { _, ok := v.(I); return ok }

func sameSignature(a, b reflect.Type) bool {
	if a.NumIn() != b.NumIn() || a.NumOut() != b.NumOut() {
		return false
	}
	for i := 1; i < a.NumIn(); i++ {
		if a.In(i) != b.In(i) {
			return false
		}
	}
	for i := range a.NumOut() {
		if a.Out(i) != b.Out(i) {
			return false
		}
	}
	return true
}

// coreOnly is a protocol server with no optional interface, as a framework without actions or
// list resources would build.
type coreOnly struct{ tfprotov6.ProviderServer }

// TestMissingCapabilityNamesVersion: a build whose framework server lacks actions or list
// resources answers with the provider's version and the RPC, never tf6server's "upgrade the
// provider".
func TestMissingCapabilityNamesVersion(t *testing.T) {
	s := fleetServer{ProviderServer: coreOnly{}, version: "9.9.9"}
	ctx := context.Background()
	action, err := s.ValidateActionConfig(ctx, &tfprotov6.ValidateActionConfigRequest{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.ValidateListResourceConfig(ctx, &tfprotov6.ValidateListResourceConfigRequest{})
	if err != nil {
		t.Fatal(err)
	}
	stream, err := s.InvokeAction(ctx, &tfprotov6.InvokeActionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var invoked []*tfprotov6.Diagnostic
	for ev := range stream.Events {
		if c, ok := ev.Type.(tfprotov6.CompletedInvokeActionEventType); ok {
			invoked = c.Diagnostics
		}
	}
	for rpc, diags := range map[string][]*tfprotov6.Diagnostic{
		"ValidateActionConfig": action.Diagnostics, "ValidateListResourceConfig": list.Diagnostics, "InvokeAction": invoked,
	} {
		if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError {
			t.Fatalf("%s: want one error, got %+v", rpc, diags)
		}
		text := diags[0].Summary + " " + diags[0].Detail
		if !strings.Contains(text, "9.9.9") || !strings.Contains(text, rpc) || strings.Contains(strings.ToLower(text), "upgrade") {
			t.Errorf("%s: %q should name the version and the RPC, and not ask for an upgrade", rpc, text)
		}
	}
}

// TestServersAreBuiltOnce keeps NewServer/Serve the only way to a protocol server of this
// provider: no other file of the module may call the framework's or tf6server's constructors.
// Exempt: the azurerm stand-in moveacc serves (another provider) and the envelope upgrade test's
// one-resource provider.
func TestServersAreBuiltOnce(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	exempt := map[string]bool{
		"internal/provider/server.go":                                   true,
		"internal/provider/server_test.go":                              true,
		"internal/provider/moveacc/azurerm_standin_test.go":             true,
		"internal/provider/placement/resource_envelope_upgrade_test.go": true,
	}
	banned := map[string]map[string]bool{
		"github.com/hashicorp/terraform-plugin-framework/providerserver": {"NewProtocol6": true, "NewProtocol6WithError": true, "Serve": true},
		"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server":   {"Serve": true},
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "tools" || rel == "bin" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || exempt[filepath.ToSlash(rel)] {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		names := map[string]map[string]bool{} // local import name → banned functions
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if fns, ok := banned[p]; ok {
				name := p[strings.LastIndex(p, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = fns
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && names[x.Name][sel.Sel.Name] {
				t.Errorf("%s: %s.%s builds a protocol server of its own; use provider.NewServer or provider.Serve", rel, x.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d Go files: the walk did not reach the module", checked)
	}
}
