package disruption_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/disruption"
)

// The acceptance tests run against canary-east's own kube-apiserver (Karpenter v1.14.1's CRDs): its
// seeded NodePool "default" has 10 nodes, default-0 NotReady, NodeClaims default-0/1/2 created
// 1h/200h/700h before the fleet started, expireAfter 720h and the server's default disruption block.
// They share that NodePool, so none runs in parallel; each gives the fields back on destroy and
// checks it.

const npAddr = "fleet_nodepool_disruption.test"

// Business hours of Monday 2026-11-23 (UTC), inside and outside the freeze window.
var (
	npMondayMorning = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	npMondayEvening = time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
)

// npClock is the provider's clock in a test: set between steps (terraform-provider-time's pattern).
type npClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *npClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *npClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func npFactories(c *npClock) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"fleet": provider.NewServer("test", provider.WithClock(c.Now)),
	}
}

// npTest runs steps with the provider's clock at now; after destroy, pool on canary-east (kc) has
// none of this provider's fields left.
func npTest(t *testing.T, kc *kube.Client, pool string, now time.Time, steps ...resource.TestStep) {
	t.Helper()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: npFactories(&npClock{now: now}),
		CheckDestroy:             npExpectReleased(kc, pool),
		Steps:                    steps,
	})
}

func npConfig(body string) string {
	return "provider \"fleet\" {}\n\nresource \"fleet_nodepool_disruption\" \"test\" {\n" + body + "\n}\n"
}

// npMember is a client of canary-east's API server for setting up and checking what the provider did.
func npMember(t *testing.T) *kube.Client {
	t.Helper()
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	b, err := os.ReadFile(filepath.Join(acctest.Current(t).Dir, "member-canary-east.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := kube.FromKubeconfig(b)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kube.NewClient(cfg, "fleet-disruption-acctest")
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

// npReason checks one preview reason.
func npReason(reason string, allowed int64, unbounded bool, active ...int64) knownvalue.Check {
	budgets := []knownvalue.Check{}
	for _, a := range active {
		budgets = append(budgets, knownvalue.Int64Exact(a))
	}
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"reason": knownvalue.StringExact(reason), "allowed": knownvalue.Int64Exact(allowed),
		"unbounded": knownvalue.Bool(unbounded), "active_budgets": knownvalue.ListExact(budgets),
	})
}

// npAllReasons checks Empty, Underutilized and Drifted (the v1.14.1 CRD adds none) alike.
func npAllReasons(allowed int64, active ...int64) knownvalue.Check {
	return knownvalue.ListExact([]knownvalue.Check{
		npReason("Empty", allowed, false, active...),
		npReason("Underutilized", allowed, false, active...),
		npReason("Drifted", allowed, false, active...),
	})
}

func npWindow(budget int64, opens, closes string) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"budget": knownvalue.Int64Exact(budget), "opens_at": knownvalue.StringExact(opens), "closes_at": knownvalue.StringExact(closes),
	})
}

// npWarning checks that some string of a list (the preview's warnings) matches re.
type npWarning string

func (w npWarning) CheckValue(v any) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("expected a list, got %T", v)
	}
	for _, e := range list {
		if s, ok := e.(string); ok && regexp.MustCompile(string(w)).MatchString(s) {
			return nil
		}
	}
	return fmt.Errorf("no warning matches %q in %q", string(w), list)
}

func (w npWarning) String() string { return "a warning matching " + string(w) }

// npNodePool reads a NodePool.
func npNodePool(kc *kube.Client, name string) (*unstructured.Unstructured, error) {
	return kc.Dynamic.Resource(disruption.NodePoolGVR).Get(context.Background(), name, metav1.GetOptions{})
}

// npExpectField checks one field of the NodePool on the cluster (nil: absent).
func npExpectField(kc *kube.Client, pool string, want any, field ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		np, err := npNodePool(kc, pool)
		if err != nil {
			return err
		}
		got, ok, err := unstructured.NestedFieldNoCopy(np.Object, field...)
		if err != nil {
			return err
		}
		if !ok {
			got = nil
		}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("NodePool %s %v = %#v, want %#v", pool, field, got, want)
		}
		return nil
	}
}

