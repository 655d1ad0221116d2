package placement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

const ovrNS = "override-web"

// overrideConfig places namespace ovrNS (with ConfigMap settings) on canary-east, prod-east-1 and
// prod-east-2, with a ClusterResourceOverride of the namespace labelling it with labelValue (HCL:
// "$${...}" is KubeFleet's "${...}") on the env=prod members, and a ResourceOverride of the
// ConfigMap: replicas on tier=gold members, deleted from env=canary members.
func overrideConfig(labelValue, replicas string) string {
	return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_placement" "ovr" {
  name               = "override-web"
  resource_selector {
    group = ""
    version = "v1"
    kind = "Namespace"
    name = %[1]q
  }
  policy {
    placement_type = "PickFixed"
    cluster_names = ["canary-east", "prod-east-1", "prod-east-2"]
  }
  # An override changes what the bound clusters get: roll it to all three at once.
  strategy {
    type = "RollingUpdate"
    max_unavailable = "3"
    unavailable_period_seconds = 1
  }
}

resource "fleet_cluster_resource_override" "ns" {
  name               = "override-web-ns"
  placement {
    name = fleet_placement.ovr.name
  }
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = %[1]q
  }
  rule {
    cluster_selector {
      term {
        labels = { env = "prod" }
      }
    }
    json_patch {
      op = "add"
      path = "/metadata/labels/served-by"
      value = jsonencode(%[2]q)
    }
  }
}

