// Package autoupgradeacc holds the acceptance tests of fleet_auto_upgrade_profile against a local
// fleet of its own (testdata/fleet.yaml), whose clock runs fast enough for a run that a version
// release triggers to complete within seconds. The release test releases its version through the
// emulator's admin endpoint once its profile exists, so no test depends on wall-clock timing or on
// the order the tests run in.
package autoupgradeacc

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

func TestMain(m *testing.M) {
	acctest.Main(m, "internal/provider/autoupgradeacc/testdata/fleet.yaml")
}

// The fleet of testdata/fleet.yaml.
var fleet = fleetapi.FleetID{SubscriptionID: "00000000-0000-0000-0000-000000000003", ResourceGroupName: "rg-autoupgrade", Name: "autoupgrade"}

// Members of the fleet, the keys of the preview's members: behind-1, canary-1, current-1,
// patch-1, patch-2, prod-1, and img-east, img-west (eastus and westeurope, group imgs: the node
// image selection test). (patch-* change version during the release test; no other test looks
// at them.)
const (
	behind1  = "behind-1"
	canary1  = "canary-1"
	current1 = "current-1"
	patch1   = "patch-1"
	prod1    = "prod-1"
	imgEast  = "img-east"
	imgWest  = "img-west"
)

func wait[T any](p *runtime.Poller[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	v, err := p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: 100 * time.Millisecond})
	return &v, err
}

