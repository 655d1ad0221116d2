package view

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
)

func TestRolloutFleetAssumed(t *testing.T) {
	const ubuntu = "AKSUbuntu-2204gen2containerd"
	f := RolloutFleet{AssumedNodeImages: map[string]map[string][]string{"eastus": {ubuntu: {"202508.01.0", "202511.04.0"}}}}
	if !f.Assumed("eastus", ubuntu+"-202511.04.0") || f.Assumed("westeurope", ubuntu+"-202511.04.0") {
		t.Error("Assumed: 202511.04.0 is assumed in eastus only")
	}
}

// A memberSelector matches the fleet member's labels (engine/rollout selectors.go), so the rollout
// member carries them, also from a snapshot a plan recorded (facts.RecordOf keeps them).
func TestRolloutMemberLabels(t *testing.T) {
	loc, v := "eastus", "1.33.1"
	m := facts.Member{Name: "m1", Group: "canary", Labels: map[string]string{"env": "prod"},
		Cluster: &armcontainerservice.ManagedCluster{Location: &loc, Properties: &armcontainerservice.ManagedClusterProperties{CurrentKubernetesVersion: &v}}}
	rm, ok := RolloutMember(facts.RecordOf(m).Member())
	if !ok || rm.Labels["env"] != "prod" || rm.Group != "canary" || rm.KubernetesVersion != v {
		t.Fatalf("RolloutMember = %+v, %t; want the member's labels env=prod", rm, ok)
	}
}