resource "fleet_resource_override" "settings" {
  namespace          = %[1]q
  name               = "settings"
  placement {
    name = fleet_placement.ovr.name
  }
  resource_selector {
    version = "v1"
    kind = "ConfigMap"
    name = "settings"
  }
  rule {
    cluster_selector {
      term {
        labels = { tier = "gold" }
      }
    }
    json_patch {
      op = "replace"
      path = "/data/replicas"
      value = jsonencode(%[3]q)
    }
  }
  rule {
    cluster_selector {
      term {
        expression {
          key = "env"
          operator = "In"
          values = ["canary"]
        }
      }
    }
    type             = "Delete"
  }
}
`, ovrNS, labelValue, replicas)
}

// TestAccOverride: a placement with a ClusterResourceOverride and a ResourceOverride planned
// together (previews unknown: the placement is not on the hub yet), then changed (previews grouped
// per distinct result, as the hub agent then writes the Works), imported, and bad input refused at
// validate or plan with its attribute path.
func TestAccOverride(t *testing.T) {
	h := acctest.NewHubClients(t)
	h.CreateNamespace(t, ovrNS)
	// With labels: KubeFleet applies a ClusterResourceOverride of a namespace to everything in it, and
	// an add under /metadata/labels fails on an object without labels (the preview says so).
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ovrNS, Name: "settings", Labels: map[string]string{"app": "web"}},
		Data: map[string]string{"replicas": "1"}}
	if _, err := h.Hub.Kubernetes().CoreV1().ConfigMaps(ovrNS).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// A fresh path each time: extending one shared path would alias its steps.
	res0 := func(steps ...any) tfjsonpath.Path {
		return acctest.Path("preview", append([]any{"resources", 0}, steps...)...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: overrideConfig("$${MEMBER-CLUSTER-NAME}", "2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue("fleet_cluster_resource_override.ns", acctest.Path("preview")),
				}},
				Check: workHas(h, "override-web", "prod-east-1", `"served-by":"prod-east-1"`),
			},
			{
				// Now the placement is on the hub: the previews are known and grouped.
				Config: overrideConfig("region-$${MEMBER-CLUSTER-LABEL-KEY-env}", "3"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("fleet_cluster_resource_override.ns", acctest.Path("preview", "clusters_from"), knownvalue.StringExact("bindings")),
					statecheck.ExpectKnownValue("fleet_cluster_resource_override.ns", acctest.Path("preview", "snapshot"), knownvalue.StringExact("override-web-ns-1")),
					statecheck.ExpectKnownValue("fleet_cluster_resource_override.ns", res0("resource"), knownvalue.StringExact(`Namespace "override-web"`)),
					statecheck.ExpectKnownValue("fleet_cluster_resource_override.ns", res0("groups_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("fleet_cluster_resource_override.ns", res0("groups", 0, "clusters"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("prod-east-1"), knownvalue.StringExact("prod-east-2")})),
					statecheck.ExpectKnownValue("fleet_cluster_resource_override.ns", res0("groups", 0, "patch"),
						knownvalue.StringExact(`[{"op":"add","path":"/metadata/labels/served-by","value":"region-prod"}]`)),
					statecheck.ExpectKnownValue("fleet_cluster_resource_override.ns", res0("groups", 1, "outcome"), knownvalue.StringExact("unchanged")),
					statecheck.ExpectKnownValue("fleet_cluster_resource_override.ns", acctest.Path("preview", "resources_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue("fleet_cluster_resource_override.ns", acctest.Path("preview", "failed_clusters_count"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue("fleet_resource_override.settings", res0("groups_count"), knownvalue.Int64Exact(3)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("fleet_resource_override.settings", "preview.resources.0.resource", `ConfigMap "settings" in namespace "override-web"`),
					groupOf("fleet_resource_override.settings", "canary-east", "deleted"),
					groupOf("fleet_resource_override.settings", "prod-east-1", "patched"),
					// The namespace's ClusterResourceOverride labels the ConfigMap on env=prod members too.
					groupOf("fleet_resource_override.settings", "prod-east-2", "patched"),
					resource.TestCheckResourceAttr("fleet_resource_override.settings", "preview.resources.0.override_snapshots.#", "2"),
					resource.TestCheckResourceAttr("fleet_resource_override.settings", "preview.resources.0.override_snapshots.1", "settings-1"),
					workHas(h, "override-web", "prod-east-2", `"served-by":"region-prod"`),
					workHas(h, "override-web", "prod-east-1", `"replicas":"3"`),
				),
			},
			{
				// The placement's own preview says which override snapshots each pick's binding gets.
				Config: reordered(overrideConfig("region-$${MEMBER-CLUSTER-LABEL-KEY-env}", "3")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("fleet_placement.ovr", acctest.Path("preview", "override_snapshots"), knownvalue.MapExact(map[string]knownvalue.Check{
						"canary-east": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("override-web/settings-1")}),
						"prod-east-1": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("override-web-ns-1"), knownvalue.StringExact("override-web/settings-1")}),
						"prod-east-2": knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("override-web-ns-1")}),
					})),
				},
			},
			{
				ResourceName: "fleet_resource_override.settings", ImportState: true, ImportStateId: ovrNS + "/settings",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"preview"},
			},
			{
				Config: overrideConfig("x", "3") + badOverride(`json_patch {
  op = "add"
  path = "/status/phase"
  value = jsonencode("x")
}`),
				ExpectError: regexp.MustCompile(`(?s)rule\[0\]\.json_patch\[0\]: KubeFleet v0.18.9's validating webhook: invalid\s+JSONPatchOverride.*cannot\s+override\s+status\s+fields`),
			},
			{
				Config: overrideConfig("x", "3") + badOverride(`json_patch {
  op = "add"
  path = "/metadata/labels/x"
  value = "not json"
}`),
				ExpectError: regexp.MustCompile(`(?s)rule\[0\]\.json_patch\[0\]\.value:\s+the\s+value\s+must\s+be\s+JSON`),
			},
			{
				Config: overrideConfig("x", "3") + badOverride(`cluster_selector {
  term {
    labels = { env = "prod" }
    property {
      name = "kubernetes-fleet.io/node-count"
      operator = "Gt"
      values = ["3"]
    }
  }
}
    json_patch {
      op = "add"
      path = "/metadata/labels/x"
      value = jsonencode("y")
    }`),
				ExpectError: regexp.MustCompile(`(?s)rule\[0\]: KubeFleet.*only\s+labelSelector\s+is\s+supported`),
			},
			{
				Config: overrideConfig("x", "3") + strings.Replace(badOverride(`json_patch {
  op = "add"
  path = "/metadata/labels/x"
  value = jsonencode("y")
}`), `"override-web"`, `"no-such-placement"`, 1),
				ExpectError: regexp.MustCompile(`(?s)Placement not found.*placement\.name: the hub has no ClusterResourcePlacement no-such-placement`),
			},
			{
				// Nothing of the refused configurations was written: the applied one plans empty.
				Config:   reordered(overrideConfig("region-$${MEMBER-CLUSTER-LABEL-KEY-env}", "3")),
				PlanOnly: true,
			},
		},
	})
}

