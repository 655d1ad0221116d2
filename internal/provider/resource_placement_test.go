package provider

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	clusterv1beta1 "go.goms.io/fleet/apis/cluster/v1beta1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub/hubtest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
)

// The acceptance tests run against the local fleet of internal/provider/testdata/fleet.yaml, whose
// hub runs KubeFleet's real hub agent: node counts canary-east 3, prod-east-1 5, prod-east-2 2
// (tainted dedicated=gpu:NoSchedule), prod-west-1 4, staging-west 1 (no heartbeat, ineligible).

const (
	placementProvider = "provider \"fleet\" {}\n"
	// placementAddr is the placement every acceptance configuration here names.
	placementAddr = "fleet_placement.test"
)

// pickNConfig: PickN by node count, the largest first (weight 50, interpolated between the fleet's
// minimum 1 and maximum 5: prod-east-1 50, prod-west-1 38, canary-east 25).
func pickNConfig(name, namespace string, n int) string {
	return placementProvider + fmt.Sprintf(`
resource "fleet_placement" "test" {
  name               = %q
  resource_selectors = [{ version = "v1", kind = "Namespace", name = %q }]
  policy = {
    placement_type     = "PickN"
    number_of_clusters = %d
    preferred_cluster_selectors = [{
      weight          = 50
      property_sorter = { name = "kubernetes-fleet.io/node-count", sort_order = "Descending" }
    }]
  }
  wait_for_rollout = true
}
`, name, namespace, n)
}

func pick(cluster string, affinity int64, change string) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"cluster": knownvalue.StringExact(cluster), "affinity_score": knownvalue.Int64Exact(affinity),
		"topology_spread_score": knownvalue.Int64Exact(0), "change": knownvalue.StringExact(change),
	})
}

// excluded is the expected `excluded` map: cluster → a regexp of its reason.
func excluded(reasons map[string]string) knownvalue.Check {
	m := make(map[string]knownvalue.Check, len(reasons))
	for c, r := range reasons {
		m[c] = knownvalue.StringRegexp(regexp.MustCompile(r))
	}
	return knownvalue.MapExact(m)
}

// counts is an expected count map such as excluded_by_reason.
func counts(kv map[string]int64) knownvalue.Check {
	m := make(map[string]knownvalue.Check, len(kv))
	for k, n := range kv {
		m[k] = knownvalue.Int64Exact(n)
	}
	return knownvalue.MapExact(m)
}

// previewExact is a whole placement preview that lists every cluster (nothing trimmed or omitted).
func previewExact(fulfilled bool, message string, selected []knownvalue.Check, excludedReasons map[string]string, byReason map[string]int64) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"fulfilled": knownvalue.Bool(fulfilled), "message": knownvalue.StringExact(message),
		"selected_count": knownvalue.Int64Exact(int64(len(selected))), "selected": knownvalue.ListExact(selected), "selected_omitted": knownvalue.Int64Exact(0),
		"trimmed_count": knownvalue.Int64Exact(0), "trimmed": knownvalue.ListExact([]knownvalue.Check{}), "trimmed_omitted": knownvalue.Int64Exact(0),
		"excluded_count": knownvalue.Int64Exact(int64(len(excludedReasons))), "excluded_by_reason": counts(byReason),
		"excluded": excluded(excludedReasons), "excluded_omitted": knownvalue.Int64Exact(0),
	})
}

const (
	taintReason     = `^ClusterUnschedulable, taint &\{Key:dedicated Value:gpu Effect:NoSchedule\} cannot be tolerated$`
	heartbeatReason = `^ClusterUnschedulable, cluster is not connected to the fleet: no recent heartbeat signals \(last received at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$`
)

// A PickN placement: the plan's preview names the clusters, scores and reasons; the hub agent then
// places exactly there (status), a scale-out keeps the picks and adds one, the placement imports
// by name, and one deleted behind Terraform's back is planned again.
func TestAccPlacementPickN(t *testing.T) {
	const addr = "fleet_placement.test"
	h := hubClients(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { h.createNamespace(t, "pickn-web") },
				Config:    pickNConfig("pickn-web", "pickn-web", 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview"), previewExact(true,
						"found all cluster needed as specified by the scheduling policy, found 2 cluster(s)",
						[]knownvalue.Check{pick("prod-east-1", 50, "added"), pick("prod-west-1", 38, "added")},
						map[string]string{
							"canary-east":  `^Cluster "canary-east" does not score high enough \(affinity score: 25, topology spread score: 0\)$`,
							"prod-east-2":  taintReason,
							"staging-west": heartbeatReason,
						},
						map[string]int64{"not scored high enough": 1, "taint not tolerated": 1, "no recent heartbeat": 1},
					)),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("status")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					hubMatchesPreview(),
					rolledOut(2),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("selected_resources"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"kind": knownvalue.StringExact("Namespace"), "name": knownvalue.StringExact("pickn-web")}),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("pickn-web")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("strategy"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"type": knownvalue.StringExact("RollingUpdate"), "max_unavailable": knownvalue.StringExact("25%"),
						"max_surge": knownvalue.StringExact("25%"), "unavailable_period_seconds": knownvalue.Int64Exact(60),
					})),
				},
			},
			{
				// Scale out: numberOfClusters is not part of the policy snapshot, so the picks stay.
				Config: pickNConfig("pickn-web", "pickn-web", 3),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("selected"), knownvalue.ListExact([]knownvalue.Check{
						pick("prod-east-1", 50, "kept"), pick("prod-west-1", 38, "kept"), pick("canary-east", 25, "added"),
					})),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("trimmed"), knownvalue.ListExact([]knownvalue.Check{})),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("excluded"), excluded(map[string]string{
						"prod-east-2": taintReason, "staging-west": heartbeatReason,
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{hubMatchesPreview(), rolledOut(3)},
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "pickn-web",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"preview", "timeouts", "wait_for_rollout"},
			},
			{
				// Scaled in behind Terraform's back: refresh sees it, the plan scales out again,
				// keeping the one cluster the hub agent kept (by its recorded score).
				PreConfig: func() {
					h.scalePlacement(t, "pickn-web", 1)
					waitForPlacementScheduled(t, "pickn-web", 1)
				},
				Config: pickNConfig("pickn-web", "pickn-web", 3),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("selected"), knownvalue.ListExact([]knownvalue.Check{
						pick("prod-east-1", 50, "kept"), pick("prod-west-1", 38, "added"), pick("canary-east", 25, "added"),
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{hubMatchesPreview(), rolledOut(3)},
			},
			{
				// Deleted on the hub behind Terraform's back: refresh drops it, the plan creates it again.
				PreConfig: func() { h.deletePlacement(t, "pickn-web") },
				Config:    pickNConfig("pickn-web", "pickn-web", 3),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("selected"), knownvalue.ListExact([]knownvalue.Check{
						pick("prod-east-1", 50, "added"), pick("prod-west-1", 38, "added"), pick("canary-east", 25, "added"),
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{hubMatchesPreview(), rolledOut(3)},
			},
		},
	})
}