// npOwnedByProvider lists the fields this provider's apply owns on the NodePool.
func npOwnedByProvider(kc *kube.Client, pool string) ([][]string, error) {
	np, err := npNodePool(kc, pool)
	if err != nil {
		return nil, err
	}
	var owned [][]string
	for _, p := range disruption.NpOwnedPaths {
		if slices.ContainsFunc(disruption.FieldOwners(np, p), disruption.FieldOwner.Ours) {
			owned = append(owned, p)
		}
	}
	return owned, nil
}

// npOwnedBy lists the fields the named manager's apply owns on the NodePool.
func npOwnedBy(kc *kube.Client, pool, manager string) ([][]string, error) {
	np, err := npNodePool(kc, pool)
	if err != nil {
		return nil, err
	}
	var owned [][]string
	for _, p := range disruption.NpOwnedPaths {
		if slices.ContainsFunc(disruption.FieldOwners(np, p), func(o disruption.FieldOwner) bool { return o.AppliedBy(manager) }) {
			owned = append(owned, p)
		}
	}
	return owned, nil
}

// npExpectOwnedBy checks exactly which fields the manager's apply owns.
func npExpectOwnedBy(kc *kube.Client, pool, manager string, want ...[]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		owned, err := npOwnedBy(kc, pool, manager)
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(owned, want) && (len(owned) > 0 || len(want) > 0) {
			return fmt.Errorf("NodePool %s: %q applies %v, want %v", pool, manager, owned, want)
		}
		return nil
	}
}

// npExpectReleased is the destroy check: the NodePool is still there, this provider's apply owns
// none of its fields, and they are back to the API server's defaults.
func npExpectReleased(kc *kube.Client, pool string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		owned, err := npOwnedByProvider(kc, pool)
		if err != nil {
			return fmt.Errorf("NodePool %s after destroy: %w", pool, err)
		}
		if len(owned) > 0 {
			return fmt.Errorf("NodePool %s: terraform-provider-fleet still applies %v after destroy", pool, owned)
		}
		return resource.ComposeAggregateTestCheckFunc(
			npExpectField(kc, pool, map[string]any{
				"budgets":             []any{map[string]any{"nodes": "10%"}},
				"consolidateAfter":    "0s",
				"consolidationPolicy": "WhenEmptyOrUnderutilized",
			}, "spec", "disruption"),
			npExpectField(kc, pool, "720h", disruption.NpPathExpireAfter...),
			npExpectField(kc, pool, nil, disruption.NpPathTerminationGrace...),
			npExpectField(kc, pool, nil, disruption.NpPathDoNotDisrupt...),
		)(s)
	}
}

// A business-hours freeze: no disruption 09:00-17:00 UTC on weekdays, 20% otherwise. Inside the
// window every reason allows 0; outside, 20% of 10 nodes (2) minus the NotReady one. The preview is
// computed at plan with the provider's clock and kept while the configuration does not change.
func TestAccNodePoolDisruption_businessHoursFreeze(t *testing.T) {
	kc := npMember(t)
	clock := &npClock{now: npMondayMorning}
	config := npConfig(`
  cluster   = "canary-east"
  node_pool = "default"
  budget {
    nodes    = "0"
    schedule = "0 9 * * 1-5"
    duration = "8h"
  }
  budget {
    nodes = "20%"
  }`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: npFactories(clock),
		CheckDestroy:             npExpectReleased(kc, "default"),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(npAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "nodes"), knownvalue.Int64Exact(10)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "disrupting"), knownvalue.Int64Exact(1)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "reasons"), npAllReasons(0, 0, 1)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "windows"), knownvalue.ListExact([]knownvalue.Check{
						npWindow(0, "2026-11-23T09:00:00Z", "2026-11-23T17:00:00Z"),
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(npAddr, acctest.Path("id"), knownvalue.StringExact("canary-east/default")),
					statecheck.ExpectKnownValue(npAddr, acctest.Path("preview", "reasons"), npAllReasons(0, 0, 1)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					npExpectField(kc, "default", []any{
						map[string]any{"nodes": "0", "schedule": "0 9 * * 1-5", "duration": "8h"},
						map[string]any{"nodes": "20%"},
					}, disruption.NpPathBudgets...),
					// The rest of the NodePool is untouched.
					npExpectField(kc, "default", "AKSNodeClass", "spec", "template", "spec", "nodeClassRef", "kind"),
					npExpectField(kc, "default", "0s", disruption.NpPathConsolidateAfter...),
				),
			},
			{
				// The clock moves past the window, the configuration does not: the plan is empty and
				// the preview stays as planned.
				PreConfig: func() { clock.Set(npMondayEvening) },
				Config:    config,
				PlanOnly:  true,
			},
			{
				// Re-created in the evening: the freeze is inactive, the 20% budget limits.
				Config: config,
				Taint:  []string{npAddr},
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(npAddr, plancheck.ResourceActionReplace),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "reasons"), npAllReasons(1, 1)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "windows"), knownvalue.ListExact([]knownvalue.Check{
						npWindow(0, "2026-11-24T09:00:00Z", "2026-11-24T17:00:00Z"),
					})),
				}},
			},
			{
				// Import finds the fields this provider owns, and previews at the same clock.
				ResourceName:      npAddr,
				ImportState:       true,
				ImportStateId:     "canary-east/default",
				ImportStateVerify: true,
			},
		},
	})
}

