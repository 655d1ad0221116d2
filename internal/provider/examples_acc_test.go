package provider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// TestAccRegistryExamplesValidate: every ```terraform block on a registry page (docs/, as make docs
// renders it from examples/ and templates/) is a complete configuration that `terraform validate`
// accepts, copied as it stands, with the provider served from this binary (validate configures no
// provider, so no fleet is read). A block without a terraform block gets the fleet provider's
// required_providers, as a user's versions.tf would; the index example must carry its own. An import
// block is validated beside the page's Example Usage, whose resource it imports into. Blocks that
// need another provider (the kubernetes provider configured from fleet_hub_credentials) cannot be
// installed here: each is named in otherProviders and only parsed (`terraform fmt -check`), and any
// other block naming a provider's resource that is not fleet's fails.
func TestAccRegistryExamplesValidate(t *testing.T) {
	acctest.Current(t)
	// page → blocks on it that configure another provider's resources.
	otherProviders := map[string]int{
		"ephemeral-resources/hub_credentials.md":               1,
		"ephemeral-resources/member_credentials.md":            1,
		"ephemeral-resources/managed_namespace_credentials.md": 1,
		"guides/getting-started.md":                            1,
		"guides/moving-from-azurerm.md":                        3, // moves from azurerm's resources
	}
	fence := regexp.MustCompile("(?ms)^( *)```terraform\n(.*?)^ *```")
	foreign := regexp.MustCompile(`(?m)^\s*(resource|data|ephemeral|provider)\s+"(kubernetes|helm|azurerm|azapi)|\bazurerm_[a-z_]+\.|source\s*=\s*"hashicorp/(kubernetes|helm|azurerm)"`)
	blocks, validated := 0, 0
	seenOther := map[string]int{}
	err := filepath.WalkDir("../../docs", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../../docs", p)
		first := ""
		for i, m := range fence.FindAllStringSubmatch(string(data), -1) {
			blocks++
			hcl := dedent(m[2], len(m[1]))
			if i == 0 {
				first = hcl
			} else if strings.Contains(hcl, "import {") && !strings.Contains(hcl, "resource \"") {
				// A resource page's import block imports into the resource its Example Usage declares,
				// which a user's configuration has beside it.
				hcl = first + "\n" + hcl
			}
			name := fmt.Sprintf("%s#%d", rel, i+1)
			if rel == "index.md" && strings.Contains(hcl, "resource \"") && !strings.Contains(hcl, "required_providers") {
				t.Errorf("%s: the index's example has no required_providers: copied as it stands, terraform init looks for hashicorp/fleet", name)
			}
			w := acctest.NewWorkdir(t, "")
			file, args := "main.tf", []string{"validate"}
			if regexp.MustCompile(`(?m)^list "`).MatchString(hcl) {
				// list blocks live in .tfquery.hcl files (terraform query); validate reads them with -query.
				write(t, w.Dir, "main.tf", "")
				file, args = "main.tfquery.hcl", []string{"validate", "-query"}
			}
			write(t, w.Dir, file, hcl)
			if foreign.MatchString(hcl) {
				seenOther[rel]++
				if out, err := w.Run("fmt", "-check", "-diff"); err != nil {
					t.Errorf("%s: not formatted or not HCL: %v\n%s\n%s", name, err, out, hcl)
				}
				continue
			}
			if !strings.Contains(hcl, "required_providers") {
				write(t, w.Dir, "versions.tf", "terraform {\n  required_providers {\n    fleet = { source = \"fleetops/fleet\" }\n  }\n}\n")
			}
			validated++
			if out, err := w.Run(args...); err != nil {
				t.Errorf("%s: terraform validate: %v\n%s\n--- the example:\n%s", name, err, out, hcl)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for page, n := range otherProviders {
		if seenOther[page] != n {
			t.Errorf("%s: %d blocks configure another provider, want %d (otherProviders)", page, seenOther[page], n)
		}
	}
	for page, n := range seenOther {
		if _, ok := otherProviders[page]; !ok {
			t.Errorf("%s: %d blocks configure another provider, which this test cannot validate: show the fleet provider's part, or list the page in otherProviders", page, n)
		}
	}
	if validated < 50 {
		t.Errorf("only %d of %d blocks validated: run make docs", validated, blocks)
	}
	t.Logf("%d terraform blocks on registry pages, %d validated, %d only parsed (another provider)", blocks, validated, blocks-validated)
}

// dedent removes the indentation of a fence nested in a list item.
func dedent(s string, n int) string {
	if n == 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, strings.Repeat(" ", n))
	}
	return strings.Join(lines, "\n")
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
