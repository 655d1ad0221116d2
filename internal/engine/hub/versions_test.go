package hub

import (
	"context"
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// hubServing is a client whose hub's discovery lists these group versions and resources, and
// counts the discovery requests.
func hubServing(served map[string][]string, requests *int) *Client {
	fake := &clienttesting.Fake{}
	for gv, resources := range served {
		l := &metav1.APIResourceList{GroupVersion: gv}
		for _, r := range resources {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: r})
		}
		fake.Resources = append(fake.Resources, l)
	}
	fake.AddReactor("*", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		*requests++
		return false, nil, nil
	})
	disc := &fakediscovery.FakeDiscovery{Fake: fake, FakedServerVersion: &version.Info{GitVersion: "v1.32.4"}}
	return &Client{dyn: dynamicfake.NewSimpleDynamicClient(runtime.NewScheme()), disc: disc}
}

func TestResolveSpeaksTheNewestServedVersionAndAsksOnce(t *testing.T) {
	ctx := context.Background()
	var requests int
	c := hubServing(map[string][]string{
		// KubeFleet v0.18.9: placements in v1 and v1beta1, envelopes in v1beta1 only.
		"placement.kubernetes-fleet.io/v1":      {"clusterresourceplacements", "clusterresourceplacements/status", "works"},
		"placement.kubernetes-fleet.io/v1beta1": {"clusterresourceplacements", "works", "clusterresourceenvelopes"},
		"cluster.kubernetes-fleet.io/v1beta1":   {"memberclusters"},
	}, &requests)
	for _, tc := range []struct{ resource, group, want string }{
		{"clusterresourceplacements", PlacementGVR.Group, "v1"},
		{"works", PlacementGVR.Group, "v1"},
		{"clusterresourceenvelopes", PlacementGVR.Group, "v1beta1"},
		{"memberclusters", MemberClusterGVR.Group, "v1beta1"}, // a hub without cluster v1
	} {
		gvr := PlacementGVR.GroupVersion().WithResource(tc.resource)
		gvr.Group = tc.group
		got, err := c.resolve(ctx, gvr)
		if err != nil || got.Version != tc.want {
			t.Errorf("%s: got %s, %v; want version %s", tc.resource, got, err, tc.want)
		}
	}
	first := requests
	for range 5 {
		if _, err := c.resolve(ctx, PlacementGVR); err != nil {
			t.Fatal(err)
		}
	}
	if requests != first || first == 0 {
		t.Errorf("discovery requests: %d for the first resolutions, %d after five more; want them once", first, requests)
	}
}

func TestResolveNamesTheKindAndTheHubVersionWhenNotServed(t *testing.T) {
	var requests int
	c := hubServing(map[string][]string{"placement.kubernetes-fleet.io/v1beta1": {"clusterresourceplacements"}}, &requests)
	_, err := c.resolve(context.Background(), StrategyGVR)
	var notServed *NotServedError
	if !errors.As(err, &notServed) {
		t.Fatalf("got %v, want a NotServedError", err)
	}
	for _, want := range []string{"clusterstagedupdatestrategies.placement.kubernetes-fleet.io", "Kubernetes v1.32.4", "v1 or v1beta1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestResolveLeavesOtherGroupsAlone(t *testing.T) {
	var requests int
	c := hubServing(nil, &requests)
	got, err := c.resolve(context.Background(), CRDGVR)
	if err != nil || got != CRDGVR || requests != 0 {
		t.Errorf("got %s, %v after %d discovery requests; want %s untouched and no discovery", got, err, requests, CRDGVR)
	}
}
