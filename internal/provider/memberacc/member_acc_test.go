// Package memberacc holds the acceptance tests of fleet_member (groups and
// labels set from Terraform, reaching the hub) and of re-running an update
// run with `triggers`, against a local fleet of their own.
package memberacc

import (
	"context"
	"fmt"
	"maps"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

func TestMain(m *testing.M) {
	acctest.MainPollingFast(m, "internal/provider/memberacc/testdata/fleet.yaml")
}

// hub reads the local fleet's hub directly.
func member(group string) string {
	return fmt.Sprintf(`
resource "fleet_member" "spare" {
  name                = "spare-1"
  cluster_resource_id = "/subscriptions/00000000-0000-0000-0000-000000000003/resourceGroups/rg-members/providers/Microsoft.ContainerService/managedClusters/spare-1"
  group               = %q
  labels              = { ring = "2", team = "payments" }
}
`, group)
}

var strategyAndRun = `
resource "fleet_update_strategy" "s" {
  name   = "rings"
  stage {
    name = "first"
    group {
      name = "canary"
    }
  }
  stage {
    name = "second"
    group {
      name = "ring2"
    }
  }
}

resource "fleet_update_run" "r" {
  name     = "rings-run"
  wait_for = "completed"
` + acctest.StagesOf("fleet_update_strategy.s") + `
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
  %s
}

data "fleet_update_run" "r" {
  name       = fleet_update_run.r.name
  depends_on = [fleet_update_run.r]
}
`

// oneRing: a strategy and a run of one stage of group canary that depend on
// the member, so their previews are planned after its group change.
var oneRing = `
resource "fleet_update_strategy" "s" {
  name       = "rings"
  depends_on = [fleet_member.spare]
  stage {
    name = "first"
    group {
      name = "canary"
    }
  }
}

resource "fleet_update_run" "r" {
  name       = "rings-run"
  wait_for   = "completed"
  triggers   = { run = "3" }
  depends_on = [fleet_member.spare]
` + acctest.StagesOf("fleet_update_strategy.s") + `
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
}
`

// TestAccMember_groupsFromTerraformAndReRun: fleet_member joins spare-1 in
// group ring2 with labels (the hub's MemberCluster gets them); a strategy and
// run planned after it show spare-1 in ring2 and the region's newest node
// image from AKS's list (202512.01.0, on no member); a run that skipped
// canary-1 ends Completed; changing its triggers re-runs it, and the plan's
// preview says canary-1 is upgraded now and spare-1 is already there;
// moving spare-1 to group canary shows in the plan's strategy and run
// previews that depend on the member, and the run then holds both members;
// destroying the member removes its MemberCluster.
func TestAccMember_groupsFromTerraformAndReRun(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	h := acctest.HubClient(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			err := h.Get(context.Background(), client.ObjectKey{Name: "spare-1"}, &clusterv1.MemberCluster{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("MemberCluster spare-1 after destroy: %v, want NotFound", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: member("ring2"),
				Check: func(*terraform.State) error {
					var mc clusterv1.MemberCluster
					if err := h.Get(context.Background(), client.ObjectKey{Name: "spare-1"}, &mc); err != nil {
						return fmt.Errorf("MemberCluster spare-1: %w", err)
					}
					if mc.Labels["ring"] != "2" || mc.Labels["team"] != "payments" || mc.Labels[localfleet.LabelLocation] != "eastus" {
						return fmt.Errorf("MemberCluster spare-1 labels %v: want ring=2, team=payments and Azure's", mc.Labels)
					}
					if mc.GetAgentStatus(clusterv1.MemberAgent) == nil {
						return fmt.Errorf("MemberCluster spare-1 has no member agent status: its agent did not join")
					}
					return nil
				},
			},
			{
				ResourceName: "fleet_member.spare", ImportState: true, ImportStateVerify: true,
				ImportStateId: "/subscriptions/00000000-0000-0000-0000-000000000003/resourceGroups/rg-members/providers/Microsoft.ContainerService/fleets/members/members/spare-1",
			},
			{
				Config: member("ring2") + fmt.Sprintf(strategyAndRun, `skip {
    type = "Member"
    name = "canary-1"
  }
  triggers = { run = "1" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("preview", "stages", 1, "groups", 0, "members"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("spare-1")})),
					plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 1, "groups", 0, "members", 0, "name"), knownvalue.StringExact("spare-1")),
					plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 1, "groups", 0, "members", 0, "target_node_image_versions", "system"),
						knownvalue.StringExact("AKSUbuntu-2204gen2containerd-202512.01.0")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("Completed")),
					statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "stages", 0, "groups", 0, "members", 0, "state"), knownvalue.StringExact("Skipped")),
					statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "stages", 1, "groups", 0, "members", 0, "state"), knownvalue.StringExact("Completed")),
					statecheck.ExpectKnownValue("data.fleet_update_run.r", acctest.Path("remaining_member_count"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue("data.fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("Completed")),
				},
			},
			{
				// Re-run: a Completed run cannot be started again; new triggers replace it.
				Config: member("ring2") + fmt.Sprintf(strategyAndRun, `triggers = { run = "2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("fleet_update_run.r", plancheck.ResourceActionReplace),
					plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "groups", 0, "members", 0, "action"), knownvalue.StringExact("upgrade")),
					plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 1, "groups", 0, "members", 0, "action"), knownvalue.StringExact("skip")),
					plancheck.ExpectUnknownValue("fleet_update_run.r", acctest.Path("status")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("Completed")),
					statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "stages", 0, "groups", 0, "members", 0, "state"), knownvalue.StringExact("Completed")),
				},
			},
			{
				// A group change in the same plan: previews planned after the member show it.
				Config: member("canary") + oneRing,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("fleet_member.spare", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("preview", "stages", 0, "groups", 0, "members"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("canary-1"), knownvalue.StringExact("spare-1")})),
					plancheck.ExpectResourceAction("fleet_update_run.r", plancheck.ResourceActionReplace),
					plancheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("preview", "stages", 0, "groups", 0, "member_count"), knownvalue.Int64Exact(2)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					// Both already run 1.33.1 and the newest image: the run skips them.
					statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "state"), knownvalue.StringExact("Skipped")),
					statecheck.ExpectKnownValue("fleet_update_run.r", acctest.Path("status", "stages", 0, "groups", 0, "members"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue("fleet_update_strategy.s", acctest.Path("preview", "stages", 0, "groups", 0, "member_count"), knownvalue.Int64Exact(2)),
				},
			},
		},
	})
}