// Budgets limited to some reasons: Drifted frozen, Empty at 50%, Underutilized limited by nothing.
func TestAccNodePoolDisruption_reasons(t *testing.T) {
	kc := npMember(t)
	npTest(t, kc, "default", npMondayMorning, resource.TestStep{
		Config: npConfig(`
  cluster   = "canary-east"
  node_pool = "default"
  budget {
    nodes   = "0"
    reasons = ["Drifted"]
  }
  budget {
    nodes   = "50%"
    reasons = ["Empty"]
  }
  budget {
    nodes   = "3"
    reasons = []
  }`),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "reasons"), knownvalue.ListExact([]knownvalue.Check{
				npReason("Empty", 4, false, 1),     // ceil(50% of 10) - 1 NotReady
				npReason("Underutilized", 9, true), // no budget applies: every node but the NotReady one
				npReason("Drifted", 0, false, 0),   // frozen
			})),
			plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "warnings"), npWarning(`no budget is active now for Underutilized`)),
			plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "warnings"), npWarning(`budget 2: reasons is an empty list: the budget applies to no reason`)),
		}},
		Check: npExpectField(kc, "default", []any{
			map[string]any{"nodes": "0", "reasons": []any{"Drifted"}},
			map[string]any{"nodes": "50%", "reasons": []any{"Empty"}},
			map[string]any{"nodes": "3", "reasons": []any{}}, // [] reaches the cluster, not null
		}, disruption.NpPathBudgets...),
	})
}

// Nodes already disrupting use up every reason's budget: a NotReady node and one being deleted
// (finalizer + delete) on a NodePool of five.
func TestAccNodePoolDisruption_disruptingNodes(t *testing.T) {
	kc := npMember(t)
	const pool = "disruption-acctest"
	npCreateNodePool(t, kc, pool, 5, 0, 4)
	npTest(t, kc, pool, npMondayMorning, resource.TestStep{
		Config: npConfig(`
  cluster   = "canary-east"
  node_pool = "` + pool + `"
  budget {
    nodes = "60%"
  }`),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "nodes"), knownvalue.Int64Exact(5)),
			plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "disrupting"), knownvalue.Int64Exact(2)),
			plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "reasons"), npAllReasons(1, 0)), // ceil(60% of 5) - 2
			plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "expiring_nodes"), knownvalue.ListSizeExact(0)),
		}},
	})
}

