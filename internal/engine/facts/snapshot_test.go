package facts

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

func testFacts() *Snapshot {
	mc := &armcontainerservice.ManagedCluster{Name: to.Ptr("c1"), Location: to.Ptr("eastus"), Properties: &armcontainerservice.ManagedClusterProperties{
		CurrentKubernetesVersion: to.Ptr("1.32.5"),
		AgentPoolProfiles:        []*armcontainerservice.ManagedClusterAgentPoolProfile{{Name: to.Ptr("system"), NodeImageVersion: to.Ptr("AKSUbuntu-2204gen2containerd-202510.01.0")}},
	}}
	return &Snapshot{
		TakenAt: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), FleetNow: time.Date(2026, 11, 25, 10, 0, 1, 0, time.UTC),
		HubRead: true,
		Hub: []clusterv1.MemberCluster{{ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: map[string]string{"env": "prod"}},
			Status: clusterv1.MemberClusterStatus{Conditions: []metav1.Condition{{Type: "Joined", Status: metav1.ConditionTrue}}}}},
		Fleets: []FleetRecord{{ID: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f", Windows: true, Members: []MemberRecord{
			RecordOf(Member{Name: "c1", Group: "prod", Cluster: mc}),
			RecordOf(Member{Name: "c2", ClusterErr: errors.New("forbidden")}),
		}}},
	}
}

// The facts survive their encoding: what a plan read is what the apply's re-plan reads.
func TestFactsEncodeDecode(t *testing.T) {
	f := testFacts()
	s, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest() != f.Digest() || !got.TakenAt.Equal(f.TakenAt) {
		t.Fatalf("decoded facts differ: %s vs %s", got.Digest(), f.Digest())
	}
	fleet, _ := fleetapi.ParseFleetID(f.Fleets[0].ID)
	members, err := got.Members(fleet, true)
	if err != nil || len(members) != 2 || members[1].ClusterErr == nil || *members[0].Cluster.Properties.CurrentKubernetesVersion != "1.32.5" {
		t.Fatalf("members: %+v, %v", members, err)
	}
	for _, bad := range []string{"", "fleetfacts1.!!!", "fleetfacts1." + "aGVsbG8=", "something else"} {
		if _, err := Decode(bad); err == nil || !strings.Contains(err.Error(), "data.fleet_facts") {
			t.Errorf("Decode(%q) = %v, want an error naming data.fleet_facts", bad, err)
		}
	}
}

// Moved names each fact that changed, per input and member, and nothing when nothing did.
func TestMoved(t *testing.T) {
	before := testFacts()
	if got := Moved(before, testFacts()); len(got) != 0 {
		t.Fatalf("unmoved: %v", got)
	}
	after := testFacts()
	after.Hub[0].Labels["env"] = "staging"
	after.Hub[0].Status.Conditions[0].Status = metav1.ConditionFalse
	after.Hub = append(after.Hub, clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "c3"}})
	after.Fleets[0].Members[0].Cluster.Properties.CurrentKubernetesVersion = to.Ptr("1.33.1")
	after.Fleets[0].Members[0].Group = "canary"
	after.Fleets[0].Members = after.Fleets[0].Members[:1]
	want := []string{
		"hub member clusters: member cluster c1: labels env: prod → staging",
		"hub member clusters: member cluster c1: conditions Joined: True → False",
		"hub member clusters: member cluster c3: joined the hub",
		`fleet members: member c1: update group "prod" → "canary"`,
		"fleet members: member c1: versions kubernetes: 1.32.5 → 1.33.1",
		"fleet members: member c2: left the fleet",
	}
	got := Moved(before, after)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Moved:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
