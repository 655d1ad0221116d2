// Package conformance checks that the scheduling preview (internal/engine/scheduling) equals what
// KubeFleet's real hub agent picks on a local fleet (SPEC §8, Fidelity): a seeded generator writes
// a large mixed fleet, another generates placement policies covering every scheduling feature, and
// the test compares, policy by policy, the preview with the hub agent's decisions.
package conformance

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// Label keys and property names the generated fleet uses (the policies select on them).
const (
	LabelEnv  = "env"
	LabelTier = "tier" // absent on some members (DoesNotExist)
	LabelTeam = "team"
	LabelRack = "rack" // a custom topology key; absent on some members (keyless for spread)
	LabelGPU  = "gpu"  // "true" on a few members

	// PropCost is a custom property some members do not report (a missing property fails a
	// required term and scores 0 in a sorter).
	PropCost = "example.com/cost-per-hour"
	// PropCoreCost is Azure's property provider's per-core cost ("%.3f"), reported by most members.
	PropCoreCost = "kubernetes.azure.com/per-cpu-core-cost"
)

// Regions of the generated fleet, with how many members of every 20 live there.
var fleetRegions = []struct {
	name   string
	weight int
}{
	{"eastus", 5}, {"westus2", 4}, {"westeurope", 4}, {"northeurope", 3}, {"southeastasia", 2}, {"japaneast", 2},
}

var (
	envs  = []string{"prod", "prod", "prod", "prod", "staging", "staging", "dev", "dev", "canary"}
	tiers = []string{"gold", "silver", "bronze"}
	teams = []string{"payments", "search", "ml", "web"}
	racks = []string{"r1", "r2", "r3", "r4"}
	// taintChoices are the taints a tainted member gets: one or two of them.
	taintChoices = []fleetfile.Taint{
		{Key: "dedicated", Value: "gpu", Effect: "NoSchedule"},
		{Key: "dedicated", Value: "ml", Effect: "NoSchedule"},
		{Key: "maintenance", Effect: "NoSchedule"},
		{Key: "spot", Value: "true", Effect: "NoSchedule"},
	}
)

const nodeImage = "AKSUbuntu-2204gen2containerd-202510.01.0"

// GenerateFleet returns a fleet of n members drawn from seed: the same seed always gives the same
// fleet. Members spread over six regions with env/tier/team/rack labels (tier and rack missing on
// some), about 10 % unhealthy, about 12 % tainted, node counts 1..60, varied resources (a few
// report none) and properties (a custom one that about a third lack).
func GenerateFleet(seed uint64, n int) *fleetfile.File {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	f := &fleetfile.File{
		Fleet:   fleetfile.Fleet{Name: "conformance", SubscriptionID: "00000000-0000-0000-0000-000000000001", ResourceGroup: "rg-fleet", Location: "eastus"},
		Clock:   fleetfile.Clock{Start: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Speed: 1},
		Regions: map[string]fleetfile.Region{},
	}
	var regionBag []string
	for _, r := range fleetRegions {
		f.Regions[r.name] = fleetfile.Region{
			KubernetesVersions: []string{"1.31.9", "1.32.5", "1.33.1"},
			NodeImages:         map[string][]string{"AKSUbuntu-2204gen2containerd": {"202510.01.0"}},
		}
		for range r.weight {
			regionBag = append(regionBag, r.name)
		}
	}
	versions := []string{"1.31.9", "1.32.5", "1.33.1"}
	for i := range n {
		region := regionBag[rng.IntN(len(regionBag))]
		m := fleetfile.Member{
			// Names share a prefix so that name tie-breaks run across regions.
			Name:              fmt.Sprintf("mc-%03d-%s", i, region),
			Group:             "default",
			Location:          region,
			KubernetesVersion: versions[rng.IntN(len(versions))],
			Labels: map[string]string{
				LabelEnv:  envs[rng.IntN(len(envs))],
				LabelTeam: teams[rng.IntN(len(teams))],
			},
		}
		if rng.IntN(5) != 0 {
			m.Labels[LabelTier] = tiers[rng.IntN(len(tiers))]
		}
		if rng.IntN(7) != 0 {
			m.Labels[LabelRack] = racks[rng.IntN(len(racks))]
		}
		if rng.IntN(10) == 0 {
			m.Labels[LabelGPU] = "true"
		}
		if rng.IntN(8) == 0 {
			m.Taints = append(m.Taints, taintChoices[rng.IntN(len(taintChoices))])
			if rng.IntN(4) == 0 {
				second := taintChoices[rng.IntN(len(taintChoices))]
				if second != m.Taints[0] {
					m.Taints = append(m.Taints, second)
				}
			}
		}
		if rng.IntN(10) == 0 {
			healthy := false
			m.Healthy = &healthy
		}
		// Node counts: mostly small, some large; a few share values so sorters tie.
		pools := 1 + rng.IntN(3)
		nodes := 0
		for p := range pools {
			c := 1 + rng.IntN(20)
			nodes += c
			m.NodePools = append(m.NodePools, fleetfile.NodePool{Name: fmt.Sprintf("pool%d", p), Count: c, NodeImage: nodeImage})
		}
		if rng.IntN(20) != 0 {
			perNode := []int{2, 4, 8, 16}[rng.IntN(4)]
			capCPU := nodes * perNode
			allocMilli := capCPU * 1000 * (85 + rng.IntN(10)) / 100
			availMilli := allocMilli * rng.IntN(101) / 100
			memGi := nodes * perNode * 4
			m.Resources = &fleetfile.Resources{
				Capacity:    map[string]string{"cpu": fmt.Sprint(capCPU), "memory": fmt.Sprintf("%dGi", memGi)},
				Allocatable: map[string]string{"cpu": fmt.Sprintf("%dm", allocMilli), "memory": fmt.Sprintf("%dMi", memGi*1024*9/10)},
				Available:   map[string]string{"cpu": fmt.Sprintf("%dm", availMilli), "memory": fmt.Sprintf("%dMi", memGi*1024*rng.IntN(101)/100)},
			}
		}
		m.Properties = map[string]string{}
		if rng.IntN(3) != 0 {
			// Steps of 0.05 so some members tie.
			m.Properties[PropCost] = fmt.Sprintf("%.2f", 0.05*float64(1+rng.IntN(40)))
		}
		if rng.IntN(5) != 0 {
			m.Properties[PropCoreCost] = fmt.Sprintf("%.3f", 0.03+0.001*float64(rng.IntN(90)))
		}
		if len(m.Properties) == 0 {
			m.Properties = nil
		}
		f.Members = append(f.Members, m)
	}
	return f
}

// WriteFleet writes a fleet file and checks that it loads.
func WriteFleet(f *fleetfile.File, path string) error {
	b, err := yaml.Marshal(f)
	if err != nil {
		return err
	}
	b = append([]byte("# Generated by internal/conformance (GenerateFleet): do not edit.\n"), b...)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return err
	}
	_, err = fleetfile.Load(path)
	return err
}
