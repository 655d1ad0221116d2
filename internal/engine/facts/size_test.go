package facts

import (
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What data.fleet_facts holds for a 1,000-member fleet (hub member clusters with conditions, heartbeats,
// properties and resource usage; members with a pool and a window), in the data source's state and
// the plan: DESIGN.md quotes the figure (74,524 bytes, about 75 a member).
func TestFactsEncodedSize(t *testing.T) {
	f := &Snapshot{HubRead: true, TakenAt: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)}
	ff := FleetRecord{ID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f", Windows: true}
	for i := 0; i < 1000; i++ {
		name := fmt.Sprintf("member-%04d", i)
		now := metav1.NewTime(time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC).Add(time.Duration(i*7919) * time.Millisecond))
		f.Hub = append(f.Hub, clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": "prod", "region": "eastus", "tier": "gold", "team": fmt.Sprintf("team-%d", i%37), "cost-center": fmt.Sprintf("cc-%05d", i*31), "fleet.azure.com/location": "eastus"}},
			Status: clusterv1.MemberClusterStatus{
				Conditions:    []metav1.Condition{{Type: "Joined", Status: "True", LastTransitionTime: now, Reason: "Joined", Message: "joined"}, {Type: "Healthy", Status: "True", LastTransitionTime: now, Reason: "Healthy"}},
				AgentStatus:   []clusterv1.AgentStatus{{Type: "MemberAgent", LastReceivedHeartbeat: now, Conditions: []metav1.Condition{{Type: "Joined", Status: "True", LastTransitionTime: now, Reason: "Joined"}, {Type: "Healthy", Status: "True", LastTransitionTime: now, Reason: "Healthy"}}}},
				Properties:    map[clusterv1.PropertyName]clusterv1.PropertyValue{"kubernetes-fleet.io/node-count": {Value: fmt.Sprint(i % 50), ObservationTime: now}},
				ResourceUsage: clusterv1.ResourceUsage{Capacity: corev1.ResourceList{"cpu": resource.MustParse("40"), "memory": resource.MustParse("160Gi")}, Allocatable: corev1.ResourceList{"cpu": resource.MustParse("38"), "memory": resource.MustParse("150Gi")}, Available: corev1.ResourceList{"cpu": resource.MustParse(fmt.Sprint(i % 38)), "memory": resource.MustParse("80Gi")}, ObservationTime: now},
			}})
		mc := &armcontainerservice.ManagedCluster{ID: to.Ptr("/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/" + name), Name: to.Ptr(name), Location: to.Ptr("eastus"),
			Properties: &armcontainerservice.ManagedClusterProperties{KubernetesVersion: to.Ptr("1.32.5"), CurrentKubernetesVersion: to.Ptr("1.32.5"),
				AgentPoolProfiles: []*armcontainerservice.ManagedClusterAgentPoolProfile{{Name: to.Ptr("system"), NodeImageVersion: to.Ptr("AKSUbuntu-2204gen2containerd-202510.01.0"), OrchestratorVersion: to.Ptr("1.32.5"), CurrentOrchestratorVersion: to.Ptr("1.32.5")}}}}
		w := &armcontainerservice.MaintenanceWindow{StartTime: to.Ptr("02:00"), DurationHours: to.Ptr[int32](4), UTCOffset: to.Ptr("+00:00"), Schedule: &armcontainerservice.Schedule{Weekly: &armcontainerservice.WeeklySchedule{DayOfWeek: to.Ptr(armcontainerservice.WeekDaySaturday), IntervalWeeks: to.Ptr[int32](1)}}}
		ff.Members = append(ff.Members, RecordOf(Member{Name: name, Group: []string{"canary", "prod", "staging"}[i%3], Labels: map[string]string{"env": "prod", "tier": "gold"}, ClusterResourceID: *mc.ID, Cluster: mc, Windows: map[string]*armcontainerservice.MaintenanceWindow{AutoUpgradeSchedule: w}}))
	}
	f.Fleets = []FleetRecord{ff}
	s, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1000 members (hub + fleet + windows): %d bytes encoded, %d per member", len(s), len(s)/1000)
	if len(s) > 120*1000 {
		t.Fatalf("facts of 1,000 members take %d bytes encoded, over 120 a member", len(s))
	}
}
