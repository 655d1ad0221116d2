package staged_test

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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// stagedHub is the acceptance fleet's hub through the provider's own typed client, with the
// namespace ns the test places (created unless it exists).
func stagedHub(t *testing.T, ns string) (*hub.Client, *kube.Client) {
	t.Helper()
	acctest.NewHubClients(t).CreateNamespace(t, ns)
	kc := acctest.HubKube(t)
	return hub.New(kc), kc
}

// labelMember sets a label on a hub MemberCluster for the test's duration.
func labelMember(t *testing.T, kc *kube.Client, member, key, value string) {
	t.Helper()
	set := func(v any) {
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%s}}}`, key, jsonValue(v))
		if _, err := kc.Dynamic.Resource(hub.MemberClusterGVR).Patch(context.Background(), member, k8stypes.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	set(value)
	t.Cleanup(func() { set(nil) })
}

func jsonValue(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%q", v)
}

// externalPlacement is a fleet_placement named ns (and so addressed) of the hub namespace ns, whose
// rollout staged update runs drive (External).
func externalPlacement(ns string) string {
	return fmt.Sprintf(`
resource "fleet_placement" %[1]q {
  name = %[1]q
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = %[1]q
  }
  strategy {
    type = "External"
  }
}
`, ns)
}

// stagedRun is a fleet_staged_update_run named name (and so addressed) of the fleet_placement and
// fleet_staged_update_strategy of the configuration so addressed, with the further attributes extra.
func stagedRun(name, placement, strategy, extra string) string {
	return fmt.Sprintf(`
resource "fleet_staged_update_run" %[1]q {
  name                        = %[1]q
  placement_name              = fleet_placement.%[2]s.id
  staged_update_strategy_name = fleet_staged_update_strategy.%[3]s.id
  %[4]s
}
`, name, placement, strategy, extra)
}

// approvalStageStrategy is a fleet_staged_update_strategy named name (and so addressed) of one stage,
// "all", of every cluster, with a before-stage approval and the further stage attributes.
func approvalStageStrategy(name string, attrs ...string) string {
	extra := ""
	for _, a := range attrs {
		extra += "\n    " + a
	}
	return fmt.Sprintf(`
resource "fleet_staged_update_strategy" %[1]q {
  name = %[1]q
  stage {
    name = "all"%[2]s
    label_selector {}
    before_stage_task {
      type = "Approval"
    }
  }
}
`, name, extra)
}

var stagedConfigBase = acctest.ProviderConfig + externalPlacement("staged") + `

resource "fleet_staged_update_strategy" "rings" {
  name = "rings"
  stage {
    name = "canary"
    label_selector {
      match_labels = { env = "canary" }
    }
    after_stage_task {
      type      = "TimedWait"
      wait_time = "5s"
    }
  }
  stage {
    name              = "prod"
    sorting_label_key = "rollout-order"
    label_selector {
      match_labels = { env = "prod" }
    }
    after_stage_task {
      type = "Approval"
    }
  }
}

