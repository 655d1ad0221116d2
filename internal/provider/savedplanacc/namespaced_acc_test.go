package savedplanacc_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// The namespaced resources with a preview, fleet_resource_placement and fleet_resource_override
// (override_acc_test.go), through the same sequence as their cluster-scoped twins (one
// implementation each): a saved plan computed from facts, a member changed on the hub,
// `apply PLANFILE` applies and warns what moved. Each test's namespace is its placement's name,
// with a ConfigMap `settings` to place.

// namespaceWithSettings creates namespace ns on the hub with ConfigMap settings (tier: none).
func namespaceWithSettings(t *testing.T, ns string) {
	t.Helper()
	acctest.NewHubClients(t).CreateNamespace(t, ns)
	_, err := acctest.HubKube(t).Kubernetes.CoreV1().ConfigMaps(ns).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"tier": "none"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

const resourcePlacementMovedHCL = `
data "fleet_facts" "at_plan" {}

resource "fleet_resource_placement" "prod" {
  namespace          = "%[1]s"
  name               = "%[1]s"
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    name    = "settings"
  }
  policy {
    placement_type = "PickAll"
    required_cluster_selector {
      labels = { env = "prod" }
    }
  }
  facts = data.fleet_facts.at_plan.content
}
`

// TestAccSavedPlanResourcePlacement: plan -out a ResourcePlacement of the env=prod clusters
// (prod-east-1 and prod-west-1: prod-east-2 is tainted), relabel prod-east-1 to staging, apply the
// plan file: it applies, keeps the reviewed preview and warns what moved.
func TestAccSavedPlanResourcePlacement(t *testing.T) {
	const name = "saved-rp-facts"
	namespaceWithSettings(t, name)
	w := workdir(t, fmt.Sprintf(resourcePlacementMovedHCL, name))
	acctest.Lines(t, w.Must("plan", "-out=tfplan"), `fleet_resource_placement.prod will be created`, `cluster\s+= "prod-east-1"`)
	patchMember(t, "prod-east-1", map[string]any{"labels": map[string]any{"env": "staging"}}, map[string]any{"labels": map[string]any{"env": "prod"}})
	moved, out := applyMoved(t, w, "fleet_resource_placement.prod")
	acctest.Lines(t, moved.Detail,
		`member cluster prod-east-1: labels env: prod → staging`,
		`Computed now, the preview would differ`,
		`preview\.selected`)
	acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
	acctest.Lines(t, w.Must("show"), `cluster\s+= "prod-east-1"`) // the reviewed preview is what state keeps
}
