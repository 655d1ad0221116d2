package placement_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// hub runs KubeFleet's real hub agent: node counts canary-east 3, prod-east-1 5, prod-east-2 2
// (tainted dedicated=gpu:NoSchedule), prod-west-1 4, staging-west 1 (no heartbeat, ineligible).

const (
	// placementAddr is the placement every acceptance configuration here names.
	placementAddr = "fleet_placement.test"
)

// pickNConfig: PickN by node count, the largest first (weight 50, interpolated between the fleet's
// minimum 1 and maximum 5: prod-east-1 50, prod-west-1 38, canary-east 25).
func pickNConfig(name, namespace string, n int) string {
	return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_placement" "test" {
  name               = %q
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = %q
  }
`, name, namespace) + pickNByNodeCount(n) + waitForRollout
}

// pickNByNodeCount is the policy of a placement of either scope: PickN of n by node count.
func pickNByNodeCount(n int) string {
	return fmt.Sprintf(`  policy {
    placement_type     = "PickN"
    number_of_clusters = %d
    preferred_cluster_selector {
      weight          = 50
      property_sorter {
        name = "kubernetes-fleet.io/node-count"
        sort_order = "Descending"
      }
    }
  }
`, n)
}

// waitForRollout ends a placement that waits for its rollout.
const waitForRollout = "  wait_for_rollout = true\n}\n"

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

// previewExact is a whole fulfilled placement preview that lists every cluster (nothing trimmed or omitted).
func previewExact(message string, selected []knownvalue.Check, excludedReasons map[string]string, byReason map[string]int64) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"fulfilled": knownvalue.Bool(true), "message": knownvalue.StringExact(message),
		"selected_count": knownvalue.Int64Exact(int64(len(selected))), "selected": knownvalue.ListExact(selected), "selected_omitted": knownvalue.Int64Exact(0),
		"trimmed_count": knownvalue.Int64Exact(0), "trimmed": knownvalue.ListExact([]knownvalue.Check{}), "trimmed_omitted": knownvalue.Int64Exact(0),
		"excluded_count": knownvalue.Int64Exact(int64(len(excludedReasons))), "excluded_by_reason": counts(byReason),
		"excluded": excluded(excludedReasons), "excluded_omitted": knownvalue.Int64Exact(0),
		"override_snapshots": knownvalue.Null(), // no override of these placements
	})
}

const (
	taintReason     = `^ClusterUnschedulable, taint &\{Key:dedicated Value:gpu Effect:NoSchedule\} cannot be tolerated$`
	heartbeatReason = `^ClusterUnschedulable, cluster is not connected to the fleet: no recent heartbeat signals \(last received at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$`
)

// selectedPlan is the plan of action on the placement at addr whose preview selects picks, with the
// more checks.
func selectedPlan(addr string, action plancheck.ResourceActionType, picks []knownvalue.Check, more ...plancheck.PlanCheck) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: append([]plancheck.PlanCheck{
		plancheck.ExpectResourceAction(addr, action),
		plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("selected"), knownvalue.ListExact(picks)),
	}, more...)}
}

// pickTwoCreated is the plan that creates a PickN placement of 2 at addr on the test fleet: the
// preview picks prod-east-1 and prod-west-1 and says why each other cluster is left out; the status
// is known after apply.
func pickTwoCreated(addr string) []plancheck.PlanCheck {
	return []plancheck.PlanCheck{
		plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
		plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview"), previewExact(
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
	}
}

// A PickN placement: the plan's preview names the clusters, scores and reasons; the hub agent then
// places exactly there (status), a scale-out keeps the picks and adds one, the placement imports
// by name, and one deleted behind Terraform's back is planned again.
func TestAccPlacementPickN(t *testing.T) {
	const addr = "fleet_placement.test"
	h := acctest.NewHubClients(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:        func() { h.CreateNamespace(t, "pickn-web") },
				Config:           pickNConfig("pickn-web", "pickn-web", 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: pickTwoCreated(addr)},
				ConfigStateChecks: []statecheck.StateCheck{
					hubMatchesPreview(),
					rolledOut(2),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status").AtMapKey("selected_resources"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{"kind": knownvalue.StringExact("Namespace"), "name": knownvalue.StringExact("pickn-web")}),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("pickn-web")),
					// Omitted, the strategy blocks stay null while the hub has the defaults (a block cannot be computed).
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("strategy"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("apply_strategy"), knownvalue.Null()),
				},
			},
			{
				// Scale out: numberOfClusters is not part of the policy snapshot, so the picks stay.
				Config: pickNConfig("pickn-web", "pickn-web", 3),
				ConfigPlanChecks: selectedPlan(addr, plancheck.ResourceActionUpdate, []knownvalue.Check{
					pick("prod-east-1", 50, "kept"), pick("prod-west-1", 38, "kept"), pick("canary-east", 25, "added"),
				},
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("trimmed"), knownvalue.ListExact([]knownvalue.Check{})),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("excluded"), excluded(map[string]string{
						"prod-east-2": taintReason, "staging-west": heartbeatReason,
					})),
				),
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
					h.ScalePlacement(t, "pickn-web", 1)
					waitForPlacementScheduled(t, "pickn-web", 1)
				},
				Config: pickNConfig("pickn-web", "pickn-web", 3),
				ConfigPlanChecks: selectedPlan(addr, plancheck.ResourceActionUpdate, []knownvalue.Check{
					pick("prod-east-1", 50, "kept"), pick("prod-west-1", 38, "added"), pick("canary-east", 25, "added"),
				}),
				ConfigStateChecks: []statecheck.StateCheck{hubMatchesPreview(), rolledOut(3)},
			},
			{
				// Deleted on the hub behind Terraform's back: refresh drops it, the plan creates it again.
				PreConfig: func() { h.DeletePlacement(t, "pickn-web") },
				Config:    pickNConfig("pickn-web", "pickn-web", 3),
				ConfigPlanChecks: selectedPlan(addr, plancheck.ResourceActionCreate, []knownvalue.Check{
					pick("prod-east-1", 50, "added"), pick("prod-west-1", 38, "added"), pick("canary-east", 25, "added"),
				}),
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
			tolerations = `toleration {
  key = "dedicated"
  value = "gpu"
  effect = "NoSchedule"
}`
		}
		return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_placement" "test" {
  name               = "pickall-web"
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = "pickall-web"
  }
  policy {
    %s
  }
}
`, tolerations)
	}
	acctest.NewHubClients(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(false),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview"), previewExact(
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
				ConfigPlanChecks: selectedPlan(addr, plancheck.ResourceActionUpdate, []knownvalue.Check{
					pick("canary-east", 0, "kept"), pick("prod-east-1", 0, "kept"), pick("prod-east-2", 0, "added"), pick("prod-west-1", 0, "kept"),
				},
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey("excluded"), excluded(map[string]string{
						"staging-west": heartbeatReason,
					})),
				),
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
	acctest.NewHubClients(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfig + `
resource "terraform_data" "count" {
  input = 1
}

resource "fleet_placement" "test" {
  name               = "unknown-input"
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = "unknown-input"
  }
  policy {
    placement_type     = "PickN"
    number_of_clusters = terraform_data.count.output
    preferred_cluster_selector {
      weight          = 50
      property_sorter {
        name = "kubernetes-fleet.io/node-count"
        sort_order = "Descending"
      }
    }
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
	h := acctest.NewHubClients(t)
	config := func(extra string, namespaces ...string) string {
		selectors := make([]string, 0, len(namespaces))
		for _, ns := range namespaces {
			selectors = append(selectors, fmt.Sprintf(`resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = %q
  }`, ns))
		}
		return acctest.ProviderConfig + `