resource "fleet_staged_update_strategy" "overlap" {
  name = "overlap"
  stage {
    name = "prod"
    label_selector {
      match_labels = { env = "prod" }
    }
  }
  stage {
    name = "gold"
    label_selector {
      match_labels = { tier = "gold" }
    }
  }
  stage {
    name = "rest"
  }
}
`

// A staged rollout end to end on the real hub agent: an External placement (PickAll: the tainted
// prod-east-2 and the disconnected staging-west are not scheduled), a strategy with a TimedWait
// stage and an Approval stage ordered by an integer label, a run the plan previews and apply
// drives to Succeeded, a run KubeFleet refuses to initialize (the preview says why, in KubeFleet's
// words), and a second release of a newer resource snapshot.
func TestAccStagedUpdateRun(t *testing.T) {
	h, kc := stagedHub(t, "staged")
	// As integers prod-west-1 (2) comes before prod-east-1 (10); as strings it would not.
	labelMember(t, kc, "prod-west-1", "rollout-order", "2")
	labelMember(t, kc, "prod-east-1", "rollout-order", "10")

	run := func(name, extra string) string { return stagedRun(name, "staged", "rings", extra) }
	const release1 = "fleet_staged_update_run.release-1"
	stage := func(name string, clusters []string, after ...string) knownvalue.Check {
		return stagePreview(name, clusters, 1, nil, after)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// The strategy alone: its preview places every joined cluster, and says a run
				// scheduling prod-east-2 (no rollout-order label) would not start.
				Config: stagedConfigBase,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("fleet_staged_update_strategy.rings", tfjsonpath.New("preview").AtMapKey("stages"), knownvalue.ListExact([]knownvalue.Check{
						stage("canary", []string{"canary-east"}, "wait 5s"),
						stage("prod", []string{"prod-east-2", "prod-west-1", "prod-east-1"}, "approval"),
					})),
					plancheck.ExpectKnownValue("fleet_staged_update_strategy.rings", tfjsonpath.New("preview").AtMapKey("unstaged"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("staging-west")})),
					plancheck.ExpectKnownValue("fleet_staged_update_strategy.rings", tfjsonpath.New("preview").AtMapKey("problem"),
						knownvalue.StringRegexp(regexp.MustCompile("the sorting label `rollout-order:` on cluster `prod-east-2` is not valid"))),
				}},
			},
			{
				// The first release: previewed at plan, driven to Succeeded by apply.
				// v0.18.9 cuts no resource snapshot for an External placement: the run, naming no
				// index, snapshots the placement's resources itself (index 0).
				Config: stagedConfigBase + run("release-1", `approvals = ["prod"]
  wait_for  = "completed"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(release1, tfjsonpath.New("resource_snapshot_index"), knownvalue.Null()),
					plancheck.ExpectKnownValue(release1, tfjsonpath.New("state"), knownvalue.StringExact("Run")),
					plancheck.ExpectKnownValue(release1, tfjsonpath.New("preview"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"resource_snapshot_index": knownvalue.Null(),
						"stages": knownvalue.ListExact([]knownvalue.Check{
							stage("canary", []string{"canary-east"}, "wait 5s"),
							stage("prod", []string{"prod-west-1", "prod-east-1"}, "approval of ClusterApprovalRequest release-1-after-prod"),
						}),
						"deletion_count": knownvalue.Int64Exact(0), "deletion": knownvalue.Null(), "deletion_omitted": knownvalue.Int64Exact(0),
						"failure": knownvalue.Null(),
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(release1, tfjsonpath.New("status").AtMapKey("state"), knownvalue.StringExact("Succeeded")),
					statecheck.ExpectKnownValue(release1, tfjsonpath.New("status").AtMapKey("stages").AtSliceIndex(1).AtMapKey("succeeded_count"), knownvalue.Int64Exact(2)),
					statecheck.ExpectKnownValue(release1, tfjsonpath.New("status").AtMapKey("approvals_waiting"), knownvalue.Null()),
					statecheck.ExpectKnownValue(release1, tfjsonpath.New("status").AtMapKey("resource_snapshot_index_used"), knownvalue.StringExact("0")),
				},
				Check: func(*terraform.State) error { return bindingsAt(h, "staged", "staged-0-snapshot", 3) },
			},
			{
				// A run KubeFleet refuses: prod-east-1 and prod-west-1 are in two stages.
				Config: stagedConfigBase + run("release-1", `approvals = ["prod"]
  wait_for  = "completed"`) + `
resource "fleet_staged_update_run" "bad" {
  name                        = "bad"
  placement_name              = fleet_placement.staged.id
  staged_update_strategy_name = fleet_staged_update_strategy.overlap.id
  wait_for                    = "completed"
}
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("fleet_staged_update_run.bad", tfjsonpath.New("preview").AtMapKey("failure"),
						knownvalue.StringRegexp(regexp.MustCompile("^cannot continue the updateRun: failed to validate the updateRun: failed to process the request due to a client error: cluster `prod-(east|west)-1` appears in more than one stages"))),
				}},
				ExpectError: regexp.MustCompile(`(?s)Staged update run failed to initialize.*appears in more than\s+one stages`),
			},
			{
				// A second release, of a newer resource snapshot: a ConfigMap added to the namespace,
				// which the run snapshots as index 1.
				PreConfig: func() { newConfigMap(t, h, kc) },
				Config: stagedConfigBase + run("release-1", `approvals = ["prod"]
  wait_for  = "completed"`) + run("release-2", `approvals = ["prod"]
  wait_for  = "completed"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("fleet_staged_update_run.release-2", tfjsonpath.New("status").AtMapKey("state"), knownvalue.StringExact("Succeeded")),
					statecheck.ExpectKnownValue("fleet_staged_update_run.release-2", tfjsonpath.New("status").AtMapKey("resource_snapshot_index_used"), knownvalue.StringExact("1")),
				},
				Check: func(*terraform.State) error { return bindingsAt(h, "staged", "staged-1-snapshot", 3) },
			},
			{
				ResourceName: "fleet_staged_update_strategy.rings", ImportState: true, ImportStateId: "rings",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"preview", "timeouts"},
			},
			{
				ResourceName: "fleet_staged_update_run.release-2", ImportState: true, ImportStateId: "release-2",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"approvals", "wait_for", "preview", "timeouts", "status"},
			},
		},
	})
}

