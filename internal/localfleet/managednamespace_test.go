package localfleet_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

// managedNamespace is a namespace for the members labelled env=<env>, with a quota and a network
// policy.
func managedNamespace(env, deletePolicy string) fleetapi.FleetManagedNamespace {
	return fleetapi.FleetManagedNamespace{Location: "eastus", Properties: &fleetapi.FleetManagedNamespaceProperties{
		AdoptionPolicy: fleetapi.AdoptionPolicyNever, DeletePolicy: deletePolicy,
		ManagedNamespaceProperties: &fleetapi.ManagedNamespaceProperties{
			Labels:               map[string]string{"team": "a"},
			DefaultResourceQuota: &fleetapi.ResourceQuota{CPURequest: "1", MemoryLimit: "2Gi"},
			DefaultNetworkPolicy: &fleetapi.NetworkPolicy{Ingress: fleetapi.PolicyRuleAllowSameNS, Egress: fleetapi.PolicyRuleDenyAll},
		},
		PropagationPolicy: &fleetapi.PropagationPolicy{Type: fleetapi.PropagationTypePlacement, PlacementProfile: &fleetapi.PlacementProfile{
			DefaultClusterResourcePlacement: &fleetapi.ClusterResourcePlacementSpec{Policy: &fleetapi.PlacementPolicy{
				PlacementType: "PickAll",
				Affinity: &fleetapi.Affinity{ClusterAffinity: &fleetapi.ClusterAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &fleetapi.ClusterSelector{
					ClusterSelectorTerms: []fleetapi.ClusterSelectorTerm{{LabelSelector: &fleetapi.LabelSelector{MatchLabels: map[string]string{"env": env}}}},
				}}},
			}},
		}},
	}}
}

// nsWorld is what the test reads: the Fleet API, the hub and canary-east's API server (the one
// member with its own, served by KubeFleet's real member agent).
type nsWorld struct {
	api    *fleetapi.Client
	fleet  fleetapi.FleetID
	hub    client.Client
	member client.Client
}

func (w nsWorld) put(t *testing.T, name string, ns fleetapi.FleetManagedNamespace) {
	t.Helper()
	p, err := w.api.BeginCreateOrUpdateManagedNamespace(context.Background(), w.fleet, name, ns, &fleetapi.Precondition{IfNoneMatch: "*"})
	if err == nil {
		_, err = p.PollUntilDone(context.Background(), &pollFast)
	}
	if err != nil {
		t.Fatalf("PUT %s: %v", name, err)
	}
}

func (w nsWorld) delete(t *testing.T, name string) {
	t.Helper()
	p, err := w.api.BeginDeleteManagedNamespace(context.Background(), w.fleet, name, nil)
	if err == nil {
		_, err = p.PollUntilDone(context.Background(), &pollFast)
	}
	if err != nil {
		t.Fatalf("DELETE %s: %v", name, err)
	}
	// The operation ends once the generated placement is gone from the hub.
	if err := w.hub.Get(context.Background(), client.ObjectKey{Name: name}, &placementv1.ClusterResourcePlacement{}); !apierrors.IsNotFound(err) {
		t.Fatalf("DELETE %s ended with the placement still on the hub (%v)", name, err)
	}
}

// onMember awaits the namespace's presence (want) on canary-east's API server, not terminating.
func (w nsWorld) onMember(t *testing.T, name string, want bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var ns corev1.Namespace
		err := w.member.Get(ctx, client.ObjectKey{Name: name}, &ns)
		if err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		return (err == nil && ns.DeletionTimestamp == nil) == want, nil
	})
	if err != nil {
		t.Fatalf("namespace %s on canary-east's API server: want present %t: %v", name, want, err)
	}
}