// release makes a Kubernetes version available in a region of the local fleet from its current
// simulated time on (the emulator's POST /_emulator/releases, unauthenticated on loopback; TLS is
// trusted through the SSL_CERT_FILE the harness exports) and returns the simulated release time.
// The emulator evaluates the auto-upgrade profiles within the request, so a profile whose channel
// target changes has triggered, at that time, when release returns.
func release(region, version string) (time.Time, error) {
	base := os.Getenv("LOCALFLEET_URL")
	if base == "" {
		return time.Time{}, fmt.Errorf("LOCALFLEET_URL is not set")
	}
	body := fmt.Sprintf(`{"region": %q, "kubernetesVersion": %q}`, region, version)
	resp, err := http.Post(strings.TrimSuffix(base, "/")+"/_emulator/releases", "application/json", strings.NewReader(body))
	if err != nil {
		return time.Time{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return time.Time{}, err
	}
	if resp.StatusCode != http.StatusCreated {
		return time.Time{}, fmt.Errorf("POST /_emulator/releases %s: %s %s", body, resp.Status, b)
	}
	var rel struct {
		At time.Time `json:"at"`
	}
	if err := json.Unmarshal(b, &rel); err != nil || rel.At.IsZero() {
		return time.Time{}, fmt.Errorf("POST /_emulator/releases: answer %s (%v)", b, err)
	}
	return rel.At, nil
}

// TestAccAutoUpgradeProfile_releaseTriggersRun: once a TargetKubernetesVersion 1.31 profile with
// a strategy that selects group patch exists, 1.31.10 is released in eastus (the admin endpoint).
// The profile triggers a run at the release; the run copies the strategy, upgrades patch-1 and
// patch-2 and completes; a disabled profile on the same channel triggers nothing.
func TestAccAutoUpgradeProfile_releaseTriggersRun(t *testing.T) {
	var released time.Time // when 1.31.10 was released, simulated
	var c *fleetapi.Client
	strategyID := fleet.ChildID("updateStrategies", "patch-only")
	cfg := `
resource "fleet_auto_upgrade_profile" "patch" {
  name                      = "patch"
  channel                   = "TargetKubernetesVersion"
  target_kubernetes_version = "1.31"
  update_strategy_id        = "` + strategyID + `"
  node_image_selection_type = "Consistent"
}

resource "fleet_auto_upgrade_profile" "off" {
  name                      = "off"
  channel                   = "TargetKubernetesVersion"
  target_kubernetes_version = "1.31"
  disabled                  = true
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				c = acctest.FleetAPI(t)
				s := fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: fleetapi.UpdateRunStrategy{
					Stages: []fleetapi.UpdateStage{{Name: "patch", Groups: []fleetapi.UpdateGroup{{Name: "patch"}}}},
				}}}
				if _, err := wait(c.BeginCreateOrUpdateUpdateStrategy(context.Background(), fleet, "patch-only", s, nil)); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				// Before the release the 1.31 target is 1.31.9: patch-1 is already there.
				plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.patch", acctest.Path("preview", "members", patch1, "current_kubernetes_version"), knownvalue.NotNull()),
				// The strategy selects group patch only: the canary and prod members are counted apart, never upgraded.
				plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.patch", acctest.Path("preview", "actions", "unselected"), knownvalue.Int64Exact(6)),
				plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.off", acctest.Path("preview", "member_count"), knownvalue.Int64Exact(8)),
			}},
			Check: func(*terraform.State) error {
				ctx := context.Background()
				profileID := fleet.ChildID("autoUpgradeProfiles", "patch")
				// The profile exists (apply created it); only now is 1.31.10 released.
				prof, err := c.GetAutoUpgradeProfile(ctx, fleet, "patch")
				if err != nil {
					return err
				}
				if st := prof.Properties.AutoUpgradeProfileStatus; st != nil {
					return fmt.Errorf("profile patch triggered before the release: %+v", st)
				}
				if released, err = release("eastus", "1.31.10"); err != nil {
					return err
				}
				if created := prof.SystemData.CreatedAt; created == nil || created.After(released) {
					return fmt.Errorf("profile created at %v, after the release at %s", created, released)
				}
				if err := acctest.Eventually(90*time.Second, "profile patch triggered by the 1.31.10 release", func() (bool, string) {
					p, err := c.GetAutoUpgradeProfile(ctx, fleet, "patch")
					if err != nil {
						return false, err.Error()
					}
					st := p.Properties.AutoUpgradeProfileStatus
					return st != nil && st.LastTriggerStatus == fleetapi.AutoUpgradeTriggerSucceeded, fmt.Sprintf("%+v", st)
				}); err != nil {
					return err
				}
				var run *fleetapi.UpdateRun
				if err := acctest.Eventually(60*time.Second, "run patch-1-31-10 completed", func() (bool, string) {
					var err error
					if run, err = c.GetUpdateRun(ctx, fleet, "patch-1-31-10"); err != nil {
						return false, err.Error()
					}
					st := run.Properties.Status.Status.State
					return st == fleetapi.UpdateStateCompleted, string(st)
				}); err != nil {
					return err
				}
				p := run.Properties
				if p.AutoUpgradeProfileID != profileID || p.UpdateStrategyID != strategyID || len(p.Strategy.Stages) != 1 || p.Strategy.Stages[0].Groups[0].Name != "patch" ||
					p.ManagedClusterUpdate.Upgrade.KubernetesVersion != "1.31.10" || p.ManagedClusterUpdate.NodeImageSelection.Type != fleetapi.NodeImageSelectionConsistent {
					return fmt.Errorf("triggered run does not follow the profile: %+v", p)
				}
				var members []string
				for _, g := range run.Properties.Status.Stages[0].Groups {
					for _, m := range g.Members {
						if m.Status.State != fleetapi.UpdateStateCompleted {
							return fmt.Errorf("member %s is %s", m.Name, m.Status.State)
						}
						members = append(members, m.Name)
					}
				}
				if strings.Join(members, ",") != "patch-1,patch-2" {
					return fmt.Errorf("run members %v, want the strategy's group patch", members)
				}
				off, err := c.GetAutoUpgradeProfile(ctx, fleet, "off")
				if err != nil {
					return err
				}
				if off.Properties.AutoUpgradeProfileStatus != nil {
					return fmt.Errorf("the disabled profile triggered: %+v", off.Properties.AutoUpgradeProfileStatus)
				}
				if _, err := c.GetUpdateRun(ctx, fleet, "off-1-31-10"); !fleetapi.IsNotFound(err) {
					return fmt.Errorf("the disabled profile's run: %v", err)
				}
				return nil
			},
		}, {
			// A refresh reads the trigger into status; the configuration is unchanged: an empty plan.
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectEmptyPlan(),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.patch", acctest.Path("status", "last_trigger_status"), knownvalue.StringExact("Succeeded")),
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.patch", acctest.Path("status", "last_trigger_upgrade_versions"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("1.31.10")})),
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.patch", acctest.Path("status", "last_trigger_error"), knownvalue.Null()),
				// Triggered by the release, at its simulated time (the emulator evaluates the profiles within the POST).
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.patch", acctest.Path("status", "last_triggered_at"),
					knownvalue.StringFunc(func(v string) error {
						at, err := time.Parse(time.RFC3339, v)
						if err != nil {
							return err
						}
						// The attribute is RFC 3339 to the second.
						if released.IsZero() || !at.Equal(released.Truncate(time.Second)) {
							return fmt.Errorf("last_triggered_at %s, want the release time %s", v, released.Format(time.RFC3339))
						}
						return nil
					})),
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.off", acctest.Path("status", "last_trigger_status"), knownvalue.Null()),
			},
		}},
	})
}

func profile(name, body string) string {
	return `
resource "fleet_auto_upgrade_profile" "` + name + `" {
  name = "` + name + `"
` + body + `
}
`
}

func member(res string, i string, action, target string, reason *regexp.Regexp) []plancheck.PlanCheck {
	a := "fleet_auto_upgrade_profile." + res
	return []plancheck.PlanCheck{
		plancheck.ExpectKnownValue(a, acctest.Path("preview", "members", i, "action"), knownvalue.StringExact(action)),
		plancheck.ExpectKnownValue(a, acctest.Path("preview", "members", i, "target_kubernetes_version"), knownvalue.StringExact(target)),
		plancheck.ExpectKnownValue(a, acctest.Path("preview", "members", i, "reason"), knownvalue.StringRegexp(reason)),
	}
}

// TestAccAutoUpgradeProfile_channels: each channel's preview at plan against the fleet's known
// version table, with the member two minors behind and the one ahead of the target.
func TestAccAutoUpgradeProfile_channels(t *testing.T) {
	checks := []plancheck.PlanCheck{
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.stable", acctest.Path("preview", "target_kubernetes_version"), knownvalue.StringExact("1.32.5")),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.rapid", acctest.Path("preview", "target_kubernetes_version"), knownvalue.StringExact("1.33.1")),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.target", acctest.Path("preview", "target_kubernetes_version"), knownvalue.StringExact("1.32.5")),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.images", acctest.Path("preview", "target_kubernetes_version"), knownvalue.Null()),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.images", acctest.Path("preview", "target_node_image_versions"),
			knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("AKSUbuntu-2204gen2containerd-202511.04.0")})),
		// Eight members, all listed (summary detail lists 20), counted by action.
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.stable", acctest.Path("preview", "member_count"), knownvalue.Int64Exact(8)),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.stable", acctest.Path("preview", "members_omitted"), knownvalue.Int64Exact(0)),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.rapid", acctest.Path("preview", "actions", "skip"), knownvalue.NotNull()),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.rapid", acctest.Path("preview", "members", behind1, "current_kubernetes_version"), knownvalue.StringExact("1.31.9")),
	}
	// Stable 1.32.5
	checks = append(checks, member("stable", canary1, "none", "1.32.5", regexp.MustCompile(`already at 1\.32\.5`))...)
	checks = append(checks, member("stable", behind1, "upgrade", "1.32.5", regexp.MustCompile(`^1\.31\.9 → 1\.32\.5; no aksManagedAutoUpgradeSchedule maintenance window`))...)
	checks = append(checks, member("stable", current1, "skip", "1.32.5", regexp.MustCompile(`1\.33\.1 is newer than the Stable channel's target 1\.32\.5: AKS does not downgrade`))...)
	// Rapid 1.33.1, never the preview 1.34.0
	checks = append(checks, member("rapid", canary1, "upgrade", "1.33.1", regexp.MustCompile(`^1\.32\.5 → 1\.33\.1`))...)
	checks = append(checks, member("rapid", behind1, "skip", "1.33.1", regexp.MustCompile(`1\.31\.9 is 2 minor versions behind the target 1\.33\.1: auto-upgrade does not move a cluster across more than one minor version`))...)
	checks = append(checks, member("rapid", current1, "none", "1.33.1", regexp.MustCompile(`already at`))...)
	// TargetKubernetesVersion 1.32
	checks = append(checks, member("target", prod1, "none", "1.32.5", regexp.MustCompile(`TargetKubernetesVersion channel's target`))...)
	checks = append(checks, member("target", current1, "skip", "1.32.5", regexp.MustCompile(`AKS does not downgrade`))...)
	// NodeImage: each member keeps its Kubernetes version.
	checks = append(checks, member("images", canary1, "upgrade", "1.32.5", regexp.MustCompile(`node images system 202510\.01\.0 → 202511\.04\.0`))...)
	checks = append(checks, member("images", prod1, "none", "1.32.5", regexp.MustCompile(`already the newest`))...)

	cfg := profile("stable", `  channel = "Stable"`) + profile("rapid", `  channel = "Rapid"`) +
		profile("target", `  channel = "TargetKubernetesVersion"
  target_kubernetes_version = "1.32"`) + profile("images", `  channel = "NodeImage"`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: checks},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.rapid", acctest.Path("id"), knownvalue.StringExact(fleet.ChildID("autoUpgradeProfiles", "rapid"))),
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.rapid", acctest.Path("fleet_id"), knownvalue.StringExact(fleet.String())),
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.rapid", acctest.Path("status", "last_trigger_status"), knownvalue.Null()),
			},
		}, {
			// Unchanged configuration: the preview is kept, the plan is empty.
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		}, {
			// Changing the channel recomputes the preview in place (no replacement).
			Config: profile("stable", `  channel = "Rapid"`) + profile("rapid", `  channel = "Rapid"`) +
				profile("target", `  channel = "TargetKubernetesVersion"
  target_kubernetes_version = "1.32"`) + profile("images", `  channel = "NodeImage"`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("fleet_auto_upgrade_profile.stable", plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.stable", acctest.Path("preview", "target_kubernetes_version"), knownvalue.StringExact("1.33.1")),
			}},
		}},
	})
}

