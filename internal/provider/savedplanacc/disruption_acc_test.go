package savedplanacc_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// canaryEast is a client of canary-east's own API server (the member with Karpenter).
func canaryEast(t *testing.T) *kube.Client {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(acctest.Current(t).Dir, "member-canary-east.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := kube.FromKubeconfig(b)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kube.NewClient(cfg, "fleet-savedplan-acctest")
	if err != nil {
		t.Fatal(err)
	}
	return kc
}

const disruptionHCL = `
data "fleet_facts" "at_plan" { clusters = ["canary-east"] }

resource "fleet_nodepool_disruption" "default" {
  cluster              = "canary-east"
  node_pool            = "default"
  consolidation_policy = "WhenEmptyOrUnderutilized"
  budgets              = [{ nodes = "20%" }]
  facts                = data.fleet_facts.at_plan.content
}
`

// TestAccSavedPlanDisruptionNodesMoved: plan -out a NodePool's disruption settings with the
// cluster's picture in facts; a pod lands on one of its empty nodes; the saved plan applies and
// says what moved and how the preview (the empty nodes Karpenter would take) would differ now.
func TestAccSavedPlanDisruptionNodesMoved(t *testing.T) {
	kc := canaryEast(t)
	ctx := context.Background()
	nodes, err := kc.Kubernetes.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "karpenter.sh/nodepool=default"})
	if err != nil || len(nodes.Items) == 0 {
		t.Fatalf("nodes of pool default: %v (%d)", err, len(nodes.Items))
	}
	w := acctest.NewWorkdir(t, disruptionHCL)
	w.Must("plan", "-out=tfplan")

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "arrived-after-review", Namespace: "default"},
		Spec:       corev1.PodSpec{NodeName: nodes.Items[0].Name, Containers: []corev1.Container{{Name: "app", Image: "app"}}},
	}
	if _, err := kc.Kubernetes.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.Kubernetes.CoreV1().Pods("default").Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	})

	out := w.Must("apply", "-json", "tfplan")
	moved := movedWarning(t, warnings(t, out), "fleet_nodepool_disruption.default")
	acctest.Lines(t, moved.Detail,
		`cluster canary-east: pods \d+ → \d+ \(added default/arrived-after-review\)`,
		`Computed now, the preview would differ`)
	acctest.Lines(t, out, `Apply complete! Resources: 1 added`)
	w.Must("destroy", "-auto-approve")
}
