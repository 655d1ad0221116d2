package localfleet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

const generatedFleet = `fleet: {name: gen, subscriptionId: 00000000-0000-0000-0000-000000000001, resourceGroup: rg-fleet, location: eastus}
regions:
  eastus: {kubernetesVersions: ["1.31.9", "1.32.5"], nodeImages: {AKSUbuntu-2204gen2containerd: ["202510.01.0"]}}
  westeurope: {kubernetesVersions: ["1.32.5"], nodeImages: {AKSUbuntu-2204gen2containerd: ["202510.01.0"]}}
generate:
  count: 200
  seed: 3
  regions: {eastus: 1, westeurope: 1}
  labels: {env: {prod: 3, dev: 1}}
  properties: {kubernetes.azure.com/per-cpu-core-cost: {min: 0.05, max: 0.12, decimals: 3}}
  nodeCount: {min: 1, max: 9}
  taint: {fraction: 0.1, key: dedicated, value: gpu}
  unhealthyFraction: 0.05
  resources: {cpu: {min: 8, max: 64}, memoryGi: {min: 32, max: 256}}
`

// A generated fleet of 200 comes up with KubeFleet's real hub agent; every
// healthy member is eligible and stays so across a heartbeat round, every
// unhealthy one is not. Without the hub agent (hub.agent false) the member
// agents write the same MemberCluster status the hub agent would have.
func TestGeneratedFleet(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts local fleets: set TF_ACC")
	}
	const healthy, unhealthy = 190, 10 // unhealthyFraction 0.05 of 200
	withAgent := startGenerated(t, generatedFleet)
	waitEligible(t, withAgent, healthy, unhealthy)
	waitHeartbeatRound(t, withAgent)
	viaAgent := statuses(t, withAgent)

	direct := startGenerated(t, generatedFleet+"hub: {agent: false}\n")
	waitEligible(t, direct, healthy, unhealthy)
	waitHeartbeatRound(t, direct)
	if got := statuses(t, direct); !reflect.DeepEqual(got, viaAgent) {
		for name := range viaAgent {
			if got[name] != viaAgent[name] {
				t.Fatalf("%s: written directly\n  %s\nby the hub agent\n  %s", name, got[name], viaAgent[name])
			}
		}
		t.Fatalf("the direct statuses differ from the hub agent's: %d and %d members", len(got), len(viaAgent))
	}
}

func startGenerated(t *testing.T, file string) client.Client {
	t.Helper()
	root, err := acctest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "fleet.yaml")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f, err := acctest.Start(root, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Stop)
	t.Logf("%d generated members ready in %s", 200, time.Since(start).Round(time.Millisecond))
	return kubeClient(t, f.Env["KUBE_CONFIG_PATH"], localfleet.HubScheme())
}

func memberClusters(c client.Client) ([]clusterv1.MemberCluster, error) {
	var list clusterv1.MemberClusterList
	if err := c.List(context.Background(), &list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// waitEligible waits until the hub's scheduler would see exactly `healthy`
// eligible members, and the rest ineligible for want of a heartbeat.
func waitEligible(t *testing.T, c client.Client, healthy, unhealthy int) {
	t.Helper()
	err := acctest.Eventually(90*time.Second, "every healthy generated member eligible", func() (bool, string) {
		mcs, err := memberClusters(c)
		if err != nil {
			return false, err.Error()
		}
		eligible, stale, other := 0, 0, []string{}
		for i := range mcs {
			ok, why := scheduling.Eligible(&mcs[i], time.Now())
			switch {
			case ok:
				eligible++
			case strings.Contains(why, "no recent heartbeat"):
				stale++
			default:
				other = append(other, mcs[i].Name+": "+why)
			}
		}
		return eligible == healthy && stale == unhealthy && len(other) == 0,
			fmt.Sprintf("%d members: %d eligible, %d without a heartbeat, others %v", len(mcs), eligible, stale, other)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// waitHeartbeatRound waits until every eligible member has heartbeat again
// and is still eligible.
func waitHeartbeatRound(t *testing.T, c client.Client) {
	t.Helper()
	mcs, err := memberClusters(c)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]time.Time{}
	for i := range mcs {
		if ok, _ := scheduling.Eligible(&mcs[i], time.Now()); ok {
			before[mcs[i].Name] = mcs[i].GetAgentStatus(clusterv1.MemberAgent).LastReceivedHeartbeat.Time
		}
	}
	// acctest runs the fleet with a 15s heartbeat.
	err = acctest.Eventually(45*time.Second, "a heartbeat round", func() (bool, string) {
		mcs, err := memberClusters(c)
		if err != nil {
			return false, err.Error()
		}
		waiting := []string{}
		for i := range mcs {
			prev, ok := before[mcs[i].Name]
			if !ok {
				continue
			}
			eligible, why := scheduling.Eligible(&mcs[i], time.Now())
			if !eligible {
				t.Fatalf("%s became ineligible: %s", mcs[i].Name, why)
			}
			if !mcs[i].GetAgentStatus(clusterv1.MemberAgent).LastReceivedHeartbeat.After(prev) {
				waiting = append(waiting, mcs[i].Name)
			}
		}
		sort.Strings(waiting)
		return len(waiting) == 0, fmt.Sprintf("%d without a new heartbeat, e.g. %v", len(waiting), head(waiting, 5))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// statuses renders what a MemberCluster says about its member, without
// times, UIDs and resource versions.
func statuses(t *testing.T, c client.Client) map[string]string {
	t.Helper()
	mcs, err := memberClusters(c)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, mc := range mcs {
		var b strings.Builder
		fmt.Fprintf(&b, "labels %v taints %v; conditions", mc.Labels, mc.Spec.Taints)
		conds := func(cs []metav1.Condition) {
			cs = append([]metav1.Condition(nil), cs...)
			sort.Slice(cs, func(i, j int) bool { return cs[i].Type < cs[j].Type })
			for _, c := range cs {
				fmt.Fprintf(&b, " %s=%s/%s", c.Type, c.Status, c.Reason)
			}
		}
		conds(mc.Status.Conditions)
		for _, a := range mc.Status.AgentStatus {
			fmt.Fprintf(&b, "; agent %s:", a.Type)
			conds(a.Conditions)
		}
		props := []string{}
		for k, v := range mc.Status.Properties {
			props = append(props, fmt.Sprintf("%s=%s", k, v.Value))
		}
		sort.Strings(props)
		u := mc.Status.ResourceUsage
		fmt.Fprintf(&b, "; properties %v; capacity %v allocatable %v available %v", props, u.Capacity, u.Allocatable, u.Available)
		out[mc.Name] = b.String()
	}
	return out
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