// newConfigMap adds a ConfigMap to the placed namespace and waits until a run naming no index
// gets a new snapshot of it. KubeFleet v0.18.9 delays a new snapshot until the resources' change
// is older than the hub agent's resource-changes-collection-duration (15 s) and the latest
// snapshot older than resource-snapshot-creation-minimum-interval (30 s), handing a run the latest
// snapshot meanwhile (pkg/utils/controller/resource_snapshot_resolver.go
// shouldCreateNewResourceSnapshotNow): initialize-only probe runs ask until one gets index 1.
func newConfigMap(t *testing.T, h *hub.Client, kc *kube.Client) {
	t.Helper()
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "staged", Name: "release-2"}, Data: map[string]string{"version": "2"}}
	if _, err := kc.Kubernetes.CoreV1().ConfigMaps("staged").Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	probes := 0
	err := acctest.Eventually(3*time.Minute, "a new resource snapshot of placement staged", func() (bool, string) {
		probes++
		name := fmt.Sprintf("probe-%d", probes)
		run := &placementv1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: placementv1.UpdateRunSpec{PlacementName: "staged", StagedUpdateStrategyName: "rings", State: placementv1.StateInitialize}}
		if _, err := h.CreateRun(ctx, run); err != nil {
			return false, err.Error()
		}
		defer func() { _ = h.DeleteRun(ctx, "", name) }()
		used := ""
		if err := acctest.Eventually(30*time.Second, "probe "+name+" initialized", func() (bool, string) {
			r, err := h.Run(ctx, "", name)
			if err != nil {
				return false, err.Error()
			}
			used = r.Status.ResourceSnapshotIndexUsed
			return used != "", "not initialized"
		}); err != nil {
			return false, err.Error()
		}
		return used == "1", "probe " + name + " got index " + used
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stagePreview checks one stage of a preview: its clusters in order, max_concurrency, the batches
// they make, and its before- and after-stage words.
func stagePreview(name string, clusters []string, maxConcurrency int, before, after []string) knownvalue.Check {
	strs := func(ss []string) knownvalue.Check {
		if len(ss) == 0 {
			return knownvalue.Null()
		}
		cs := make([]knownvalue.Check, len(ss))
		for i, c := range ss {
			cs[i] = knownvalue.StringExact(c)
		}
		return knownvalue.ListExact(cs)
	}
	var batches []knownvalue.Check
	for i := 0; i < len(clusters); i += maxConcurrency {
		batches = append(batches, strs(clusters[i:min(i+maxConcurrency, len(clusters))]))
	}
	var batchCheck knownvalue.Check = knownvalue.Null()
	if len(batches) > 0 {
		batchCheck = knownvalue.ListExact(batches)
	}
	if len(clusters) == 0 {
		maxConcurrency = 0
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"name": knownvalue.StringExact(name), "cluster_count": knownvalue.Int64Exact(int64(len(clusters))),
		"clusters": strs(clusters), "clusters_omitted": knownvalue.Int64Exact(0),
		"max_concurrency": knownvalue.Int64Exact(int64(maxConcurrency)), "batch_count": knownvalue.Int64Exact(int64(len(batches))),
		"batches": batchCheck, "before_stage": strs(before), "after_stage": strs(after),
	})
}

// bindingsAt checks that n of the placement's bindings are bound to the resource snapshot.
func bindingsAt(h *hub.Client, placement, snapshot string, n int) error {
	bs, err := h.Bindings(context.Background(), placement)
	if err != nil {
		return err
	}
	got := 0
	var all []string
	for _, b := range bs {
		all = append(all, fmt.Sprintf("%s: %s %s", b.Spec.TargetCluster, b.Spec.State, b.Spec.ResourceSnapshotName))
		if b.Spec.State == placementv1.BindingStateBound && b.Spec.ResourceSnapshotName == snapshot {
			got++
		}
	}
	if got != n {
		return fmt.Errorf("%d bindings bound to %s, want %d (bindings: %v)", got, snapshot, n, all)
	}
	return nil
}