// A PickAll placement leaves out the tainted and the unhealthy member with the scheduler's
// reasons; a toleration makes the tainted one eligible (a policy change: a new snapshot, earlier
// picks kept); an import block adopts the placement with no change.
func TestAccPlacementPickAllAndTolerations(t *testing.T) {
	const addr = "fleet_placement.test"
	config := func(tolerate bool) string {
		tolerations := ""
		if tolerate {
			tolerations = `tolerations = [{ key = "dedicated", value = "gpu", effect = "NoSchedule" }]`
		}
		return placementProvider + fmt.Sprintf(`
resource "fleet_placement" "test" {
  name               = "pickall-web"
  resource_selectors = [{ version = "v1", kind = "Namespace", name = "pickall-web" }]
  policy             = { %s }
}
`, tolerations)
	}
	hubClients(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(false),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview"), previewExact(true,
						"found all cluster needed as specified by the scheduling policy, found 3 cluster(s)",
						[]knownvalue.Check{pick("canary-east", 0, "added"), pick("prod-east-1", 0, "added"), pick("prod-west-1", 0, "added")},
						map[string]string{"prod-east-2": taintReason, "staging-west": heartbeatReason},
						map[string]int64{"taint not tolerated": 1, "no recent heartbeat": 1},
					)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("policy").AtMapKey("placement_type"), knownvalue.StringExact("PickAll")),
				},
			},
			{
				// Without wait_for_rollout the hub agent schedules after the apply: once it has, the
				// refreshed status shows its decisions (and the unchanged configuration plans empty).
				PreConfig:         func() { waitForPlacementScheduled(t, "pickall-web", 3) },
				Config:            config(false),
				ConfigStateChecks: []statecheck.StateCheck{hubMatchesPreview()},
			},
			{
				Config: config(true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("selected"), knownvalue.ListExact([]knownvalue.Check{
						pick("canary-east", 0, "kept"), pick("prod-east-1", 0, "kept"), pick("prod-east-2", 0, "added"), pick("prod-west-1", 0, "kept"),
					})),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("excluded"), excluded(map[string]string{
						"staging-west": heartbeatReason,
					})),
				}},
			},
			{
				PreConfig:         func() { waitForPlacementScheduled(t, "pickall-web", 4) },
				Config:            config(true),
				ConfigStateChecks: []statecheck.StateCheck{hubMatchesPreview()},
			},
			{
				Config:          config(true),
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "pickall-web",
			},
		},
	})
}