// With no budget block the preview uses the NodePool's own (the server default, 10%) and state
// holds no budget; nodes expiring within 24 hours are listed (default-2, 700h old, expireAfter 720h);
// changing expire_after warns that every node drifts.
func TestAccNodePoolDisruption_expiryAndTemplateDrift(t *testing.T) {
	kc := npMember(t)
	nc, err := kc.Dynamic.Resource(disruption.NodeClaimGVR).Get(context.Background(), "default-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expires := nc.GetCreationTimestamp().Add(720 * time.Hour).UTC().Format(time.RFC3339)
	npTest(t, kc, "default", time.Now().UTC().Truncate(time.Second),
		resource.TestStep{
			Config: npConfig(`
  cluster              = "canary-east"
  node_pool            = "default"
  consolidation_policy = "WhenEmpty"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "reasons"), npAllReasons(0, 0)), // ceil(10% of 10) - 1
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "expiring_nodes"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"node": knownvalue.StringExact("default-2"), "expires_at": knownvalue.StringExact(expires),
					}),
				})),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "windows"), knownvalue.ListSizeExact(0)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				// No budget block: Terraform stores an absent list block as an empty list.
				statecheck.ExpectKnownValue(npAddr, acctest.Path("budget"), knownvalue.ListSizeExact(0)),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				npExpectField(kc, "default", "WhenEmpty", disruption.NpPathConsolidationPolicy...),
				npExpectField(kc, "default", []any{map[string]any{"nodes": "10%"}}, disruption.NpPathBudgets...),
			),
		},
		resource.TestStep{
			Config: npConfig(`
  cluster              = "canary-east"
  node_pool            = "default"
  consolidation_policy = "WhenEmpty"
  expire_after         = "168h"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(npAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "warnings"),
					npWarning(`changing expireAfter from 720h0m0s to 168h0m0s changes the NodePool's template hash \([0-9]+ to [0-9]+\): all 10 node\(s\) become Drifted`)),
			}},
			Check: npExpectField(kc, "default", "168h", disruption.NpPathExpireAfter...),
		},
	)
}

// Out-of-band edits: the same durations written another way are no drift; a changed budget is, and
// apply takes the field back from the imperative editor. Dropping consolidate_after hands it back
// to its default (the v1.14 CRD requires it in spec.disruption).
func TestAccNodePoolDisruption_outOfBandEdits(t *testing.T) {
	kc := npMember(t)
	full := npConfig(`
  cluster                  = "canary-east"
  node_pool                = "default"
  consolidate_after        = "5m"
  expire_after             = "720h"
  termination_grace_period = "1h"
  budget {
    nodes    = "1"
    schedule = "@daily"
    duration = "8h"
  }`)
	npTest(t, kc, "default", npMondayMorning,
		resource.TestStep{
			Config: full,
			Check:  npExpectField(kc, "default", "1h", disruption.NpPathTerminationGrace...),
		},
		resource.TestStep{
			PreConfig: func() {
				npPatch(t, kc, "default", `{"spec":{"disruption":{"consolidateAfter":"300s",
					"budgets":[{"nodes":"1","schedule":"@daily","duration":"480m"}]},
					"template":{"spec":{"expireAfter":"720h0m0s","terminationGracePeriod":"60m"}}}}`)
			},
			Config:   full,
			PlanOnly: true, // an empty plan: durations are compared by value
		},
		resource.TestStep{
			PreConfig: func() {
				npPatch(t, kc, "default", `{"spec":{"disruption":{"budgets":[{"nodes":"5","schedule":"@daily","duration":"8h"}]}}}`)
			},
			Config:             full,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(npAddr, plancheck.ResourceActionUpdate),
			}},
		},
		resource.TestStep{
			Config: full,
			Check: resource.ComposeAggregateTestCheckFunc(
				npExpectField(kc, "default", []any{map[string]any{"nodes": "1", "schedule": "@daily", "duration": "8h"}}, disruption.NpPathBudgets...),
				npExpectField(kc, "default", "5m", disruption.NpPathConsolidateAfter...),
			),
		},
		resource.TestStep{
			Config: npConfig(`
  cluster                  = "canary-east"
  node_pool                = "default"
  expire_after             = "720h"
  termination_grace_period = "1h"
  budget {
    nodes    = "1"
    schedule = "@daily"
    duration = "8h"
  }`),
			Check: resource.ComposeAggregateTestCheckFunc(
				npExpectField(kc, "default", "0s", disruption.NpPathConsolidateAfter...),
				npExpectNotOwned(kc, "default", disruption.NpPathConsolidateAfter),
			),
		},
	)
}