// memberWithLabels is spare-1 in group ring2 with labels set to labels, or unset when it is "".
func memberWithLabels(labels string) string {
	if labels != "" {
		labels = "labels = " + labels
	}
	return fmt.Sprintf(`
resource "fleet_member" "spare" {
  name                = "spare-1"
  cluster_resource_id = "/subscriptions/00000000-0000-0000-0000-000000000003/resourceGroups/rg-members/providers/Microsoft.ContainerService/managedClusters/spare-1"
  group               = "ring2"
  %s
  timeouts {
    create = "10m"
  }
}
`, labels)
}

// TestAccMember_labelsKeptUnlessConfigured: unset, labels set outside Terraform stay and show in
// state with an empty plan; set, they are the member's labels exactly; removed from the
// configuration, they stay on the member; `labels = {}` removes them.
func TestAccMember_labelsKeptUnlessConfigured(t *testing.T) {
	fleet, err := fleetapi.ParseFleetID("/subscriptions/00000000-0000-0000-0000-000000000003/resourceGroups/rg-members/providers/Microsoft.ContainerService/fleets/members")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	apiLabels := func(want map[string]string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			m, err := acctest.FleetAPI(t).GetMember(ctx, fleet, "spare-1")
			if err != nil {
				return err
			}
			if !maps.Equal(m.Properties.Labels, want) {
				return fmt.Errorf("spare-1's labels in the Fleet API %v, want %v", m.Properties.Labels, want)
			}
			return nil
		}
	}
	labels := func(kv ...string) knownvalue.Check {
		m := map[string]knownvalue.Check{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = knownvalue.StringExact(kv[i+1])
		}
		return knownvalue.MapExact(m)
	}
	outside := map[string]string{"team": "payments", "cost-center": "42"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            memberWithLabels(""),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("fleet_member.spare", acctest.Path("labels"), knownvalue.Null())},
			},
			{
				// Labelled outside Terraform (az fleet member update --labels).
				PreConfig: func() {
					m, err := acctest.FleetAPI(t).GetMember(ctx, fleet, "spare-1")
					if err != nil {
						t.Fatal(err)
					}
					m.Properties.Labels = outside
					p, err := acctest.FleetAPI(t).BeginCreateOrUpdateMember(ctx, fleet, "spare-1", fleetapi.FleetMember{Properties: m.Properties}, nil)
					if _, err := shared.PollDone(ctx, p, err); err != nil {
						t.Fatal(err)
					}
				},
				Config:            memberWithLabels(""),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("fleet_member.spare", acctest.Path("labels"), labels("team", "payments", "cost-center", "42"))},
				Check:             apiLabels(outside),
			},
			{
				Config:           memberWithLabels(`{ ring = "2" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("fleet_member.spare", plancheck.ResourceActionUpdate)}},
				Check:            apiLabels(map[string]string{"ring": "2"}),
			},
			{
				// Removed from the configuration: kept on the member.
				Config:            memberWithLabels(""),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("fleet_member.spare", acctest.Path("labels"), labels("ring", "2"))},
				Check:             apiLabels(map[string]string{"ring": "2"}),
			},
			{
				Config:            memberWithLabels(`{}`),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("fleet_member.spare", plancheck.ResourceActionUpdate)}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue("fleet_member.spare", acctest.Path("labels"), labels())},
				Check:             apiLabels(map[string]string{}),
			},
		},
	})
}