resource "fleet_placement" "test" {
  name               = "external"
  ` + strings.Join(selectors, "\n  ") + `
  strategy {
    type = "External"
  }
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
			clusterSnapshotIndices(addr, map[string]*string{"canary-east": nil, "prod-east-1": nil, "prod-west-1": nil}),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config("wait_for_rollout = true", "external"),
				ExpectError: acctest.WrappedRegexp(`wait_for_rollout needs strategy.type RollingUpdate`),
			},
			{
				PreConfig: func() { h.CreateNamespace(t, "external") },
				Config:    config("", "external"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("strategy"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"type": knownvalue.StringExact("External"), "max_unavailable": knownvalue.Null(),
						"max_surge": knownvalue.Null(), "unavailable_period_seconds": knownvalue.Null(),
					})),
				},
			},
			{
				// Scheduled, but no snapshot: v0.18.9's hub agent leaves that to a staged run.
				PreConfig: func() { noResourceSnapshotFor(t, "external", 3) },
				Config:    config("", "external"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("latest_resource_snapshot_index"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("resource_snapshots"), knownvalue.ListExact([]knownvalue.Check{})),
					clusterSnapshotIndices(addr, map[string]*string{"canary-east": nil, "prod-east-1": nil, "prod-west-1": nil}),
				},
			},
			{
				// Once a staged run, initialized, has cut snapshot 0, refresh shows it; nothing is
				// planned.
				PreConfig: func() {
					initializeStagedRun(t, "external", "external-run-0")
					h.WaitForResourceIndex(t, "external", "0")
				},
				Config: config("", "external"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: refreshed("0", "0"),
			},
			{
				// A second namespace changes the selected resources.
				PreConfig: func() { h.CreateNamespace(t, "external-b") },
				Config:    config("", "external", "external-b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(addr, tfjsonpath.New("latest_resource_snapshot_index")),
				}},
			},
			{
				// The hub agent cuts no snapshot of the new selection (External): the latest stays 0
				// until a staged run cuts one. (A run initialized within the hub agent's snapshot
				// interval, 30 s by default, would take snapshot 0 as well: v0.18.9's run
				// initialization ignores the resolver's requeue, pkg/controllers/updaterun/
				// initialization.go: getResourceSnapshotObjs.)
				PreConfig: func() { waitForPlacementScheduled(t, "external", 3) },
				Config:    config("", "external", "external-b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: refreshed("0", "0"),
			},
		},
	})
}

