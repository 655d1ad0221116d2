package savedplanacc_test

import (
	"fmt"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// An override's preview reads the placement's latest resources, its bindings, the member
// clusters' labels and the hub's other overrides: fleet_facts pins them for the placements it
// names in override_placements. The placement (a namespace on prod-east-1 and prod-west-1, both
// tier=gold) is applied first; the saved plan adds a ClusterResourceOverride labelling the
// namespace with each cluster's tier; prod-west-1 then turns tier=silver before `apply PLANFILE`.

const overridePlacementHCL = `
data "fleet_facts" "at_plan" {
  override_placements = ["%[1]s"]
}

resource "fleet_placement" "web" {
  name               = "%[1]s"
  resource_selector {
    group   = ""
    version = "v1"
    kind    = "Namespace"
    name    = "%[1]s"
  }
  policy {
    placement_type = "PickFixed"
    cluster_names  = ["prod-east-1", "prod-west-1"]
  }
}
`

// tierRule sets, with op at path, each env=prod cluster's tier label (HCL's "$${...}" is
// KubeFleet's "${...}"), in the overrides of both scopes.
func tierRule(op, path string) string {
	return fmt.Sprintf(`rule {
    cluster_selector {
      term {
        labels = { env = "prod" }
      }
    }
    json_patch {
      op    = %q
      path  = %q
      value = jsonencode("$${MEMBER-CLUSTER-LABEL-KEY-tier}")
    }
  }`, op, path)
}

var overrideHCL = `
resource "fleet_cluster_resource_override" "tier" {
  name               = "%[1]s"
  placement {
    name = fleet_placement.web.name
  }
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "%[1]s"
  }
  ` + tierRule("add", "/metadata/labels/tier") + `
  %[2]s
}
`

var overrideConfig = withAdded(overridePlacementHCL, overrideHCL)

const resourcePlacementHCL = `
data "fleet_facts" "at_plan" {
  override_placements = ["%[1]s/%[1]s"]
}

resource "fleet_resource_placement" "web" {
  namespace          = "%[1]s"
  name               = "%[1]s"
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    name    = "settings"
  }
  policy {
    placement_type = "PickFixed"
    cluster_names  = ["prod-east-1", "prod-west-1"]
  }
}
`

var resourceOverrideHCL = `
resource "fleet_resource_override" "tier" {
  namespace          = "%[1]s"
  name               = "%[1]s"
  placement {
    name  = fleet_resource_placement.web.name
    scope = "Namespaced"
  }
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    name    = "settings"
  }
  ` + tierRule("replace", "/data/tier") + `
  %[2]s
}
`

var resourceOverrideConfig = withAdded(resourcePlacementHCL, resourceOverrideHCL)

// TestAccSavedPlanOverride: for a ClusterResourceOverride, without facts Terraform refuses the
// apply (the preview computed again has two groups); with facts, for overrides of both scopes, it
// applies, keeps the reviewed preview (one group of two clusters labelled gold) and warns what moved;
// with nothing moved it warns nothing.
func TestAccSavedPlanOverride(t *testing.T) {
	scopes := []struct {
		name, addr string
		config     func(name string, with, withFacts bool) string
		setup      func(t *testing.T, name string)
		ready      func(t *testing.T, name string)
		all        bool // also without facts and with nothing moved
	}{
		{"cluster", "fleet_cluster_resource_override.tier", overrideConfig,
			func(t *testing.T, name string) { acctest.NewHubClients(t).CreateNamespace(t, name) }, availableBindings, true},
		{"namespaced", "fleet_resource_override.tier", resourceOverrideConfig, namespaceWithSettings,
			func(t *testing.T, name string) { availableBindingsAt(t, hub.PlacementKey{Namespace: name, Name: name}) }, false},
	}
	tierSilver := func(t *testing.T) {
		patchMember(t, "prod-west-1", map[string]any{"labels": map[string]any{"tier": "silver"}}, map[string]any{"labels": map[string]any{"tier": "gold"}})
	}
	for _, sc := range scopes {
		// planned saves the plan that adds the override once both clusters hold what the placement
		// places: one group, both clusters get tier gold.
		planned := func(t *testing.T, name string, withFacts bool) *acctest.Workdir {
			sc.setup(t, name)
			w, plan := planAdded(t, sc.config, sc.ready, name, withFacts)
			acctest.Lines(t, plan, `clusters_count\s+= 2`, `clusters_from\s+= "bindings"`, `value.{1,8}gold`)
			return w
		}
		if sc.all {
			t.Run(sc.name+": without facts the apply is refused", func(t *testing.T) {
				w := planned(t, "saved-ovr-live", false)
				tierSilver(t)
				applyRefused(t, w, `preview`)
			})
		}
		t.Run(sc.name+": with facts the reviewed plan applies and says what moved", func(t *testing.T) {
			w := planned(t, "saved-ovr-"+sc.name, true)
			tierSilver(t)
			moved, out := applyMoved(t, w, sc.addr)
			acctest.Lines(t, moved.Detail,
				`member cluster prod-west-1: labels tier: gold → silver`,
				`Computed now, the preview would differ`,
				`preview\.resources\[0\]\.groups`)
			acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
			acctest.Lines(t, w.Must("show"), `value.{1,8}gold`, `groups_count\s+= 1`) // the reviewed preview
		})
		if sc.all {
			t.Run(sc.name+": with facts and nothing moved no warning", func(t *testing.T) {
				w := planned(t, "saved-ovr-still", true)
				acctest.Lines(t, applyUnwarned(t, w), `Apply complete! Resources: 1 added`)
			})
		}
	}
}