// An input unknown at plan leaves the preview unknown (with a warning) and skips the checks that
// need it; the apply computes the preview once the value is known.
func TestAccPlacementUnknownInput(t *testing.T) {
	const addr = "fleet_placement.test"
	hubClients(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: placementProvider + `
resource "terraform_data" "count" {
  input = 1
}

resource "fleet_placement" "test" {
  name               = "unknown-input"
  resource_selectors = [{ version = "v1", kind = "Namespace", name = "unknown-input" }]
  policy = {
    placement_type     = "PickN"
    number_of_clusters = terraform_data.count.output
    preferred_cluster_selectors = [{
      weight          = 50
      property_sorter = { name = "kubernetes-fleet.io/node-count", sort_order = "Descending" }
    }]
  }
  wait_for_rollout = true
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(addr, tfjsonpath.New("preview")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("selected"), knownvalue.ListExact([]knownvalue.Check{
					pick("prod-east-1", 50, "added"),
				})),
				hubMatchesPreview(),
			},
		}},
	})
}

// The External strategy: no RollingUpdate settings (KubeFleet rejects them), stored and read back
// without a diff; waiting for a rollout that only an update run starts is refused. Refresh shows
// the resource snapshots the hub agent cuts (index 0 at creation, 1 once a second namespace is
// selected) and that no cluster runs one before an update run rolls it out, and an unchanged
// configuration plans empty whatever refresh found.
func TestAccPlacementExternalStrategy(t *testing.T) {
	const addr = "fleet_placement.test"
	h := hubClients(t)
	config := func(extra string, namespaces ...string) string {
		selectors := make([]string, 0, len(namespaces))
		for _, ns := range namespaces {
			selectors = append(selectors, fmt.Sprintf(`{ version = "v1", kind = "Namespace", name = %q }`, ns))
		}
		return placementProvider + `
resource "fleet_placement" "test" {
  name               = "external"
  resource_selectors = [` + strings.Join(selectors, ", ") + `]
  strategy           = { type = "External" }
  ` + extra + `
}
`
	}
	snapshots := func(indices ...string) knownvalue.Check {
		checks := make([]knownvalue.Check, 0, len(indices))
		for _, i := range indices {
			checks = append(checks, knownvalue.ObjectExact(map[string]knownvalue.Check{
				"index": knownvalue.StringExact(i), "created_at": knownvalue.StringRegexp(regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)),
			}))
		}
		return knownvalue.ListExact(checks)
	}
	refreshed := func(latest string, indices ...string) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("latest_resource_snapshot_index"), knownvalue.StringExact(latest)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("resource_snapshots"), snapshots(indices...)),
			clusterSnapshotIndices{addr: addr, want: map[string]*string{"canary-east": nil, "prod-east-1": nil, "prod-west-1": nil}},
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config("wait_for_rollout = true", "external"),
				ExpectError: wrapped(`wait_for_rollout needs strategy.type RollingUpdate`),
			},
			{
				PreConfig: func() { h.createNamespace(t, "external") },
				Config:    config("", "external"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("strategy"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"type": knownvalue.StringExact("External"), "max_unavailable": knownvalue.Null(),
						"max_surge": knownvalue.Null(), "unavailable_period_seconds": knownvalue.Null(),
					})),
				},
			},
			{
				// Once the hub agent has cut snapshot 0 and scheduled the clusters, refresh shows
				// them; nothing is planned.
				PreConfig: func() {
					h.waitForResourceIndex(t, "external", "0")
					waitForPlacementScheduled(t, "external", 3)
				},
				Config: config("", "external"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: refreshed("0", "0"),
			},
			{
				// A second namespace changes the selected resources: the hub agent cuts snapshot 1.
				PreConfig: func() { h.createNamespace(t, "external-b") },
				Config:    config("", "external", "external-b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("latest_resource_snapshot_index")),
				}},
			},
			{
				PreConfig: func() { h.waitForResourceIndex(t, "external", "1") },
				Config:    config("", "external", "external-b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: refreshed("1", "0", "1"),
			},
		},
	})
}

// clusterSnapshotIndices checks status.placement_statuses: exactly the clusters in want, each with
// its resource_snapshot_index (nil: null).
type clusterSnapshotIndices struct {
	addr string
	want map[string]*string
}

func (c clusterSnapshotIndices) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	values, err := resourceValues(req, c.addr)
	if err != nil {
		resp.Error = err
		return
	}
	got := map[string]string{}
	for _, ps := range asList(asMap(values["status"])["placement_statuses"]) {
		m := asMap(ps)
		got[fmt.Sprint(m["cluster"])] = fmt.Sprint(m["resource_snapshot_index"])
	}
	want := map[string]string{}
	for k, v := range c.want {
		want[k] = fmt.Sprint(v)
		if v != nil {
			want[k] = *v
		}
	}
	if fmt.Sprint(sortedPairs(got)) != fmt.Sprint(sortedPairs(want)) {
		resp.Error = fmt.Errorf("%s: per-cluster resource snapshot indices %v, want %v", c.addr, sortedPairs(got), sortedPairs(want))
	}
}

// KubeFleet's rules fail at validate or plan, each error naming its attribute; so do the
// changes KubeFleet refuses (placement type, removed tolerations), before anything changes.
func TestAccPlacementInvalidInputs(t *testing.T) {
	policy := func(body string) string {
		return placementProvider + fmt.Sprintf(`
resource "fleet_placement" "bad" {
  name               = "bad"
  resource_selectors = [{ version = "v1", kind = "Namespace", name = "bad" }]
  policy = {
%s
  }
}
`, body)
	}
	cases := []struct {
		name, body, want string
	}{
		{"weight above 100", `placement_type = "PickN"
    number_of_clusters = 1
    preferred_cluster_selectors = [{ weight = 101, labels = { env = "prod" } }]`,
			`policy\.preferred_cluster_selectors\[0\]\.weight: Invalid value: 101: should be less than or equal to 100`},
		{"two values for Eq", `required_cluster_selectors = [{ property_expressions = [{ name = "kubernetes-fleet.io/node-count", operator = "Eq", values = ["3", "4"] }] }]`,
			`policy\.required_cluster_selectors\[0\]\.property_expressions\[0\]\.values`},
		{"PickFixed with number_of_clusters", `placement_type = "PickFixed"
    cluster_names = ["canary-east"]
    number_of_clusters = 1`,
			`policy\.number_of_clusters: number of clusters must be nil for policy type PickFixed`},
		{"bad quantity", `required_cluster_selectors = [{ property_expressions = [{ name = "kubernetes-fleet.io/node-count", operator = "Gt", values = ["12x"] }] }]`,
			`policy\.required_cluster_selectors\[0\]\.property_expressions\[0\]\.values: invalid values for property kubernetes-fleet.io/node-count: value 12x is not a valid resource.Quantity`},
		{"bad property name", `placement_type = "PickN"
    number_of_clusters = 1
    preferred_cluster_selectors = [{ weight = 10, property_sorter = { name = "resources.kubernetes-fleet.io/spare-cpu", sort_order = "Descending" } }]`,
			`policy\.preferred_cluster_selectors\[0\]\.property_sorter\.name: invalid capacity type`},
		{"unknown operator", `required_cluster_selectors = [{ property_expressions = [{ name = "kubernetes-fleet.io/node-count", operator = "Gte", values = ["3"] }] }]`,
			`policy\.required_cluster_selectors\[0\]\.property_expressions\[0\]\.operator`},
	}
	// Checked at plan against the hub: v0.14.0's API has no selectionScope.
	cases = append(cases, struct{ name, body, want string }{"selection scope the hub lacks", "", `resource_selectors\[0\]\.selection_scope: the hub's ClusterResourcePlacement API has no resourceSelectors\[\]\.selectionScope`})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			config := policy(tc.body)
			if tc.body == "" {
				config = placementProvider + `
resource "fleet_placement" "bad" {
  name               = "bad"
  resource_selectors = [{ version = "v1", kind = "Namespace", name = "bad", selection_scope = "NamespaceOnly" }]
}
`
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      config,
					PlanOnly:    true,
					ExpectError: wrapped(tc.want),
				}},
			})
		})
	}

	t.Run("immutable fields", func(t *testing.T) {
		const addr = "fleet_placement.bad"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			Steps: []resource.TestStep{
				{Config: policy(`tolerations = [{ key = "dedicated", value = "gpu" }]`)},
				{
					Config: policy(`placement_type = "PickN"
    number_of_clusters = 1
    tolerations = [{ key = "dedicated", value = "gpu" }]`),
					ExpectError: wrapped(`policy\.placement_type: the placement type is immutable \(PickAll → PickN\)`),
				},
				{
					Config:      policy(`tolerations = [{ key = "dedicated", operator = "Exists" }]`),
					ExpectError: wrapped(`(?s)policy\.tolerations: tolerations have been updated/deleted.*key="dedicated" operator=Equal value="gpu"`),
				},
				{
					// Appending is fine.
					Config: policy(`tolerations = [{ key = "dedicated", value = "gpu" }, { key = "spot", operator = "Exists" }]`),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					}},
				},
			},
		})
	})
}

