package placement_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// canary-east has its own kube-apiserver, where KubeFleet v0.18.9's real member agent applies its
// Works (internal/localfleet/realagent.go): these tests place a namespace there, read it back from
// the member, change it by hand, and check what status.apply says against the work applier's own
// reasons and messages (pkg/controllers/workapplier).

const applyMember = "canary-east"

// applyConfig places the hub namespace ns on canary-east with the given apply_strategy body.
func applyConfig(ns, strategy string, wait bool) string {
	return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_placement" "test" {
  name               = %q
  resource_selector {
    version = "v1"
    kind = "Namespace"
    name = %q
  }
  policy {
    placement_type = "PickFixed"
    cluster_names = [%q]
  }
  apply_strategy %s
  wait_for_rollout   = %t
}
`, ns, ns, applyMember, strategy, wait)
}

// hubNamespace creates ns on the hub with the label team=a (the manifest the member agent applies).
func hubNamespace(t *testing.T, ns string) {
	t.Helper()
	err := acctest.HubClient(t).Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"team": "a"}}})
	if err != nil {
		t.Fatal(err)
	}
}

// memberTeam is the team label of ns on canary-east's own API server ("" when ns is not there).
func memberTeam(t *testing.T, ns string) (string, bool) {
	t.Helper()
	var got corev1.Namespace
	if err := acctest.MemberClient(t, applyMember).Get(context.Background(), client.ObjectKey{Name: ns}, &got); err != nil {
		return "", false
	}
	return got.Labels["team"], true
}

// setMemberTeam changes (or creates) ns on canary-east by hand, behind the hub's back.
func setMemberTeam(t *testing.T, ns, team string) {
	t.Helper()
	c := acctest.MemberClient(t, applyMember)
	var got corev1.Namespace
	if err := c.Get(context.Background(), client.ObjectKey{Name: ns}, &got); err != nil {
		if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"team": team}}}); err != nil {
			t.Fatal(err)
		}
		return
	}
	got.Labels["team"] = team
	if err := c.Update(context.Background(), &got); err != nil {
		t.Fatal(err)
	}
}

// awaitCluster waits until the hub's placement reports, for canary-east, what cond looks for.
func awaitCluster(t *testing.T, name, what string, cond func(*placementv1.PerClusterPlacementStatus) bool) {
	t.Helper()
	c := acctest.HubClient(t)
	err := acctest.Eventually(2*time.Minute, what, func() (bool, string) {
		var crp placementv1.ClusterResourcePlacement
		if err := c.Get(context.Background(), client.ObjectKey{Name: name}, &crp); err != nil {
			return false, err.Error()
		}
		for i := range crp.Status.PerClusterPlacementStatuses {
			if ps := &crp.Status.PerClusterPlacementStatuses[i]; ps.ClusterName == applyMember && cond(ps) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", crp.Status.PerClusterPlacementStatuses)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func applyPath(steps ...any) tfjsonpath.Path {
	return acctest.Path("status", append([]any{"apply"}, steps...)...)
}

func patchCheck(path, member, hub string) knownvalue.Check {
	return knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
		"path": knownvalue.StringExact(path), "value_in_member": knownvalue.StringExact(member), "value_in_hub": knownvalue.StringExact(hub),
	})})
}

// The placed namespace lands on the member's own API server; a label changed there by hand shows on
// the next plan as a drift with its field path, and with when_to_apply = "IfNotDrifted" the member
// agent leaves it alone (FoundDrifts) instead of overwriting it.
func TestAccPlacement_applyDriftIfNotDrifted(t *testing.T) {
	const ns = "apply-drift"
	acctest.Current(t)
	hubNamespace(t, ns)
	cfg := applyConfig(ns, `{ when_to_apply = "IfNotDrifted" }`, true)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(placementAddr, tfjsonpath.New("apply_strategy"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"type": knownvalue.StringExact("ClientSideApply"), "comparison_option": knownvalue.StringExact("PartialComparison"),
						"when_to_apply": knownvalue.StringExact("IfNotDrifted"), "when_to_take_over": knownvalue.StringExact("Always"),
						"allow_co_ownership": knownvalue.Bool(false), "server_side_apply_config": knownvalue.Null(),
					})),
					statecheck.ExpectKnownValue(placementAddr, applyPath("applied_count"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "result"), knownvalue.StringExact("Applied")),
				},
				Check: func(*terraform.State) error {
					if team, ok := memberTeam(t, ns); !ok || team != "a" {
						return fmt.Errorf("namespace %s on %s's API server: present %t, team %q; want the hub's team=a", ns, applyMember, ok, team)
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					setMemberTeam(t, ns, "b")
					awaitCluster(t, ns, "the drift reported", func(ps *placementv1.PerClusterPlacementStatus) bool { return len(ps.DriftedPlacements) > 0 })
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
					plancheck.ExpectKnownValue(placementAddr, applyPath("drifted_count"), knownvalue.Int64Exact(0)),
					plancheck.ExpectKnownValue(placementAddr, applyPath("failed_count"), knownvalue.Int64Exact(1)),
					plancheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "drifted", 0, "observed_drifts"), patchCheck("/metadata/labels/team", "b", "a")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "result"), knownvalue.StringExact("Failed")),
					statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "failed", 0, "reason"), knownvalue.StringExact("FoundDrifts")),
					statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "failed", 0, "message"),
						knownvalue.StringRegexp(regexp.MustCompile(`drifts are found between the manifest and the object from the member cluster`))),
					statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "drifted", 0, "name"), knownvalue.StringExact(ns)),
				},
				Check: func(*terraform.State) error {
					if team, _ := memberTeam(t, ns); team != "b" {
						return fmt.Errorf("IfNotDrifted overwrote the drift: team %q on the member, want b", team)
					}
					return nil
				},
			},
		},
	})
}

// With ReportDiff the member agent applies nothing and reports how a pre-existing object differs.
func TestAccPlacement_applyReportDiff(t *testing.T) {
	memberKeepsOwnNamespace(t, "apply-diff", `{ type = "ReportDiff" }`, "the diff reported",
		func(ps *placementv1.PerClusterPlacementStatus) bool { return len(ps.DiffedPlacements) > 0 },
		statecheck.ExpectKnownValue(placementAddr, applyPath("diffed_count"), knownvalue.Int64Exact(1)),
		statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "result"), knownvalue.StringExact("Diffed")),
		statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "message"), knownvalue.StringExact("All corresponding work objects have reported diff")),
		statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "diffed", 0, "observed_diffs"), patchCheck("/metadata/labels/team", "z", "a")),
	)
}

// when_to_take_over = "Never": a namespace that exists on the member before the placement is not
// taken over; the work applier says so (NotTakenOver) and leaves it as it was.
func TestAccPlacement_applyTakeOverNever(t *testing.T) {
	memberKeepsOwnNamespace(t, "apply-takeover", `{ when_to_take_over = "Never" }`, "the failed take-over reported",
		func(ps *placementv1.PerClusterPlacementStatus) bool { return len(ps.FailedPlacements) > 0 },
		statecheck.ExpectKnownValue(placementAddr, applyPath("failed_count"), knownvalue.Int64Exact(1)),
		statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "failed", 0, "reason"), knownvalue.StringExact("NotTakenOver")),
		statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "failed", 0, "message"),
			knownvalue.StringExact("Failed to apply the manifest (error: no ownership of the object in the member cluster; takeover is needed)")),
		statecheck.ExpectKnownValue(placementAddr, applyPath("clusters", 0, "failed", 0, "kind"), knownvalue.StringExact("Namespace")),
	)
}

// memberKeepsOwnNamespace places the hub namespace ns (team=a) on canary-east, which already has
// its own ns (team=z), with the apply_strategy strategy; once the hub reports what cond looks for
// (what), the state has checks and the member's namespace still has team=z.
func memberKeepsOwnNamespace(t *testing.T, ns, strategy, what string, cond func(*placementv1.PerClusterPlacementStatus) bool, checks ...statecheck.StateCheck) {
	t.Helper()
	acctest.Current(t)
	hubNamespace(t, ns)
	setMemberTeam(t, ns, "z")
	cfg := applyConfig(ns, strategy, false)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig:         func() { awaitCluster(t, ns, what, cond) },
				Config:            cfg,
				ConfigStateChecks: checks,
				Check: func(*terraform.State) error {
					if team, _ := memberTeam(t, ns); team != "z" {
						return fmt.Errorf("apply_strategy %s changed the member's own namespace: team %q on the member, want z", strategy, team)
					}
					return nil
				},
			},
		},
	})
}

// KubeFleet's validator refuses server_side_apply_config with another type, and wait_for_rollout
// cannot wait for what ReportDiff never reports: errors at validate, with the attribute path, before
// anything is created.
func TestAccPlacement_applyStrategyInvalid(t *testing.T) {
	acctest.Current(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: applyConfig("apply-invalid", `{
    type = "ClientSideApply"
    server_side_apply_config { force_conflicts = true }
  }`, false),
				PlanOnly:    true,
				ExpectError: acctest.WrappedRegexp(`apply_strategy.server_side_apply_config: serverSideApplyConfig is only valid for ServerSideApply strategy type`),
			},
			{
				Config:      applyConfig("apply-invalid", `{ type = "ReportDiff" }`, true),
				PlanOnly:    true,
				ExpectError: acctest.WrappedRegexp(`wait_for_rollout waits until the resources are Applied and Available on every picked cluster, which never happens with apply_strategy.type ReportDiff`),
			},
		},
	})
}
