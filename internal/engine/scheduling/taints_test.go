package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

func taint(key, value string) clusterv1.Taint {
	return clusterv1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule}
}

func toleration(key string, op corev1.TolerationOperator, value string, effect corev1.TaintEffect) placementv1.Toleration {
	return placementv1.Toleration{Key: key, Operator: op, Value: value, Effect: effect}
}

// TestFilterTaints ports pkg/scheduler/framework/plugins/tainttoleration/filtering_test.go: TestFilter,
// reasons included ("taint &{Key:… Value:… Effect:NoSchedule} cannot be tolerated").
func TestFilterTaints(t *testing.T) {
	const (
		equal  = corev1.TolerationOpEqual
		exists = corev1.TolerationOpExists
		ns     = corev1.TaintEffectNoSchedule
	)
	cases := []struct {
		name        string
		taints      []clusterv1.Taint
		tolerations []placementv1.Toleration
		want        string
	}{
		{name: "empty taints"},
		{name: "empty tolerations", taints: []clusterv1.Taint{taint("key1", "value1")},
			want: "taint &{Key:key1 Value:value1 Effect:NoSchedule} cannot be tolerated"},
		{name: "taints can be tolerated based on key, value & effect with Equal operator, every taint has matching toleration - nil status",
			taints:      []clusterv1.Taint{taint("key1", "value1"), taint("key2", "value2")},
			tolerations: []placementv1.Toleration{toleration("key1", equal, "value1", ns), toleration("key2", equal, "value2", ns)}},
		{name: "taints can be tolerated based on key, value & empty effect with Equal operator, every taint has matching toleration - nil status",
			taints:      []clusterv1.Taint{taint("key1", "value1"), taint("key2", "value2")},
			tolerations: []placementv1.Toleration{toleration("key1", equal, "value1", ""), toleration("key2", equal, "value2", "")}},
		{name: "taints can be tolerated based on key, empty value, effect with Equal operator, every taint has matching toleration - nil status",
			taints:      []clusterv1.Taint{taint("key1", ""), taint("key2", "")},
			tolerations: []placementv1.Toleration{toleration("key1", equal, "", ""), toleration("key2", equal, "", "")}},
		{name: "taints can be tolerated based on key, effect with Exists operator, every taint has matching toleration - nil status",
			taints:      []clusterv1.Taint{taint("key1", "value1"), taint("key2", "value2"), taint("key3", "")},
			tolerations: []placementv1.Toleration{toleration("key1", exists, "", ns), toleration("key2", exists, "", ns), toleration("key3", exists, "", ns)}},
		{name: "taints can be tolerated by one toleration based on effect with Exists operator, all taints tolerated by one toleration - nil status",
			taints:      []clusterv1.Taint{taint("key1", "value1"), taint("key2", "value2"), taint("key3", "")},
			tolerations: []placementv1.Toleration{toleration("", exists, "", ns)}},
		{name: "taints can be tolerated by one toleration based on empty effect with Exists operator, all taints tolerated by one toleration - nil status",
			taints:      []clusterv1.Taint{taint("key1", "value1"), taint("key2", "value2"), taint("key3", "")},
			tolerations: []placementv1.Toleration{toleration("", exists, "", "")}},
		{name: "taint with key, value, effect cannot be tolerated, values don't match, operator is equal - ClusterUnschedulable status",
			taints: []clusterv1.Taint{taint("key1", "value1")}, tolerations: []placementv1.Toleration{toleration("key1", equal, "value2", ns)},
			want: "taint &{Key:key1 Value:value1 Effect:NoSchedule} cannot be tolerated"},
		{name: "taint with key, value, effect cannot be tolerated, keys don't match, operator is equal - ClusterUnschedulable status",
			taints: []clusterv1.Taint{taint("key1", "value1")}, tolerations: []placementv1.Toleration{toleration("key2", equal, "value1", ns)},
			want: "taint &{Key:key1 Value:value1 Effect:NoSchedule} cannot be tolerated"},
		{name: "taint with key, effect cannot be tolerated, keys don't match, values don't match, operator is equal - ClusterUnSchedulable status",
			taints:      []clusterv1.Taint{taint("key1", "")},
			tolerations: []placementv1.Toleration{toleration("key1", equal, "value1", ns), toleration("key2", equal, "", ns)},
			want:        "taint &{Key:key1 Value: Effect:NoSchedule} cannot be tolerated"},
		{name: "one of multiple taints cannot be tolerated, missing toleration, operator is equal - ClusterUnSchedulable status",
			taints:      []clusterv1.Taint{taint("key1", "value1"), taint("key2", "")},
			tolerations: []placementv1.Toleration{toleration("key1", equal, "value1", "")},
			want:        "taint &{Key:key2 Value: Effect:NoSchedule} cannot be tolerated"},
		{name: "taints with key, value, effect cannot be tolerated, keys don't match, operator is exists - ClusterUnschedulable status",
			taints: []clusterv1.Taint{taint("key1", "value1")}, tolerations: []placementv1.Toleration{toleration("key2", exists, "", ns)},
			want: "taint &{Key:key1 Value:value1 Effect:NoSchedule} cannot be tolerated"},
		{name: "taints with key, effect cannot be tolerated, keys don't match, operator is exists - ClusterUnschedulable status",
			taints: []clusterv1.Taint{taint("key1", "")}, tolerations: []placementv1.Toleration{toleration("key2", exists, "", ns)},
			want: "taint &{Key:key1 Value: Effect:NoSchedule} cannot be tolerated"},
		{name: "one of multiple taints cannot be tolerated, missing toleration, operator is exists - ClusterUnSchedulable status",
			taints:      []clusterv1.Taint{taint("key1", "value1"), taint("key2", "")},
			tolerations: []placementv1.Toleration{toleration("key1", exists, "", "")},
			want:        "taint &{Key:key2 Value: Effect:NoSchedule} cannot be tolerated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := clusterv1.MemberCluster{Spec: clusterv1.MemberClusterSpec{Taints: tc.taints}}
			if got := filterTaints(&c, tc.tolerations); got != tc.want {
				t.Errorf("filterTaints() = %q; want %q", got, tc.want)
			}
		})
	}
}

