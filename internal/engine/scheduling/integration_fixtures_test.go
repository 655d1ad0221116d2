package scheduling

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
)

// The fleet of upstream's scheduler integration suite (test/scheduler/suite_test.go): seven
// healthy clusters, one whose agent went silent 25 hours ago, one that has left the fleet.
const (
	mc1 = "cluster-1-east-prod"
	mc2 = "cluster-2-east-prod"
	mc3 = "cluster-3-east-canary"
	mc4 = "cluster-4-central-prod"
	mc5 = "cluster-5-central-prod"
	mc6 = "cluster-6-west-prod"
	mc7 = "cluster-7-west-canary"
	mc8 = "unhealthy-cluster-east-prod"
	mc9 = "left-cluster-central-prod"
	mcX = "non-existent-cluster"

	energyRating = "test.only/energy-efficiency-rating"
)

type suiteProps struct {
	nodes, energy               string
	cpu, memory                 [3]string // total, allocatable, available
	zeroAvailable, noProperties bool
}

var suiteClusterProps = map[string]suiteProps{
	mc1: {nodes: "2", energy: "100", cpu: [3]string{"4", "3", "2"}, memory: [3]string{"4Gi", "3Gi", "2Gi"}},
	mc2: {nodes: "4", energy: "60", cpu: [3]string{"8", "7", "4"}, memory: [3]string{"8Gi", "7Gi", "4Gi"}},
	mc3: {nodes: "6", energy: "40", cpu: [3]string{"12", "11", "6"}, memory: [3]string{"12Gi", "11Gi", "6Gi"}},
	mc4: {nodes: "2", energy: "80", cpu: [3]string{"8", "6", "2"}, memory: [3]string{"4Gi", "2Gi", "1Gi"}},
	mc5: {nodes: "8", energy: "40", cpu: [3]string{"32", "30", "8"}, memory: [3]string{"16Gi", "14Gi", "4Gi"}},
	mc6: {nodes: "2", energy: "60", cpu: [3]string{"4", "2", "1"}, memory: [3]string{"8Gi", "6Gi", "4Gi"}},
	mc7: {nodes: "8", energy: "20", cpu: [3]string{"16", "14", "4"}, memory: [3]string{"32Gi", "30Gi", "16Gi"}},
	// Cluster 8 reports zero available CPU and memory (resource.Quantity{}).
	mc8: {nodes: "1", energy: "100", cpu: [3]string{"8", "6", ""}, memory: [3]string{"8Gi", "6Gi", ""}, zeroAvailable: true},
	mc9: {noProperties: true},
}

var suiteLabels = map[string][2]string{ // region, env
	mc1: {"east", "prod"}, mc2: {"east", "prod"}, mc3: {"east", "canary"},
	mc4: {"central", "prod"}, mc5: {"central", "prod"},
	mc6: {"west", "prod"}, mc7: {"west", "canary"},
	mc8: {"east", "prod"}, mc9: {"central", "prod"},
}

var suiteOrder = []string{mc1, mc2, mc3, mc4, mc5, mc6, mc7, mc8, mc9}

// integrationFleet builds the suite's fleet as the hub agent sees it at testNow.
func integrationFleet() []clusterv1.MemberCluster {
	out := make([]clusterv1.MemberCluster, 0, len(suiteOrder))
	for _, name := range suiteOrder {
		l := suiteLabels[name]
		c := healthyCluster(name, map[string]string{"region": l[0], "env": l[1]})
		p := suiteClusterProps[name]
		if !p.noProperties {
			c = withProperties(c, NodeCountProperty, p.nodes, energyRating, p.energy)
			list := func(i int) corev1.ResourceList {
				if i == 2 && p.zeroAvailable {
					return corev1.ResourceList{corev1.ResourceCPU: resource.Quantity{}, corev1.ResourceMemory: resource.Quantity{}}
				}
				return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(p.cpu[i]), corev1.ResourceMemory: resource.MustParse(p.memory[i])}
			}
			c.Status.ResourceUsage = clusterv1.ResourceUsage{Capacity: list(0), Allocatable: list(1), Available: list(2)}
		}
		switch name {
		case mc8:
			long := metav1.NewTime(testNow.Add(-25 * time.Hour))
			c.Status.AgentStatus[0].LastReceivedHeartbeat = long
			for i := range c.Status.AgentStatus[0].Conditions {
				c.Status.AgentStatus[0].Conditions[i].LastTransitionTime = long
			}
		case mc9:
			left := metav1.NewTime(testNow.Add(-time.Minute))
			c.DeletionTimestamp = &left
		}
		out = append(out, c)
	}
	return out
}
