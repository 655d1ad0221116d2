package savedplanacc_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
)

// mover changes one input out of band between `terraform plan -out` and `terraform apply PLANFILE`
// of a group's working folder, as the fleet moves between a review and its apply.
type mover struct {
	// prepare, when set, runs just before the plan (what the plan runs with, which the move then
	// changes).
	prepare func(t *testing.T, g *genGroup)
	// move changes the input and undoes the change when the test ends (t.Cleanup); it returns a
	// regular expression of what it changed (data: a name, a version) that the moved-warning's
	// detail must match, or "" when only time passed or a setting changed.
	move func(t *testing.T, g *genGroup) string
	// shared: the change is one a preview of another group computed from the live fleet would see
	// (sharedMoves).
	shared bool
	// slow: the move waits (its group starts first).
	slow bool
	// early: the move waits for the hub agent's next resource snapshot, which it cuts at most every
	// 30 s: the group's base is applied first in the hub's lane, its plan last.
	early bool
}

var movers = map[string]mover{
	// The provider's clock, two days on at apply (acctest.EnvProviderClockOffset): every member
	// agent's heartbeat is then older than the scheduler's 5 minutes, and default's 700-hour node
	// past its 720-hour expireAfter, so each preview computed now differs (time alone is a move only
	// then).
	"clock": {move: func(t *testing.T, g *genGroup) string {
		g.setEnv(acctest.EnvProviderClockOffset, "48h")
		return ""
	}},

	// The Fleet API's clock: canary-east's window (stage canary, reached first) is set, before the
	// plan, to open at the next whole minute at least 30 s away; the apply waits until the Fleet
	// API's clock has passed it and a minute since the plan (the local fleet's clock runs in real
	// time), so the run's preview computed now has canary-east upgraded, not pending.
	"Fleet API clock": {slow: true,
		prepare: func(t *testing.T, g *genGroup) {
			f := acctest.Current(t)
			opens := f.FleetAPINow(t).Add(30 * time.Second).Truncate(time.Minute).Add(time.Minute)
			emulatorMember(t, "canary-east",
				fmt.Sprintf(`{"maintenanceWindow":{"daily":true,"startTime":%q,"durationHours":1}}`, opens.Format("15:04")),
				`{"maintenanceWindow":{"weekly":"Monday","startTime":"00:00","durationHours":8}}`)
			g.windowOpens = opens
		},
		move: func(t *testing.T, g *genGroup) string {
			f := acctest.Current(t)
			planned := f.FleetAPINow(t) // not before the plan read the clock
			if !planned.Before(g.windowOpens) {
				t.Fatalf("the plan ended at %s, after canary-east's window opened (%s): the machine is too slow for this mover's 30 s",
					planned.Format(time.RFC3339), g.windowOpens.Format(time.RFC3339))
			}
			target := planned.Add(61 * time.Second)
			if g.windowOpens.After(target) {
				target = g.windowOpens
			}
			if err := acctest.Eventually(3*time.Minute, "the Fleet API's clock passes "+target.Format(time.RFC3339), func() (bool, string) {
				now := f.FleetAPINow(t)
				return !now.Before(target), now.Format(time.RFC3339)
			}); err != nil {
				t.Fatal(err)
			}
			return ""
		}},

	// preview_detail full at plan (FLEET_PREVIEW_DETAIL), summary at apply.
	"preview settings": {
		prepare: func(t *testing.T, g *genGroup) { g.setEnv(preview.EnvPreviewDetail, preview.PreviewDetailFull) },
		move: func(t *testing.T, g *genGroup) string {
			g.setEnv(preview.EnvPreviewDetail, "summary")
			return `\bfull\b`
		}},

	// A label of the group's own on prod-east-1's MemberCluster (through the local fleet's member
	// agent): no configuration selects by it, so no other group's preview moves.
	"hub member clusters": {move: func(t *testing.T, g *genGroup) string {
		key := g.prefix + "-label"
		patchMember(t, "prod-east-1", map[string]any{"labels": map[string]any{key: "moved"}}, map[string]any{"labels": map[string]any{key: nil}})
		return regexp.QuoteMeta(key) + `\b.*\bmoved\b`
	}},

	// A toleration (of a taint no cluster has) added on the hub to each placement of the group's
	// base, as kubectl would: its policy changes, its bindings stay.
	"hub placements": {move: func(t *testing.T, g *genGroup) string {
		if len(g.placements) == 0 {
			t.Fatal("the group's configurations own no placement to change")
		}
		h := acctest.NewHubClients(t).Hub
		for _, key := range g.placements {
			p, err := h.PlacementAt(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			if p.Spec.Policy == nil {
				p.Spec.Policy = &placementv1.PlacementPolicy{PlacementType: placementv1.PickAllPlacementType}
			}
			p.Spec.Policy.Tolerations = append(p.Spec.Policy.Tolerations, placementv1.Toleration{Key: g.prefix + "-tol", Operator: "Exists", Effect: "NoSchedule"})
			if _, err := h.UpdatePlacementSpec(context.Background(), p); err != nil {
				t.Fatal(err)
			}
		}
		// KubeFleet lets no toleration be removed: the working folder's destroy takes the placements.
		return regexp.QuoteMeta(g.prefix + "-")
	}},

	// The staged run's strategy changed on the hub (its stages renamed), as another workspace would.
	"staged run inputs": {move: func(t *testing.T, g *genGroup) string {
		h := acctest.NewHubClients(t).Hub
		for _, name := range g.stagedRuns {
			s, err := h.Strategy(context.Background(), "", name)
			if err != nil {
				t.Fatal(err)
			}
			spec := *s.Spec.DeepCopy()
			for i := range spec.Stages {
				spec.Stages[i].Name += "moved" // [a-z0-9]+
			}
			if _, err := h.UpdateStrategySpec(context.Background(), "", name, spec); err != nil {
				t.Fatal(err)
			}
		}
		// The working folder's destroy takes the strategy.
		return regexp.QuoteMeta(g.prefix + "-sur")
	}},

	// ConfigMap settings changed in each overridden placement's namespace: the hub agent cuts each
	// placement a new latest resource snapshot, which the mover awaits (all at once: the hub agent
	// collects changes every 15 s).
	"selected resources": {early: true, move: func(t *testing.T, g *genGroup) string {
		hc := acctest.NewHubClients(t)
		kube := acctest.HubKube(t).Kubernetes
		ctx := context.Background()
		before := map[hub.PlacementKey]string{}
		for _, key := range g.overrides {
			v, err := hc.Hub.ResourceVersionsAt(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			before[key] = v.Latest
			ns := key.Namespace
			if ns == "" {
				ns = key.Name // the ClusterResourcePlacements here select the namespace of their name
			}
			cm, err := kube.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cm.Data["tier"] = "moved"
			if _, err := kube.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		for _, key := range g.overrides {
			if err := acctest.Eventually(2*time.Minute, "a new resource snapshot of "+key.String(), func() (bool, string) {
				v, err := hc.Hub.ResourceVersionsAt(ctx, key)
				if err != nil {
					return false, err.Error()
				}
				return v.Latest != before[key], "latest " + v.Latest
			}); err != nil {
				t.Fatal(err)
			}
		}
		// The working folder's destroy and the namespaces' deletion take the change.
		return regexp.QuoteMeta(g.prefix + "-")
	}},

	// Another override, of another workspace, in the scope of each overridden placement (a
	// ClusterResourceOverride, or a ResourceOverride in its namespace), named after the placement:
	// the override controller's new latest snapshot, awaited, is what moved. It overrides, on the
	// clusters it picks, what a placement the group plans as an update carries (its Namespace, or
	// its ConfigMap settings): that placement's preview would now list it (override_snapshots). Of
	// the other placements, whose previewed overrides override what they carry, it overrides a
	// resource they do not carry (KubeFleet refuses two overrides of one resource).
	"override snapshots": {move: func(t *testing.T, g *genGroup) string {
		h := acctest.NewHubClients(t).Hub
		ctx := context.Background()
		for _, key := range g.overrides {
			name := key.Name + "-oob"
			target := name
			if slices.Contains(g.updated, key) {
				target = key.Name // the ClusterResourcePlacements here select the namespace of their name
				if key.Namespace != "" {
					target = "settings"
				}
			}
			o := &hub.Override{Namespace: key.Namespace, Name: name}
			o.Spec.Placement = &placementv1.PlacementRef{Name: key.Name, Scope: placementv1.ClusterScoped}
			if key.Namespace == "" {
				o.Spec.ClusterResourceSelectors = []placementv1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: target}}
			} else {
				o.Spec.Placement.Scope = placementv1.NamespaceScoped
				o.ResourceSelectors = []placementv1.ResourceSelector{{Group: "", Version: "v1", Kind: "ConfigMap", Name: target}}
			}
			o.Spec.Policy = &placementv1.OverridePolicy{OverrideRules: []placementv1.OverrideRule{{
				// On the env=prod clusters the placements pick (a nil selector selects none).
				ClusterSelector: &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
				}}},
				OverrideType:       placementv1.JSONPatchOverrideType,
				JSONPatchOverrides: []placementv1.JSONPatchOverride{{Operator: placementv1.JSONPatchOverrideOpAdd, Path: "/metadata/labels/moved", Value: jsonValue(`"yes"`)}},
			}}}
			if _, err := h.WriteOverride(ctx, o, false); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := h.DeleteOverride(context.Background(), key.Namespace, name); err != nil {
					t.Errorf("deleting override %s: %v", hub.Key(key.Namespace, name), err)
				}
			})
			if err := acctest.Eventually(time.Minute, "a snapshot of override "+hub.Key(key.Namespace, name), func() (bool, string) {
				snaps, err := h.LatestOverrideSnapshots(ctx, key.Namespace)
				if err != nil {
					return false, err.Error()
				}
				for _, s := range snaps {
					if s.Override == name {
						return true, s.Name
					}
				}
				return false, fmt.Sprintf("%d snapshots", len(snaps))
			}); err != nil {
				t.Fatal(err)
			}
		}
		return regexp.QuoteMeta(g.prefix+"-") + `[a-z0-9.-]*-oob\b`
	}},

	// prod-east-1 upgraded outside the Fleet API (az aks upgrade): its managed cluster's versions.
	"fleet members": {shared: true, move: func(t *testing.T, g *genGroup) string {
		emulatorMember(t, "prod-east-1", `{"kubernetesVersion":"1.33.1"}`, `{"kubernetesVersion":"1.32.5"}`)
		return `prod-east-1\b.*1\.33\.1`
	}},

	// prod-west-1's auto-upgrade window, weekly on Saturday, made daily (az aks maintenanceconfiguration).
	"maintenance windows": {shared: true, move: func(t *testing.T, g *genGroup) string {
		emulatorMember(t, "prod-west-1", `{"maintenanceWindow":{"daily":true,"startTime":"00:00","durationHours":23}}`,
			`{"maintenanceWindow":{"weekly":"Saturday","startTime":"02:00","durationHours":4}}`)
		return `prod-west-1\b`
	}},

	// The update strategy the run and the profile follow, owned by another workspace, gets its
	// stages reversed there.
	"update strategies": {move: func(t *testing.T, g *genGroup) string {
		if g.strategy == "" {
			t.Fatal("the group's configurations follow no update strategy owned elsewhere")
		}
		rings := append([]string(nil), g.rings...)
		sort.Sort(sort.Reverse(sort.StringSlice(rings)))
		putStrategy(t, g.prefix+"-rings", rings...)
		return regexp.QuoteMeta(g.prefix + "-rings")
	}},

	// AKS releases a Kubernetes patch in westeurope (the emulator's /_emulator/releases): 1.31.x,
	// which no channel the configurations follow resolves to, so auto-upgrade profiles elsewhere do not
	// trigger. A release cannot be withdrawn: it stays for the rest of the package's fleet, a new
	// patch each time the test runs.
	"AKS regions": {shared: true, move: func(t *testing.T, g *genGroup) string {
		v := fmt.Sprintf("1.31.%d", 10+releases.Add(1))
		acctest.Current(t).Admin(t, http.MethodPost, "/_emulator/releases", emulator.ReleaseRequest{Region: "westeurope", KubernetesVersion: v}, nil)
		return regexp.QuoteMeta(v)
	}},

	// A pod lands on the last node of the group's NodePool of canary-east (its own API server).
	"Karpenter picture": {shared: true, move: func(t *testing.T, g *genGroup) string {
		kc := acctest.MemberClient(t, "canary-east")
		ctx := context.Background()
		var nodes corev1.NodeList
		if err := kc.List(ctx, &nodes, client.MatchingLabels{"karpenter.sh/nodepool": g.pool}); err != nil || len(nodes.Items) == 0 {
			t.Fatalf("nodes of pool %s: %v (%d)", g.pool, err, len(nodes.Items))
		}
		sort.Slice(nodes.Items, func(i, j int) bool { return nodes.Items[i].Name < nodes.Items[j].Name })
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: g.prefix + "-pod", Namespace: "default"},
			Spec:       corev1.PodSpec{NodeName: nodes.Items[len(nodes.Items)-1].Name, Containers: []corev1.Container{{Name: "app", Image: "app"}}},
		}
		if err := kc.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = kc.Delete(context.Background(), pod, client.GracePeriodSeconds(0)) })
		return regexp.QuoteMeta(pod.Name)
	}},
}

// jsonValue is a JSON patch's value.
func jsonValue(raw string) apiextensionsv1.JSON { return apiextensionsv1.JSON{Raw: []byte(raw)} }

// releases numbers the Kubernetes patches the AKS regions mover releases in this process.
var releases atomic.Int32