// ---- checks ----

// wrapped matches a pattern in Terraform's diagnostics, which wrap long lines: every space in
// the pattern matches any run of white space.
func wrapped(pattern string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(strings.ReplaceAll(pattern, `\s+`, " "), " ", `\s+`))
}

var scoresRe = regexp.MustCompile(`\(affinity score: (-?\d+), topology spread score: (-?\d+)\)`)

// hubMatchesPreview checks that the clusters the hub agent scheduled (status, Scheduled=True), with
// the scores it recorded, are those the planned preview selected.
func hubMatchesPreview() statecheck.StateCheck { return hubMatchesPreviewCheck{placementAddr} }

type hubMatchesPreviewCheck struct{ addr string }

func (c hubMatchesPreviewCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	values, err := resourceValues(req, c.addr)
	if err != nil {
		resp.Error = err
		return
	}
	want := map[string]string{}
	for _, s := range asList(asMap(values["preview"])["selected"]) {
		m := asMap(s)
		want[fmt.Sprint(m["cluster"])] = fmt.Sprintf("%v/%v", m["affinity_score"], m["topology_spread_score"])
	}
	got := map[string]string{}
	for _, ps := range asList(asMap(values["status"])["placement_statuses"]) {
		m := asMap(ps)
		for _, cond := range asList(m["conditions"]) {
			cm := asMap(cond)
			if cm["type"] != "Scheduled" || cm["status"] != "True" {
				continue
			}
			scores := "0/0"
			if sm := scoresRe.FindStringSubmatch(fmt.Sprint(cm["message"])); sm != nil {
				scores = sm[1] + "/" + sm[2]
			}
			got[fmt.Sprint(m["cluster"])] = scores
		}
	}
	if len(want) == 0 || fmt.Sprint(sortedPairs(want)) != fmt.Sprint(sortedPairs(got)) {
		resp.Error = fmt.Errorf("%s: the preview selected %v (cluster=affinity/topology), the hub agent scheduled %v", c.addr, sortedPairs(want), sortedPairs(got))
	}
}

// rolledOut checks the placement is Available on n clusters, as wait_for_rollout promised.
func rolledOut(n int) statecheck.StateCheck { return rolledOutCheck{placementAddr, n} }

type rolledOutCheck struct {
	addr string
	n    int
}

func (c rolledOutCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	values, err := resourceValues(req, c.addr)
	if err != nil {
		resp.Error = err
		return
	}
	status := asMap(values["status"])
	available := 0
	for _, ps := range asList(status["placement_statuses"]) {
		for _, cond := range asList(asMap(ps)["conditions"]) {
			if cm := asMap(cond); cm["type"] == "Available" && cm["status"] == "True" {
				available++
			}
		}
	}
	placementAvailable := false
	for _, cond := range asList(status["conditions"]) {
		if cm := asMap(cond); cm["type"] == "ClusterResourcePlacementAvailable" && cm["status"] == "True" {
			placementAvailable = true
		}
	}
	if available != c.n || !placementAvailable {
		resp.Error = fmt.Errorf("%s: right after apply, %d cluster(s) Available (want %d), placement Available %t: wait_for_rollout did not wait", c.addr, available, c.n, placementAvailable)
	}
}

func resourceValues(req statecheck.CheckStateRequest, addr string) (map[string]any, error) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		return nil, fmt.Errorf("no state")
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address == addr {
			return r.AttributeValues, nil
		}
	}
	return nil, fmt.Errorf("%s not in state", addr)
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asList(v any) []any         { l, _ := v.([]any); return l }

func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// ---- the hub, behind Terraform's back ----

type hubTestClients struct {
	hub   *hub.Client
	typed kubernetes.Interface
}

