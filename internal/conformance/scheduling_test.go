package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// The generated fleet and policies: change the seed and the whole run changes, reproducibly.
const (
	seed           = 20261123
	fleetSize      = 220
	randomPolicies = 60
	// workers is how many placements are in flight at once in the stateless phase.
	workers = 6
)

var (
	fleet    *fleetfile.File
	fleetEnv map[string]string
)

// TestMain generates the fleet and, with TF_ACC set (as `make test` sets it), starts it as a local
// fleet: a real hub with KubeFleet's real hub agent and simulated member agents.
func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	fleet = GenerateFleet(seed, fleetSize)
	if out := os.Getenv("CONFORMANCE_FLEET_OUT"); out != "" {
		// The generated fleet, for `make fleet-up FLEET=...` and a look around.
		if err := WriteFleet(fleet, out); err != nil {
			fmt.Fprintln(os.Stderr, "conformance:", err)
			return 1
		}
	}
	if os.Getenv("TF_ACC") == "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "fleet.yaml")
	if err := WriteFleet(fleet, path); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	root, err := acctest.RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	f, err := acctest.Start(root, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	defer f.Stop()
	if logs := os.Getenv("CONFORMANCE_LOGS"); logs != "" {
		// Keep the hub agent's and the local fleet's logs (Stop removes the fleet's folder).
		defer func() {
			for _, name := range []string{"hubagent.log", "localfleet.log"} {
				if b, err := os.ReadFile(filepath.Join(f.Dir, name)); err == nil {
					_ = os.WriteFile(filepath.Join(logs, name), b, 0o644)
				}
			}
		}()
	}
	fleetEnv = f.Env
	return m.Run()
}

// TestSchedulingConformance compares, for every generated policy, the scheduling preview with what
// KubeFleet's hub agent actually does on the local hub: the picked clusters and their scores, the
// reason for every unselected cluster the hub lists, and the Scheduled condition; then it runs
// stateful scenarios (scale-out, scale-in, policy changes, a member changing labels and turning
// unhealthy), previewing each update from the bindings the placement has before it. Agreement
// must be 100 %.
func TestSchedulingConformance(t *testing.T) {
	if fleetEnv == nil {
		t.Skip("set TF_ACC=1 to run the conformance test against a local fleet")
	}
	start := time.Now()
	ctx := context.Background()
	h := connect(t, fleetEnv)
	if err := h.waitFleetSettled(ctx, fleet); err != nil {
		t.Fatal(err)
	}
	t.Logf("fleet of %d members settled in %s", len(fleet.Members), time.Since(start).Round(time.Millisecond))
	if err := h.ensureNamespace(ctx); err != nil {
		t.Fatal(err)
	}
	var n tally
	report := func(t *testing.T, c *comparison) {
		t.Helper()
		n.policies.Add(1)
		n.decisions.Add(int64(c.decisions))
		n.mismatches.Add(int64(len(c.mismatches)))
		if len(c.mismatches) > 0 {
			t.Logf("policy %s: %s", c.policy, c.spec)
		}
		for _, m := range c.mismatches {
			t.Error(m)
		}
	}

	t.Run("policies", func(t *testing.T) {
		phase := time.Now()
		policies := interleave(Policies(fleet, seed, randomPolicies))
		jobs := make(chan Policy)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for p := range jobs {
					t.Run(p.Name, func(t *testing.T) {
						c, took, err := h.runOnce(ctx, p)
						if err != nil {
							t.Fatal(err)
						}
						t.Logf("scheduled by the hub agent in %s", took.Round(time.Millisecond))
						report(t, c)
					})
				}
			}()
		}
		for _, p := range policies {
			jobs <- p
		}
		close(jobs)
		wg.Wait()
		t.Logf("%d policies in %s", len(policies), time.Since(phase).Round(time.Millisecond))
	})

	generated := n.policies.Load()

	t.Run("scenarios", func(t *testing.T) {
		phase := time.Now()
		for _, sc := range scenarios(fleet) {
			t.Run(sc.name, func(t *testing.T) {
				s := &scenarioRun{t: t, h: h, ctx: ctx, name: "sc-" + sc.name, report: report}
				defer func() { _ = h.deletePlacement(ctx, s.name) }()
				sc.run(s)
			})
		}
		t.Logf("scenarios in %s", time.Since(phase).Round(time.Millisecond))
	})

	t.Logf("compared %d scheduling outcomes (%d generated policies, %d stateful steps) and %d per-cluster decisions in %s: %d mismatches",
		n.policies.Load(), generated, n.policies.Load()-generated, n.decisions.Load(), time.Since(start).Round(time.Millisecond), n.mismatches.Load())
	if n.mismatches.Load() > 0 {
		t.Errorf("the preview disagrees with the hub agent %d times; 100 %% agreement required", n.mismatches.Load())
	}
}