// TestAccAutoUpgradeProfile_nodeImageSelection: two NodeImage profiles over a strategy that selects
// img-east and img-west, whose regions' newest Ubuntu images differ (eastus 202511.04.0, westeurope
// 202510.01.0; both members run 202509.01.0). fleets.json AutoUpgradeNodeImageSelectionType: Latest
// "Clusters may use different image versions ... because ... the latest available version is
// different in different regions"; Consistent: "all node pools of the same image type will be
// upgraded to the same image version", the newest available across them.
func TestAccAutoUpgradeProfile_nodeImageSelection(t *testing.T) {
	strategyID := fleet.ChildID("updateStrategies", "imgs-only")
	const ubuntu = "AKSUbuntu-2204gen2containerd-"
	cfg := profile("latest", `  channel = "NodeImage"
  update_strategy_id = "`+strategyID+`"
  node_image_selection_type = "Latest"`) + profile("consistent", `  channel = "NodeImage"
  update_strategy_id = "`+strategyID+`"
  node_image_selection_type = "Consistent"`)
	checks := []plancheck.PlanCheck{
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.latest", acctest.Path("preview", "target_node_image_versions"),
			knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(ubuntu + "202511.04.0")})),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.consistent", acctest.Path("preview", "target_node_image_versions"),
			knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(ubuntu + "202510.01.0")})),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.consistent", acctest.Path("preview", "actions", "upgrade"), knownvalue.Int64Exact(2)),
		plancheck.ExpectKnownValue("fleet_auto_upgrade_profile.consistent", acctest.Path("preview", "actions", "unselected"), knownvalue.Int64Exact(6)),
	}
	for res, want := range map[string][2]string{"latest": {"202511.04.0", "202510.01.0"}, "consistent": {"202510.01.0", "202510.01.0"}} {
		for i, m := range []string{imgEast, imgWest} {
			checks = append(checks, plancheck.ExpectKnownValue("fleet_auto_upgrade_profile."+res, acctest.Path("preview", "members", m, "target_node_image_versions"),
				knownvalue.MapExact(map[string]knownvalue.Check{"system": knownvalue.StringExact(ubuntu + want[i])})))
		}
	}
	// Latest: each member its own region's newest.
	checks = append(checks, member("latest", imgEast, "upgrade", "1.32.5", regexp.MustCompile(`^node images system 202509\.01\.0 → 202511\.04\.0;`))...)
	checks = append(checks, member("latest", imgWest, "upgrade", "1.32.5", regexp.MustCompile(`^node images system 202509\.01\.0 → 202510\.01\.0;`))...)
	// Consistent: one version for the run, the newest both regions offer.
	checks = append(checks, member("consistent", imgEast, "upgrade", "1.32.5", regexp.MustCompile(`^node images system 202509\.01\.0 → 202510\.01\.0;`))...)
	checks = append(checks, member("consistent", imgWest, "upgrade", "1.32.5", regexp.MustCompile(`^node images system 202509\.01\.0 → 202510\.01\.0;`))...)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() {
				s := fleetapi.FleetUpdateStrategy{Properties: &fleetapi.FleetUpdateStrategyProperties{Strategy: fleetapi.UpdateRunStrategy{
					Stages: []fleetapi.UpdateStage{{Name: "imgs", Groups: []fleetapi.UpdateGroup{{Name: "imgs"}}}},
				}}}
				if _, err := wait(acctest.FleetAPI(t).BeginCreateOrUpdateUpdateStrategy(context.Background(), fleet, "imgs-only", s, nil)); err != nil {
					t.Fatal(err)
				}
			},
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: checks},
		}},
	})
}

