package member_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// The placements of the taint test: "taintweb" (PickAll, tolerates legacy) and the
// ResourcePlacement taintns/cfg (PickN 4, tolerates legacy) lose prod-west-1 to a new
// maintenance taint; "tolerant" tolerates every taint.
const taintPlacements = `
resource "fleet_placement" "web" {
  name = "taintweb"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "taintweb"
  }
  policy {
    placement_type = "PickAll"
    toleration {
      key      = "legacy"
      operator = "Exists"
    }
  }
}

resource "fleet_placement" "tolerant" {
  name = "tolerant"
  resource_selector {
    version = "v1"
    kind    = "Namespace"
    name    = "tolerant"
  }
  policy {
    placement_type = "PickAll"
    toleration {
      operator = "Exists"
    }
  }
}

resource "fleet_resource_placement" "cfg" {
  namespace = "taintns"
  name      = "cfg"
  resource_selector {
    version = "v1"
    kind    = "ConfigMap"
    name    = "cfg"
  }
  policy {
    placement_type     = "PickN"
    number_of_clusters = 4
    toleration {
      key      = "legacy"
      operator = "Exists"
    }
  }
}
`

func taintsConfig(taints string) string {
	return taintsConfigWith(taintPlacements, taints)
}

// rescheduled: both PickAll placements gain a toleration of "other", a new policy snapshot that
// makes the hub agent's scheduler run a cycle over every cluster.
var rescheduled = strings.NewReplacer(
	`    toleration {
      key      = "legacy"
      operator = "Exists"
    }
  }
}

resource "fleet_placement" "tolerant"`, `    toleration {
      key      = "legacy"
      operator = "Exists"
    }
    toleration {
      key      = "other"
      operator = "Exists"
    }
  }
}

resource "fleet_placement" "tolerant"`,
	`    toleration {
      operator = "Exists"
    }`, `    toleration {
      operator = "Exists"
    }
    toleration {
      key      = "other"
      operator = "Exists"
    }`,
).Replace(taintPlacements)

// taintsConfigWith is the placements and the taints resource; taints are taint blocks (taintBlock).
func taintsConfigWith(placements, taints string) string {
	return placements + `
resource "fleet_member_cluster_taints" "west" {
  member_cluster = "prod-west-1"
` + taints + `}
`
}

// taintBlock is a taint block of the arguments attrs (`key = "a", effect = "NoSchedule"`).
func taintBlock(attrs string) string {
	return "  taint {\n    " + strings.ReplaceAll(attrs, ", ", "\n    ") + "\n  }\n"
}