// interleave alternates PickAll policies (which bind most of the fleet) with the others, so that
// the workers do not all create and delete hundreds of bindings at once.
func interleave(ps []Policy) []Policy {
	var heavy, light []Policy
	for _, p := range ps {
		if d := scheduling.Defaulted(p.Policy); d == nil || d.PlacementType == placementv1.PickAllPlacementType {
			heavy = append(heavy, p)
		} else {
			light = append(light, p)
		}
	}
	out := make([]Policy, 0, len(ps))
	for len(heavy) > 0 || len(light) > 0 {
		if len(heavy) > 0 {
			out, heavy = append(out, heavy[0]), heavy[1:]
		}
		if len(light) > 0 {
			out, light = append(out, light[0]), light[1:]
		}
	}
	return out
}

// runOnce previews a policy, creates its placement, waits for the hub agent, compares and deletes
// the placement.
func (h *hub) runOnce(ctx context.Context, p Policy) (*comparison, time.Duration, error) {
	preview, err := h.preview(ctx, scheduling.Input{Policy: p.Policy})
	if err != nil {
		return nil, 0, fmt.Errorf("preview: %w", err)
	}
	name := "conf-" + p.Name
	start := time.Now()
	if err := h.createPlacement(ctx, name, p.Policy); err != nil {
		return nil, 0, err
	}
	obs, err := h.waitScheduled(ctx, name, nil)
	took := time.Since(start)
	if err != nil {
		_ = h.deletePlacement(ctx, name)
		return nil, 0, err
	}
	c := compare(p.Name, p.Policy, preview, obs, nil)
	if err := h.deletePlacementAndWait(ctx, name); err != nil {
		return nil, 0, fmt.Errorf("delete: %w", err)
	}
	return c, took, nil
}

// scenarioRun drives one stateful placement.
type scenarioRun struct {
	t      *testing.T
	h      *hub
	ctx    context.Context
	name   string
	policy *placementv1.PlacementPolicy
	obs    *observation
	report func(*testing.T, *comparison)
}

// sub is another placement in the same scenario, deleted when the scenario ends.
func (s *scenarioRun) sub(suffix string) *scenarioRun {
	r := &scenarioRun{t: s.t, h: s.h, ctx: s.ctx, name: s.name + "-" + suffix, report: s.report}
	s.t.Cleanup(func() { _ = s.h.deletePlacement(context.Background(), r.name) })
	return r
}

// create previews and creates the placement, then compares.
func (s *scenarioRun) create(policy *placementv1.PlacementPolicy) {
	s.t.Helper()
	preview, err := s.h.preview(s.ctx, scheduling.Input{Policy: policy})
	if err != nil {
		s.t.Fatalf("preview: %v", err)
	}
	if err := s.h.createPlacement(s.ctx, s.name, policy); err != nil {
		s.t.Fatal(err)
	}
	s.settle(s.name+" created", policy, preview, nil, nil)
}