// A field another server-side apply manager declares with a different value fails the plan (a
// dry run) with its name; with the same value both own it, and destroy leaves it to the other.
func TestAccNodePoolDisruption_otherApplyManager(t *testing.T) {
	kc := npMember(t)
	npApplyAs(t, kc, "gitops", `{"disruption":{"budgets":[{"nodes":"2"}]}}`)
	t.Cleanup(func() { npApplyAs(t, kc, "gitops", "") }) // gives budgets back
	clock := &npClock{now: npMondayMorning}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: npFactories(clock),
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			npExpectField(kc, "default", []any{map[string]any{"nodes": "2"}}, disruption.NpPathBudgets...),
			npExpectNotOwned(kc, "default", disruption.NpPathBudgets),
		),
		Steps: []resource.TestStep{
			{
				Config: npConfig(`
  cluster   = "canary-east"
  node_pool = "default"
  budget {
    nodes = "1"
  }`),
				ExpectError: regexp.MustCompile(`(?s)The cluster would reject these settings.*also\s+applied\s+by\s+"gitops"`),
			},
			{
				Config: npConfig(`
  cluster   = "canary-east"
  node_pool = "default"
  budget {
    nodes = "2"
  }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "reasons"), npAllReasons(1, 0)),
				}},
			},
		},
	})
}

// Inputs known only at apply leave the preview unknown at plan; apply then computes it.
func TestAccNodePoolDisruption_unknownInput(t *testing.T) {
	kc := npMember(t)
	npTest(t, kc, "default", npMondayMorning, resource.TestStep{
		Config: `
provider "fleet" {}

resource "terraform_data" "nodes" {
  input = "20%"
}

resource "fleet_nodepool_disruption" "test" {
  cluster   = "canary-east"
  node_pool = "default"
  budget {
    nodes = terraform_data.nodes.output
  }
}
`,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectUnknownValue(npAddr, acctest.Path("preview")),
		}},
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(npAddr, acctest.Path("preview", "reasons"), npAllReasons(1, 0)),
		},
	})
}

// Invalid settings fail at plan, naming what is wrong; a schedule the CRD accepts but Karpenter
// cannot parse is a warning, and the preview shows its effect (no disruption at all).
func TestAccNodePoolDisruption_invalid(t *testing.T) {
	kc := npMember(t)
	clock := &npClock{now: npMondayMorning}
	hubConfig := fmt.Sprintf(`
provider "fleet" {
  cluster {
    name        = "hub"
    config_path = %q
  }
}

resource "fleet_nodepool_disruption" "test" {
  cluster   = "hub"
  node_pool = "default"
}
`, os.Getenv("KUBE_CONFIG_PATH"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: npFactories(clock),
		CheckDestroy:             npExpectReleased(kc, "default"),
		Steps: []resource.TestStep{
			{
				Config: npConfig(`
  cluster   = "canary-east"
  node_pool = "default"
  budget {
    nodes = "150%"
  }`),
				PlanOnly:    true,
				ExpectError: acctest.WrappedRegexp(`(?s)Invalid budget nodes.*percentage from 0% to 100%`),
			},
			{
				Config: npConfig(`
  cluster   = "canary-east"
  node_pool = "does-not-exist"`),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)NodePool not found.*node_pool = "does-not-exist".*NodePool "does-not-exist" not found on\s+cluster\s+"canary-east"`),
			},
			{
				// The hub has no Karpenter: its API server does not know NodePools at all.
				Config:      hubConfig,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)cluster "hub" has no Karpenter\s+NodePool\s+API.*NodePool\s+"default"`),
			},
			{
				Config: npConfig(`
  cluster   = "canary-east"
  node_pool = "default"
  budget {
    nodes    = "5"
    schedule = "0 9 * * sat-sun"
    duration = "8h"
  }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "reasons"), npAllReasons(0)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "warnings"), npWarning(`Karpenter cannot parse schedule "0 9 \* \* sat-sun"`)),
				}},
			},
		},
	})
}