// clusterSnapshotIndices checks status.placement_statuses of the placement at addr: exactly the
// clusters in indices, each with its resource_snapshot_index (nil: null).
func clusterSnapshotIndices(addr string, indices map[string]*string) statecheck.StateCheck {
	return valuesCheck{addr, func(values map[string]any) error {
		got := map[string]string{}
		for _, ps := range asList(asMap(values["status"])["placement_statuses"]) {
			m := asMap(ps)
			got[fmt.Sprint(m["cluster"])] = fmt.Sprint(m["resource_snapshot_index"])
		}
		want := map[string]string{}
		for k, v := range indices {
			want[k] = fmt.Sprint(v)
			if v != nil {
				want[k] = *v
			}
		}
		if fmt.Sprint(sortedPairs(got)) != fmt.Sprint(sortedPairs(want)) {
			return fmt.Errorf("%s: per-cluster resource snapshot indices %v, want %v", addr, sortedPairs(got), sortedPairs(want))
		}
		return nil
	}}
}

// KubeFleet's rules fail at validate or plan, each error naming its attribute; so do the
// changes KubeFleet refuses (placement type, removed tolerations), before anything changes.
func TestAccPlacementInvalidInputs(t *testing.T) {
	policy := func(body string) string {
		return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_placement" "bad" {
  name               = "bad"
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = "bad"
  }
  policy {
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
    preferred_cluster_selector {
      weight = 101
      labels = { env = "prod" }
    }`,
			`policy\.preferred_cluster_selector\[0\]\.weight: Invalid value: 101: should be less than or equal to 100`},
		{"two values for Eq", `required_cluster_selector {
  property_expression {
    name = "kubernetes-fleet.io/node-count"
    operator = "Eq"
    values = ["3", "4"]
  }
}`,
			`policy\.required_cluster_selector\[0\]\.property_expression\[0\]\.values`},
		{"PickFixed with number_of_clusters", `placement_type = "PickFixed"
    cluster_names = ["canary-east"]
    number_of_clusters = 1`,
			`policy\.number_of_clusters: number of clusters must be nil for policy type PickFixed`},
		{"bad quantity", `required_cluster_selector {
  property_expression {
    name = "kubernetes-fleet.io/node-count"
    operator = "Gt"
    values = ["12x"]
  }
}`,
			`policy\.required_cluster_selector\[0\]\.property_expression\[0\]\.values: invalid requirement on property kubernetes-fleet.io/node-count: value "12x" is not a valid resource.Quantity`},
		{"contradicting requirements", `required_cluster_selector {
  property_expression {
    name = "kubernetes-fleet.io/node-count"
    operator = "Gt"
    values = ["10"]
  }
  property_expression {
    name = "kubernetes-fleet.io/node-count"
    operator = "Lt"
    values = ["5"]
  }
}`,
			`policy\.required_cluster_selector\[0\]\.property_expression\[0\]: inconsistent requirements on property kubernetes-fleet.io/node-count: lower bound \(10\) and upper bound \(5\) exclude all values`},
		{"bad property name", `placement_type = "PickN"
    number_of_clusters = 1
    preferred_cluster_selector {
      weight = 10
      property_sorter {
        name = "resources.kubernetes-fleet.io/spare-cpu"
        sort_order = "Descending"
      }
    }`,
			`policy\.preferred_cluster_selector\[0\]\.property_sorter\.name: invalid capacity type`},
		{"unknown operator", `required_cluster_selector {
  property_expression {
    name = "kubernetes-fleet.io/node-count"
    operator = "Gte"
    values = ["3"]
  }
}`,
			`policy\.required_cluster_selector\[0\]\.property_expression\[0\]\.operator`},
	}
	// A hub whose CRD lacks selectionScope (KubeFleet before v0.17) no longer runs here:
	// hub.TestSupportsSelectionScope covers that check against such a CRD.
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			config := policy(tc.body)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      config,
					PlanOnly:    true,
					ExpectError: acctest.WrappedRegexp(tc.want),
				}},
			})
		})
	}

	t.Run("immutable fields", func(t *testing.T) {
		const addr = "fleet_placement.bad"
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			Steps: []resource.TestStep{
				{Config: policy(`toleration {
  key = "dedicated"
  value = "gpu"
}`)},
				{
					// v0.18.9's CRD: a policy once set stays.
					Config: acctest.ProviderConfig + `
resource "fleet_placement" "bad" {
  name               = "bad"
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = "bad"
  }
}
`,
					ExpectError: acctest.WrappedRegexp(`policy: policy cannot be removed once set`),
				},
				{
					Config: policy(`placement_type = "PickN"
    number_of_clusters = 1
    toleration {
      key = "dedicated"
      value = "gpu"
    }`),
					ExpectError: acctest.WrappedRegexp(`policy\.placement_type: the placement type is immutable \(PickAll → PickN\)`),
				},
				{
					Config: policy(`toleration {
  key = "dedicated"
  operator = "Exists"
}`),
					ExpectError: acctest.WrappedRegexp(`(?s)policy\.toleration: tolerations have been updated/deleted.*key="dedicated" operator=Equal value="gpu"`),
				},
				{
					// Appending is fine.
					Config: policy(`toleration {
  key = "dedicated"
  value = "gpu"
}
toleration {
  key = "spot"
  operator = "Exists"
}`),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					}},
				},
			},
		})
	})

	t.Run("kinds KubeFleet cannot select", func(t *testing.T) {
		selector := func(sel string) string {
			return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_placement" "bad" {
  name               = "bad-kind"
  resource_selector {
    %s
  }
}
`, sel)
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			Steps: []resource.TestStep{
				{
					// ClusterRole without its API group: the hub agent's resolver finds no GVR.
					Config: selector(`version = "v1"
    kind = "ClusterRole"
    name = "viewer"`),
					PlanOnly:    true,
					ExpectError: acctest.WrappedRegexp(`resource_selector\[0\]\.kind: the hub serves no kind ClusterRole in v1`),
				},
				{
					Config: selector(`version = "v1"
    kind = "ConfigMap"
    name = "settings"`),
					PlanOnly:    true,
					ExpectError: acctest.WrappedRegexp(`resource_selector\[0\]\.kind: ConfigMap \(v1\) is namespaced`),
				},
			},
		})
	})

	t.Run("strategy type from External", func(t *testing.T) {
		strategy := func(typ string) string {
			return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_placement" "bad" {
  name               = "bad-external"
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = "bad"
  }
  strategy {
    type = %q
  }
}
`, typ)
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			Steps: []resource.TestStep{
				{Config: strategy("External")},
				{
					Config:      strategy("RollingUpdate"),
					ExpectError: acctest.WrappedRegexp(`strategy\.type: cannot change rollout strategy type from 'External' to other types \(External → RollingUpdate\)`),
				},
			},
		})
	})
}

// ---- checks ----

var scoresRe = regexp.MustCompile(`\(affinity score: (-?\d+), topology spread score: (-?\d+)\)`)

// hubMatchesPreview checks that the clusters the hub agent scheduled (status, Scheduled=True), with
// the scores it recorded, are those the planned preview selected.
func hubMatchesPreview() statecheck.StateCheck { return hubMatchesPreviewAt(placementAddr) }

// hubMatchesPreviewAt checks the hub agent scheduled the placement at addr where its preview said,
// with the same scores.
func hubMatchesPreviewAt(addr string) statecheck.StateCheck {
	return valuesCheck{addr, func(values map[string]any) error {
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
			return fmt.Errorf("%s: the preview selected %v (cluster=affinity/topology), the hub agent scheduled %v", addr, sortedPairs(want), sortedPairs(got))
		}
		return nil
	}}
}

// rolledOut checks the placement is Available on n clusters, as wait_for_rollout promised.
func rolledOut(n int) statecheck.StateCheck {
	return rolledOutAt(placementAddr, n, "ClusterResourcePlacementAvailable", "")
}

// rolledOutAt checks the placement at addr is Available on n clusters and has its own condition of
// type available (each scope has its own), and, unless snapshot is "", that every cluster runs that
// resource snapshot index.
func rolledOutAt(addr string, n int, available, snapshot string) statecheck.StateCheck {
	return valuesCheck{addr, func(values map[string]any) error {
		status := asMap(values["status"])
		availableOn := 0
		for _, ps := range asList(status["placement_statuses"]) {
			if snapshot != "" && asMap(ps)["resource_snapshot_index"] != snapshot {
				return fmt.Errorf("cluster %v runs resource snapshot %v, want %s", asMap(ps)["cluster"], asMap(ps)["resource_snapshot_index"], snapshot)
			}
			for _, cond := range asList(asMap(ps)["conditions"]) {
				if cm := asMap(cond); cm["type"] == "Available" && cm["status"] == "True" {
					availableOn++
				}
			}
		}
		placementAvailable := false
		for _, cond := range asList(status["conditions"]) {
			if cm := asMap(cond); cm["type"] == available && cm["status"] == "True" {
				placementAvailable = true
			}
		}
		if availableOn != n || !placementAvailable {
			return fmt.Errorf("%s: right after apply, %d cluster(s) Available (want %d), %s %t: wait_for_rollout did not wait", addr, availableOn, n, available, placementAvailable)
		}
		return nil
	}}
}

// valuesCheck is a state check of the attribute values of the resource at addr.
type valuesCheck struct {
	addr  string
	check func(values map[string]any) error
}

func (c valuesCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	values, err := resourceValues(req, c.addr)
	if err == nil {
		err = c.check(values)
	}
	resp.Error = err
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

// waitForPlacementScheduled waits until the hub agent has scheduled n clusters for the
// placement's current generation.
func waitForPlacementScheduled(t *testing.T, name string, n int) {
	t.Helper()
	h := acctest.NewHubClients(t)
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		crp, err := h.Hub.Placement(ctx, name)
		if err != nil {
			return false, err
		}
		scheduled := 0
		for _, ps := range crp.Status.PerClusterPlacementStatuses {
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
