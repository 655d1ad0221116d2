package releaseacc

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReleaseCoversTheReadme: every resource, data source, action and list resource the README's
// feature list names is in the release smoke test's configurations, so a feature added to the README
// is smoke-tested on the shipped binary the day it is announced.
func TestReleaseCoversTheReadme(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	start := strings.Index(readme, "\n- `fleet_")
	end := strings.Index(readme, "\nEvery preview is computed")
	if start < 0 || end < start {
		t.Fatal("README.md: the feature list (bullets from \"- `fleet_\" to \"Every preview is computed\") not found")
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`(fleet_[a-z_]+)`").FindAllStringSubmatch(readme[start:end], -1) {
		named[m[1]] = true
	}
	if len(named) < 15 {
		t.Fatalf("the feature list names %d types: the parse is wrong", len(named))
	}
	configs := savedPlanConfig + joinConfig + taintConfig + adoptQuery
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(?:resource|data|action|list|ephemeral) "(fleet_[a-z_]+)"`).FindAllStringSubmatch(configs, -1) {
		declared[m[1]] = true
	}
	for name := range named {
		if !declared[name] {
			t.Errorf("the README's feature list names %s, which the release smoke test does not use", name)
		}
	}
	t.Logf("%d types named in the README's feature list, all in the release smoke test", len(named))
}
