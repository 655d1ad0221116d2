package fleetfile

import (
	"strings"
	"testing"
	"time"
)

func TestLoadQuickstart(t *testing.T) {
	f, err := Load("../../../examples/quickstart/fleet.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.Fleet.Name != "demo" || len(f.Members) != 5 {
		t.Fatalf("fleet %q with %d members", f.Fleet.Name, len(f.Members))
	}
	m, ok := f.Member("staging-west")
	if !ok || m.IsHealthy() {
		t.Fatalf("staging-west should be present and unhealthy")
	}
	c, _ := f.Member("canary-east")
	if c.Upgrade.Duration.Duration != 20*time.Minute || c.Karpenter == nil || c.Karpenter.NodePools[0].Nodes != 10 {
		t.Fatalf("canary-east parsed wrong: %+v", c)
	}
	if c.MaintenanceWindow.UTCOffset != "+00:00" || c.MaintenanceWindow.IntervalWeeks != 1 {
		t.Fatalf("window defaults not applied: %+v", c.MaintenanceWindow)
	}
	if got := c.NodePools[0].ImageVersion(); got != "202510.01.0" {
		t.Fatalf("image version %q", got)
	}
	if f.Clock.Speed != 3600 || !f.Clock.Start.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("clock %+v", f.Clock)
	}
}

func TestParseRejects(t *testing.T) {
	base := `fleet: {name: demo, subscriptionId: s, resourceGroup: rg, location: eastus}
regions: {eastus: {kubernetesVersions: ["1.32.5"]}}
members:
`
	cases := map[string]string{
		"unknown key":        "  - {name: a, location: eastus, kubernetesVersion: 1.32.5, colour: blue}\n",
		"unknown region":     "  - {name: a, location: mars, kubernetesVersion: 1.32.5}\n",
		"bad version":        "  - {name: a, location: eastus, kubernetesVersion: v1.32}\n",
		"duplicate":          "  - {name: a, location: eastus, kubernetesVersion: 1.32.5}\n  - {name: a, location: eastus, kubernetesVersion: 1.32.5}\n",
		"bad window":         "  - {name: a, location: eastus, kubernetesVersion: 1.32.5, maintenanceWindow: {weekly: Caturday, startTime: '02:00', durationHours: 4}}\n",
		"bad duration":       "  - {name: a, location: eastus, kubernetesVersion: 1.32.5, upgrade: {duration: soon}}\n",
		"too many not ready": "  - {name: a, location: eastus, kubernetesVersion: 1.32.5, karpenter: {nodePools: [{name: p, nodes: 1, notReady: 2}]}}\n",
		"pdb both":           "  - {name: a, location: eastus, kubernetesVersion: 1.32.5, karpenter: {nodePools: [], podDisruptionBudgets: [{namespace: db, name: x, minAvailable: 1, maxUnavailable: 1}]}}\n",
		"pdb percent":        "  - {name: a, location: eastus, kubernetesVersion: 1.32.5, karpenter: {nodePools: [], podDisruptionBudgets: [{namespace: db, name: x, minAvailable: '150%'}]}}\n",
		"pdb policy":         "  - {name: a, location: eastus, kubernetesVersion: 1.32.5, karpenter: {nodePools: [], podDisruptionBudgets: [{namespace: db, name: x, maxUnavailable: 0, unhealthyPodEvictionPolicy: Sometimes}]}}\n",
		"pdb twice":          "  - {name: a, location: eastus, kubernetesVersion: 1.32.5, karpenter: {nodePools: [], podDisruptionBudgets: [{namespace: db, name: x, maxUnavailable: 0}, {namespace: db, name: x, maxUnavailable: 1}]}}\n",
		"pdb negative":       "  - {name: a, location: eastus, kubernetesVersion: 1.32.5, karpenter: {nodePools: [], podDisruptionBudgets: [{namespace: db, name: x, maxUnavailable: 0, disruptionsAllowed: -1}]}}\n",
	}
	want := map[string]string{
		"unknown key": "colour", "unknown region": "location", "bad version": "kubernetesVersion",
		"duplicate": "duplicate", "bad window": "weekly", "bad duration": "duration", "too many not ready": "notReady",
		"pdb both":     "members[0].karpenter.podDisruptionBudgets[0]: set exactly one of minAvailable and maxUnavailable",
		"pdb percent":  `members[0].karpenter.podDisruptionBudgets[0].minAvailable "150%"`,
		"pdb policy":   `members[0].karpenter.podDisruptionBudgets[0].unhealthyPodEvictionPolicy "Sometimes"`,
		"pdb twice":    "members[0].karpenter.podDisruptionBudgets[1]: PodDisruptionBudget db/x listed twice",
		"pdb negative": "members[0].karpenter.podDisruptionBudgets[0].disruptionsAllowed -1",
	}
	for name, member := range cases {
		_, err := Parse([]byte(base + member))
		if err == nil || !strings.Contains(err.Error(), want[name]) {
			t.Errorf("%s: got %v, want an error mentioning %q", name, err, want[name])
		}
	}
}

// The disruption keys of a Karpenter NodePool: accepted when they name the pool's nodes, rejected
// with the key's path otherwise.
func TestKarpenterDisruptionKeys(t *testing.T) {
	member := func(pool string) string {
		return `fleet: {name: demo, subscriptionId: s, resourceGroup: rg, location: eastus}
regions: {eastus: {kubernetesVersions: ["1.32.5"]}}
members:
  - name: a
    location: eastus
    kubernetesVersion: 1.32.5
    karpenter:
      nodePools:
        - ` + pool + "\n"
	}
	f, err := Parse([]byte(member(`{name: p, nodes: 3, templateAnnotations: {team: x}, nodeAnnotations: {p-1: {karpenter.sh/do-not-disrupt: "true"}},
           pods: [{node: p-0, namespace: db, name: db-0, annotations: {karpenter.sh/do-not-disrupt: "true"}}, {node: p-2, namespace: kube-system, name: agent, daemonSet: true}],
           drifted: [p-2]}`)))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Members[0].Karpenter.NodePools[0]
	if p.NodeAnnotations["p-1"]["karpenter.sh/do-not-disrupt"] != "true" || len(p.Pods) != 2 || !p.Pods[1].DaemonSet || p.Drifted[0] != "p-2" || p.TemplateAnnotations["team"] != "x" {
		t.Errorf("parsed %+v", p)
	}
	for pool, want := range map[string]string{
		`{name: p, nodes: 2, drifted: [p-2]}`:                                                                   `members[0].karpenter.nodePools[0].drifted[0]: node "p-2" is not one of the pool's nodes (p-0 to p-1)`,
		`{name: p, nodes: 2, nodeAnnotations: {q-0: {a: b}}}`:                                                   `nodeAnnotations: node "q-0"`,
		`{name: p, nodes: 2, pods: [{node: p-3, namespace: db, name: x}]}`:                                      `pods[0].node: node "p-3"`,
		`{name: p, nodes: 2, pods: [{node: p-0, namespace: DB, name: x}]}`:                                      `pods[0]: namespace "DB" and name "x" must be Kubernetes names`,
		`{name: p, nodes: 2, pods: [{node: p-0, namespace: db, name: x}, {node: p-1, namespace: db, name: x}]}`: `pods[1]: pod db/x listed twice`,
		`{name: p, nodes: 2, pods: [{node: p-0, namespace: db, name: x, colour: red}]}`:                         `colour`,
	} {
		if _, err := Parse([]byte(member(pool))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", pool, err, want)
		}
	}
}
