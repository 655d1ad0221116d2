package conformance

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// The generator is reproducible and gives the mix the conformance test needs.
func TestGenerateFleet(t *testing.T) {
	f := GenerateFleet(seed, fleetSize)
	if !reflect.DeepEqual(f, GenerateFleet(seed, fleetSize)) {
		t.Fatal("the same seed gave two fleets")
	}
	if reflect.DeepEqual(f, GenerateFleet(seed+1, fleetSize)) {
		t.Fatal("another seed gave the same fleet")
	}
	path := filepath.Join(t.TempDir(), "fleet.yaml")
	if err := WriteFleet(f, path); err != nil {
		t.Fatal(err)
	}
	loaded, err := fleetfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Members) != fleetSize || fleetSize < 200 {
		t.Fatalf("%d members, want %d (at least 200)", len(loaded.Members), fleetSize)
	}
	regions := map[string]bool{}
	var unhealthy, tainted, noCost, noTier, noRack, noResources int
	for _, m := range loaded.Members {
		regions[m.Location] = true
		if !m.IsHealthy() {
			unhealthy++
		}
		if len(m.Taints) > 0 {
			tainted++
		}
		if _, ok := m.Properties[PropCost]; !ok {
			noCost++
		}
		if _, ok := m.Labels[LabelTier]; !ok {
			noTier++
		}
		if _, ok := m.Labels[LabelRack]; !ok {
			noRack++
		}
		if m.Resources == nil {
			noResources++
		}
	}
	t.Logf("%d members in %d regions: %d unhealthy, %d tainted, %d without %s, %d without tier, %d without rack, %d without resources",
		len(loaded.Members), len(regions), unhealthy, tainted, noCost, PropCost, noTier, noRack, noResources)
	if len(regions) < 5 || unhealthy < fleetSize/20 || unhealthy > fleetSize*3/20 || tainted == 0 || noCost == 0 || noTier == 0 || noRack == 0 || noResources == 0 {
		t.Error("the fleet lacks part of the mix")
	}
}

// The policies are valid for the hub (no webhook errors) and cover every feature.
func TestPolicies(t *testing.T) {
	f := GenerateFleet(seed, fleetSize)
	ps := Policies(f, seed, randomPolicies)
	if len(ps) < 50 {
		t.Fatalf("%d policies, want at least 50", len(ps))
	}
	names := map[string]bool{}
	seen := map[string]bool{}
	for _, p := range ps {
		if names[p.Name] {
			t.Errorf("duplicate policy %s", p.Name)
		}
		names[p.Name] = true
		for _, issue := range scheduling.Validate(p.Policy) {
			if issue.Severity == scheduling.SeverityError {
				t.Errorf("%s: %s: %s", p.Name, issue.Path, issue.Message)
			}
		}
		pol := scheduling.Defaulted(p.Policy)
		if pol == nil {
			seen["nil"] = true
			continue
		}
		seen[string(pol.PlacementType)] = true
		if a := pol.Affinity; a != nil && a.ClusterAffinity != nil {
			if r := a.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
				if len(r.ClusterSelectorTerms) > 1 {
					seen["ored"] = true
				}
				for _, term := range r.ClusterSelectorTerms {
					if term.LabelSelector != nil {
						if len(term.LabelSelector.MatchLabels) > 0 {
							seen["matchLabels"] = true
						}
						for _, e := range term.LabelSelector.MatchExpressions {
							seen[string(e.Operator)] = true
						}
					}
					if term.PropertySelector != nil {
						for _, e := range term.PropertySelector.MatchExpressions {
							seen[string(e.Operator)] = true
							seen[e.Name] = true
						}
					}
				}
			}
			sorters := 0
			for _, pr := range a.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
				if pr.Weight < 0 {
					seen["negative"] = true
				}
				if s := pr.Preference.PropertySorter; s != nil {
					sorters++
					seen[string(s.SortOrder)] = true
				}
			}
			if sorters >= 2 {
				seen["two sorters"] = true
			}
		}
		for _, c := range pol.TopologySpreadConstraints {
			seen[string(c.WhenUnsatisfiable)] = true
			seen[fmt.Sprint("maxSkew ", *c.MaxSkew)] = true
			seen["spread "+c.TopologyKey] = true
		}
		for _, tol := range pol.Tolerations {
			seen["toleration "+string(tol.Operator)] = true
		}
	}
	for _, want := range []string{
		"nil", "PickAll", "PickN", "PickFixed", "ored", "matchLabels", "In", "NotIn", "Exists", "DoesNotExist",
		"Gt", "Ge", "Eq", "Ne", "Lt", "Le", PropNodeCount, PropAvailableCPU, PropCost,
		"negative", "Ascending", "Descending", "two sorters",
		string(placementv1.DoNotSchedule), string(placementv1.ScheduleAnyway), "maxSkew 1", "maxSkew 2",
		"spread " + LabelLocation, "spread " + LabelRack, "toleration Equal", "toleration Exists",
	} {
		if !seen[want] {
			t.Errorf("no policy covers %s", want)
		}
	}
}
