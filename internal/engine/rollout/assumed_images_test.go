package rollout

import (
	"reflect"
	"testing"
	"time"
)

// AKS lists only each region's latest image; a region is taken to offer the
// older versions seen elsewhere, and only those older than its latest.
func TestAssumeOlderImagesOffered(t *testing.T) {
	const ubuntu = "AKSUbuntu-2204gen2containerd"
	regions := map[string]Region{
		// eastus lists 202512.02.0; a member there runs 202510.01.0.
		"eastus": {NodeImages: map[string][]string{ubuntu: {"202512.02.0", "202510.01.0"}}},
		// westeurope lists 202511.04.0; a member there runs 202509.01.0.
		"westeurope": {NodeImages: map[string][]string{ubuntu: {"202511.04.0", "202509.01.0"}}},
		// japaneast's list could not be read: only its members' images.
		"japaneast": {NodeImages: map[string][]string{ubuntu: {"202508.01.0"}}},
	}
	listed := map[string]map[string][]string{
		"eastus":     {ubuntu: {"202512.02.0"}},
		"westeurope": {ubuntu: {"202511.04.0"}},
	}
	assumed := AssumeOlderImagesOffered(regions, listed)
	want := map[string]map[string][]string{
		"eastus":     {ubuntu: {"202508.01.0", "202509.01.0", "202511.04.0"}},
		"westeurope": {ubuntu: {"202508.01.0", "202510.01.0"}},
	}
	if !reflect.DeepEqual(assumed, want) {
		t.Fatalf("assumed %v, want %v", assumed, want)
	}
	if got := regions["japaneast"].NodeImages[ubuntu]; !reflect.DeepEqual(got, []string{"202508.01.0"}) {
		t.Errorf("japaneast (list unread) offers %v: nothing may be assumed there", got)
	}
	// Consistent over eastus and westeurope now finds westeurope's latest.
	members := []Member{
		{Name: "a", Location: "eastus", NodePools: []NodePool{{Name: "p", NodeImageVersion: ubuntu + "-202510.01.0"}}},
		{Name: "b", Location: "westeurope", NodePools: []NodePool{{Name: "p", NodeImageVersion: ubuntu + "-202509.01.0"}}},
	}
	sel, missing := ConsistentNodeImages(members, regions, time.Time{})
	if len(missing) > 0 || sel[ubuntu] != "202511.04.0" {
		t.Errorf("Consistent selects %v (missing %v), want %s 202511.04.0", sel, missing, ubuntu)
	}
}
