package faultacc

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

// apiServer takes one of the local fleet's kube-apiservers down or brings it
// back ("hub" or "member-<name>"; up answers once it is ready).
func apiServer(t *testing.T, server, action string) {
	t.Helper()
	f := acctest.Current(t)
	req, err := http.NewRequest(http.MethodPost, f.Env[localfleet.EnvAdminURL]+"/_localfleet/apiservers/"+server+"/"+action, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %s %s", server, action, resp.Status, b)
	}
}

// TestAccHubRestartDuringWaitForRollout: the hub's kube-apiserver is killed
// while `terraform apply` waits for a placement's rollout, and started again
// (same port, certificates and etcd); the apply rides it out and completes,
// and the placement is rolled out to both clusters.
func TestAccHubRestartDuringWaitForRollout(t *testing.T) {
	hc := acctest.HubClient(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "restart-web"}}
	if err := hc.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	w := newWorkdir(t, `
resource "fleet_placement" "web" {
  name               = "restart-web"
  wait_for_rollout = true
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "restart-web"
  }
  policy {
    placement_type = "PickFixed"
    cluster_names  = ["kf-1", "kf-2"]
  }
}
`)
	// The provider's own request log (DEBUG: one line per hub request, ": error" on a transport
	// error) shows whether its requests reached the hub while it was down.
	logPath := filepath.Join(t.TempDir(), "provider.log")
	w.env = []string{"TF_LOG_PROVIDER=DEBUG", "TF_LOG_PATH=" + logPath}
	apply := w.start("apply", "-auto-approve", "-input=false")
	ended := make(chan error, 1)
	go func() { ended <- apply.wait() }()
	var crp placementv1.ClusterResourcePlacement
	if err := acctest.Eventually(time.Minute, "the placement exists on the hub", func() (bool, string) {
		err := hc.Get(ctx, client.ObjectKey{Name: "restart-web"}, &crp)
		return err == nil, fmt.Sprint(err)
	}); err != nil {
		t.Fatal(err)
	}
	apiServer(t, "hub", "down")
	downAt := time.Now()
	select {
	case <-ended:
		t.Fatalf("the apply ended before the hub went down: the test did not exercise the wait\n%s", apply)
	default:
	}
	// Keep the hub down until the provider has met the outage: a hub request of the apply failed.
	hitOutage := acctest.Eventually(time.Minute, "a hub request of the apply fails while the hub is down", func() (bool, string) {
		b, _ := os.ReadFile(logPath)
		return outageLine(string(b)) != "", fmt.Sprintf("%d bytes of provider log", len(b))
	})
	apiServer(t, "hub", "up")
	t.Logf("hub kube-apiserver down and back in %s", time.Since(downAt).Round(time.Millisecond))
	if hitOutage != nil {
		t.Fatal(hitOutage)
	}
	if err := <-ended; err != nil {
		t.Fatalf("the apply did not ride out the hub's restart:\n%s", apply)
	}
	b, _ := os.ReadFile(logPath)
	t.Logf("the provider met the outage: %s", outageLine(string(b)))
	t.Logf("apply took %s", apply.took.Round(time.Millisecond))
	if err := hc.Get(ctx, client.ObjectKey{Name: "restart-web"}, &crp); err != nil {
		t.Fatal(err)
	}
	if c := crp.GetCondition(string(placementv1.ClusterResourcePlacementAvailableConditionType)); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("placement after the apply: Available %+v, want True", c)
	}
	if !w.planIsEmpty() {
		t.Error("the plan after the apply is not empty")
	}
	w.must("destroy", "-auto-approve", "-input=false")
}

// outageLine is the first line of the provider's log where a request to the
// hub's placement API failed in transport (the hub was down), or "".
func outageLine(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "placement.kubernetes-fleet.io") && strings.Contains(l, ": error") {
			if len(l) > 300 {
				l = l[:300]
			}
			return l
		}
	}
	return ""
}

// TestAccMemberAPIServerUnreachableAtPlan: kf-1's kube-apiserver is down
// while a configuration plans disruption budgets on kf-1 and kf-2. The plan
// fails with one diagnostic, naming kf-1 and the address it tried, and
// quickly; kf-2's resource is not in error. With kf-1 back the same
// configuration plans empty.
func TestAccMemberAPIServerUnreachableAtPlan(t *testing.T) {
	w := newWorkdir(t, `
resource "fleet_nodepool_disruption" "kf1" {
  cluster   = "kf-1"
  node_pool = "default"
  budget {
    nodes = "1"
  }
}

resource "fleet_nodepool_disruption" "kf2" {
  cluster   = "kf-2"
  node_pool = "default"
  budget {
    nodes = "1"
  }
}
`)
	w.must("apply", "-auto-approve", "-input=false")
	apiServer(t, "member-kf-1", "down")
	plan := w.run("plan", "-input=false", "-detailed-exitcode")
	apiServer(t, "member-kf-1", "up")
	out := plan.out.String()
	if plan.err == nil {
		t.Fatalf("the plan succeeded with kf-1's API server down:\n%s", out)
	}
	if n := strings.Count(out, "Error: "); n != 1 {
		t.Errorf("%d errors, want one (for kf-1 only):\n%s", n, out)
	}
	says(t, "the plan's error", out, "with fleet_nodepool_disruption.kf1", "kf-1", "127.0.0.1:")
	if strings.Contains(out, "fleet_nodepool_disruption.kf2,") || strings.Contains(out, "with fleet_nodepool_disruption.kf2") {
		t.Errorf("kf-2's resource is in error:\n%s", out)
	}
	if plan.took > 30*time.Second {
		t.Errorf("the plan took %s to report an unreachable member", plan.took)
	}
	t.Logf("plan with kf-1 down failed in %s:\n%s", plan.took.Round(time.Millisecond), out)
	if !w.planIsEmpty() {
		t.Error("with kf-1 back, the plan is not empty")
	}
	w.must("destroy", "-auto-approve", "-input=false")
}
