package placement_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// fleet_managed_namespace end to end: the real CLI writes managed namespaces through the Fleet API
// (the local fleet's, over HTTPS, with the provider's Azure code path), the hub takes the namespace
// and its generated ClusterResourcePlacement, KubeFleet's real hub agent schedules it and canary-east's
// real member agent applies it on canary-east's own API server, where the test reads it back.

const (
	teamA = "fleet_managed_namespace.team_a"
	teamB = "fleet_managed_namespace.team_b"
)

// localFleetID is the local fleet's ARM ID, from the environment it exported.
func localFleetID() string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.ContainerService/fleets/%s",
		os.Getenv("ARM_SUBSCRIPTION_ID"), os.Getenv("FLEET_RESOURCE_GROUP_NAME"), os.Getenv("FLEET_NAME"))
}

// teamsConfig: team A on the canary and prod members (labels, a quota, no ingress, egress within the
// namespace; tolerations and labels as given), team B fixed on fixed.
func teamsConfig(labelsA, tolerationsA, fixed string) string {
	return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_managed_namespace" "team_a" {
  fleet_id      = %[1]q
  name          = "mns-team-a"
  location      = "eastus"
  labels        = %[2]s
  annotations   = { "example.com/owner" = "team-a" }
  delete_policy = "Delete"
  resource_quota {
    cpu_request  = "1"
    memory_limit = "2Gi"
  }
  network_policy {
    ingress = "DenyAll"
    egress  = "AllowSameNamespace"
  }
  placement {
    required_cluster_selector {
      label_expression {
        key      = "env"
        operator = "In"
        values   = ["canary", "prod"]
      }
    }
%[3]s
  }
}