// hubClients reaches the local fleet's hub directly (KUBE_CONFIG_PATH from the fleet's env).
func hubClients(t *testing.T) *hubTestClients {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBE_CONFIG_PATH"))
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kube.NewClient(cfg, "acctest")
	if err != nil {
		t.Fatal(err)
	}
	return &hubTestClients{hub: hub.New(kc), typed: kc.Kubernetes}
}

func (h *hubTestClients) createNamespace(t *testing.T, name string) {
	t.Helper()
	_, err := h.typed.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// scalePlacement sets a PickN placement's number of clusters on the hub.
func (h *hubTestClients) scalePlacement(t *testing.T, name string, n int32) {
	t.Helper()
	p, err := h.hub.Placement(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	p.Spec.Policy.NumberOfClusters = &n
	if _, err := h.hub.UpdatePlacementSpec(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// deletePlacement deletes a placement on the hub and waits until the hub agent has finished.
func (h *hubTestClients) deletePlacement(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.hub.DeletePlacement(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := h.hub.WaitPlacementGone(ctx, name, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

// waitForResourceIndex waits until the hub agent has cut the placement's resource snapshot of
// that index and labelled it latest.
func (h *hubTestClients) waitForResourceIndex(t *testing.T, name, index string) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		v, err := h.hub.ResourceVersions(ctx, name)
		if err != nil {
			return false, err
		}
		last = v.Latest
		return v.Latest == index, nil
	})
	if err != nil {
		t.Fatalf("placement %s: want latest resource snapshot %s, have %q: %v", name, index, last, err)
	}
}

// waitForPlacementScheduled waits until the hub agent has scheduled n clusters for the
// placement's current generation.
func waitForPlacementScheduled(t *testing.T, name string, n int) {
	t.Helper()
	h := hubClients(t)
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		crp, err := h.hub.Placement(ctx, name)
		if err != nil {
			return false, err
		}
		scheduled := 0
		for _, ps := range crp.Status.PlacementStatuses {
			for _, c := range ps.Conditions {
				if c.Type == "Scheduled" && c.Status == metav1.ConditionTrue && c.ObservedGeneration == crp.Generation && ps.ClusterName != "" {
					scheduled++
				}
			}
		}
		last = strconv.Itoa(scheduled) + " scheduled at generation " + strconv.FormatInt(crp.Generation, 10)
		return scheduled == n, nil
	})
	if err != nil {
		t.Fatalf("placement %s: want %d clusters scheduled, %s: %v", name, n, last, err)
	}
}

// ---- unit tests (no fleet) ----

func fullPolicyModel() *policyModel {
	s := types.StringValue
	return &policyModel{
		PlacementType:    s("PickN"),
		NumberOfClusters: types.Int64Value(3),
		RequiredClusterSelectors: []requiredTermModel{{
			Labels:              map[string]string{"env": "prod"},
			LabelExpressions:    []labelExpressionModel{{Key: s("tier"), Operator: s("In"), Values: []string{"gold", "silver"}}},
			PropertyExpressions: []propertyExpressionModel{{Name: s("kubernetes-fleet.io/node-count"), Operator: s("Ge"), Values: []string{"3"}}},
		}, {}},
		PreferredClusterSelectors: []preferredTermModel{
			{Weight: types.Int64Value(-20), Labels: map[string]string{"env": "canary"}},
			{Weight: types.Int64Value(50), PropertySorter: &propertySorterModel{Name: s("resources.kubernetes-fleet.io/available-cpu"), SortOrder: s("Descending")}},
		},
		TopologySpreadConstraints: []topologySpreadModel{{MaxSkew: types.Int64Value(2), TopologyKey: s("fleet.azure.com/location"), WhenUnsatisfiable: s("ScheduleAnyway")}},
		Tolerations: []tolerationModel{
			{Key: s("dedicated"), Operator: s("Equal"), Value: s("gpu"), Effect: s("NoSchedule")},
			{Key: s("spot"), Operator: s("Exists"), Value: types.StringNull(), Effect: types.StringNull()},
		},
	}
}

// HCL → KubeFleet → HCL is the identity: what Read gets back from the hub plans no diff.
func TestPlacementPolicyRoundTrip(t *testing.T) {
	want := fullPolicyModel().toAPI()
	got := placementPolicyFromAPI(want).toAPI()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip changed the policy:\n got %+v\nwant %+v", got, want)
	}
	if scheduling.NeedsNewSnapshot(want, got) {
		t.Fatal("the round trip would make the hub cut a new policy snapshot")
	}
	if issues := scheduling.Validate(want); len(issues) != 0 {
		t.Fatalf("the full policy should be valid: %+v", issues)
	}
	// A policy the hub stores without CRD defaults reads back with them.
	m := placementPolicyFromAPI(&placementv1beta1.PlacementPolicy{Tolerations: []placementv1beta1.Toleration{{Key: "a", Value: "b"}}})
	if m.PlacementType.ValueString() != "PickAll" || m.Tolerations[0].Operator.ValueString() != "Equal" {
		t.Fatalf("defaults not applied: %+v", m)
	}
}

// Every issue scheduling.Validate reports lands on the attribute the user wrote.
func TestPlacementPolicyPaths(t *testing.T) {
	root := path.Root("policy")
	affinity := scheduling.Path{}.Child("affinity").Child("clusterAffinity")
	required := affinity.Child("requiredDuringSchedulingIgnoredDuringExecution").Child("clusterSelectorTerms")
	preferred := affinity.Child("preferredDuringSchedulingIgnoredDuringExecution")
	cases := map[string]scheduling.Path{
		"policy.placement_type":                                                 scheduling.Path{}.Child("placementType"),
		"policy.cluster_names[2]":                                               scheduling.Path{}.Child("clusterNames").Index(2),
		"policy.number_of_clusters":                                             scheduling.Path{}.Child("numberOfClusters"),
		"policy.required_cluster_selectors":                                     scheduling.Path{}.Child("affinity"),
		"policy.required_cluster_selectors[1]":                                  required.Index(1).Child("labelSelector"),
		"policy.required_cluster_selectors[0].property_expressions[1].values":   required.Index(0).Child("propertySelector").Child("matchExpressions").Index(1).Child("values"),
		"policy.required_cluster_selectors[0].property_expressions[0].name":     required.Index(0).Child("propertySelector").Child("matchExpressions").Index(0).Child("name"),
		"policy.required_cluster_selectors[0].property_expressions[0].operator": required.Index(0).Child("propertySelector").Child("matchExpressions").Index(0).Child("operator"),
		"policy.preferred_cluster_selectors":                                    preferred,
		"policy.preferred_cluster_selectors[1].weight":                          preferred.Index(1).Child("weight"),
		"policy.preferred_cluster_selectors[0]":                                 preferred.Index(0).Child("preference").Child("labelSelector"),
		"policy.preferred_cluster_selectors[0].property_sorter.name":            preferred.Index(0).Child("preference").Child("propertySorter").Child("name"),
		"policy.preferred_cluster_selectors[0].property_sorter.sort_order":      preferred.Index(0).Child("preference").Child("propertySorter").Child("sortOrder"),
		"policy.topology_spread_constraints[0].max_skew":                        scheduling.Path{}.Child("topologySpreadConstraints").Index(0).Child("maxSkew"),
		"policy.topology_spread_constraints":                                    scheduling.Path{}.Child("topologySpreadConstraints"),
		"policy.tolerations[1].value":                                           scheduling.Path{}.Child("tolerations").Index(1).Child("value"),
		"policy.tolerations[0]":                                                 scheduling.Path{}.Child("tolerations").Index(0),
	}
	for want, p := range cases {
		if got := placementPolicyPath(root, p, fullPolicyModel()).String(); got != want {
			t.Errorf("%s: got %s, want %s", p, got, want)
		}
	}
	// "affinity must be nil" points at the preferred selectors when only they are set.
	m := &policyModel{PreferredClusterSelectors: []preferredTermModel{{}}}
	if got := placementPolicyPath(root, scheduling.Path{}.Child("affinity"), m).String(); got != "policy.preferred_cluster_selectors" {
		t.Errorf("affinity with only preferred terms: got %s", got)
	}
}

// Validation skips what is unknown at plan, and the enumerations the schema already checks.
func TestPlacementPolicyValidationSkipsUnknownAndEnums(t *testing.T) {
	m := &policyModel{PlacementType: types.StringValue("PickN"), Tolerations: []tolerationModel{{Operator: types.StringValue("Equal"), Value: types.StringValue("gpu")}}}
	var diags diag.Diagnostics
	// number_of_clusters is unknown: "cannot be nil" must not be reported; the toleration's key is known and missing.
	validatePlacementPolicy(&diags, path.Root("policy"), m, []path.Path{path.Root("policy").AtName("number_of_clusters")})
	if diags.ErrorsCount() != 1 || !strings.Contains(diags.Errors()[0].Detail(), "policy.tolerations[0].key") {
		t.Fatalf("want one error about policy.tolerations[0].key, got %v", diags)
	}
	// The CRD's maxItems and the webhook's rule on one attribute: one error saying both.
	diags = nil
	validatePlacementPolicy(&diags, path.Root("policy"), &policyModel{PlacementType: types.StringValue("PickAll"), RequiredClusterSelectors: []requiredTermModel{{
		PropertyExpressions: []propertyExpressionModel{{Name: types.StringValue("kubernetes-fleet.io/node-count"), Operator: types.StringValue("Eq"), Values: []string{"3", "4"}}},
	}}}, nil)
	if diags.ErrorsCount() != 1 || !strings.Contains(diags.Errors()[0].Detail(), "operator Eq requires exactly one value, got 2") {
		t.Fatalf("want one error for the two values, got %v", diags)
	}
	diags = nil
	validatePlacementPolicy(&diags, path.Root("policy"), &policyModel{PlacementType: types.StringValue("PickSome")}, nil)
	if diags.HasError() {
		t.Fatalf("an unknown placement type is the OneOf validator's to report, got %v", diags)
	}
	diags = nil
	validatePlacementPolicy(&diags, path.Root("policy"), m, []path.Path{path.Root("policy").AtName("placement_type")})
	if len(diags) != 0 {
		t.Fatalf("with an unknown placement type nothing is checked, got %v", diags)
	}
}

func TestKnownOnly(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"n": tftypes.Number, "s": tftypes.String, "l": tftypes.List{ElementType: tftypes.String},
	}}
	v := tftypes.NewValue(typ, map[string]tftypes.Value{
		"n": tftypes.NewValue(tftypes.Number, tftypes.UnknownValue),
		"s": tftypes.NewValue(tftypes.String, "x"),
		"l": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, tftypes.UnknownValue),
	})
	known, paths, err := knownOnly(v)
	if err != nil {
		t.Fatal(err)
	}
	if !known.IsFullyKnown() {
		t.Fatal("unknowns left")
	}
	var got []string
	for _, p := range paths {
		got = append(got, frameworkPath(p).String())
	}
	sort.Strings(got)
	if fmt.Sprint(got) != "[l n]" {
		t.Fatalf("unknown paths %v, want [l n]", got)
	}
}

