package savedplanacc_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

const disruptionHCL = `
data "fleet_facts" "at_plan" { clusters = ["canary-east"] }

resource "fleet_nodepool_disruption" "default" {
  cluster              = "canary-east"
  node_pool            = "default"
  consolidation_policy = "WhenEmptyOrUnderutilized"
  budget {
    nodes = "20%"
  }
  facts                = data.fleet_facts.at_plan.content
}
`

// TestAccSavedPlanDisruptionNodesMoved: plan -out a NodePool's disruption settings with the
// cluster's picture in facts; a pod lands on one of its empty nodes; the saved plan applies and
// says what moved and how the preview (the empty nodes Karpenter would take) would differ now.
func TestAccSavedPlanDisruptionNodesMoved(t *testing.T) {
	kc := acctest.MemberClient(t, "canary-east")
	ctx := context.Background()
	var nodes corev1.NodeList
	if err := kc.List(ctx, &nodes, client.MatchingLabels{"karpenter.sh/nodepool": "default"}); err != nil || len(nodes.Items) == 0 {
		t.Fatalf("nodes of pool default: %v (%d)", err, len(nodes.Items))
	}
	w := acctest.NewWorkdir(t, disruptionHCL)
	w.Must("plan", "-out=tfplan")

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "arrived-after-review", Namespace: "default"},
		Spec:       corev1.PodSpec{NodeName: nodes.Items[0].Name, Containers: []corev1.Container{{Name: "app", Image: "app"}}},
	}
	if err := kc.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kc.Delete(context.Background(), pod, client.GracePeriodSeconds(0)) })

	out := w.Must("apply", "-json", "tfplan")
	moved := movedWarning(t, warnings(t, out), "fleet_nodepool_disruption.default")
	acctest.Lines(t, moved.Detail,
		`cluster canary-east: pods \d+ → \d+ \(added default/arrived-after-review\)`,
		`Computed now, the preview would differ`)
	acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
	w.Must("destroy", "-auto-approve")
}