// NoLongerPicking: only placements bound to the cluster, tolerating its taints before and not
// after; PickFixed, already-untolerated and unscheduled ones are left out; ResourcePlacements are
// keyed namespace/name.
func TestNoLongerPicking(t *testing.T) {
	const exists = corev1.TolerationOpExists
	placement := func(ns, name string, typ placementv1.PlacementType, tol ...placementv1.Toleration) placementv1.ClusterResourcePlacement {
		p := placementv1.ClusterResourcePlacement{}
		p.Namespace, p.Name = ns, name
		p.Spec.Policy = &placementv1.PlacementPolicy{PlacementType: typ, Tolerations: tol}
		return p
	}
	binding := func(ns, placement, cluster string, state placementv1.BindingState) placementv1.ClusterResourceBinding {
		b := placementv1.ClusterResourceBinding{}
		b.Namespace, b.Labels = ns, map[string]string{"kubernetes-fleet.io/parent-CRP": placement}
		b.Spec.TargetCluster, b.Spec.State = cluster, state
		return b
	}
	placements := []placementv1.ClusterResourcePlacement{
		placement("", "web", placementv1.PickAllPlacementType),
		placement("", "gpu", placementv1.PickNPlacementType, toleration("dedicated", exists, "", "")),
		placement("", "fixed", placementv1.PickFixedPlacementType),
		placement("", "old", placementv1.PickAllPlacementType),
		placement("", "elsewhere", placementv1.PickAllPlacementType),
		placement("", "gone", placementv1.PickAllPlacementType),
		placement("team", "api", placementv1.PickNPlacementType),
	}
	bindings := []placementv1.ClusterResourceBinding{
		binding("", "web", "c1", placementv1.BindingStateBound),
		binding("", "gpu", "c1", placementv1.BindingStateBound),
		binding("", "fixed", "c1", placementv1.BindingStateBound),
		binding("", "old", "c1", placementv1.BindingStateScheduled),
		binding("", "elsewhere", "c2", placementv1.BindingStateBound),
		binding("", "gone", "c1", placementv1.BindingStateUnscheduled),
		binding("team", "api", "c1", placementv1.BindingStateScheduled),
	}
	// "old" tolerates nothing and c1 already carries a taint it does not tolerate: no change for it.
	placements[3].Spec.Policy.Tolerations = []placementv1.Toleration{toleration("maintenance", exists, "", "")}
	before := []clusterv1.Taint{taint("legacy", "")}
	placements[0].Spec.Policy.Tolerations = []placementv1.Toleration{toleration("legacy", exists, "", "")}
	placements[1].Spec.Policy.Tolerations = append(placements[1].Spec.Policy.Tolerations, toleration("legacy", exists, "", ""))
	placements[6].Spec.Policy.Tolerations = []placementv1.Toleration{toleration("legacy", exists, "", "")}
	after := append(before, taint("dedicated", "gpu"))
	got := NoLongerPicking(placements, bindings, "c1", before, after)
	want := []TaintLoss{{Placement: "web", Taint: taint("dedicated", "gpu")}, {Placement: "team/api", Taint: taint("dedicated", "gpu")}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("NoLongerPicking = %+v, want %+v", got, want)
	}
	if got := NoLongerPicking(placements, bindings, "c1", after, before); len(got) != 0 {
		t.Errorf("removing a taint loses nothing, got %+v", got)
	}
}
