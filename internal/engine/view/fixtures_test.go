package view

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

// The snapshots the pinned view is tested over (the same as package facts' tests build).

const testFleetID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f"

func testFacts() *facts.Snapshot {
	mc := &armcontainerservice.ManagedCluster{Name: to.Ptr("c1"), Location: to.Ptr("eastus"), Properties: &armcontainerservice.ManagedClusterProperties{
		CurrentKubernetesVersion: to.Ptr("1.32.5"),
		AgentPoolProfiles:        []*armcontainerservice.ManagedClusterAgentPoolProfile{{Name: to.Ptr("system"), NodeImageVersion: to.Ptr("AKSUbuntu-2204gen2containerd-202510.01.0")}},
	}}
	return &facts.Snapshot{
		TakenAt: time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC), FleetNow: time.Date(2026, 11, 25, 10, 0, 1, 0, time.UTC),
		HubRead: true,
		Hub: []clusterv1.MemberCluster{{ObjectMeta: metav1.ObjectMeta{Name: "c1", Labels: map[string]string{"env": "prod"}},
			Status: clusterv1.MemberClusterStatus{Conditions: []metav1.Condition{{Type: "Joined", Status: metav1.ConditionTrue}}}}},
		Fleets: []facts.FleetRecord{{ID: testFleetID, Windows: true, Members: []facts.MemberRecord{
			facts.RecordOf(facts.Member{Name: "c1", Group: "prod", Cluster: mc}),
			facts.RecordOf(facts.Member{Name: "c2", ClusterErr: errors.New("forbidden")}),
		}}},
	}
}

func testBinding(ns, placement, cluster string, available bool) placementv1.ClusterResourceBinding {
	b := placementv1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: placement + "-" + cluster, Namespace: ns, Generation: 2,
		Labels: map[string]string{placementv1beta1.PlacementTrackingLabel: placement, "other": "dropped"}},
		Spec: placementv1.ResourceBindingSpec{TargetCluster: cluster, State: placementv1.BindingStateBound, ResourceSnapshotName: "dropped"}}
	status := metav1.ConditionFalse
	if available {
		status = metav1.ConditionTrue
	}
	b.Status.Conditions = []metav1.Condition{{Type: string(placementv1.ResourceBindingAvailable), Status: status, ObservedGeneration: 2, Reason: "R", Message: "dropped"}}
	return b
}

func testPlacementFacts() *facts.Snapshot {
	f := testFacts()
	f.Hub[0].Spec.Taints = []clusterv1.Taint{{Key: "a", Value: "b", Effect: "NoSchedule"}}
	placements := []placementv1.ClusterResourcePlacement{
		{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3}, Spec: placementv1.PlacementSpec{Policy: &placementv1.PlacementPolicy{PlacementType: placementv1.PickNPlacementType, NumberOfClusters: ptr(int32(2))}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "team"}},
	}
	bindings := []placementv1.ClusterResourceBinding{
		testBinding("", "web", "c1", true), testBinding("", "web", "c2", false), testBinding("team", "app", "c1", true),
		testBinding("", "gone", "c1", true), // its placement is gone: left out
	}
	f.PlacementsRead = true
	f.Placements = facts.PlacementsOf(placements, bindings)
	return f
}

func testOverrideFacts() *facts.Snapshot {
	f := testPlacementFacts()
	f.Overrides = []facts.SelectedResources{{Placement: "web", Index: "3", Resources: []json.RawMessage{
		json.RawMessage(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"web"}}`),
		json.RawMessage(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"web"}}`),
	}}}
	f.OverrideSnapshots = []facts.OverrideSnapshots{
		{Snapshots: []hub.OverrideSnapshot{{Name: "tier-0", Override: "tier", Spec: placementv1.ClusterResourceOverrideSpec{
			Policy: &placementv1.OverridePolicy{OverrideRules: []placementv1.OverrideRule{{OverrideType: placementv1.DeleteOverrideType}}}}}}},
		{Namespace: "web"},
	}
	return f
}

func testStagedFacts() *facts.Snapshot {
	f := testFacts()
	b := testBinding("", "web", "c1", true)
	b.Spec.SchedulingPolicySnapshotName = "web-0"
	f.Staged = []facts.StagedInputs{{StagedRun: facts.StagedRun{Placement: "web", Strategy: "rings"}, Inputs: hub.RunInputs{
		Placement:       &placementv1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 1}},
		Strategy:        &placementv1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "rings", Generation: 1}},
		PolicySnapshots: []placementv1.ClusterSchedulingPolicySnapshot{{ObjectMeta: metav1.ObjectMeta{Name: "web-0"}}},
		Bindings:        []placementv1.ClusterResourceBinding{b},
		ResourceSnapshots: []placementv1.ClusterResourceSnapshot{{ObjectMeta: metav1.ObjectMeta{Name: "web-0-snapshot",
			Labels: map[string]string{placementv1beta1.ResourceIndexLabel: "0"}}}},
	}}}
	return f
}

func ringsStrategy(stages ...string) facts.Strategy {
	s := facts.Strategy{Name: "rings"}
	for _, st := range stages {
		s.Strategy.Stages = append(s.Strategy.Stages, fleetapi.UpdateStage{Name: st, Groups: []fleetapi.UpdateGroup{{Name: st}}})
	}
	return s
}

// stageNames are a strategy's stages in order: "canary, prod".
func stageNames(s *fleetapi.UpdateRunStrategy) string {
	out := ""
	for i, st := range s.Stages {
		if i > 0 {
			out += ", "
		}
		out += st.Name
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func mustParseFleet(t *testing.T, id string) fleetapi.FleetID {
	t.Helper()
	fleet, err := fleetapi.ParseFleetID(id)
	if err != nil {
		t.Fatal(err)
	}
	return fleet
}

// encoded is f through the encoding data.fleet_facts hands it on in, checked to come back whole:
// what a plan read is what the apply's re-plan reads.
func encoded(t *testing.T, f *facts.Snapshot) *facts.Snapshot {
	t.Helper()
	s, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := facts.Decode(s)
	if err != nil || got.Digest() != f.Digest() {
		t.Fatalf("decoded: %v, digest %s vs %s", err, got.Digest(), f.Digest())
	}
	return got
}