// Time-dependent eligibility reasons are worded with the time the heartbeat happened, so that
// the preview planned again at apply is the same.
func TestStableReasons(t *testing.T) {
	hb := time.Date(2026, 11, 23, 1, 2, 3, 0, time.UTC)
	mc := clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "m"}}
	mc.Status.AgentStatus = []clusterv1beta1.AgentStatus{{Type: clusterv1beta1.MemberAgent, LastReceivedHeartbeat: metav1.NewTime(hb)}}
	p := placementPreviewModel{Excluded: []scheduling.Exclusion{{
		Cluster: "m",
		Reason:  "ClusterUnschedulable, cluster is not connected to the fleet: no recent heartbeat signals (last received 20.79 minutes ago)",
	}}}
	got := stableReasons(p, []clusterv1beta1.MemberCluster{mc}).Excluded[0].Reason
	want := "ClusterUnschedulable, cluster is not connected to the fleet: no recent heartbeat signals (last received at 2026-11-23T01:02:03Z)"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func condition(t placementv1beta1.ResourcePlacementConditionType, status metav1.ConditionStatus, gen int64) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: status, ObservedGeneration: gen, Reason: "r", Message: "m"}
}

func rolloutCRP(gen int64, clusters map[string]metav1.ConditionStatus, available metav1.ConditionStatus) *placementv1beta1.ClusterResourcePlacement {
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: gen}}
	crp.Status.Conditions = []metav1.Condition{
		{Type: string(placementv1beta1.ClusterResourcePlacementScheduledConditionType), Status: metav1.ConditionTrue, ObservedGeneration: gen},
		{Type: string(placementv1beta1.ClusterResourcePlacementAvailableConditionType), Status: available, ObservedGeneration: gen},
	}
	names := make([]string, 0, len(clusters))
	for n := range clusters {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ps := placementv1beta1.ResourcePlacementStatus{ClusterName: n}
		for _, ct := range placementRolloutConditions {
			st := metav1.ConditionTrue
			if ct == placementv1beta1.ResourcesAvailableConditionType {
				st = clusters[n]
			}
			ps.Conditions = append(ps.Conditions, condition(ct, st, gen))
		}
		crp.Status.PlacementStatuses = append(crp.Status.PlacementStatuses, ps)
	}
	return crp
}