resource "fleet_managed_namespace" "team_b" {
  fleet_id      = %[1]q
  name          = "mns-team-b"
  location      = "eastus"
  delete_policy = "Delete"
  placement {
    placement_type = "PickFixed"
    cluster_names  = %[4]s
  }
}
`, localFleetID(), labelsA, tolerationsA, fixed)
}

const gpuToleration = `    toleration {
      key    = "dedicated"
      value  = "gpu"
      effect = "NoSchedule"
    }`

func previewAt(addr, attr string, want knownvalue.Check) plancheck.PlanCheck {
	return plancheck.ExpectKnownValue(addr, tfjsonpath.New("preview").AtMapKey(attr), want)
}

func clusters(names ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(names))
	for i, n := range names {
		checks[i] = knownvalue.StringExact(n)
	}
	return knownvalue.ListExact(checks)
}

// placedAsPreviewed: after apply, placed_members is the preview's selection (as names, sorted).
func placedAsPreviewed(addrs ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		for _, addr := range addrs {
			rs, ok := s.RootModule().Resources[addr]
			if !ok {
				return fmt.Errorf("%s is not in the state", addr)
			}
			a := rs.Primary.Attributes
			n, _ := strconv.Atoi(a["preview.selected.#"])
			selected := map[string]bool{}
			for i := range n {
				selected[a[fmt.Sprintf("preview.selected.%d.cluster", i)]] = true
			}
			m, _ := strconv.Atoi(a["placed_members.#"])
			placed := map[string]bool{}
			for i := range m {
				placed[a[fmt.Sprintf("placed_members.%d", i)]] = true
			}
			if n == 0 || !reflect.DeepEqual(selected, placed) {
				return fmt.Errorf("%s: placed_members %v, the preview selected %v", addr, placed, selected)
			}
		}
		return nil
	}
}

// memberNamespace reads ns, its ResourceQuota and NetworkPolicy "default" from canary-east's own API
// server; found is false when the namespace is not there.
func memberNamespace(t *testing.T, ns string) (found bool, n corev1.Namespace, q corev1.ResourceQuota, np networkingv1.NetworkPolicy, err error) {
	t.Helper()
	c := acctest.MemberClient(t, applyMember)
	ctx := context.Background()
	if err = c.Get(ctx, client.ObjectKey{Name: ns}, &n); apierrors.IsNotFound(err) {
		return false, n, q, np, nil
	} else if err != nil {
		return false, n, q, np, err
	}
	if err = c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &q); err != nil {
		return true, n, q, np, err
	}
	err = c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &np)
	return true, n, q, np, err
}

// teamAOnMember checks what canary-east's API server has of team A: the namespace with its labels
// (wantLabels and the managed-by-ARM label) and annotation, the quota of the configuration, and the
// network policy it asks for: every pod selected, no ingress rule (DenyAll), one egress rule to the
// namespace's own pods (AllowSameNamespace). Labels are awaited: an update reaches the member with the
// hub agent's next resource snapshot.
func teamAOnMember(t *testing.T, wantLabels map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		want := map[string]string{"kubernetes.azure.com/managedByArm": "true", "kubernetes.io/metadata.name": "mns-team-a"}
		for k, v := range wantLabels {
			want[k] = v
		}
		var n corev1.Namespace
		var q corev1.ResourceQuota
		var np networkingv1.NetworkPolicy
		err := acctest.Eventually(2*time.Minute, "team A's labels on "+applyMember, func() (bool, string) {
			found, gotN, gotQ, gotNP, err := memberNamespace(t, "mns-team-a")
			if err != nil || !found {
				return false, fmt.Sprintf("found %t, %v", found, err)
			}
			n, q, np = gotN, gotQ, gotNP
			return reflect.DeepEqual(n.Labels, want), fmt.Sprintf("labels %v", n.Labels)
		})
		if err != nil {
			return err
		}
		if n.Annotations["example.com/owner"] != "team-a" {
			return fmt.Errorf("namespace annotations %v", n.Annotations)
		}
		wantHard := corev1.ResourceList{corev1.ResourceRequestsCPU: k8sresource.MustParse("1"), corev1.ResourceLimitsMemory: k8sresource.MustParse("2Gi")}
		if len(q.Spec.Hard) != len(wantHard) {
			return fmt.Errorf("quota hard %v, want %v", q.Spec.Hard, wantHard)
		}
		for k, v := range wantHard {
			if got, ok := q.Spec.Hard[k]; !ok || got.Cmp(v) != 0 {
				return fmt.Errorf("quota hard %v, want %v", q.Spec.Hard, wantHard)
			}
		}
		s := np.Spec
		samePods := []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}
		if len(s.PodSelector.MatchLabels)+len(s.PodSelector.MatchExpressions) != 0 ||
			!reflect.DeepEqual(s.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) ||
			len(s.Ingress) != 0 || len(s.Egress) != 1 || len(s.Egress[0].Ports) != 0 || !reflect.DeepEqual(s.Egress[0].To, samePods) {
			return fmt.Errorf("network policy spec %+v", s)
		}
		return nil
	}
}

// notOnMember checks canary-east, which team B's placement does not pick, has no namespace ns.
func notOnMember(t *testing.T, ns string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		found, _, _, _, err := memberNamespace(t, ns)
		if err != nil || found {
			return fmt.Errorf("namespace %s on %s, which its placement does not pick: found %t, %v", ns, applyMember, found, err)
		}
		return nil
	}
}

func TestAccManagedNamespace(t *testing.T) {
	acctest.Current(t)
	selectedA := []string{"canary-east", "prod-east-1", "prod-west-1"}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// A fixed member the hub does not have fails the plan at its path, before anything is written.
				Config:      teamsConfig(`{ team = "a" }`, "", `["prod-east-1", "nowhere-1"]`),
				PlanOnly:    true,
				ExpectError: acctest.WrappedRegexp(`placement.cluster_names\[1\]: "nowhere-1" is not a member of the fleet`),
			},
			{
				Config: teamsConfig(`{ team = "a" }`, "", `["prod-east-1"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(teamA, plancheck.ResourceActionCreate),
					previewAt(teamA, "selected_count", knownvalue.Int64Exact(3)),
					previewAt(teamA, "excluded_count", knownvalue.Int64Exact(2)),
					// staging-west is left out by its heartbeat once the fleet has run a while, by the selector before.
					plancheck.ExpectKnownValue(teamA, tfjsonpath.New("preview").AtMapKey("excluded_by_reason").AtMapKey("taint not tolerated"), knownvalue.Int64Exact(1)),
					previewAt(teamA, "excluded", excluded(map[string]string{"prod-east-2": taintReason,
						"staging-west": heartbeatReason[:len(heartbeatReason)-1] + `|^ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms$`})),
					previewAt(teamB, "selected_count", knownvalue.Int64Exact(1)),
					previewAt(teamB, "selected", knownvalue.ListExact([]knownvalue.Check{pick("prod-east-1", 0, "added")})),
					plancheck.ExpectKnownValue(teamA, tfjsonpath.New("objects").AtSliceIndex(1).AtMapKey("yaml"),
						knownvalue.StringExact("apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: default\n  namespace: mns-team-a\nspec:\n  hard:\n    limits.memory: 2Gi\n    requests.cpu: \"1\"\n")),
					plancheck.ExpectUnknownValue(teamA, tfjsonpath.New("placed_members")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(teamA, tfjsonpath.New("placed_members"), clusters(selectedA...)),
					statecheck.ExpectKnownValue(teamB, tfjsonpath.New("placed_members"), clusters("prod-east-1")),
					statecheck.ExpectKnownValue(teamA, tfjsonpath.New("provisioning_state"), knownvalue.StringExact("Succeeded")),
					statecheck.ExpectKnownValue(teamA, tfjsonpath.New("id"), knownvalue.StringExact(localFleetID()+"/managedNamespaces/mns-team-a")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					placedAsPreviewed(teamA, teamB),
					teamAOnMember(t, map[string]string{"team": "a"}),
					notOnMember(t, "mns-team-b"),
				),
			},
			{
				Config:          teamsConfig(`{ team = "a" }`, "", `["prod-east-1"]`),
				ResourceName:    teamA,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   localFleetID() + "/managedNamespaces/mns-team-a",
			},
			{
				// A label and a toleration added: an update in place; the tainted prod-east-2 joins.
				Config: teamsConfig(`{ team = "a", tier = "gold" }`, gpuToleration, `["prod-east-1"]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(teamA, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(teamB, plancheck.ResourceActionNoop),
					previewAt(teamA, "selected", knownvalue.ListExact([]knownvalue.Check{
						pick("canary-east", 0, "kept"), pick("prod-east-1", 0, "kept"), pick("prod-east-2", 0, "added"), pick("prod-west-1", 0, "kept"),
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(teamA, tfjsonpath.New("placed_members"), clusters("canary-east", "prod-east-1", "prod-east-2", "prod-west-1")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					placedAsPreviewed(teamA),
					teamAOnMember(t, map[string]string{"team": "a", "tier": "gold"}),
				),
			},
		},
		// delete_policy Delete: the namespace goes from the member too (awaited: the member agent
		// removes what its Work applied once the hub withdraws it).
		CheckDestroy: func(*terraform.State) error {
			return acctest.Eventually(2*time.Minute, "mns-team-a gone from "+applyMember, func() (bool, string) {
				found, n, _, _, err := memberNamespace(t, "mns-team-a")
				if err != nil {
					return false, err.Error()
				}
				return !found, fmt.Sprintf("still there (deleting since %v)", n.DeletionTimestamp)
			})
		},
	})
}