// update previews a policy update from the placement's bindings and stored policy, applies it,
// then compares.
func (s *scenarioRun) update(step string, mutate func(p *placementv1.PlacementPolicy)) {
	s.t.Helper()
	crp, err := s.h.placement(s.ctx, s.name)
	if err != nil {
		s.t.Fatal(err)
	}
	stored := crp.Spec.Policy
	updated := stored.DeepCopy()
	mutate(updated)
	prev := s.before()
	preview := s.previewFrom(prev, stored, updated)
	if scheduling.NeedsNewSnapshot(stored, updated) {
		prev.present = 0
	}
	if err := s.h.setPolicy(s.ctx, s.name, updated); err != nil {
		s.t.Fatal(err)
	}
	s.settle(s.name+" "+step, updated, preview, prev, nil)
}

// memberChanged changes members and previews what the hub agent does on its own about it (nothing
// but for PickAll, which it reschedules), from the bindings the placement had before the change;
// it compares once the bindings show the preview's picks.
func (s *scenarioRun) memberChanged(step string, change func()) {
	s.t.Helper()
	crp, err := s.h.placement(s.ctx, s.name)
	if err != nil {
		s.t.Fatal(err)
	}
	prev := s.before()
	prev.memberChange = true
	change()
	preview := s.previewFrom(prev, crp.Spec.Policy, crp.Spec.Policy)
	want := map[string]bool{}
	for _, p := range preview.Selected {
		want[p.Cluster] = true
	}
	// No generation changes, and a change to several members can take the hub agent several
	// cycles, each writing the bindings before the snapshot's decisions: wait (bounded) until the
	// hub's whole outcome agrees; a timeout is reported as the mismatch it is.
	label := s.name + " " + step
	s.settle(label, crp.Spec.Policy, preview, prev, func(o *observation) bool {
		return sameKeys(want, active(o.bindings)) && len(compare(label, crp.Spec.Policy, preview, o, prev).mismatches) == 0
	})
}

func (s *scenarioRun) before() *before {
	s.t.Helper()
	bs, err := s.h.bindings(s.ctx, s.name)
	if err != nil {
		s.t.Fatal(err)
	}
	snap, err := s.h.latestPolicySnapshot(s.ctx, s.name)
	if err != nil {
		s.t.Fatal(err)
	}
	present := 0
	for _, b := range active(bs) {
		if b.Spec.SchedulingPolicySnapshotName == snap.Name {
			present++
		}
	}
	return &before{bindings: bs, present: present}
}

func (s *scenarioRun) previewFrom(prev *before, stored, updated *placementv1.PlacementPolicy) scheduling.Result {
	s.t.Helper()
	snap, err := s.h.latestPolicySnapshot(s.ctx, s.name)
	if err != nil {
		s.t.Fatal(err)
	}
	preview, err := s.h.preview(s.ctx, scheduling.Input{
		Policy:        updated,
		Bindings:      scheduling.BindingsFromAPI(prev.bindings, snap.Name),
		PolicyChanged: scheduling.NeedsNewSnapshot(stored, updated),
	})
	if err != nil {
		s.t.Fatalf("preview: %v", err)
	}
	return preview
}

func (s *scenarioRun) settle(label string, policy *placementv1.PlacementPolicy, preview scheduling.Result, prev *before, accept func(*observation) bool) {
	s.t.Helper()
	obs, err := s.h.waitScheduled(s.ctx, s.name, accept)
	if err != nil && obs == nil {
		s.t.Fatal(err)
	}
	if err != nil {
		s.t.Error(err)
	}
	s.policy, s.obs = policy, obs
	s.report(s.t, compare(label, policy, preview, obs, prev))
}

// selected returns the placement's picked clusters in the order its decisions list them (rank
// order for a placement scheduled in one cycle).
func (s *scenarioRun) selected() []string {
	var out []string
	for _, d := range s.obs.snapshot.Status.ClusterDecisions {
		if d.Selected {
			out = append(out, d.ClusterName)
		}
	}
	return out
}