func TestPlacementRolloutProgress(t *testing.T) {
	cases := []struct {
		name string
		crp  *placementv1beta1.ClusterResourcePlacement
		done bool
		say  string
	}{
		{"all available", rolloutCRP(2, map[string]metav1.ConditionStatus{"a": "True", "b": "True"}, "True"), true, "available on 2 cluster(s) [a, b]"},
		{"one pending", rolloutCRP(2, map[string]metav1.ConditionStatus{"a": "True", "b": "False"}, "False"), false, "b: waiting for Available (r: m)"},
		{"stale generation", func() *placementv1beta1.ClusterResourcePlacement {
			c := rolloutCRP(2, map[string]metav1.ConditionStatus{"a": "True"}, "True")
			c.Generation = 3
			return c
		}(), false, "waiting for the scheduler"},
		{"nothing picked", rolloutCRP(1, nil, "Unknown"), true, "available on 0 cluster(s)"},
	}
	for _, tc := range cases {
		say, done := placementRolloutProgress(tc.crp)
		if done != tc.done || !strings.Contains(say, tc.say) {
			t.Errorf("%s: got (%q, %t), want %q and %t", tc.name, say, done, tc.say, tc.done)
		}
	}
}

// A wait stops at once when its context ends (Ctrl-C, timeout), saying how far it got.
func TestWaitForPlacementRolloutHonoursCancellation(t *testing.T) {
	crp := rolloutCRP(1, map[string]metav1.ConditionStatus{"a": "False"}, "False")
	crp.TypeMeta = metav1.TypeMeta{APIVersion: placementv1beta1.GroupVersion.String(), Kind: "ClusterResourcePlacement"}
	hc := hubtest.New(t, crp)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	got, err := waitForPlacementRollout(ctx, hc, "p", time.Hour)
	if err == nil || !strings.Contains(err.Error(), "a: waiting for Available") {
		t.Fatalf("want an error naming the pending cluster, got %v", err)
	}
	if got == nil {
		t.Fatal("the last status read should be returned, to be saved")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the wait took %s after cancellation", d)
	}
}

// While the hub agent has not scheduled the placement's current spec, an update plans no preview
// (it would not survive the re-plan at apply).
func TestPlacementUnsettled(t *testing.T) {
	settled := rolloutCRP(1, map[string]metav1.ConditionStatus{"a": "True"}, "True")
	settled.TypeMeta = metav1.TypeMeta{APIVersion: placementv1beta1.GroupVersion.String(), Kind: "ClusterResourcePlacement"}
	pending := settled.DeepCopy()
	pending.Name, pending.Generation = "q", 2
	hc := hubtest.New(t, settled, pending)
	r := &placementResource{}
	if why := r.unsettled(context.Background(), hc, "p"); why != "" {
		t.Errorf("p is scheduled for its generation, got %q", why)
	}
	if why := r.unsettled(context.Background(), hc, "q"); !strings.Contains(why, "still scheduling") {
		t.Errorf("q's spec (generation 2) is not scheduled yet, got %q", why)
	}
	if why := r.unsettled(context.Background(), hc, "gone"); !strings.Contains(why, "failed") {
		t.Errorf("a placement the hub lacks: got %q", why)
	}
}