// fleet_member_cluster_taints through the real CLI on KubeFleet v0.18.9's hub: the plan names the
// placements bound to prod-west-1 that would not pick it again (cluster- and namespace-scoped) and
// says nothing is evicted; the apply keeps a taint kubectl set and owns its own by server-side
// apply; the hub agent keeps what is bound; import by name; destroy removes only its taints.
func TestAccMemberClusterTaints(t *testing.T) {
	hc := acctest.NewHubClients(t)
	for _, ns := range []string{"taintweb", "tolerant", "taintns"} {
		hc.CreateNamespace(t, ns)
	}
	ctx := context.Background()
	kc := acctest.HubKube(t)
	if _, err := kc.Kubernetes.CoreV1().ConfigMaps("taintns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	c := acctest.HubClient(t)
	h := hub.New(kc)
	// A taint set imperatively, as kubectl would.
	setTaints := func(taints []clusterv1.Taint) {
		var mc clusterv1.MemberCluster
		if err := c.Get(ctx, client.ObjectKey{Name: "prod-west-1"}, &mc); err != nil {
			t.Fatal(err)
		}
		mc.Spec.Taints = taints
		if err := c.Update(ctx, &mc, client.FieldOwner("kubectl-edit")); err != nil {
			t.Fatal(err)
		}
	}
	legacy := clusterv1.Taint{Key: "legacy", Value: "yes", Effect: corev1.TaintEffectNoSchedule}
	setTaints([]clusterv1.Taint{legacy})
	t.Cleanup(func() { setTaints(nil) })

	w := acctest.NewWorkdir(t, taintPlacements)
	w.Must("apply", "-auto-approve", "-input=false")
	bound := func() map[string]bool {
		bs, err := h.AllBindings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, b := range bs {
			if b.Spec.TargetCluster == "prod-west-1" && b.Spec.State != placementv1.BindingStateUnscheduled && b.DeletionTimestamp == nil {
				out[hub.Key(b.Namespace, b.Labels[placementv1beta1.PlacementTrackingLabel])] = true
			}
		}
		return out
	}
	if err := acctest.Eventually(time.Minute, "three placements bound to prod-west-1", func() (bool, string) {
		b := bound()
		return b["taintweb"] && b["tolerant"] && b["taintns/cfg"], fmt.Sprint(b)
	}); err != nil {
		t.Fatal(err)
	}

	w.Write("main.tf", taintsConfig(taintBlock(`key = "maintenance", value = "kernel", effect = "NoSchedule"`)))
	out := w.Must("plan", "-input=false", "-out=tfplan")
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		`2 placements bound to prod-west-1 would not pick it on their next scheduling`,
		`: taintweb, taintns/cfg. `,
		`KubeFleet's taints do not evict: what they have bound on prod-west-1 stays`,
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	w.Must("apply", "-input=false", "tfplan")
	p, _ := w.StateValues("fleet_member_cluster_taints.west")["preview"].(map[string]any)
	lost, _ := p["no_longer_picking"].(map[string]any)
	if p["no_longer_picking_count"] != float64(2) || lost["taintweb"] != "maintenance=kernel:NoSchedule" || lost["taintns/cfg"] != "maintenance=kernel:NoSchedule" {
		t.Errorf("preview %v", p)
	}
	mc, err := h.MemberCluster(ctx, "prod-west-1")
	if err != nil {
		t.Fatal(err)
	}
	maintenance := clusterv1.Taint{Key: "maintenance", Value: "kernel", Effect: corev1.TaintEffectNoSchedule}
	if !slices.Equal(mc.Spec.Taints, []clusterv1.Taint{legacy, maintenance}) {
		t.Fatalf("taints after apply: %v", mc.Spec.Taints)
	}
	if owners := hub.TaintsAppliedBy(mc, false); len(owners) != 0 {
		t.Errorf("spec.taints also owned by %v after the apply", owners)
	}
	// KubeFleet evicts nothing for a taint: what was bound stays bound.
	if b := bound(); !b["taintweb"] || !b["taintns/cfg"] || !b["tolerant"] {
		t.Errorf("bindings to prod-west-1 after the taint: %v", b)
	}
	if out, err := w.Run("plan", "-detailed-exitcode", "-input=false"); err != nil {
		t.Fatalf("plan after apply is not empty: %v\n%s", err, out)
	}

	// Import by the member cluster's name claims every taint: the configuration then differs.
	w.Must("state", "rm", "fleet_member_cluster_taints.west")
	w.Must("import", "-input=false", "fleet_member_cluster_taints.west", "prod-west-1")
	w.Write("main.tf", taintsConfig(taintBlock(`key = "legacy", value = "yes", effect = "NoSchedule"`)+
		taintBlock(`key = "maintenance", value = "kernel", effect = "NoSchedule"`)))
	if out, err := w.Run("plan", "-detailed-exitcode", "-input=false"); err != nil {
		t.Fatalf("plan after import is not empty: %v\n%s", err, out)
	}
	// Give legacy back to its writer: a new resource with maintenance alone keeps legacy as it is.
	w.Must("state", "rm", "fleet_member_cluster_taints.west")
	w.Write("main.tf", taintsConfig(taintBlock(`key = "maintenance", value = "kernel", effect = "NoSchedule"`)))
	w.Must("apply", "-auto-approve", "-input=false")

	// The next scheduling, by KubeFleet's real scheduler: a new policy snapshot of each PickAll
	// placement; the one the preview listed leaves prod-west-1, the tolerant one keeps it.
	w.Write("main.tf", taintsConfigWith(rescheduled, taintBlock(`key = "maintenance", value = "kernel", effect = "NoSchedule"`)))
	w.Must("apply", "-auto-approve", "-input=false")
	if err := acctest.Eventually(time.Minute, "taintweb's next scheduling leaves prod-west-1", func() (bool, string) {
		b := bound()
		return !b["taintweb"] && b["tolerant"], fmt.Sprint(b)
	}); err != nil {
		t.Fatal(err)
	}

	// Destroy hands back: legacy stays, maintenance goes, the provider no longer applies the list.
	w.Must("destroy", "-auto-approve", "-input=false", "-target=fleet_member_cluster_taints.west")
	if mc, err = h.MemberCluster(ctx, "prod-west-1"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mc.Spec.Taints, []clusterv1.Taint{legacy}) {
		t.Fatalf("taints after destroy: %v", mc.Spec.Taints)
	}
	for _, e := range mc.ManagedFields {
		if e.Manager == hub.FieldManager && e.Operation == metav1.ManagedFieldsOperationApply && strings.Contains(string(e.FieldsV1.Raw), "f:taints") {
			t.Errorf("the provider still applies spec.taints after destroy: %s", e.FieldsV1.Raw)
		}
	}
	w.Must("destroy", "-auto-approve", "-input=false")
}

// Bad taints at validate, with the element's path: an effect KubeFleet refuses, a key and a value
// its webhook refuses, a duplicate; a member cluster the hub lacks at plan.
func TestAccMemberClusterTaints_badInput(t *testing.T) {
	for _, tc := range []struct{ taints, want string }{
		{taintBlock(`key = "a", effect = "NoExecute"`), `taint\[0\]\.effect value must be one of: \["NoSchedule"\]`},
		{taintBlock(`key = "a", effect = "PreferNoSchedule"`), `value must be one of: \["NoSchedule"\]`},
		{taintBlock(`key = "key@123:", effect = "NoSchedule"`), `invalid taint key`},
		{taintBlock(`key = "a", value = "val&1", effect = "NoSchedule"`), `invalid taint value`},
		{taintBlock(`key = "a", effect = "NoSchedule"`) + taintBlock(`key = "a", effect = "NoSchedule"`), `taint\[1\] repeats taint\[0\]`},
		{"", `Block taint must have a configuration value`},
	} {
		acctest.Invalid(t, "resource \"fleet_member_cluster_taints\" \"bad\" {\n  member_cluster = \"prod-west-1\"\n"+tc.taints+"}\n", tc.want)
	}
	w := acctest.NewWorkdir(t, `
resource "fleet_member_cluster_taints" "missing" {
  member_cluster = "no-such-cluster"
  taint {
    key    = "a"
    effect = "NoSchedule"
  }
}
`)
	out, err := w.Run("plan", "-input=false")
	if err == nil || !acctest.WrappedRegexp(`the hub has no MemberCluster "no-such-cluster"`).MatchString(out) {
		t.Fatalf("plan for a missing member cluster: %v\n%s", err, out)
	}
}