// nextPicks previews which clusters a scale-out by k would add now.
func (s *scenarioRun) nextPicks(k int32) []string {
	s.t.Helper()
	crp, err := s.h.placement(s.ctx, s.name)
	if err != nil {
		s.t.Fatal(err)
	}
	updated := crp.Spec.Policy.DeepCopy()
	*updated.NumberOfClusters += k
	preview := s.previewFrom(s.before(), crp.Spec.Policy, updated)
	var out []string
	for _, p := range preview.Selected {
		if p.Change == scheduling.ChangeAdded {
			out = append(out, p.Cluster)
		}
	}
	return out
}

type scenario struct {
	name string
	run  func(s *scenarioRun)
}

func setN(n int32) func(p *placementv1.PlacementPolicy) {
	return func(p *placementv1.PlacementPolicy) { p.NumberOfClusters = &n }
}

// scenarios are the stateful runs: each previews every update from the bindings the placement has
// right before it. The member changes come last (they change the fleet for what follows).
func scenarios(f *fleetfile.File) []scenario {
	healthy, _, _ := sampleMembers(f)
	return []scenario{
		{"scale-out", func(s *scenarioRun) {
			s.create(pickN(5, preferred(
				pref(60, sorter(PropNodeCount, placementv1.Descending)),
				pref(40, term(labels(LabelEnv, "prod"))))))
			s.update("n=12", setN(12))
			s.update("n=20", setN(20))
		}},
		{"scale-out-spread", func(s *scenarioRun) {
			s.create(pickN(6,
				spread(1, LabelLocation, placementv1.DoNotSchedule),
				preferred(pref(50, sorter(PropCost, placementv1.Ascending)))))
			s.update("n=13", setN(13))
		}},
		{"scale-in", func(s *scenarioRun) {
			s.create(pickN(14, preferred(
				pref(50, term(labels(LabelTier, "gold"))),
				pref(50, sorter(PropAvailableCPU, placementv1.Descending)))))
			// An external rollout binds five of them: scale-in trims scheduled bindings first.
			picked := s.selected()
			if err := s.h.bind(s.ctx, s.name, picked[len(picked)-5:]); err != nil {
				s.t.Fatal(err)
			}
			s.update("n=9", setN(9))
			s.update("n=3", setN(3))
		}},
		{"scale-in-spread", func(s *scenarioRun) {
			s.create(pickN(10, spread(1, LabelRack, placementv1.ScheduleAnyway), preferred(pref(30, term(labels(LabelTeam, "search"))))))
			s.update("n=4", setN(4))
		}},
		{"policy-change", func(s *scenarioRun) {
			s.create(pickN(8, preferred(pref(50, term(labels(LabelEnv, "prod"))))))
			s.update("preferred term changed", func(p *placementv1.PlacementPolicy) {
				p.Affinity.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution = preferred(
					pref(50, term(labels(LabelTier, "gold"))),
					pref(30, sorter(PropNodeCount, placementv1.Ascending)))
			})
			s.update("required term added", func(p *placementv1.PlacementPolicy) {
				p.Affinity.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &placementv1.ClusterSelector{
					ClusterSelectorTerms: required(term(exprs(expr(LabelEnv, metav1.LabelSelectorOpIn, "prod", "staging"))))}
			})
		}},
		{"policy-change-spread", func(s *scenarioRun) {
			s.create(pickN(8, spread(1, LabelLocation, placementv1.DoNotSchedule)))
			s.update("max skew 2 and a preference", func(p *placementv1.PlacementPolicy) {
				two := int32(2)
				p.TopologySpreadConstraints[0].MaxSkew = &two
				p.Affinity = &placementv1.Affinity{ClusterAffinity: &placementv1.ClusterAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: preferred(pref(40, sorter(PropCoreCost, placementv1.Descending)))}}
			})
		}},
		{"policy-change-pickall", func(s *scenarioRun) {
			s.create(pickAll(required(term(labels(LabelEnv, "prod")))))
			s.update("env in prod, canary", func(p *placementv1.PlacementPolicy) {
				p.Affinity.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms = required(
					term(exprs(expr(LabelEnv, metav1.LabelSelectorOpIn, "prod", "canary"))))
			})
			s.update("team ml", func(p *placementv1.PlacementPolicy) {
				p.Affinity.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms = required(term(labels(LabelTeam, "ml")))
			})
		}},
		{"policy-change-pickfixed", func(s *scenarioRun) {
			s.create(pickFixed(healthy[10], healthy[11], healthy[12]))
			s.update("names changed", func(p *placementv1.PlacementPolicy) {
				p.ClusterNames = []string{healthy[11], healthy[12], healthy[13], "gone-cluster"}
			})
		}},
		{"member-label-change", func(s *scenarioRun) {
			s.create(pickAll(required(term(labels(LabelTeam, "payments")))))
			// A picked member leaves the team: its binding stays (IgnoredDuringExecution). A
			// member joins the team: the hub agent reschedules the PickAll placement on its own.
			picked := s.selected()
			joiner := firstEligibleNotIn(s, picked)
			s.memberChanged("members relabelled", func() {
				if err := s.h.setLabel(s.ctx, picked[0], LabelTeam, "web"); err != nil {
					s.t.Fatal(err)
				}
				if err := s.h.setLabel(s.ctx, joiner, LabelTeam, "payments"); err != nil {
					s.t.Fatal(err)
				}
			})
		}},
		{"members-turn-unhealthy", func(s *scenarioRun) {
			// Three placements, then four members turn unhealthy at once: the best pick of a PickN
			// placement and the member its scale-out would pick first, a member a PickFixed
			// placement lists, and a member a PickAll placement picked.
			pickn, fixed, all := s.sub("pickn"), s.sub("pickfixed"), s.sub("pickall")
			pickn.create(pickN(6, preferred(pref(100, sorter(PropNodeCount, placementv1.Descending)))))
			fixed.create(pickFixed(healthy[20], healthy[21]))
			all.create(pickAll(required(term(labels(LabelEnv, "staging")))))
			picked, next := pickn.selected(), pickn.nextPicks(1)
			sick := map[string]bool{picked[0]: true, next[0]: true, healthy[20]: true, all.selected()[0]: true}
			if err := s.h.setUnhealthy(s.ctx, f, sortedKeys(sick)...); err != nil {
				s.t.Fatal(err)
			}
			// A picked cluster keeps its binding (the scheduler does not re-evaluate it); new picks
			// skip unhealthy clusters; a policy change unschedules bindings on them.
			pickn.update("scale-out after members turned unhealthy", setN(9))
			pickn.update("policy change after members turned unhealthy", func(p *placementv1.PlacementPolicy) {
				p.Affinity.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight = 90
			})
			fixed.update("names added after a member turned unhealthy", func(p *placementv1.PlacementPolicy) {
				p.ClusterNames = append(p.ClusterNames, healthy[22])
			})
			all.update("toleration added after a member turned unhealthy", func(p *placementv1.PlacementPolicy) {
				p.Tolerations = append(p.Tolerations, toleration("Exists", "spot", ""))
			})
			// The local fleet must have kept them unhealthy throughout.
			if err := s.h.waitEligible(s.ctx, false, sortedKeys(sick)...); err != nil {
				s.t.Errorf("members %v did not stay unhealthy: %v", sortedKeys(sick), err)
			}
		}},
	}
}

// firstEligibleNotIn returns the first healthy, untainted member (by name) outside names.
func firstEligibleNotIn(s *scenarioRun, names []string) string {
	s.t.Helper()
	skip := map[string]bool{}
	for _, n := range names {
		skip[n] = true
	}
	mcs, err := s.h.members(s.ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	now := time.Now()
	for _, mc := range mcs {
		if ok, _ := scheduling.Eligible(&mc, now); ok && len(mc.Spec.Taints) == 0 && !skip[mc.Name] && mc.Labels[LabelTeam] != "payments" {
			return mc.Name
		}
	}
	s.t.Fatal("no eligible member to relabel")
	return ""
}
