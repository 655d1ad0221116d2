package disruption

import (
	"fmt"
	"testing"
	"time"

	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/disruption"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
)

// At fleet scale the per-node parts of the preview stay bounded: maps keyed by node and candidate
// lists hold preview.SummaryListLimit nodes by default, with exact counts and what was left out; full detail
// lists all. The week-ahead schedule is capped at disruption.ScheduleCap ranges the same way.
func TestNodePoolPreviewBounds(t *testing.T) {
	var p disruption.Preview
	p.Candidates = map[karpv1.DisruptionReason][]string{}
	p.DisruptableNow = map[karpv1.DisruptionReason]int{karpv1.DisruptionReasonDrifted: 3}
	for i := range 500 {
		node := fmt.Sprintf("n-%03d", i)
		p.Blocked = append(p.Blocked, disruption.BlockedNode{Node: node, Why: "node annotation"})
		p.Drifted = append(p.Drifted, disruption.DriftedNode{Node: node, NodeClaim: node, Why: "Drifted condition"})
		p.Candidates[karpv1.DisruptionReasonDrifted] = append(p.Candidates[karpv1.DisruptionReasonDrifted], node)
	}
	p.Reasons = []disruption.ReasonPreview{{Reason: karpv1.DisruptionReasonDrifted}}
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	for i := range 300 { // a budget that opens and closes 150 times a week
		budgeted := map[karpv1.DisruptionReason]int{karpv1.DisruptionReasonDrifted: disruption.Unbounded}
		if i%2 == 1 {
			budgeted[karpv1.DisruptionReasonDrifted] = 2
		}
		p.Schedule = append(p.Schedule, disruption.ScheduleRange{From: start.Add(time.Duration(i) * time.Minute), To: start.Add(time.Duration(i+1) * time.Minute), Budgeted: budgeted})
	}
	p.Nodes, p.Disrupting = 500, 1
	summary := npPreviewOf(p, preview.SummaryListLimit)
	if len(summary.Schedule) != disruption.ScheduleCap || summary.ScheduleOmit != 300-disruption.ScheduleCap ||
		summary.Schedule[0].Allowed["Drifted"] != 499 || len(summary.Schedule[0].Unbounded) != 1 ||
		summary.Schedule[1].Allowed["Drifted"] != 1 || len(summary.Schedule[1].Unbounded) != 0 {
		t.Errorf("schedule: %d listed, %d omitted, first rows %+v", len(summary.Schedule), summary.ScheduleOmit, summary.Schedule[:2])
	}
	if len(summary.Blocked) != preview.SummaryListLimit || summary.BlockedCount != 500 || summary.BlockedOmitted != 480 || summary.Blocked["n-019"] == "" || summary.Blocked["n-020"] != "" {
		t.Errorf("blocked: %d listed, count %d, omitted %d", len(summary.Blocked), summary.BlockedCount, summary.BlockedOmitted)
	}
	if len(summary.Drifted) != preview.SummaryListLimit || summary.DriftedCount != 500 || summary.DriftedOmitted != 480 {
		t.Errorf("drifted: %d listed, count %d, omitted %d", len(summary.Drifted), summary.DriftedCount, summary.DriftedOmitted)
	}
	if got := summary.Candidates["Drifted"]; len(got) != preview.SummaryListLimit || got[0] != "n-000" || summary.CandidateCount["Drifted"] != 500 {
		t.Errorf("candidates %v, count %v", got, summary.CandidateCount)
	}
	if _, ok := summary.Candidates["Empty"]; ok || summary.CandidateCount["Empty"] != 0 || summary.DisruptableNow["Drifted"] != 3 || len(summary.DisruptableNow) != 3 {
		t.Errorf("empty reasons: candidates %v, counts %v, disruptable %v", summary.Candidates, summary.CandidateCount, summary.DisruptableNow)
	}
	full := npPreviewOf(p, preview.ListLimitFor(preview.PreviewDetailFull))
	if len(full.Blocked) != 500 || full.BlockedOmitted != 0 || len(full.Candidates["Drifted"]) != 500 || len(full.Drifted) != 500 || len(full.Schedule) != 300 || full.ScheduleOmit != 0 {
		t.Errorf("full: %d blocked, %d omitted, %d candidates", len(full.Blocked), full.BlockedOmitted, len(full.Candidates["Drifted"]))
	}
}