// reordered lists the placement's clusters in another order: a configuration change that replans
// the placement's preview and places the same clusters.
func reordered(config string) string {
	return strings.Replace(config, `["canary-east", "prod-east-1", "prod-east-2"]`, `["prod-east-1", "prod-east-2", "canary-east"]`, 1)
}

// badOverride is a second ClusterResourceOverride of the placement with one rule, of body.
func badOverride(body string) string {
	return fmt.Sprintf(`
resource "fleet_cluster_resource_override" "bad" {
  name               = "override-bad"
  placement {
    name = "override-web"
  }
  resource_selector {
    group = "rbac.authorization.k8s.io"
    version = "v1"
    kind = "ClusterRole"
    name = "nothing"
  }
  rule {
    %s
  }
}
`, body)
}

// groupOf checks that cluster is in the group of outcome of the override's first resource.
func groupOf(address, cluster, outcome string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs := s.RootModule().Resources[address]
		if rs == nil {
			return fmt.Errorf("%s not in state", address)
		}
		a := rs.Primary.Attributes
		for g := 0; a[fmt.Sprintf("preview.resources.0.groups.%d.outcome", g)] != ""; g++ {
			for c := 0; a[fmt.Sprintf("preview.resources.0.groups.%d.clusters.%d", g, c)] != ""; c++ {
				if a[fmt.Sprintf("preview.resources.0.groups.%d.clusters.%d", g, c)] == cluster {
					if got := a[fmt.Sprintf("preview.resources.0.groups.%d.outcome", g)]; got != outcome {
						return fmt.Errorf("%s: %s is %s, want %s", address, cluster, got, outcome)
					}
					return nil
				}
			}
		}
		return fmt.Errorf("%s: %s is in no group", address, cluster)
	}
}

// workHas waits until the hub agent's Work of placement for member holds text.
func workHas(h *acctest.HubClients, placement, member, text string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var last string
		err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			works, err := h.Hub.PlacementWorks(ctx, member, placement)
			if err != nil {
				return false, err
			}
			b, _ := json.Marshal(works)
			last = fmt.Sprintf("%d Works", len(works))
			return strings.Contains(string(b), text), nil
		})
		if err != nil {
			// Say what the hub agent did instead: the bindings' overrides and conditions.
			bs, _ := h.Hub.Bindings(context.Background(), placement)
			var why []string
			for _, b := range bs {
				var conds []string
				for _, c := range b.Status.Conditions {
					conds = append(conds, fmt.Sprintf("%s=%s %s", c.Type, c.Status, c.Message))
				}
				why = append(why, fmt.Sprintf("%s %s CROs %v ROs %v [%s]", b.Spec.TargetCluster, b.Spec.State, b.Spec.ClusterResourceOverrideSnapshots,
					b.Spec.ResourceOverrideSnapshots, strings.Join(conds, "; ")))
			}
			return fmt.Errorf("the Work of %s for %s never held %s (%s; bindings: %s): %w", placement, member, text, last, strings.Join(why, " | "), err)
		}
		return nil
	}
}