// TestAccAutoUpgradeProfile_generateImportDrift: generate_update_run returns the run's ID, and a
// second apply that generates again returns the same run; import by ARM ID; an out-of-band change
// and delete show as a plan; a create-only field plans a replacement.
func TestAccAutoUpgradeProfile_generateImportDrift(t *testing.T) {
	var c *fleetapi.Client
	runID := fleet.ChildID("updateRuns", "gen-1-33-1")
	cfg := func(disabled bool, selection string) string {
		return profile("gen", fmt.Sprintf(`  channel = "Rapid"
  disabled = %t
  node_image_selection_type = %q
  generate_update_run = true`, disabled, selection))
	}
	notStarted := func(*terraform.State) error {
		run, err := c.GetUpdateRun(context.Background(), fleet, "gen-1-33-1")
		if err != nil {
			return err
		}
		if st := run.Properties.Status.Status.State; st != fleetapi.UpdateStateNotStarted || run.Properties.AutoUpgradeProfileID != fleet.ChildID("autoUpgradeProfiles", "gen") {
			return fmt.Errorf("generated run %s of profile %s", st, run.Properties.AutoUpgradeProfileID)
		}
		return nil
	}
	var firstETag string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig: func() { c = acctest.FleetAPI(t) },
			Config:    cfg(false, "Latest"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("fleet_auto_upgrade_profile.gen", acctest.Path("generated_update_run_id")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.gen", acctest.Path("generated_update_run_id"), knownvalue.StringExact(runID)),
			},
			Check: func(s *terraform.State) error {
				if err := notStarted(s); err != nil {
					return err
				}
				run, err := c.GetUpdateRun(context.Background(), fleet, "gen-1-33-1")
				if err == nil {
					firstETag = run.ETag
				}
				return err
			},
		}, {
			// A change generates again: the same target gives the same run, unchanged.
			Config: cfg(true, "Latest"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("fleet_auto_upgrade_profile.gen", plancheck.ResourceActionUpdate),
				plancheck.ExpectUnknownValue("fleet_auto_upgrade_profile.gen", acctest.Path("generated_update_run_id")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.gen", acctest.Path("generated_update_run_id"), knownvalue.StringExact(runID)),
				statecheck.ExpectKnownValue("fleet_auto_upgrade_profile.gen", acctest.Path("disabled"), knownvalue.Bool(true)),
			},
			Check: func(s *terraform.State) error {
				run, err := c.GetUpdateRun(context.Background(), fleet, "gen-1-33-1")
				if err != nil {
					return err
				}
				if run.ETag != firstETag {
					return fmt.Errorf("generating again changed the run: eTag %s → %s", firstETag, run.ETag)
				}
				return notStarted(s)
			},
		}, {
			ResourceName: "fleet_auto_upgrade_profile.gen", ImportState: true, ImportStateVerify: true,
			ImportStateId:           fleet.ChildID("autoUpgradeProfiles", "gen"),
			ImportStateVerifyIgnore: []string{"preview", "status", "generate_update_run", "generated_update_run_id", "timeouts"},
		}, {
			// Drift: enabled out of band; the plan puts disabled back.
			PreConfig: func() {
				p, err := c.GetAutoUpgradeProfile(context.Background(), fleet, "gen")
				if err != nil {
					t.Fatal(err)
				}
				p.Properties.Disabled = to.Ptr(false)
				if _, err := wait(c.BeginCreateOrUpdateAutoUpgradeProfile(context.Background(), fleet, "gen", *p, &fleetapi.Precondition{IfMatch: p.ETag})); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg(true, "Latest"), PlanOnly: true, ExpectNonEmptyPlan: true,
		}, {
			// A create-only field plans a replacement.
			Config: cfg(true, "Consistent"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("fleet_auto_upgrade_profile.gen", plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check: func(*terraform.State) error {
				p, err := c.GetAutoUpgradeProfile(context.Background(), fleet, "gen")
				if err != nil {
					return err
				}
				if p.Properties.NodeImageSelection == nil || p.Properties.NodeImageSelection.Type != fleetapi.AutoUpgradeNodeImageConsistent {
					return fmt.Errorf("replaced profile %+v", p.Properties)
				}
				return nil
			},
		}, {
			// Deleted out of band: the plan re-creates it.
			PreConfig: func() {
				if _, err := wait(c.BeginDeleteAutoUpgradeProfile(context.Background(), fleet, "gen", nil)); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg(true, "Consistent"), PlanOnly: true, ExpectNonEmptyPlan: true,
		}},
	})
}

// TestAccAutoUpgradeProfile_invalid: invalid combinations fail at plan, naming the attribute.
func TestAccAutoUpgradeProfile_invalid(t *testing.T) {
	cases := []struct{ body, want string }{
		{`  channel = "Stable"
  target_kubernetes_version = "1.33"`, `(?s)Target Kubernetes version not allowed.*target_kubernetes_version = "1\.33"`},
		{`  channel = "TargetKubernetesVersion"`, `(?s)Missing target Kubernetes version.*target_kubernetes_version`},
		{`  channel = "Rapid"
  long_term_support = true`, `(?s)Long-term support not allowed.*long_term_support = true`},
		{`  channel = "TargetKubernetesVersion"
  target_kubernetes_version = "1.33.1"`, `(?s)Invalid Attribute Value Match.*target_kubernetes_version = "1\.33\.1".*must be a Kubernetes minor version`},
		// A preview channel under the stable Fleet API: refused at plan, naming the setting that allows it.
		{`  channel = "SecurityPatch"`, `(?s)Fleet API preview argument.*channel = "SecurityPatch".*set fleet_api_version = "2026-11-01-preview"`},
		{`  channel = "Patch"`, `(?s)Invalid Attribute Value Match.*channel = "Patch".*value must be one of`},
		{`  channel = "Stable"
  node_image_selection_type = "Custom"`, `(?s)Invalid Attribute Value Match.*node_image_selection_type = "Custom".*value must be one of`},
	}
	var steps []resource.TestStep
	for _, tc := range cases {
		steps = append(steps, resource.TestStep{Config: profile("bad", tc.body), PlanOnly: true, ExpectError: regexp.MustCompile(tc.want)})
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories, Steps: steps})
}