// The disruption picture of NodePool "batch" (testdata/fleet.yaml), as the member API server holds it:
// batch-0 expired (800h old, expireAfter 720h), batch-1 held by its node annotation, batch-2 by a
// do-not-disrupt pod, batch-3/5/6 running pods, batch-4 only a DaemonSet pod, and the NodeClaims of
// batch-1/2/5/6/7 stamped with a stale NodePool hash. With a 25% budget Karpenter allows
// ceil(25% of 8) = 2 minus the expired node (deleted at once, so disrupting) = 1 per reason.
// Setting do_not_disrupt under another field manager then warns that every node drifts, writes the
// template annotation under that manager, and destroy gives it back.
func TestAccNodePoolDisruption_disruptionPicture(t *testing.T) {
	kc := npMember(t)
	clock := &npClock{now: time.Now().UTC().Truncate(time.Second)}
	base := `
  cluster   = "canary-east"
  node_pool = "batch"
  budget {
    nodes = "25%"
  }`
	nodes := func(names ...string) knownvalue.Check {
		var checks []knownvalue.Check
		for _, n := range names {
			checks = append(checks, knownvalue.StringExact(n))
		}
		return knownvalue.ListExact(checks)
	}
	counts := func(empty, drifted, expired int64) knownvalue.Check {
		return knownvalue.MapExact(map[string]knownvalue.Check{
			"Empty": knownvalue.Int64Exact(empty), "Drifted": knownvalue.Int64Exact(drifted), "Expired": knownvalue.Int64Exact(expired),
		})
	}
	stale := knownvalue.StringRegexp(regexp.MustCompile(`^NodePool hash [0-9]+ on the NodeClaim, the NodePool's is now [0-9]+ \(NodePoolDrifted\)$`))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: npFactories(clock),
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			npExpectField(kc, "batch", nil, disruption.NpPathDoNotDisrupt...),
			npExpectField(kc, "batch", "data", "spec", "template", "metadata", "annotations", "team"),
			npExpectOwnedBy(kc, "batch", "platform-team"),
		),
		Steps: []resource.TestStep{
			{
				Config: npConfig(base),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "nodes"), knownvalue.Int64Exact(8)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "disrupting"), knownvalue.Int64Exact(1)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "blocked_nodes"), knownvalue.MapExact(map[string]knownvalue.Check{
						"batch-1": knownvalue.StringExact(`node annotation karpenter.sh/do-not-disrupt: "true"`),
						"batch-2": knownvalue.StringExact(`pod etl/spark-driver has karpenter.sh/do-not-disrupt`),
					})),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "blocked_nodes_count"), knownvalue.Int64Exact(2)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "blocked_nodes_omitted"), knownvalue.Int64Exact(0)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "drifted_nodes"), knownvalue.MapExact(map[string]knownvalue.Check{
						"batch-1": stale, "batch-2": stale, "batch-5": stale, "batch-6": stale, "batch-7": stale,
					})),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "drifted_nodes_count"), knownvalue.Int64Exact(5)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "candidates"), knownvalue.MapExact(map[string]knownvalue.Check{
						"Empty":   nodes("batch-4", "batch-7"),
						"Drifted": nodes("batch-5", "batch-6", "batch-7"),
						"Expired": nodes("batch-0"),
					})),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "candidates_count"), counts(2, 3, 1)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "disruptable_now"), counts(1, 1, 1)),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "summary"), knownvalue.StringExact(
						"Karpenter may start disrupting 3 of 8 nodes now: Empty 1 of 2 eligible (the Empty budget allows 1); "+
							"Drifted 1 of 3 eligible of 5 drifted (the Drifted budget allows 1); Expired 1 of 1 eligible (expiry is not budgeted); "+
							"2 nodes held by karpenter.sh/do-not-disrupt; 1 already disrupting.")),
				}},
			},
			{
				Config: npConfig(base + `
  do_not_disrupt = true
  field_manager {
    name = "platform-team"
  }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(npAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "warnings"), npWarning(
						`changing the template annotation karpenter.sh/do-not-disrupt from unset to "true" changes the NodePool's template hash \([0-9]+ to [0-9]+\): all 8 node\(s\) become Drifted`)),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					npExpectField(kc, "batch", "true", disruption.NpPathDoNotDisrupt...),
					npExpectField(kc, "batch", "data", "spec", "template", "metadata", "annotations", "team"), // the rest stays
					npExpectOwnedBy(kc, "batch", "platform-team", disruption.NpPathBudgets, disruption.NpPathDoNotDisrupt),
					npExpectOwnedBy(kc, "batch", disruption.NodePoolFieldManager), // the old manager gave its fields back
				),
			},
			{
				// Refresh reads the annotation back: an out-of-band "false" is drift.
				PreConfig: func() {
					npPatch(t, kc, "batch", `{"spec":{"template":{"metadata":{"annotations":{"karpenter.sh/do-not-disrupt":"false"}}}}}`)
				},
				Config: npConfig(base + `
  do_not_disrupt = true
  field_manager {
    name = "platform-team"
  }`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// Apply takes the annotation back from the imperative edit.
				Config: npConfig(base + `
  do_not_disrupt = true
  field_manager {
    name = "platform-team"
  }`),
				Check: resource.ComposeAggregateTestCheckFunc(
					npExpectField(kc, "batch", "true", disruption.NpPathDoNotDisrupt...),
					npExpectOwnedBy(kc, "batch", "platform-team", disruption.NpPathBudgets, disruption.NpPathDoNotDisrupt),
				),
			},
		},
	})
}

