package scheduling

import (
	"testing"
)

// BenchmarkSchedule10k is SPEC §8's speed bar: a placement preview over 10,000 member clusters
// (PickN 100, three preferred terms with two property sorters, two topology spread constraints),
// under 200 ms per op on one core (go test -bench . -cpu 1). Topology spread constraints make the
// hub agent pick one cluster per cycle, so this is 100 cycles.
func BenchmarkSchedule10k(b *testing.B) {
	clusters := generatedFleet(10000, 1)
	in := Input{Policy: benchPolicy(), Clusters: clusters, Now: testNow}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Schedule(in)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Selected) != 100 || res.Cycles != 100 {
			b.Fatalf("selected %d in %d cycles", len(res.Selected), res.Cycles)
		}
	}
}

// BenchmarkScheduleRescheduleAfterPolicyChange10k reschedules the same fleet after a policy edit:
// 100 obsolete bindings, the obsolete-binding bonus in cycle one, then 99 more cycles.
func BenchmarkScheduleRescheduleAfterPolicyChange10k(b *testing.B) {
	clusters := generatedFleet(10000, 1)
	first, err := Schedule(Input{Policy: benchPolicy(), Clusters: clusters, Now: testNow})
	if err != nil {
		b.Fatal(err)
	}
	bindings := bindingsFor(first, true)
	policy := benchPolicy()
	policy.Affinity.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight = 10
	in := Input{Policy: policy, Clusters: clusters, Bindings: bindings, PolicyChanged: true, Now: testNow}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Schedule(in); err != nil {
			b.Fatal(err)
		}
	}
}
