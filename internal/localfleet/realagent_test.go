package localfleet_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

// canary-east has its own API server, so KubeFleet's real member agent serves it: a placement on
// canary-east and prod-east-1 lands on canary-east's API server for real (with the AppliedWork the
// work applier keeps there), while prod-east-1's Work keeps the simulated agent's status. The Works'
// managed fields say who wrote each status: only the real agent (field manager memberagent) wrote
// canary-east's, only the simulated one (localfleet) prod-east-1's.
func TestRealMemberAgentAppliesWorks(t *testing.T) {
	f := acctest.Current(t)
	hub := kubeClient(t, f.Env["KUBE_CONFIG_PATH"], localfleet.HubScheme())
	member := kubeClient(t, filepath.Join(f.Dir, "member-canary-east.kubeconfig"), localfleet.HubScheme())
	createNamespace(t, hub, "real-app")
	crp := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: "real"},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "real-app"}},
			Policy:            &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: []string{"canary-east", "prod-east-1"}},
		},
	}
	if err := hub.Create(context.Background(), crp); err != nil {
		t.Fatal(err)
	}
	if got := keys(placed(t, hub, "real")); !equal(got, []string{"canary-east", "prod-east-1"}) {
		t.Fatalf("placed on %v", got)
	}
	var ns corev1.Namespace
	if err := member.Get(context.Background(), client.ObjectKey{Name: "real-app"}, &ns); err != nil {
		t.Fatalf("the namespace is not on canary-east's API server: %v", err)
	}
	var applied placementv1.AppliedWorkList
	if err := member.List(context.Background(), &applied); err != nil || len(applied.Items) == 0 {
		t.Fatalf("no AppliedWork on canary-east's API server (%v): the real work applier did not apply", err)
	}
	for cluster, writer := range map[string]string{"canary-east": "memberagent", "prod-east-1": "localfleet"} {
		var works placementv1.WorkList
		if err := hub.List(context.Background(), &works, client.InNamespace("fleet-member-"+cluster)); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, w := range works.Items {
			for _, mc := range w.Status.ManifestConditions {
				if mc.Identifier.Name != "real-app" {
					continue
				}
				found = true
				c := meta.FindStatusCondition(mc.Conditions, "Applied")
				if c == nil || c.Status != metav1.ConditionTrue {
					t.Errorf("%s: the namespace's manifest condition is not Applied: %+v", cluster, mc.Conditions)
				}
			}
			if found {
				var managers []string
				for _, mf := range w.ManagedFields {
					if mf.Subresource == "status" {
						managers = append(managers, mf.Manager)
					}
				}
				if len(managers) != 1 || managers[0] != writer {
					t.Errorf("%s: the Work's status written by %v, want only %s", cluster, managers, writer)
				}
			}
		}
		if !found {
			t.Errorf("%s: no Work reports the namespace", cluster)
		}
	}
}

// A drift made by hand on canary-east's API server is reverted by the real work applier (the
// default apply strategy applies Always), within the local fleet's short requeue.
func TestRealMemberAgentRevertsDrift(t *testing.T) {
	f := acctest.Current(t)
	hub := kubeClient(t, f.Env["KUBE_CONFIG_PATH"], localfleet.HubScheme())
	member := kubeClient(t, filepath.Join(f.Dir, "member-canary-east.kubeconfig"), localfleet.HubScheme())
	if err := hub.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "revert-app", Labels: map[string]string{"team": "a"}}}); err != nil {
		t.Fatal(err)
	}
	crp := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: "revert"},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "revert-app"}},
			Policy:            &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: []string{"canary-east"}},
		},
	}
	if err := hub.Create(context.Background(), crp); err != nil {
		t.Fatal(err)
	}
	placed(t, hub, "revert")
	var ns corev1.Namespace
	if err := member.Get(context.Background(), client.ObjectKey{Name: "revert-app"}, &ns); err != nil {
		t.Fatal(err)
	}
	ns.Labels["team"] = "b"
	if err := member.Update(context.Background(), &ns); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := member.Get(ctx, client.ObjectKey{Name: "revert-app"}, &ns); err != nil {
			return false, err
		}
		return ns.Labels["team"] == "a", nil
	})
	if err != nil {
		t.Fatalf("the drift was not reverted: team=%s", ns.Labels["team"])
	}
}

// isMemberAgent reports whether pid runs bin/memberagent.
func isMemberAgent(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	return err == nil && strings.TrimSpace(string(b)) == "memberagent"
}

// A placement removed from canary-east takes its namespace off the member's API server (the work
// applier's foreground deletion of the AppliedWork, collected as the member's garbage collector
// would), and the same placement made again applies it again.
func TestRealMemberAgentGarbageCollects(t *testing.T) {
	f := acctest.Current(t)
	hub := kubeClient(t, f.Env["KUBE_CONFIG_PATH"], localfleet.HubScheme())
	member := kubeClient(t, filepath.Join(f.Dir, "member-canary-east.kubeconfig"), localfleet.HubScheme())
	createNamespace(t, hub, "gc-app")
	newCRP := func() *placementv1.ClusterResourcePlacement {
		return &placementv1.ClusterResourcePlacement{
			ObjectMeta: metav1.ObjectMeta{Name: "gc"},
			Spec: placementv1.PlacementSpec{
				ResourceSelectors: []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "gc-app"}},
				Policy:            &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: []string{"canary-east"}},
			},
		}
	}
	onMember := func(want bool) {
		t.Helper()
		err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			var ns corev1.Namespace
			err := member.Get(ctx, client.ObjectKey{Name: "gc-app"}, &ns)
			if err != nil && !apierrors.IsNotFound(err) {
				return false, err
			}
			return (err == nil && ns.DeletionTimestamp == nil) == want, nil
		})
		if err != nil {
			t.Fatalf("gc-app on canary-east's API server: want present %t: %v", want, err)
		}
	}
	for round := 0; round < 2; round++ {
		if err := hub.Create(context.Background(), newCRP()); err != nil {
			t.Fatal(err)
		}
		placed(t, hub, "gc")
		onMember(true)
		if err := hub.Delete(context.Background(), newCRP()); err != nil {
			t.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			err := hub.Get(ctx, client.ObjectKey{Name: "gc"}, &placementv1.ClusterResourcePlacement{})
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
		if err != nil {
			t.Fatalf("round %d: the placement was not deleted: %v", round, err)
		}
		onMember(false)
		err = wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			err := member.Get(ctx, client.ObjectKey{Name: "gc-work"}, &placementv1.AppliedWork{})
			return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
		})
		if err != nil {
			t.Fatalf("round %d: AppliedWork gc-work stays on the member: %v", round, err)
		}
	}
}