var stagedBatchesConfig = acctest.ProviderConfig + externalPlacement("batched") + approvalStageStrategy("pairs", `max_concurrency = "2"`)

func batchRun(name, extra string) string { return stagedRun(name, "batched", "pairs", extra) }

// KubeFleet v0.18.9's spec.state and maxConcurrency end to end on the real hub agent: a run created
// with state = "Initialize" is initialized and updates nothing; state = "Run" (with its before-stage
// approval) drives it to Succeeded in the batches the preview showed (max_concurrency = 2 over three
// clusters: two start together, the third after them, as the clusters' Started times say); a second
// run is stopped while it waits for its approval and resumed to Succeeded.
func TestAccStagedUpdateRunStatesAndBatches(t *testing.T) {
	h, _ := stagedHub(t, "batched")
	const first, second = "fleet_staged_update_run.pairs-1", "fleet_staged_update_run.pairs-2"
	// canary-east, prod-east-1 and prod-west-1 are scheduled (prod-east-2 is tainted, staging-west disconnected).
	want := []string{"canary-east", "prod-east-1", "prod-west-1"}
	status := func(res, key string, v knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(res, tfjsonpath.New("status").AtMapKey(key), v)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: stagedBatchesConfig},
			{
				// The placement is scheduled: the plan previews the run, batches and all.
				PreConfig: func() { acctest.NewHubClients(t).WaitForBindings(t, "batched", len(want)) },
				Config: stagedBatchesConfig + batchRun("pairs-1", `state = "Initialize"
  wait_for = "completed"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(first, tfjsonpath.New("preview").AtMapKey("stages"), knownvalue.ListExact([]knownvalue.Check{
						stagePreview("all", want, 2, []string{"approval of ClusterApprovalRequest pairs-1-before-all"}, nil),
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					status(first, "state", knownvalue.StringExact("Initialized")),
					status(first, "approvals_waiting", knownvalue.Null()),
				},
				// Initialized and nothing started: no cluster of the stage has a Started condition,
				// and the controller made no approval request.
				Check: func(*terraform.State) error {
					run, err := h.Run(context.Background(), "", "pairs-1")
					if err != nil {
						return err
					}
					if run.Spec.State != placementv1.StateInitialize || len(run.Status.StagesStatus) != 1 {
						return fmt.Errorf("run: state %s, %d stages", run.Spec.State, len(run.Status.StagesStatus))
					}
					for _, c := range run.Status.StagesStatus[0].Clusters {
						if meta.FindStatusCondition(c.Conditions, string(placementv1.ClusterUpdatingConditionStarted)) != nil {
							return fmt.Errorf("cluster %s started in a run that was only initialized", c.ClusterName)
						}
					}
					reqs, err := h.ApprovalRequests(context.Background(), "", "pairs-1")
					if err != nil || len(reqs) != 0 {
						return fmt.Errorf("approval requests of an initialized run: %d (%v)", len(reqs), err)
					}
					return nil
				},
			},
			{
				// Run: an in-place update; apply approves the before-stage request and waits.
				Config: stagedBatchesConfig + batchRun("pairs-1", `state = "Run"
  approvals = ["before:all"]
  wait_for = "completed"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(first, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{status(first, "state", knownvalue.StringExact("Succeeded"))},
				Check:             func(*terraform.State) error { return startedInBatches(h, "pairs-1", [][]string{want[:2], want[2:]}) },
			},
			{
				// Back to Initialize is refused at plan, as KubeFleet's CRD refuses it.
				Config: stagedBatchesConfig + batchRun("pairs-1", `state = "Initialize"
  approvals = ["before:all"]
  wait_for = "completed"`),
				PlanOnly:    true,
				ExpectError: acctest.WrappedRegexp(`state from Run to Initialize`),
			},
			{
				// A second run, which waits for its before-stage approval ...
				Config: stagedBatchesConfig + batchRun("pairs-1", `state = "Run"
  approvals = ["before:all"]
  wait_for = "completed"`) + batchRun("pairs-2", `state = "Run"`),
				Check: func(*terraform.State) error {
					return acctest.Eventually(time.Minute, "approval request pairs-2-before-all", func() (bool, string) {
						reqs, err := h.ApprovalRequests(context.Background(), "", "pairs-2")
						if err != nil {
							return false, err.Error()
						}
						return len(reqs) == 1 && reqs[0].Name == "pairs-2-before-all", fmt.Sprintf("%d requests", len(reqs))
					})
				},
			},
			{
				// ... is stopped: an in-place update, waited for until Stopped.
				Config: stagedBatchesConfig + batchRun("pairs-1", `state = "Run"
  approvals = ["before:all"]
  wait_for = "completed"`) + batchRun("pairs-2", `state = "Stop"
  wait_for = "completed"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(second, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					status(second, "state", knownvalue.StringExact("Stopped")),
					status(second, "approvals_waiting", knownvalue.MapExact(map[string]knownvalue.Check{"pairs-2-before-all": knownvalue.StringExact("before:all")})),
				},
			},
			{
				// Resumed: Run with the approval, to Succeeded.
				Config: stagedBatchesConfig + batchRun("pairs-1", `state = "Run"
  approvals = ["before:all"]
  wait_for = "completed"`) + batchRun("pairs-2", `state = "Run"
  approvals = ["all"]
  wait_for = "completed"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(second, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{status(second, "state", knownvalue.StringExact("Succeeded"))},
			},
		},
	})
}

// startedInBatches checks the clusters' Started and Succeeded times in the run's first stage
// against the preview's batches: every cluster of a batch started before any of them finished
// (together, or a reconcile later when its binding update conflicted: v0.18.9
// pkg/controllers/updaterun/execution.go counts it as updating and retries it), and no cluster of
// the next batch started before one of this batch had finished (the window is full until then).
func startedInBatches(h *hub.Client, run string, batches [][]string) error {
	r, err := h.Run(context.Background(), "", run)
	if err != nil {
		return err
	}
	started, finished := map[string]time.Time{}, map[string]time.Time{}
	for _, c := range r.Status.StagesStatus[0].Clusters {
		if s := meta.FindStatusCondition(c.Conditions, string(placementv1.ClusterUpdatingConditionStarted)); s != nil {
			started[c.ClusterName] = s.LastTransitionTime.Time
		}
		if s := meta.FindStatusCondition(c.Conditions, string(placementv1.ClusterUpdatingConditionSucceeded)); s != nil {
			finished[c.ClusterName] = s.LastTransitionTime.Time
		}
	}
	for i, b := range batches {
		var firstDone time.Time
		for _, c := range b {
			if _, ok := started[c]; !ok {
				return fmt.Errorf("cluster %s has no Started condition (started: %v)", c, started)
			}
			if f, ok := finished[c]; !ok {
				return fmt.Errorf("cluster %s has no Succeeded condition", c)
			} else if firstDone.IsZero() || f.Before(firstDone) {
				firstDone = f
			}
		}
		for _, c := range b {
			if started[c].After(firstDone) {
				return fmt.Errorf("batch %d: %s started at %s, after a cluster of its batch finished at %s (started: %v)", i+1, c, started[c], firstDone, started)
			}
		}
		if i+1 < len(batches) {
			for _, c := range batches[i+1] {
				if started[c].Before(firstDone) {
					return fmt.Errorf("batch %d: %s started at %s, before any cluster of batch %d finished (%s) (started: %v)", i+2, c, started[c], i+1, firstDone, started)
				}
			}
		}
	}
	return nil
}

const stagedNamespacedConfig = acctest.ProviderConfig + `
resource "fleet_staged_update_strategy" "ns" {
  name      = "ns-rings"
  namespace = "staged-apps"
  stage {
    name = "canary"
    label_selector {
      match_labels = { env = "canary" }
    }
  }
  stage {
    name            = "prod"
    max_concurrency = "100%"
    label_selector {
      match_labels = { env = "prod" }
    }
    after_stage_task {
      type = "Approval"
    }
  }
}

resource "fleet_staged_update_run" "ns" {
  name                        = "ns-1"
  namespace                   = "staged-apps"
  placement_name              = "app"
  staged_update_strategy_name = fleet_staged_update_strategy.ns.name
  approvals                   = ["prod"]
  wait_for                    = "completed"
}
`

// The namespaced scope: a StagedUpdateStrategy and a StagedUpdateRun of a ResourcePlacement (created
// on the hub directly), previewed and driven to Succeeded by the real hub agent.
func TestAccStagedUpdateRunNamespaced(t *testing.T) {
	h, kc := stagedHub(t, "staged-apps")
	ctx := context.Background()
	// canary-east runs KubeFleet's real member agent, which applies the ConfigMap into a namespace
	// its API server must already have (a ResourcePlacement places no namespace).
	acctest.MemberNamespace(t, "canary-east", "staged-apps")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "staged-apps", Name: "settings"}, Data: map[string]string{"v": "1"}}
	if _, err := kc.Kubernetes.CoreV1().ConfigMaps("staged-apps").Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	rp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "placement.kubernetes-fleet.io/v1", "kind": "ResourcePlacement",
		"metadata": map[string]any{"name": "app", "namespace": "staged-apps"},
		"spec": map[string]any{
			"resourceSelectors": []any{map[string]any{"group": "", "version": "v1", "kind": "ConfigMap", "name": "settings"}},
			"policy":            map[string]any{"placementType": "PickAll"},
			"strategy":          map[string]any{"type": "External"},
		},
	}}
	if _, err := kc.Dynamic.Resource(hub.ResourcePlacementGVR).Namespace("staged-apps").Create(ctx, rp, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Dynamic.Resource(hub.ResourcePlacementGVR).Namespace("staged-apps").Delete(context.Background(), "app", metav1.DeleteOptions{})
	})
	if err := acctest.Eventually(2*time.Minute, "ResourcePlacement staged-apps/app scheduled", func() (bool, string) {
		in, err := h.RunInputs(ctx, "staged-apps", "app", "none")
		if err != nil {
			return false, err.Error()
		}
		return len(in.PolicySnapshots) == 1 && len(in.Bindings) == 3, fmt.Sprintf("%d policy snapshots, %d bindings", len(in.PolicySnapshots), len(in.Bindings))
	}); err != nil {
		t.Fatal(err)
	}
	const run = "fleet_staged_update_run.ns"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: stagedNamespacedConfig,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(run, tfjsonpath.New("id"), knownvalue.StringExact("staged-apps/ns-1")),
					statecheck.ExpectKnownValue(run, tfjsonpath.New("preview").AtMapKey("stages"), knownvalue.ListExact([]knownvalue.Check{
						stagePreview("canary", []string{"canary-east"}, 1, nil, nil),
						stagePreview("prod", []string{"prod-east-1", "prod-west-1"}, 2, nil, []string{"approval of ApprovalRequest staged-apps/ns-1-after-prod"}),
					})),
					statecheck.ExpectKnownValue(run, tfjsonpath.New("status").AtMapKey("state"), knownvalue.StringExact("Succeeded")),
				},
				Check: func(*terraform.State) error {
					r, err := h.Run(ctx, "staged-apps", "ns-1")
					if err != nil {
						return err
					}
					if r.Kind != "StagedUpdateRun" && r.Kind != "" {
						return fmt.Errorf("kind %s", r.Kind)
					}
					return nil
				},
			},
			{
				ResourceName: "fleet_staged_update_strategy.ns", ImportState: true, ImportStateId: "staged-apps/ns-rings",
				ImportStateVerify: true, ImportStateVerifyIgnore: []string{"preview", "timeouts"},
			},
		},
	})
}

