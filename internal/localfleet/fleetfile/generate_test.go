package fleetfile

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const genBase = `fleet: {name: demo, subscriptionId: s, resourceGroup: rg, location: eastus}
regions:
  eastus: {kubernetesVersions: ["1.31.9", "1.32.5"], nodeImages: {AKSUbuntu-2204gen2containerd: ["202510.01.0", "202511.04.0"]}}
  westeurope: {kubernetesVersions: ["1.32.5"], nodeImages: {AKSUbuntu-2204gen2containerd: ["202510.01.0"]}}
members:
  - {name: explicit, location: eastus, kubernetesVersion: 1.32.5}
`

const genBlock = `generate:
  count: 1000
  seed: 7
  regions: {eastus: 3, westeurope: 1}
  groups: {canary: 1, prod: 8, staging: 1}
  labels: {env: {prod: 2, dev: 1}}
  properties: {kubernetes.azure.com/per-cpu-core-cost: {min: 0.05, max: 0.15, decimals: 3}}
  nodeCount: {min: 1, max: 9}
  taint: {fraction: 0.05, key: dedicated, value: gpu}
  unhealthyFraction: 0.02
  maintenanceWindows: {noneFraction: 0.3, days: [Saturday, Sunday], startTimes: ["00:00", "12:00"], durationHours: 6}
  resources: {cpu: {min: 8, max: 64}, memoryGi: {min: 32, max: 256}, allocatable: {min: 0.8, max: 0.9}, available: {min: 0.2, max: 0.6}}
`

