package member

import (
	"slices"
	"testing"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
)

// desiredTaints keeps the taints others set in their order, replaces this resource's prior taints
// with its new ones, and never repeats one; with no new taints (destroy) only its own go.
func TestDesiredTaints(t *testing.T) {
	tn := func(k string) clusterv1.Taint { return clusterv1.Taint{Key: k, Effect: "NoSchedule"} }
	a, b, c, d := tn("a"), tn("b"), tn("c"), tn("d")
	for _, tc := range []struct {
		name                    string
		live, prior, mine, want []clusterv1.Taint
	}{
		{"create next to kubectl's", []clusterv1.Taint{a}, nil, []clusterv1.Taint{b}, []clusterv1.Taint{a, b}},
		{"update replaces only ours", []clusterv1.Taint{a, b, c}, []clusterv1.Taint{b}, []clusterv1.Taint{d}, []clusterv1.Taint{a, c, d}},
		{"ours kept in place", []clusterv1.Taint{b, a}, []clusterv1.Taint{b}, []clusterv1.Taint{b, d}, []clusterv1.Taint{b, a, d}},
		{"someone else's equal taint is claimed, not doubled", []clusterv1.Taint{a}, nil, []clusterv1.Taint{a}, []clusterv1.Taint{a}},
		{"destroy hands back", []clusterv1.Taint{a, b, c}, []clusterv1.Taint{b, c}, nil, []clusterv1.Taint{a}},
		{"a taint of ours removed outside Terraform", []clusterv1.Taint{a}, []clusterv1.Taint{b}, []clusterv1.Taint{b}, []clusterv1.Taint{a, b}},
	} {
		if got := desiredTaints(tc.live, tc.prior, tc.mine); !slices.Equal(got, tc.want) {
			t.Errorf("%s: desiredTaints = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := taintString(clusterv1.Taint{Key: "k", Value: "v", Effect: "NoSchedule"}) + " " + taintString(tn("k")); got != "k=v:NoSchedule k:NoSchedule" {
		t.Errorf("taintString: %q", got)
	}
}
