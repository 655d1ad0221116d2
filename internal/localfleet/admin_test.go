package localfleet

import (
	"reflect"
	"testing"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// The admin API's PATCH is a JSON merge patch of the member's description.
func TestMergeMember(t *testing.T) {
	healthy := true
	m := fleetfile.Member{
		Name: "m1", Location: "eastus", KubernetesVersion: "1.32.5", Healthy: &healthy,
		Labels: map[string]string{"env": "prod", "team": "web"},
		Taints: []fleetfile.Taint{{Key: "dedicated", Value: "gpu", Effect: "NoSchedule"}},
	}
	got, err := mergeMember(m, []byte(`{"healthy": false, "labels": {"team": null, "tier": "gold"}, "taints": null}`))
	if err != nil {
		t.Fatal(err)
	}
	unhealthy := false
	want := m
	want.Healthy = &unhealthy
	want.Labels = map[string]string{"env": "prod", "tier": "gold"}
	want.Taints = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %+v, want %+v", got, want)
	}
	if !m.IsHealthy() || m.Labels["team"] != "web" {
		t.Error("the patch changed the original member")
	}
	for _, bad := range []string{`{"bogus": 1}`, `{"labels": "x"}`, `not json`} {
		if _, err := mergeMember(m, []byte(bad)); err == nil {
			t.Errorf("patch %s: want an error", bad)
		}
	}
}