// The configuration → hub.Placement → model round trip keeps the selection scopes, which
// KubeFleet v0.14.0's types lack (the hub client carries them beside the typed object).
func TestPlacementSelectorsRoundTrip(t *testing.T) {
	s := types.StringValue
	m := &placementModel{
		Name: s("p"),
		ResourceSelectors: []resourceSelectorModel{
			{Group: s(""), Version: s("v1"), Kind: s("Namespace"), Name: s("web"), SelectionScope: s(placementScopeWithResources)},
			{Group: s(""), Version: s("v1"), Kind: s("Namespace"), Name: types.StringNull(), SelectionScope: s(placementScopeNamespaceOnly),
				LabelSelector: &placementLabelSelectorModel{MatchLabels: map[string]string{"app": "db"}}},
		},
		Strategy:             &placementStrategyModel{Type: s("External")},
		RevisionHistoryLimit: types.Int64Value(3),
	}
	p := placementFromModel(m)
	if p.SelectionScope(0) != "" || p.SelectionScope(1) != placementScopeNamespaceOnly {
		t.Fatalf("selection scopes %q: the default is left unset, NamespaceOnly written", p.SelectionScopes)
	}
	if p.Spec.Strategy.Type != placementv1beta1.ExternalRolloutStrategyType || p.Spec.Strategy.RollingUpdate != nil || *p.Spec.RevisionHistoryLimit != 3 {
		t.Fatalf("spec %+v", p.Spec)
	}
	var back placementModel
	placementSpecToModel(&back, p)
	if !reflect.DeepEqual(back.ResourceSelectors, m.ResourceSelectors) {
		t.Fatalf("round trip changed the selectors:\n got %+v\nwant %+v", back.ResourceSelectors, m.ResourceSelectors)
	}
	if back.Policy != nil || back.RevisionHistoryLimit.ValueInt64() != 3 || back.Strategy.Type.ValueString() != "External" {
		t.Fatalf("round trip: %+v", back)
	}
}

// What the hub reports lands in the model: each cluster's snapshot index (null for a cluster
// without one and for an entry without a cluster), the latest index and the history.
func TestPlacementSetObserved(t *testing.T) {
	crp := &hub.Placement{}
	crp.Status.PlacementStatuses = []placementv1beta1.ResourcePlacementStatus{{ClusterName: "b"}, {}, {ClusterName: "a"}}
	t0 := time.Date(2026, 11, 23, 1, 2, 3, 0, time.FixedZone("x", 3600))
	var m placementModel
	diags := m.setObserved(crp, hub.ResourceVersions{Latest: "1", ByCluster: map[string]string{"a": "1"},
		Snapshots: []hub.ResourceSnapshot{{Index: "0", CreatedAt: t0}, {Index: "1", CreatedAt: t0.Add(time.Minute)}}})
	if diags.HasError() {
		t.Fatal(diags)
	}
	if m.LatestResourceIndex.ValueString() != "1" {
		t.Errorf("latest %s", m.LatestResourceIndex)
	}
	var got []string
	statuses, _ := m.Status.Attributes()["placement_statuses"].(types.List)
	for _, ps := range statuses.Elements() {
		a := objectAttributes(ps)
		got = append(got, fmt.Sprintf("%s=%s", a["cluster"], a["resource_snapshot_index"]))
	}
	if got, want := strings.Join(got, " "), `"a"="1" "b"=<null> <null>=<null>`; got != want {
		t.Errorf("per-cluster indices %s, want %s", got, want)
	}
	snaps := m.ResourceSnapshots.Elements()
	if len(snaps) != 2 || objectAttributes(snaps[0])["created_at"].String() != `"2026-11-23T00:02:03Z"` {
		t.Errorf("snapshots %v: want two, times in UTC", snaps)
	}
	// Before the hub agent cut a snapshot: null latest, an empty history.
	diags = m.setObserved(crp, hub.ResourceVersions{})
	if diags.HasError() || !m.LatestResourceIndex.IsNull() || len(m.ResourceSnapshots.Elements()) != 0 || m.ResourceSnapshots.IsNull() {
		t.Errorf("no snapshot yet: latest %s, snapshots %s", m.LatestResourceIndex, m.ResourceSnapshots)
	}
}

// objectAttributes are an object value's attributes (none for another value).
func objectAttributes(v attr.Value) map[string]attr.Value {
	o, ok := v.(types.Object)
	if !ok {
		return nil
	}
	return o.Attributes()
}

func TestPlacementStrategyMapping(t *testing.T) {
	s := &placementStrategyModel{Type: types.StringValue("RollingUpdate"), MaxUnavailable: types.StringValue("1"), MaxSurge: types.StringValue("50%"), UnavailablePeriodSeconds: types.Int64Value(30)}
	api := s.toAPI()
	if api.RollingUpdate.MaxUnavailable.Type != intstr.Int || api.RollingUpdate.MaxSurge.StrVal != "50%" {
		t.Fatalf("a number must be an int (the rollout controller rejects \"1\" as a string), a percentage a string: %+v", api.RollingUpdate)
	}
	back := placementStrategyFromAPI(api)
	if back.MaxUnavailable.ValueString() != "1" || back.MaxSurge.ValueString() != "50%" || back.UnavailablePeriodSeconds.ValueInt64() != 30 {
		t.Fatalf("round trip: %+v", back)
	}
	// A hub that left rollingUpdate out (kubectl, the hub agent's defaulter is in memory only)
	// reads back with the defaults the plan has.
	def := placementStrategyFromAPI(placementv1beta1.RolloutStrategy{Type: placementv1beta1.RollingUpdateRolloutStrategyType})
	if def.MaxUnavailable.ValueString() != "25%" || def.MaxSurge.ValueString() != "25%" || def.UnavailablePeriodSeconds.ValueInt64() != 60 {
		t.Fatalf("defaults: %+v", def)
	}
}