// A run naming a resource snapshot index its External placement does not have fails the plan with
// KubeFleet's refusal and the fix, and nothing is created: v0.18.9 takes no snapshot of an External
// placement until a run does, so the run would fail at once and for good. Without the index the
// same run is created and snapshots the resources itself (index 0).
func TestAccStagedUpdateRunMissingSnapshotIndex(t *testing.T) {
	h, _ := stagedHub(t, "snapidx")
	base := acctest.ProviderConfig + externalPlacement("snapidx") + approvalStageStrategy("snapidx-all")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: base},
			{
				Config: base + stagedRun("pinned", "snapidx", "snapidx-all", `resource_snapshot_index = "0"
  state                   = "Initialize"`),
				PlanOnly: true,
				ExpectError: acctest.WrappedRegexp(`(?s)KubeFleet will refuse the staged update run.*no resourceSnapshots with index ` +
					"`0`" + ` found for placement ` + "`/snapidx`" + `.*it has none yet.*Leave resource_snapshot_index out`),
			},
			{
				PreConfig: func() {
					if _, err := h.Run(context.Background(), "", "pinned"); !apierrors.IsNotFound(err) {
						t.Errorf("run pinned after the failed plan: %v, want not found", err)
					}
				},
				Config: base + stagedRun("pinned", "snapidx", "snapidx-all", `state    = "Initialize"
  wait_for = "completed"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("fleet_staged_update_run.pinned", tfjsonpath.New("status").AtMapKey("resource_snapshot_index_used"), knownvalue.StringExact("0")),
				},
			},
		},
	})
}
