package disruption

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

func nodePool(budgets ...karpv1.Budget) *karpv1.NodePool {
	return &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: karpv1.NodePoolSpec{Disruption: karpv1.Disruption{Budgets: budgets}}}
}

func hasWarning(p Preview, part string) bool {
	return slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, part) })
}

func TestBuildPreview(t *testing.T) {
	now := utc("2025-03-08T12:00:00Z") // a Saturday
	claims, nodes := pool("default", 20)
	nodes[0].Status.Conditions = nil      // NotReady: disrupting
	claims[1].DeletionTimestamp = deleted // deleting: disrupting
	expire := func(i int, created string, after string) {
		claims[i].CreationTimestamp = metav1.Time{Time: utc(created)}
		claims[i].Spec.ExpireAfter = karpv1.MustParseNillableDuration(after)
	}
	for i := range claims {
		expire(i, "2025-03-01T00:00:00Z", "720h") // 31 March: not within 24h
	}
	expire(2, "2025-02-06T18:00:00Z", "720h") // 8 March 18:00: within 24h
	expire(3, "2025-02-06T06:00:00Z", "720h") // 8 March 06:00: already expired
	expire(4, "2025-01-01T00:00:00Z", "Never")
	expire(1, "2025-01-01T00:00:00Z", "1h") // deleting: left out

	np := nodePool(
		karpv1.Budget{Nodes: "10%"}, // 2 of 20, all reasons
		karpv1.Budget{Nodes: "0", Schedule: ptr("0 9 * * 1-5"), Duration: dur("8h")},                                                                 // weekdays only
		karpv1.Budget{Nodes: "5", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty}},                                                  // Empty: min(2, 5)
		karpv1.Budget{Nodes: "1", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonDrifted}, Schedule: ptr("@daily"), Duration: dur("48h")}, // always on
	)
	p := BuildPreview(Input{NodePool: np, NodeClaims: claims, Nodes: nodes, Now: now, ExtraReasons: []karpv1.DisruptionReason{"Unhealthy"}})

	if p.Nodes != 20 || p.Disrupting != 2 {
		t.Fatalf("counts %d/%d, want 20/2", p.Nodes, p.Disrupting)
	}
	want := []ReasonPreview{
		{Reason: "Empty", Allowed: 0, Budgeted: 2, ActiveBudgets: []int{0, 2}},
		{Reason: "Underutilized", Allowed: 0, Budgeted: 2, ActiveBudgets: []int{0}},
		{Reason: "Drifted", Allowed: 0, Budgeted: 1, ActiveBudgets: []int{0, 3}},
		{Reason: "Unhealthy", Allowed: 0, Budgeted: 2, ActiveBudgets: []int{0}},
	}
	if len(p.Reasons) != len(want) {
		t.Fatalf("reasons %+v", p.Reasons)
	}
	for i, w := range want {
		g := p.Reasons[i]
		if g.Reason != w.Reason || g.Allowed != w.Allowed || g.Budgeted != w.Budgeted || g.Unbounded || !slices.Equal(g.ActiveBudgets, w.ActiveBudgets) {
			t.Errorf("reason %d: %+v, want %+v", i, g, w)
		}
	}
	if len(p.Windows) != 2 || p.Windows[0].Budget != 1 || !p.Windows[0].OpensAt.Equal(utc("2025-03-10T09:00:00Z")) ||
		!p.Windows[0].ClosesAt.Equal(utc("2025-03-10T17:00:00Z")) || p.Windows[0].Open ||
		p.Windows[1].Budget != 3 || !p.Windows[1].Open || !p.Windows[1].Continuous {
		t.Errorf("windows %+v", p.Windows)
	}
	if len(p.ExpiringNodes) != 2 ||
		p.ExpiringNodes[0].NodeClaim != "default-3" || !p.ExpiringNodes[0].Expired || !p.ExpiringNodes[0].ExpiresAt.Equal(utc("2025-03-08T06:00:00Z")) ||
		p.ExpiringNodes[1].Node != "node-default-2" || p.ExpiringNodes[1].Expired || !p.ExpiringNodes[1].ExpiresAt.Equal(utc("2025-03-08T18:00:00Z")) {
		t.Errorf("expiring %+v", p.ExpiringNodes)
	}
	if !hasWarning(p, "budget 3: its windows") {
		t.Errorf("warnings %q lack the continuous window", p.Warnings)
	}
}

