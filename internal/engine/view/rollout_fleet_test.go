package view

import "testing"

func TestRolloutFleetAssumed(t *testing.T) {
	const ubuntu = "AKSUbuntu-2204gen2containerd"
	f := RolloutFleet{AssumedNodeImages: map[string]map[string][]string{"eastus": {ubuntu: {"202508.01.0", "202511.04.0"}}}}
	if !f.Assumed("eastus", ubuntu+"-202511.04.0") || f.Assumed("westeurope", ubuntu+"-202511.04.0") {
		t.Error("Assumed: 202511.04.0 is assumed in eastus only")
	}
}
