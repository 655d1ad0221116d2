package actionacc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

var adoptHubQuery = adoptLists("fleet_placement", "fleet_staged_update_strategy", "fleet_auto_upgrade_profile")

// Adopting what a team made with kubectl and az CLI: a placement and a staged
// strategy on the hub and an auto-upgrade profile in the Fleet API are found
// by terraform query; -generate-config-out writes configuration that
// terraform plan shows as imports with no other change.
func TestAccQuery_adoptHubAndProfile(t *testing.T) {
	ctx := context.Background()
	hc := acctest.HubClient(t)
	p := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: "adopt-placement"},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: "adopt-ns"}},
			Policy:            &placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType},
		},
	}
	s := &placementv1.ClusterStagedUpdateStrategy{
		ObjectMeta: metav1.ObjectMeta{Name: "adopt-staged"},
		Spec:       placementv1.UpdateStrategySpec{Stages: []placementv1.StageConfig{{Name: "all", LabelSelector: &metav1.LabelSelector{}}}},
	}
	if err := hc.Create(ctx, p); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if err := hc.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hc.Delete(context.Background(), p); _ = hc.Delete(context.Background(), s) })
	fc := acctest.FleetAPI(t)
	profile := fleetapi.AutoUpgradeProfile{Properties: &fleetapi.AutoUpgradeProfileProperties{Channel: fleetapi.UpgradeChannelStable}}
	poller, err := fc.BeginCreateOrUpdateAutoUpgradeProfile(ctx, actionsFleet, "adopt-profile", profile, nil)
	if _, err := shared.PollDone(ctx, poller, err); err != nil {
		t.Fatal(err)
	}

	w, _ := adoptQueried(t, adoptHubQuery,
		`list\.fleet_placement\.adopt\s+id=adopt-placement\s`,
		`list\.fleet_staged_update_strategy\.adopt\s+id=adopt-staged\s`,
		`list\.fleet_auto_upgrade_profile\.adopt\s+id=`+actionsFleet.ChildID("autoUpgradeProfiles", "adopt-profile")+`\s`,
	)
	importsOnly(t, w, 3)
}

// What a team made on the hub before adopting Terraform, made here by a working folder of its own
// (another team's state): two envelopes and a staged update run of an External placement.
var adoptStagedMade = readerEnvelope("cluster", "adopt-env-roles", "adopt-reader", "configmaps") +
	readerEnvelope("other", "other-env", "other-reader", "secrets") + `

resource "fleet_placement" "staged" {
  name               = "adopt-staged-placement"
  resource_selector {
    group   = "placement.kubernetes-fleet.io"
    version = "v1beta1"
    kind    = "ClusterResourceEnvelope"
    name    = fleet_envelope.cluster.name
  }
  strategy {
    type = "External"
  }
}

resource "fleet_staged_update_strategy" "rings" {
  name   = "adopt-rings"
  stage {
    name = "all"
    label_selector {}
  }
}

resource "fleet_staged_update_run" "r" {
  name                        = "adopt-run-1"
  placement_name              = fleet_placement.staged.id
  staged_update_strategy_name = fleet_staged_update_strategy.rings.id
  state                       = "Initialize" # created, not started: a release prepared for later
}
`

var adoptStagedQuery = adoptLists("fleet_envelope") +
	listBlock("fleet_staged_update_run", "adopt", `placement = "adopt-staged-placement"`, `state = "Initialized"`)

// readerEnvelope is a fleet_envelope of a ClusterRole that may get one core resource.
func readerEnvelope(local, name, role, resource string) string {
	return fmt.Sprintf(`
resource "fleet_envelope" %q {
  name = %q
  manifests = [yamlencode({
    apiVersion = "rbac.authorization.k8s.io/v1"
    kind       = "ClusterRole"
    metadata   = { name = %q }
    rules      = [{ apiGroups = [""], resources = [%q], verbs = ["get"] }]
  })]
}
`, local, name, role, resource)
}

// The two hub list resources the test above leaves out: fleet_envelope (by name prefix: the other
// envelope is not found) and fleet_staged_update_run (by placement and state) find what exists;
// -generate-config-out writes configuration that terraform plan shows as imports with no other
// change.
func TestAccQuery_adoptEnvelopeAndStagedRun(t *testing.T) {
	made := acctest.NewWorkdir(t, adoptStagedMade)
	made.Must("apply", "-auto-approve", "-input=false")
	t.Cleanup(func() { _, _ = made.Run("destroy", "-auto-approve", "-input=false") })

	w, out := adoptQueried(t, adoptStagedQuery,
		`list\.fleet_envelope\.adopt\s+id=adopt-env-roles\s`,
		`list\.fleet_staged_update_run\.adopt\s+id=adopt-run-1\s+adopt-run-1 \(Initialized\)`)
	if strings.Contains(out, "other-env") {
		t.Fatalf("the name prefix let other-env through:\n%s", out)
	}
	importsOnly(t, w, 2)
}