func TestBuildPreviewUnboundedAndBroken(t *testing.T) {
	now := utc("2025-03-08T12:00:00Z")
	claims, nodes := pool("default", 4)

	t.Run("empty budgets list", func(t *testing.T) {
		p := BuildPreview(Input{NodePool: nodePool([]karpv1.Budget{}...), NodeClaims: claims, Nodes: nodes, Now: now})
		for _, r := range p.Reasons {
			if !r.Unbounded || r.Budgeted != Unbounded || r.Allowed != Unbounded {
				t.Errorf("%+v, want unbounded", r)
			}
		}
		if !hasWarning(p, "UNBOUNDED") || !hasWarning(p, "empty list") {
			t.Errorf("warnings %q", p.Warnings)
		}
	})
	t.Run("only a closed window", func(t *testing.T) {
		p := BuildPreview(Input{NodePool: nodePool(karpv1.Budget{Nodes: "1", Schedule: ptr("0 9 * * 1-5"), Duration: dur("8h")}), NodeClaims: claims, Nodes: nodes, Now: now})
		if !p.Reasons[0].Unbounded || !hasWarning(p, "no budget is active now for Empty, Underutilized, Drifted") {
			t.Errorf("%+v %q", p.Reasons, p.Warnings)
		}
	})
	t.Run("a broken budget for Drifted zeroes Empty too", func(t *testing.T) {
		p := BuildPreview(Input{NodePool: nodePool(
			karpv1.Budget{Nodes: "100%"},
			karpv1.Budget{Nodes: "1", Reasons: []karpv1.DisruptionReason{"Drifted"}, Schedule: ptr("0 0 * * sat-sun"), Duration: dur("8h")},
		), NodeClaims: claims, Nodes: nodes, Now: now})
		for _, r := range p.Reasons {
			if r.Allowed != 0 || r.Budgeted != 0 || r.Unbounded {
				t.Errorf("%+v, want 0", r)
			}
		}
		if !hasWarning(p, "allows 0 disruptions for every reason") || !hasWarning(p, "cannot wrap around") || len(p.Windows) != 0 {
			t.Errorf("%q %+v", p.Warnings, p.Windows)
		}
	})
	t.Run("warnings for odd budgets", func(t *testing.T) {
		p := BuildPreview(Input{NodePool: nodePool(
			karpv1.Budget{Nodes: "1", Schedule: ptr("0 0 30 2 *"), Duration: dur("1h")},
			karpv1.Budget{Nodes: "1", Schedule: ptr("0 0 * * *"), Duration: dur("0m")},
			karpv1.Budget{Nodes: "1", Reasons: []karpv1.DisruptionReason{}},
			karpv1.Budget{Nodes: "2147483648"},
			karpv1.Budget{Nodes: "1", Reasons: []karpv1.DisruptionReason{"Expired"}},
		), NodeClaims: claims, Nodes: nodes, Now: now})
		for _, part := range []string{"budget 0: schedule \"0 0 30 2 *\" never fires", "budget 1: duration 0s makes the budget never active",
			"budget 2: reasons is an empty list", "budget 3: nodes:", "budget 4: reason \"Expired\""} {
			if !hasWarning(p, part) {
				t.Errorf("warnings %q lack %q", p.Warnings, part)
			}
		}
		// The never-firing budget is always active: 1 for every reason; the int32 wrap makes it 0.
		for _, r := range p.Reasons {
			if r.Budgeted != -2147483648 || r.Allowed != 0 {
				t.Errorf("%+v", r)
			}
		}
	})
}

func TestExpiringNodes(t *testing.T) {
	now := utc("2025-03-08T12:00:00Z")
	mk := func(name, pool, created, after string) karpv1.NodeClaim {
		nc := karpv1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{karpv1.NodePoolLabelKey: pool}, CreationTimestamp: metav1.Time{Time: utc(created)}}}
		nc.Spec.ExpireAfter = karpv1.MustParseNillableDuration(after)
		return nc
	}
	claims := []karpv1.NodeClaim{
		mk("at-horizon", "p", "2025-03-08T12:00:00Z", "24h"),
		mk("after-horizon", "p", "2025-03-08T12:00:01Z", "24h"),
		mk("exactly-now", "p", "2025-03-08T11:00:00Z", "1h"),
		mk("never", "p", "2020-01-01T00:00:00Z", "Never"),
		mk("other-pool", "q", "2025-03-08T11:00:00Z", "1h"),
	}
	got := ExpiringNodes("p", claims, now, DefaultExpiryLookahead)
	if len(got) != 2 || got[0].NodeClaim != "exactly-now" || !got[0].Expired || got[1].NodeClaim != "at-horizon" || got[1].Expired || got[1].Node != "at-horizon" {
		t.Fatalf("%+v", got)
	}
}

// TemplateDriftWarnings agrees with Karpenter's own NodePool.Hash: a warning exactly when the hash
// of the template changes.
func TestTemplateDriftWarningsMatchHash(t *testing.T) {
	expire := func(s string) karpv1.NillableDuration { return karpv1.MustParseNillableDuration(s) }
	tests := []struct {
		name          string
		current, plan karpv1.NodeClaimTemplateSpec
	}{
		{"same expireAfter spelled differently", karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("720h")}, karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("720h0m0s")}},
		{"expireAfter changed", karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("720h")}, karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("336h")}},
		{"expireAfter to Never", karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("720h")}, karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("Never")}},
		{"terminationGracePeriod set", karpv1.NodeClaimTemplateSpec{}, karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("1h")}},
		{"terminationGracePeriod same value", karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("60m")}, karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("1h")}},
		{"terminationGracePeriod changed", karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("1h")}, karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("2h")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := karpv1.NodePool{Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: tt.current}}}
			b := karpv1.NodePool{Spec: karpv1.NodePoolSpec{Template: karpv1.NodeClaimTemplate{Spec: tt.plan}}}
			drifts := a.Hash() != b.Hash()
			if warned := len(TemplateDriftWarnings(tt.current, tt.plan, 7)) > 0; warned != drifts {
				t.Errorf("warned %v, hash changes %v", warned, drifts)
			}
		})
	}
}

// BenchmarkBuildPreview: 1,000 nodes, 50 budgets (the CRD's maximum) mixing schedules.
func BenchmarkBuildPreview(b *testing.B) {
	claims, nodes := pool("default", 1000)
	schedules := []string{"0 9 * * 1-5", "@daily", "*/15 * * * *", "30 6 * * SUN", "0 22 * * fri"}
	var budgets []karpv1.Budget
	for i := range 50 {
		budgets = append(budgets, karpv1.Budget{Nodes: "10%", Schedule: ptr(schedules[i%len(schedules)]), Duration: dur("8h")})
	}
	in := Input{NodePool: nodePool(budgets...), NodeClaims: claims, Nodes: nodes, Now: utc("2025-03-08T12:00:00Z")}
	for b.Loop() {
		BuildPreview(in)
	}
}
