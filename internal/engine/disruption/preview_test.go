package disruption

import (
	"github.com/awslabs/operatorpkg/status"
	corev1 "k8s.io/api/core/v1"
	"slices"
	"strings"
	"testing"
	"time"

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

	// Disrupting: the NotReady node, the deleting one, and default-3, expired: the expiration
	// controller deletes it before the disruption controller's next pass.
	if p.Nodes != 20 || p.Disrupting != 3 {
		t.Fatalf("counts %d/%d, want 20/3", p.Nodes, p.Disrupting)
	}
	if got := p.Candidates[ReasonExpired]; !slices.Equal(got, []string{"node-default-3"}) || p.DisruptableNow[ReasonExpired] != 1 {
		t.Errorf("expired candidates %v, disruptable %v", got, p.DisruptableNow)
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
	quietKlog(t)
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

// TemplateDriftWarnings warns exactly when Karpenter's NodePool.Hash of the template changes, and
// names the field that changed (durations compared by value, the do-not-disrupt annotation included).
func TestTemplateDriftWarnings(t *testing.T) {
	expire := func(s string) karpv1.NillableDuration { return karpv1.MustParseNillableDuration(s) }
	spec := func(s karpv1.NodeClaimTemplateSpec) karpv1.NodeClaimTemplate {
		return karpv1.NodeClaimTemplate{Spec: s}
	}
	annotated := func(v string) karpv1.NodeClaimTemplate {
		return karpv1.NodeClaimTemplate{ObjectMeta: karpv1.ObjectMeta{Annotations: map[string]string{karpv1.DoNotDisruptAnnotationKey: v}}}
	}
	tests := []struct {
		name          string
		current, plan karpv1.NodeClaimTemplate
		want          string // "" for no warning
	}{
		{"same expireAfter spelled differently", spec(karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("720h")}), spec(karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("720h0m0s")}), ""},
		{"expireAfter changed", spec(karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("720h")}), spec(karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("336h")}), "changing expireAfter from 720h0m0s to 336h0m0s changes the NodePool's template hash"},
		{"expireAfter to Never", spec(karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("720h")}), spec(karpv1.NodeClaimTemplateSpec{ExpireAfter: expire("Never")}), "to Never"},
		{"terminationGracePeriod set", spec(karpv1.NodeClaimTemplateSpec{}), spec(karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("1h")}), "terminationGracePeriod from unset to 1h0m0s"},
		{"terminationGracePeriod same value", spec(karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("60m")}), spec(karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("1h")}), ""},
		{"terminationGracePeriod changed", spec(karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("1h")}), spec(karpv1.NodeClaimTemplateSpec{TerminationGracePeriod: dur("2h")}), "all 7 node(s) become Drifted"},
		{"do-not-disrupt set", karpv1.NodeClaimTemplate{}, annotated("true"), `annotation karpenter.sh/do-not-disrupt from unset to "true"`},
		{"do-not-disrupt same", annotated("true"), annotated("true"), ""},
		{"do-not-disrupt to false", annotated("true"), annotated("false"), `from "true" to "false"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := karpv1.NodePool{Spec: karpv1.NodePoolSpec{Template: tt.current}}
			b := karpv1.NodePool{Spec: karpv1.NodePoolSpec{Template: tt.plan}}
			got := TemplateDriftWarnings(tt.current, tt.plan, 7)
			if (len(got) > 0) != (a.Hash() != b.Hash()) || (tt.want == "") != (len(got) == 0) {
				t.Fatalf("warnings %q, hash %s -> %s", got, a.Hash(), b.Hash())
			}
			if tt.want != "" && !strings.Contains(got[0], tt.want) {
				t.Errorf("warning %q does not contain %q", got[0], tt.want)
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

// The disruption picture of one pool: a drifted node (condition) and a stale-hash one, a node held by
// a do-not-disrupt pod, one by its own annotation, one by the template's, empty nodes, and what the
// budgets let through now.
func TestBuildPreviewCandidates(t *testing.T) {
	now := utc("2025-03-08T12:00:00Z")
	claims, nodes := pool("default", 8)
	np := nodePool(karpv1.Budget{Nodes: "1", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonEmpty}}, karpv1.Budget{Nodes: "50%"})
	np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration("10m")
	np.Spec.Template.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	hash := np.Hash()
	for i := range claims {
		claims[i].Annotations = map[string]string{karpv1.NodePoolHashAnnotationKey: hash, karpv1.NodePoolHashVersionAnnotationKey: karpv1.NodePoolHashVersion}
		claims[i].Status.Conditions = []status.Condition{
			{Type: karpv1.ConditionTypeLaunched, Status: metav1.ConditionTrue},
			{Type: karpv1.ConditionTypeInitialized, Status: metav1.ConditionTrue, LastTransitionTime: metav1.Time{Time: now.Add(-time.Hour)}},
		}
	}
	busy := func(node, name string, annotations map[string]string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: name, Annotations: annotations},
			Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: now.Add(-time.Hour)}}}
	}
	claims[0].Status.Conditions = append(claims[0].Status.Conditions, status.Condition{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "ImageDrift"})
	claims[1].Annotations[karpv1.NodePoolHashAnnotationKey] = "123"                    // stale: drifted
	claims[2].Annotations[karpv1.NodePoolHashVersionAnnotationKey] = "v2"              // another hash version: re-stamped, not drifted
	nodes[3].Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"} // blocked by the node
	claims[4].Annotations[karpv1.DoNotDisruptAnnotationKey] = "true"                   // from the template
	nodes[4].Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
	claims[6].Status.LastPodEventTime = metav1.Time{Time: now.Add(-5 * time.Minute)} // empty, within consolidateAfter
	ds := busy("node-default-7", "agent", nil)
	ds.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent"}}
	pods := []corev1.Pod{
		busy("node-default-1", "web", nil), // drifted, not empty
		busy("node-default-5", "db-0", map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}), // blocks
		busy("node-default-5", "db-1", map[string]string{karpv1.DoNotDisruptAnnotationKey: "2h"}),   // blocks until 2h after start
		busy("node-default-2", "batch", map[string]string{karpv1.DoNotDisruptAnnotationKey: "30m"}), // elapsed: no block
		ds, // DaemonSet pods are not reschedulable: node 7 is empty
	}
	p := BuildPreview(Input{NodePool: np, NodeClaims: claims, Nodes: nodes, Pods: pods, Now: now})

	var drifted []string
	for _, d := range p.Drifted {
		drifted = append(drifted, d.Node+": "+d.Why)
	}
	if len(drifted) != 2 || !strings.Contains(drifted[0], "node-default-0: Drifted condition (ImageDrift)") ||
		!strings.Contains(drifted[1], "node-default-1: NodePool hash 123 on the NodeClaim, the NodePool's is now "+hash) {
		t.Errorf("drifted %q", drifted)
	}
	var blocked []string
	for _, b := range p.Blocked {
		blocked = append(blocked, b.Node+": "+b.Why)
	}
	if !slices.Equal(blocked, []string{
		`node-default-3: node annotation karpenter.sh/do-not-disrupt: "true"`,
		`node-default-4: NodePool template annotation karpenter.sh/do-not-disrupt: "true" (copied to the node at launch)`,
		`node-default-5: pod apps/db-0 has karpenter.sh/do-not-disrupt (and 1 more pod)`,
	}) {
		t.Errorf("blocked %q", blocked)
	}
	wantCandidates := map[karpv1.DisruptionReason][]string{
		karpv1.DisruptionReasonEmpty:   {"node-default-0", "node-default-7"},
		karpv1.DisruptionReasonDrifted: {"node-default-0", "node-default-1"},
	}
	for r, want := range wantCandidates {
		if got := p.Candidates[r]; !slices.Equal(got, want) {
			t.Errorf("%s candidates %v, want %v", r, got, want)
		}
	}
	// Empty: 1 allowed (budget 0); Drifted: ceil(50% of 8) = 4 allowed, 2 candidates.
	if p.DisruptableNow[karpv1.DisruptionReasonEmpty] != 1 || p.DisruptableNow[karpv1.DisruptionReasonDrifted] != 2 || p.DisruptableNow[ReasonExpired] != 0 {
		t.Errorf("disruptable now %v", p.DisruptableNow)
	}
	if p.EmptyWaiting != 1 {
		t.Errorf("empty waiting %d, want 1 (node-default-6)", p.EmptyWaiting)
	}
	want := "Karpenter may start disrupting 3 of 8 nodes now: Empty 1 of 2 eligible (the Empty budget allows 1), 1 more empty waiting for consolidateAfter; " +
		"Drifted 2 of 2 eligible; Expired 0 of 0 eligible (expiry is not budgeted); 3 nodes held by karpenter.sh/do-not-disrupt."
	if p.Summary != want {
		t.Errorf("summary\n %q\nwant\n %q", p.Summary, want)
	}
}
