package placement_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

const resourcePlacementAddr = "fleet_resource_placement.test"

// resourcePlacementConfig: a ResourcePlacement in namespace ns selecting the ConfigMap web-config,
// PickN by node count as pickNConfig (prod-east-1 50, prod-west-1 38, canary-east 25).
func resourcePlacementConfig(ns string, n int) string {
	return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_resource_placement" "test" {
  namespace          = %q
  name               = "web"
  resource_selector {
    version = "v1"
    kind = "ConfigMap"
    name = "web-config"
  }
`, ns) + pickNByNodeCount(n) + waitForRollout
}

// createConfigMap creates a ConfigMap on the hub, unless it exists.
func createConfigMap(t *testing.T, ns, name string) {
	t.Helper()
	_, err := acctest.HubKube(t).Kubernetes.CoreV1().ConfigMaps(ns).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"color": "blue"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// A ResourcePlacement in a namespace selecting a ConfigMap: PickN with a preview; the hub agent
// schedules what the preview said, with the same scores, and the placement becomes Available;
// scaling out keeps the picks; import by <namespace>/<name>; no ClusterResourcePlacement appears.
func TestAccResourcePlacementPickN(t *testing.T) {
	const ns = "rp-app"
	h := acctest.NewHubClients(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					h.CreateNamespace(t, ns)
					createConfigMap(t, ns, "web-config")
					acctest.MemberNamespace(t, "canary-east", ns)
				},
				Config:           resourcePlacementConfig(ns, 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: pickTwoCreated(resourcePlacementAddr)},
				ConfigStateChecks: []statecheck.StateCheck{
					hubMatchesPreviewAt(resourcePlacementAddr),
					resourcePlacementRolledOut(2),
					statecheck.ExpectKnownValue(resourcePlacementAddr, tfjsonpath.New("id"), knownvalue.StringExact(ns+"/web")),
					statecheck.ExpectKnownValue(resourcePlacementAddr, tfjsonpath.New("status").AtMapKey("selected_resources"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"group": knownvalue.StringExact(""), "version": knownvalue.StringExact("v1"), "kind": knownvalue.StringExact("ConfigMap"),
							"name": knownvalue.StringExact("web-config"), "namespace": knownvalue.StringExact(ns),
						}),
					})),
					statecheck.ExpectKnownValue(resourcePlacementAddr, tfjsonpath.New("latest_resource_snapshot_index"), knownvalue.StringExact("0")),
					statecheck.ExpectKnownValue(resourcePlacementAddr, tfjsonpath.New("resource_snapshots"), knownvalue.ListSizeExact(1)),
					noClusterPlacement{h.Hub, "web"},
				},
			},
			{
				// Scale out: the picks stay, canary-east is added.
				Config: resourcePlacementConfig(ns, 3),
				ConfigPlanChecks: selectedPlan(resourcePlacementAddr, plancheck.ResourceActionUpdate, []knownvalue.Check{
					pick("prod-east-1", 50, "kept"), pick("prod-west-1", 38, "kept"), pick("canary-east", 25, "added"),
				},
					plancheck.ExpectKnownValue(resourcePlacementAddr, tfjsonpath.New("preview").AtMapKey("excluded_count"), knownvalue.Int64Exact(2)),
				),
				ConfigStateChecks: []statecheck.StateCheck{hubMatchesPreviewAt(resourcePlacementAddr), resourcePlacementRolledOut(3)},
			},
			{
				// Nothing changed: the plan is empty.
				Config: resourcePlacementConfig(ns, 3),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
			{
				ResourceName:            resourcePlacementAddr,
				ImportState:             true,
				ImportStateId:           ns + "/web",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"preview", "timeouts", "wait_for_rollout"},
			},
		},
	})
}

// Bad input fails at validate or plan with the attribute's path: a Namespace selector (cluster-
// scoped, refused without the hub), a cluster-scoped ClusterRole and a kind the hub does not serve
// (refused at plan against the hub's API), a namespace that is not a DNS label, a namespace the
// hub lacks (at apply, at the namespace attribute), and an import ID without a namespace.
func TestAccResourcePlacementInvalidInputs(t *testing.T) {
	config := func(ns, selector string) string {
		return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_resource_placement" "bad" {
  namespace          = %q
  name               = "bad"
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    name    = "x"
  }
  resource_selector %s
}
`, ns, selector)
	}
	cases := []struct{ name, ns, selector, want string }{
		{"Namespace kind", "rp-bad", `{
    version = "v1"
    kind    = "Namespace"
    name    = "rp-bad"
  }`,
			`(?s)resource_selector\[1\]\.kind: a ResourcePlacement selects namespaced resources of its own namespace; Namespace is\s+cluster-scoped`},
		{"ClusterRole", "rp-bad", `{
    group   = "rbac.authorization.k8s.io"
    version = "v1"
    kind    = "ClusterRole"
    name    = "admin"
  }`,
			`(?s)resource_selector\[1\]\.kind: ClusterRole \(rbac\.authorization\.k8s\.io/v1\) is cluster-scoped`},
		{"unknown kind", "rp-bad", `{
    version = "v1"
    kind    = "ConfigMapp"
  }`,
			`(?s)resource_selector\[1\]\.kind: the hub serves no kind ConfigMapp in v1`},
		{"bad namespace", "Bad_NS", `{
    version = "v1"
    kind    = "Secret"
    name    = "s"
  }`,
			`(?s)Attribute namespace must be a DNS label`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      config(tc.ns, tc.selector),
					PlanOnly:    true,
					ExpectError: acctest.WrappedRegexp(tc.want),
				}},
			})
		})
	}
	t.Run("namespace missing on the hub", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: config("rp-missing", `{
    version = "v1"
    kind    = "Secret"
    name    = "s"
  }`),
				ExpectError: acctest.WrappedRegexp(`(?s)Namespace not found.*The hub has no namespace "rp-missing"`),
			}},
		})
	})
	t.Run("import ID without namespace", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config: config("rp-bad", `{
    version = "v1"
    kind    = "Secret"
    name    = "s"
  }`),
				ResourceName:  "fleet_resource_placement.bad",
				ImportState:   true,
				ImportStateId: "bad",
				ExpectError:   acctest.WrappedRegexp(`Expected <namespace>/<name> of a ResourcePlacement`),
			}},
		})
	})
}

// resourcePlacementRolledOut checks the ResourcePlacement is Available on n clusters (its own
// condition type, ResourcePlacementAvailable), each running resource snapshot 0, as
// wait_for_rollout promised.
func resourcePlacementRolledOut(n int) statecheck.StateCheck {
	return rolledOutAt(resourcePlacementAddr, n, "ResourcePlacementAvailable", "0")
}

// noClusterPlacement checks the hub has no ClusterResourcePlacement of the name: the resource
// wrote the namespaced kind.
type noClusterPlacement struct {
	hub  *hub.Client
	name string
}

func (c noClusterPlacement) CheckState(ctx context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	there, err := c.hub.PlacementExists(ctx, c.name)
	if err != nil || there {
		resp.Error = fmt.Errorf("a ClusterResourcePlacement %q exists (%t, %v): the ResourcePlacement was written cluster-scoped", c.name, there, err)
	}
}