// objectsOnMember checks the namespace's objects on canary-east's API server as
// managednamespace.Build writes them; managed says whether they are still KubeFleet's and ARM's.
func (w nsWorld) objectsOnMember(t *testing.T, name string, managed bool) {
	t.Helper()
	ctx := context.Background()
	var ns corev1.Namespace
	if err := w.member.Get(ctx, client.ObjectKey{Name: name}, &ns); err != nil {
		t.Fatal(err)
	}
	if ns.DeletionTimestamp != nil || ns.Labels["team"] != "a" || (ns.Labels[managednamespace.ManagedByLabel] == "true") != managed {
		t.Errorf("namespace %s: deleting %v, labels %v (managed %t)", name, ns.DeletionTimestamp, ns.Labels, managed)
	}
	var quota corev1.ResourceQuota
	if err := w.member.Get(ctx, client.ObjectKey{Namespace: name, Name: managednamespace.QuotaName}, &quota); err != nil {
		t.Fatalf("quota of %s: %v", name, err)
	}
	if q := quota.Spec.Hard[corev1.ResourceRequestsCPU]; q.Cmp(resource.MustParse("1")) != 0 || len(quota.Spec.Hard) != 2 {
		t.Errorf("quota of %s: %v", name, quota.Spec.Hard)
	}
	var np networkingv1.NetworkPolicy
	if err := w.member.Get(ctx, client.ObjectKey{Namespace: name, Name: managednamespace.NetworkPolicyName}, &np); err != nil {
		t.Fatalf("network policy of %s: %v", name, err)
	}
	if len(np.Spec.PolicyTypes) != 2 || len(np.Spec.Ingress) != 1 || len(np.Spec.Egress) != 0 {
		t.Errorf("network policy of %s: %+v", name, np.Spec)
	}
	for _, obj := range []client.Object{&ns, &quota, &np} {
		owned := false
		for _, o := range obj.GetOwnerReferences() {
			owned = owned || o.Kind == "AppliedWork"
		}
		if owned != managed {
			t.Errorf("%s %s: owned by an AppliedWork %t, want %t (%v)", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), owned, managed, obj.GetOwnerReferences())
		}
	}
}

// placedMembers checks the preview's placedMembers of a namespace whose placement is Available:
// the members the real hub agent reports it Applied and Available on.
func (w nsWorld) placedMembers(t *testing.T, preview *fleetapi.Client, name string, want ...string) {
	t.Helper()
	got, err := preview.GetManagedNamespace(context.Background(), w.fleet, name)
	if err != nil {
		t.Fatalf("preview GET %s: %v", name, err)
	}
	if got.Properties == nil || !equal(got.Properties.PlacedMembers, want) {
		t.Errorf("%s: placedMembers %v, want %v", name, got.Properties, want)
	}
}

// pollFast polls operations at the pace the emulator asks (Retry-After), or every 200 ms.
var pollFast = runtime.PollUntilDoneOptions{Frequency: 200 * time.Millisecond}