func mustParse(t *testing.T, s string) *File {
	t.Helper()
	f, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGenerateDeterministic(t *testing.T) {
	a, b := mustParse(t, genBase+genBlock), mustParse(t, genBase+genBlock)
	if len(a.Members) != 1001 || a.Members[0].Name != "explicit" || a.Members[1].Name != "member-0001" || a.Members[1000].Name != "member-1000" {
		t.Fatalf("want the explicit member then member-0001..member-1000, got %d members, first %q, second %q", len(a.Members), a.Members[0].Name, a.Members[1].Name)
	}
	if !reflect.DeepEqual(a.Members, b.Members) {
		t.Fatal("the same seed gave different members")
	}
	c := mustParse(t, genBase+strings.Replace(genBlock, "seed: 7", "seed: 8", 1))
	same := 0
	for i := range a.Members {
		if reflect.DeepEqual(a.Members[i], c.Members[i]) {
			same++
		}
	}
	if same > 50 {
		t.Errorf("seeds 7 and 8 agree on %d of %d members", same, len(a.Members))
	}
}

func TestGenerateDistributions(t *testing.T) {
	f := mustParse(t, genBase+genBlock)
	gen := f.Members[1:]
	count := func(key func(Member) string) map[string]int {
		out := map[string]int{}
		for _, m := range gen {
			out[key(m)]++
		}
		return out
	}
	// Weights are apportioned exactly.
	for name, c := range map[string]struct {
		got, want map[string]int
	}{
		"regions":   {count(func(m Member) string { return m.Location }), map[string]int{"eastus": 750, "westeurope": 250}},
		"groups":    {count(func(m Member) string { return m.Group }), map[string]int{"canary": 100, "prod": 800, "staging": 100}},
		"env":       {count(func(m Member) string { return m.Labels["env"] }), map[string]int{"prod": 667, "dev": 333}},
		"unhealthy": {count(func(m Member) string { return strconv.FormatBool(!m.IsHealthy()) }), map[string]int{"true": 20, "false": 980}},
		"taints":    {count(func(m Member) string { return strconv.Itoa(len(m.Taints)) }), map[string]int{"1": 50, "0": 950}},
		"windows": {count(func(m Member) string {
			if m.MaintenanceWindow == nil {
				return "none"
			}
			return m.MaintenanceWindow.Weekly
		}), map[string]int{"none": 300, "Saturday": 350, "Sunday": 350}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %v, want %v", name, c.got, c.want)
		}
	}
	// Versions and node images come from the member's region, roughly evenly.
	versions := map[string]int{}
	var costs, nodes []float64
	for _, m := range gen {
		if m.Location == "westeurope" && (m.KubernetesVersion != "1.32.5" || m.NodePools[0].NodeImage != "AKSUbuntu-2204gen2containerd-202510.01.0") {
			t.Fatalf("%s in westeurope has %s / %s, not from its region's lists", m.Name, m.KubernetesVersion, m.NodePools[0].NodeImage)
		}
		if m.Location == "eastus" {
			versions[m.KubernetesVersion]++
		}
		if w := m.MaintenanceWindow; w != nil && (w.DurationHours != 6 || (w.StartTime != "00:00" && w.StartTime != "12:00") || w.UTCOffset != "+00:00") {
			t.Fatalf("%s: window %+v", m.Name, w)
		}
		cost, err := strconv.ParseFloat(m.Properties["kubernetes.azure.com/per-cpu-core-cost"], 64)
		if err != nil || cost < 0.05 || cost > 0.15 {
			t.Fatalf("%s: cost %q outside [0.05, 0.15]", m.Name, m.Properties["kubernetes.azure.com/per-cpu-core-cost"])
		}
		costs = append(costs, cost)
		if n := m.NodePools[0].Count; n < 1 || n > 9 {
			t.Fatalf("%s: %d nodes outside [1, 9]", m.Name, n)
		}
		nodes = append(nodes, float64(m.NodePools[0].Count))
		r := m.Resources
		if r == nil || r.Capacity["cpu"] == "" || !strings.HasSuffix(r.Available["memory"], "Mi") {
			t.Fatalf("%s: resources %+v", m.Name, r)
		}
	}
	if v := versions["1.31.9"]; v < 325 || v > 425 { // 375 ± 50: a binomial σ is about 14
		t.Errorf("eastus members on 1.31.9: %d of 750, want about half", v)
	}
	if mean := avg(costs); math.Abs(mean-0.10) > 0.005 {
		t.Errorf("mean cost %.4f, want about 0.10", mean)
	}
	if mean := avg(nodes); math.Abs(mean-5) > 0.3 {
		t.Errorf("mean node count %.2f, want about 5", mean)
	}
}

func avg(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func TestGenerateRejects(t *testing.T) {
	cases := map[string]struct{ block, want string }{
		"unknown key":      {"generate: {count: 3, regions: {eastus: 1}, colour: blue}\n", "colour"},
		"no count":         {"generate: {regions: {eastus: 1}}\n", "generate.count 0"},
		"unknown region":   {"generate: {count: 3, regions: {mars: 1}}\n", "generate.regions.mars: not among"},
		"no regions":       {"generate: {count: 3}\n", "generate.regions: at least one"},
		"zero weights":     {"generate: {count: 3, regions: {eastus: 0}}\n", "generate.regions: the weights must not all be zero"},
		"negative weight":  {"generate: {count: 3, regions: {eastus: 1}, groups: {a: -1, b: 2}}\n", "generate.groups.a: weight -1"},
		"bad fraction":     {"generate: {count: 3, regions: {eastus: 1}, unhealthyFraction: 1.5}\n", "unhealthyFraction 1.5"},
		"taint key":        {"generate: {count: 3, regions: {eastus: 1}, taint: {fraction: 0.1}}\n", "generate.taint.key"},
		"bad range":        {"generate: {count: 3, regions: {eastus: 1}, nodeCount: {min: 5, max: 2}}\n", "generate.nodeCount: min 5 is above max 2"},
		"bad day":          {"generate: {count: 3, regions: {eastus: 1}, maintenanceWindows: {days: [Caturday]}}\n", "Caturday"},
		"bad prefix":       {"generate: {count: 3, regions: {eastus: 1}, namePrefix: Gen_}\n", "namePrefix"},
		"region no images": {"generate: {count: 3, regions: {northeurope: 1}}\n", "needs kubernetesVersions and nodeImages"},
		"bad fraction rng": {"generate: {count: 3, regions: {eastus: 1}, resources: {cpu: {min: 1, max: 2}, memoryGi: {min: 1, max: 2}, available: {min: 0, max: 2}}}\n", "resources.available"},
	}
	for name, c := range cases {
		base := genBase
		if name == "region no images" {
			base = strings.Replace(genBase, "regions:\n", "regions:\n  northeurope: {kubernetesVersions: [\"1.32.5\"]}\n", 1)
		}
		_, err := Parse([]byte(base + c.block))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", name, err, c.want)
		}
	}
	// A generated name that clashes with an explicit member is a duplicate.
	clash := strings.Replace(genBase, "name: explicit,", "name: gen-1,", 1) + "generate: {count: 3, regions: {eastus: 1}, namePrefix: gen-}\n"
	if _, err := Parse([]byte(clash)); err == nil || !strings.Contains(err.Error(), `"gen-1": duplicate`) {
		t.Errorf("clashing names: got %v, want a duplicate-name error", err)
	}
}

func TestHubAgentOption(t *testing.T) {
	if f := mustParse(t, genBase); !f.HubAgent() {
		t.Error("the hub agent should run by default")
	}
	if f := mustParse(t, genBase+"hub: {agent: false}\n"); f.HubAgent() {
		t.Error("hub.agent false should turn the hub agent off")
	}
	if _, err := Parse([]byte(genBase + "hub: {agents: false}\n")); err == nil || !strings.Contains(err.Error(), "agents") {
		t.Errorf("unknown hub key: got %v", err)
	}
}

func TestLoadLargeFleetExample(t *testing.T) {
	f, err := Load("../../../examples/large-fleet/fleet.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Members) != 1000 {
		t.Fatalf("%d members, want 1000", len(f.Members))
	}
}
