package scheduling

import (
	"fmt"
	"math/rand"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

var testNow = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// healthyCluster is a joined, healthy member with a fresh heartbeat.
func healthyCluster(name string, labels map[string]string) clusterv1.MemberCluster {
	return clusterv1.MemberCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       clusterv1.MemberClusterSpec{HeartbeatPeriodSeconds: 60},
		Status: clusterv1.MemberClusterStatus{
			AgentStatus: []clusterv1.AgentStatus{{
				Type: clusterv1.MemberAgent,
				Conditions: []metav1.Condition{
					{Type: string(clusterv1.AgentJoined), Status: metav1.ConditionTrue},
					{Type: string(clusterv1.AgentHealthy), Status: metav1.ConditionTrue},
				},
				LastReceivedHeartbeat: metav1.NewTime(testNow.Add(-30 * time.Second)),
			}},
		},
	}
}

func withProperties(c clusterv1.MemberCluster, kv ...string) clusterv1.MemberCluster {
	if c.Status.Properties == nil {
		c.Status.Properties = map[clusterv1.PropertyName]clusterv1.PropertyValue{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c.Status.Properties[clusterv1.PropertyName(kv[i])] = clusterv1.PropertyValue{Value: kv[i+1]}
	}
	return c
}

func withTaints(c clusterv1.MemberCluster, taints ...clusterv1.Taint) clusterv1.MemberCluster {
	c.Spec.Taints = append(c.Spec.Taints, taints...)
	return c
}

func withAvailable(c clusterv1.MemberCluster, cpu, memory string) clusterv1.MemberCluster {
	c.Status.ResourceUsage.Available = corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
	}
	return c
}

func int32p(v int32) *int32 { return &v }

func labelTerm(kv ...string) placementv1.ClusterSelectorTerm {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return placementv1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: m}}
}

// generatedFleet builds n members across 10 regions and 3 zones per region, with node-count,
// per-core cost and available CPU/memory readings; one in 50 is tainted, one in 40 unhealthy.
func generatedFleet(n int, seed int64) []clusterv1.MemberCluster {
	rng := rand.New(rand.NewSource(seed))
	clusters := make([]clusterv1.MemberCluster, n)
	for i := range clusters {
		region := fmt.Sprintf("region-%d", rng.Intn(10))
		env := []string{"prod", "staging", "dev"}[rng.Intn(3)]
		c := healthyCluster(fmt.Sprintf("member-%05d", i), map[string]string{
			"region": region,
			"zone":   fmt.Sprintf("%s-%d", region, rng.Intn(3)),
			"env":    env,
		})
		c = withProperties(c,
			NodeCountProperty, fmt.Sprintf("%d", 3+rng.Intn(100)),
			"kubernetes.azure.com/per-cpu-core-cost", fmt.Sprintf("%.3f", 0.02+rng.Float64()/10),
		)
		c = withAvailable(c, fmt.Sprintf("%dm", 500+rng.Intn(64000)), fmt.Sprintf("%dMi", 512+rng.Intn(256000)))
		if i%50 == 7 {
			c = withTaints(c, clusterv1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule})
		}
		if i%40 == 3 {
			c.Status.AgentStatus[0].LastReceivedHeartbeat = metav1.NewTime(testNow.Add(-10 * time.Minute))
		}
		clusters[i] = c
	}
	return clusters
}

// benchPolicy is SPEC §8's preview: PickN 100, three preferred terms (two property sorters), two
// topology spread constraints.
func benchPolicy() *placementv1.PlacementPolicy {
	return &placementv1.PlacementPolicy{
		PlacementType:    placementv1.PickNPlacementType,
		NumberOfClusters: int32p(100),
		Affinity: &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []placementv1.PreferredClusterSelector{
				{Weight: 40, Preference: labelTerm("env", "prod")},
				{Weight: 30, Preference: placementv1.ClusterSelectorTerm{PropertySorter: &placementv1.PropertySorter{
					Name: "resources.kubernetes-fleet.io/available-cpu", SortOrder: placementv1.Descending}}},
				{Weight: 20, Preference: placementv1.ClusterSelectorTerm{PropertySorter: &placementv1.PropertySorter{
					Name: "kubernetes.azure.com/per-cpu-core-cost", SortOrder: placementv1.Ascending}}},
			},
		}},
		TopologySpreadConstraints: []placementv1.TopologySpreadConstraint{
			{MaxSkew: int32p(1), TopologyKey: "region", WhenUnsatisfiable: placementv1.DoNotSchedule},
			{MaxSkew: int32p(1), TopologyKey: "zone", WhenUnsatisfiable: placementv1.ScheduleAnyway},
		},
		Tolerations: []placementv1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}},
	}
}