// The template's do-not-disrupt, copied to every node of NodePool "pinned", holds them all.
func TestAccNodePoolDisruption_templateDoNotDisrupt(t *testing.T) {
	kc := npMember(t)
	clock := &npClock{now: time.Now().UTC().Truncate(time.Second)}
	held := knownvalue.StringExact(`NodePool template annotation karpenter.sh/do-not-disrupt: "true" (copied to the node at launch)`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: npFactories(clock),
		CheckDestroy:             npExpectField(kc, "pinned", "true", disruption.NpPathDoNotDisrupt...), // never ours: left alone
		Steps: []resource.TestStep{{
			Config: npConfig(`
  cluster              = "canary-east"
  node_pool            = "pinned"
  consolidation_policy = "WhenEmpty"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "blocked_nodes"), knownvalue.MapExact(map[string]knownvalue.Check{"pinned-0": held, "pinned-1": held})),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "candidates"), knownvalue.MapExact(map[string]knownvalue.Check{})),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "disruptable_now"), knownvalue.MapExact(map[string]knownvalue.Check{
					"Empty": knownvalue.Int64Exact(0), "Drifted": knownvalue.Int64Exact(0), "Expired": knownvalue.Int64Exact(0),
				})),
				plancheck.ExpectKnownValue(npAddr, acctest.Path("preview", "summary"), knownvalue.StringRegexp(regexp.MustCompile(`^Karpenter may start disrupting 0 of 2 nodes now: .*; 2 nodes held by karpenter.sh/do-not-disrupt\.$`))),
			}},
		}},
	})
}

// force_conflicts takes a field over from another server-side apply manager (a GitOps tool); destroy then gives it
// back to the server default, since the other manager no longer holds it.
func TestAccNodePoolDisruption_forceConflicts(t *testing.T) {
	kc := npMember(t)
	npApplyAs(t, kc, "argocd", `{"disruption":{"budgets":[{"nodes":"2"}]}}`)
	t.Cleanup(func() { npApplyAs(t, kc, "argocd", "") })
	npTest(t, kc, "default", npMondayMorning, resource.TestStep{
		Config: npConfig(`
  cluster       = "canary-east"
  node_pool     = "default"
  budget {
    nodes = "1"
  }
  field_manager {
    force_conflicts = true
  }`),
		Check: resource.ComposeAggregateTestCheckFunc(
			npExpectField(kc, "default", []any{map[string]any{"nodes": "1"}}, disruption.NpPathBudgets...),
			npExpectOwnedBy(kc, "default", "argocd"),
			npExpectOwnedBy(kc, "default", disruption.NodePoolFieldManager, disruption.NpPathBudgets),
		),
	})
}

// npExpectNotOwned checks that this provider's apply does not own the field.
func npExpectNotOwned(kc *kube.Client, pool string, field []string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		owned, err := npOwnedByProvider(kc, pool)
		if err != nil {
			return err
		}
		for _, o := range owned {
			if slices.Equal(o, field) {
				return fmt.Errorf("NodePool %s: terraform-provider-fleet still applies %v", pool, field)
			}
		}
		return nil
	}
}

// npPatch edits a NodePool out of band, as `kubectl patch` would.
func npPatch(t *testing.T, kc *kube.Client, pool, patch string) {
	t.Helper()
	_, err := kc.Dynamic.Resource(disruption.NodePoolGVR).Patch(context.Background(), pool, k8stypes.MergePatchType, []byte(patch),
		metav1.PatchOptions{FieldManager: "kubectl-edit"})
	if err != nil {
		t.Fatalf("patching NodePool %s: %v", pool, err)
	}
}

// npApplyAs server-side applies spec fields to NodePool default as another manager (a GitOps tool);
// an empty spec releases what it applied.
func npApplyAs(t *testing.T, kc *kube.Client, manager, spec string) {
	t.Helper()
	body := `{"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"default"}`
	if spec != "" {
		body += `,"spec":` + spec
	}
	body += "}"
	_, err := kc.Dynamic.Resource(disruption.NodePoolGVR).Patch(context.Background(), "default", k8stypes.ApplyPatchType, []byte(body),
		metav1.PatchOptions{FieldManager: manager, Force: ptrTo(true)})
	if err != nil {
		t.Fatalf("applying NodePool default as %s: %v", manager, err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// npCreateNodePool creates a NodePool with n initialized nodes; notReady's Node is NotReady and
// deleting's NodeClaim is being deleted (a finalizer holds it). Everything goes at cleanup.
func npCreateNodePool(t *testing.T, kc *kube.Client, pool string, n, notReady, deleting int) {
	t.Helper()
	ctx := context.Background()
	spec := map[string]any{
		"nodeClassRef": map[string]any{"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "default"},
		"requirements": []any{map[string]any{"key": "kubernetes.io/arch", "operator": "In", "values": []any{"amd64"}}},
	}
	np := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": pool},
		"spec": map[string]any{"template": map[string]any{"spec": spec}},
	}}
	claims, nodes := kc.Dynamic.Resource(disruption.NodeClaimGVR), kc.Kubernetes.CoreV1().Nodes()
	t.Cleanup(func() {
		for i := range n {
			name := fmt.Sprintf("%s-%d", pool, i)
			_, _ = claims.Patch(ctx, name, k8stypes.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			_ = claims.Delete(ctx, name, metav1.DeleteOptions{})
			_ = nodes.Delete(ctx, name, metav1.DeleteOptions{})
		}
		_ = kc.Dynamic.Resource(disruption.NodePoolGVR).Delete(ctx, pool, metav1.DeleteOptions{})
	})
	if _, err := kc.Dynamic.Resource(disruption.NodePoolGVR).Create(ctx, np, metav1.CreateOptions{FieldManager: "acctest-setup"}); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now().UTC().Format(time.RFC3339)
	for i := range n {
		name := fmt.Sprintf("%s-%d", pool, i)
		providerID := "azure:///subscriptions/local/resourceGroups/local/providers/Microsoft.Compute/virtualMachines/" + name
		nc := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"karpenter.sh/nodepool": pool}},
			"spec":     map[string]any{"nodeClassRef": spec["nodeClassRef"], "requirements": spec["requirements"], "expireAfter": "720h"},
		}}
		created, err := claims.Create(ctx, nc, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var conds []any
		for _, c := range []string{"Launched", "Registered", "Initialized", "Ready"} {
			conds = append(conds, map[string]any{"type": c, "status": "True", "reason": c, "message": "", "lastTransitionTime": now})
		}
		created.Object["status"] = map[string]any{"nodeName": name, "providerID": providerID, "conditions": conds}
		if _, err := claims.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		ready := corev1.ConditionTrue
		if i == notReady {
			ready = corev1.ConditionFalse
		}
		node, err := nodes.Create(ctx, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				"karpenter.sh/nodepool": pool, "karpenter.sh/initialized": "true", "karpenter.sh/registered": "true",
			}},
			Spec: corev1.NodeSpec{ProviderID: providerID},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		capacity := corev1.ResourceList{corev1.ResourceCPU: k8sresource.MustParse("8"), corev1.ResourceMemory: k8sresource.MustParse("32Gi")}
		node.Status = corev1.NodeStatus{Capacity: capacity, Allocatable: capacity,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, Reason: "KubeletReady"}}}
		if _, err := nodes.UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if i == deleting {
			if _, err := claims.Patch(ctx, name, k8stypes.MergePatchType, []byte(`{"metadata":{"finalizers":["karpenter.sh/termination"]}}`), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := claims.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