// TestManagedNamespacesOnTheRealHub: managed namespaces written through the Fleet API (over HTTPS,
// through the provider's Fleet API client) are placed by KubeFleet's real hub agent on the members
// their label selector picks, and land with their quota and network policy on canary-east's API
// server (KubeFleet's real member agent) only when it is picked; the preview API's placedMembers is
// where the real hub agent reports them Applied and Available, and the namespace's member credentials
// are given for those members only and reach the namespace; Delete takes them off, Keep leaves
// them there, no longer KubeFleet's, once the placement and its AppliedWork are gone; a placement
// of the same name the Fleet API did not write is a conflict.
func TestManagedNamespacesOnTheRealHub(t *testing.T) {
	f := acctest.Current(t)
	w := nsWorld{
		api:    acctest.FleetAPI(t),
		fleet:  fleetapi.FleetID{SubscriptionID: os.Getenv("ARM_SUBSCRIPTION_ID"), ResourceGroupName: os.Getenv("FLEET_RESOURCE_GROUP_NAME"), Name: os.Getenv("FLEET_NAME")},
		hub:    kubeClient(t, f.Env["KUBE_CONFIG_PATH"], localfleet.HubScheme()),
		member: kubeClient(t, filepath.Join(f.Dir, "member-canary-east.kubeconfig"), localfleet.HubScheme()),
	}
	ctx := context.Background()
	step := func(what string, start time.Time) { t.Logf("%s: %s", what, time.Since(start).Round(time.Millisecond)) }

	// env=canary picks canary-east alone.
	start := time.Now()
	w.put(t, "mns-canary", managedNamespace("canary", fleetapi.DeletePolicyDelete))
	if got := keys(placed(t, w.hub, "mns-canary")); !equal(got, []string{"canary-east"}) {
		t.Fatalf("mns-canary placed on %v, want [canary-east]", got)
	}
	var crp placementv1.ClusterResourcePlacement
	if err := w.hub.Get(ctx, client.ObjectKey{Name: "mns-canary"}, &crp); err != nil {
		t.Fatal(err)
	}
	if crp.Labels[managednamespace.ManagedByLabel] != "true" || crp.Annotations[managednamespace.ResourceIDAnnotation] != w.fleet.ChildID("managedNamespaces", "mns-canary") {
		t.Errorf("the generated placement's labels %v, annotations %v", crp.Labels, crp.Annotations)
	}
	w.onMember(t, "mns-canary", true)
	w.objectsOnMember(t, "mns-canary", true)
	step("mns-canary placed on canary-east and applied on its API server", start)

	// The preview API says where it is, from the real hub agent's status, and gives canary-east's
	// credentials for it, which reach the namespace on canary-east's API server; prod-east-1, not
	// picked, gets none.
	start = time.Now()
	preview := acctest.FleetAPI(t, fleetapi.WithAPIVersion(fleetapi.PreviewAPIVersion))
	w.placedMembers(t, preview, "mns-canary", "canary-east")
	res, err := preview.ListManagedNamespaceMemberCredentials(ctx, w.fleet, "mns-canary", []string{"canary-east", "prod-east-1"})
	if err != nil || len(res) != 2 {
		t.Fatalf("listMemberCredentials of mns-canary: %+v (%v)", res, err)
	}
	kc, err := res[0].DecodeKubeconfig()
	if err != nil {
		t.Fatalf("canary-east's credentials for mns-canary: %v", err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	viaCredentials, err := client.New(cfg, client.Options{Scheme: localfleet.HubScheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := viaCredentials.Get(ctx, client.ObjectKey{Name: "mns-canary"}, &corev1.Namespace{}); err != nil {
		t.Errorf("mns-canary through canary-east's credentials: %v", err)
	}
	if r := res[1]; r.Name != "prod-east-1" || r.Status != fleetapi.MemberCredentialFailed || r.Error == nil || r.Error.Code != "ManagedNamespaceNotPlaced" ||
		!strings.Contains(r.Error.Message, "(it is placed on canary-east)") {
		t.Errorf("prod-east-1's credentials for mns-canary: %+v (error %+v), want Failed ManagedNamespaceNotPlaced", r, r.Error)
	}
	if got, err := w.api.GetManagedNamespace(ctx, w.fleet, "mns-canary"); err != nil || got.Properties.PlacedMembers != nil {
		t.Errorf("a stable read of mns-canary: placedMembers %v (%v), want none (preview only)", got.Properties.PlacedMembers, err)
	}
	step("mns-canary's placedMembers and member credentials (preview)", start)

	// env=prod picks prod-east-1 and prod-west-1 (prod-east-2's taint is not tolerated), not canary-east.
	start = time.Now()
	w.put(t, "mns-prod", managedNamespace("prod", fleetapi.DeletePolicyDelete))
	if got := keys(placed(t, w.hub, "mns-prod")); !equal(got, []string{"prod-east-1", "prod-west-1"}) {
		t.Fatalf("mns-prod placed on %v, want [prod-east-1 prod-west-1]", got)
	}
	for cluster, want := range map[string]int{"prod-east-1": 1, "prod-west-1": 1, "prod-east-2": 0, "canary-east": 0} {
		var works placementv1.WorkList
		if err := w.hub.List(ctx, &works, client.InNamespace("fleet-member-"+cluster), client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "mns-prod"}); err != nil {
			t.Fatal(err)
		}
		if len(works.Items) != want {
			t.Errorf("%s has %d Works of mns-prod, want %d", cluster, len(works.Items), want)
		}
	}
	if err := w.member.Get(ctx, client.ObjectKey{Name: "mns-prod"}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("mns-prod is on canary-east's API server, which its selector does not pick (%v)", err)
	}
	w.placedMembers(t, preview, "mns-prod", "prod-east-1", "prod-west-1")
	step("mns-prod placed on prod-east-1 and prod-west-1, not on canary-east", start)

	// Delete: the namespace leaves the member and the hub.
	start = time.Now()
	w.delete(t, "mns-canary")
	step("DELETE mns-canary (Delete) until the placement was gone", start)
	w.onMember(t, "mns-canary", false)
	if err := w.hub.Get(ctx, client.ObjectKey{Name: "mns-canary"}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("the hub's namespace mns-canary stays after Delete (%v)", err)
	}
	step("mns-canary gone from canary-east and the hub", start)
	start = time.Now()
	w.delete(t, "mns-prod")
	step("DELETE mns-prod (Delete, simulated members)", start)

	// Keep: the placement goes, its AppliedWork is collected, and the namespace with its quota and
	// network policy stays on the member, released by KubeFleet and no longer labelled as ARM's.
	start = time.Now()
	w.put(t, "mns-keep", managedNamespace("canary", fleetapi.DeletePolicyKeep))
	placed(t, w.hub, "mns-keep")
	w.onMember(t, "mns-keep", true)
	w.objectsOnMember(t, "mns-keep", true)
	step("mns-keep placed on canary-east", start)
	start = time.Now()
	w.delete(t, "mns-keep")
	step("DELETE mns-keep (Keep) until the placement was gone", start)
	start = time.Now()
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var applied placementv1.AppliedWorkList
		if err := w.member.List(ctx, &applied); err != nil {
			return false, err
		}
		for _, a := range applied.Items {
			if a.Name == "mns-keep-work" {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the AppliedWork of mns-keep stays on canary-east: %v", err)
	}
	step("mns-keep's AppliedWork collected on canary-east", start)
	// Collected: what it still owned would be gone or going now.
	w.objectsOnMember(t, "mns-keep", false)
	var hubNS corev1.Namespace
	if err := w.hub.Get(ctx, client.ObjectKey{Name: "mns-keep"}, &hubNS); err != nil || managedByARMLabel(&hubNS) || hubNS.DeletionTimestamp != nil {
		t.Errorf("the hub's namespace mns-keep after Keep: labels %v, deleting %v (%v)", hubNS.Labels, hubNS.DeletionTimestamp, err)
	}

	// A placement of the name that the Fleet API did not write: 409, and nothing written.
	start = time.Now()
	foreign := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: "mns-foreign"},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "mns-foreign"}},
			Policy:            &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: []string{"canary-east"}},
		},
	}
	if err := w.hub.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	_, err = w.api.BeginCreateOrUpdateManagedNamespace(ctx, w.fleet, "mns-foreign", managedNamespace("canary", fleetapi.DeletePolicyDelete), nil)
	if e, ok := fleetapi.AsError(err); !ok || e.StatusCode != http.StatusConflict {
		t.Errorf("PUT over a placement the Fleet API did not write: %v, want 409", err)
	}
	if err := w.hub.Get(ctx, client.ObjectKey{Name: "mns-foreign"}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused PUT wrote the hub's namespace (%v)", err)
	}
	if _, err := w.api.GetManagedNamespace(ctx, w.fleet, "mns-foreign"); !fleetapi.IsNotFound(err) {
		t.Errorf("the refused PUT stored the managed namespace (%v)", err)
	}
	if err := w.hub.Delete(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	step("PUT over a foreign placement refused", start)
}

func managedByARMLabel(o metav1.Object) bool {
	return o.GetLabels()[managednamespace.ManagedByLabel] == "true"
}
