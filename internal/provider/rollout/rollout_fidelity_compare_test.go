package rollout

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// How TestRolloutFidelityRealPath compares a preview with the run the emulator executed, and
// classifies each mismatch by the fact no API tells (counterfactual).

func pmMembers(pm runPreviewModel) []runMemberPreviewModel {
	var out []runMemberPreviewModel
	for _, st := range pm.Stages {
		for _, g := range st.Groups {
			out = append(out, g.Members...)
		}
	}
	return out
}

// mismatch is one difference between a preview and what the emulator did;
// key identifies it across previews of the same run (member, kind, pool).
type mismatch struct{ member, kind, key, detail string }

// diffPreview lists where preview pm and the executed run differ: each
// member's action (upgrade, skip with its reason, fail with its message,
// pending with its first pending reason, not reached), the versions and node
// images of completed members, the order of those the preview upgrades at
// once, the run's outcome and its membership. fails are the members the
// preview says fail once upgraded (its member warnings), with their messages.
func diffPreview(u rollout.Update, pm runPreviewModel, fails map[string]string, run *fleetapi.UpdateRun, actual map[string]*actualMember) []mismatch {
	var out []mismatch
	report := func(member, kind, sub, format string, args ...any) {
		out = append(out, mismatch{member: member, kind: kind, key: member + "|" + kind + "|" + sub, detail: fmt.Sprintf(format, args...)})
	}
	got := runOutcome(run)
	seen := 0
	for _, stg := range pm.Stages {
		for _, g := range stg.Groups {
			type started struct {
				name string
				pos  int64
				at   time.Time
			}
			var order []started
			for _, m := range g.Members {
				seen++
				a := actual[m.Name]
				if a == nil {
					report(m.Name, "membership", "", "in the preview, not in the run")
					continue
				}
				reason := m.Reason.ValueString()
				switch {
				case m.Action == "upgrade" && fails[m.Name] != "":
					if a.state != "Failed" || a.message != fails[m.Name] {
						report(m.Name, "state", "", "preview upgrade then fails (%s), emulator %s (%s)", fails[m.Name], a.state, a.message)
					}
					continue
				case m.Action == "upgrade":
					if a.state != "Completed" {
						report(m.Name, "state", "", "preview upgrade, emulator %s (%s)", a.state, a.message)
						continue
					}
				case m.Action == "skip":
					if a.state != "Skipped" || a.message != reason {
						report(m.Name, "state", "", "preview skip (%s), emulator %s (%s)", reason, a.state, a.message)
					}
					continue
				case m.Action == "fail":
					if a.state != "Failed" || a.message != reason {
						report(m.Name, "state", "", "preview fail (%s), emulator %s (%s)", reason, a.state, a.message)
					}
					continue
				case strings.HasPrefix(reason, "not reached: "):
					if a.state != "NotStarted" {
						report(m.Name, "state", "", "preview not reached, emulator %s (%s)", a.state, a.message)
					}
					continue
				default: // pending when reached, and perhaps failing after
					reason, fails, _ := strings.Cut(reason, "; then fails: ")
					first := a.firstPending
					if first == "" && a.state == "Stopped" {
						first = a.message // Pending and Stopped at the same instant
					}
					if fails != "" && (a.state != "Failed" || a.message != fails) {
						report(m.Name, "state", "", "preview pending then fails (%s), emulator %s (%s)", fails, a.state, a.message)
						continue
					}
					if first != reason {
						kind := "pending reason"
						if first == "" {
							kind = "state"
						}
						report(m.Name, kind, "", "preview pending (%s), emulator first pending %q, final %s (%s)", reason, first, a.state, a.message)
						continue
					}
					if a.state != "Completed" {
						continue // still waiting, stopped or failed: the run's outcome says
					}
				}
				// Completed: the clusters must now run the preview's targets.
				if u.Upgrade != rollout.NodeImageOnly && a.kube != m.TargetKubernetesVersion {
					report(m.Name, "kubernetes version", "", "preview %s, cluster %s", m.TargetKubernetesVersion, a.kube)
				}
				for pool, img := range m.TargetNodeImageVersions {
					if a.images[pool] != img {
						report(m.Name, "node image", pool, "pool %s: preview %s, cluster %s", pool, img, a.images[pool])
					}
				}
				if a.start != nil && m.Action == "upgrade" {
					order = append(order, started{m.Name, m.Position, *a.start})
				}
			}
			// The preview's order among the members it upgrades when reached (a
			// Pending member's start depends on its window, which its reason names).
			for i := range order {
				for j := range order {
					if order[i].pos < order[j].pos && order[i].at.After(order[j].at) {
						report(order[j].name, "order", order[i].name, "preview puts %s (position %d) before %s (position %d); emulator started it later",
							order[i].name, order[i].pos, order[j].name, order[j].pos)
					}
				}
			}
		}
	}
	if got != pm.Outcome {
		report("", "outcome", "", "preview %s, emulator %s", pm.Outcome, got)
	}
	if n := len(actual); seen != n {
		report("", "membership", "count", "%d members in the preview, %d in the run", seen, n)
	}
	return out
}

func runOutcome(run *fleetapi.UpdateRun) string {
	got := string(run.Properties.Status.Status.State)
	if got == "Running" {
		return "Pending"
	}
	return got
}

// hiddenFacts is what the emulator knew at plan and the provider could not
// read: each step adds one kind to the provider's own plan input, in order.
type hiddenFacts struct {
	class   string
	warning []string // what the preview says when it cannot know this
	add     func(in *rollout.PlanInput)
}

// compare counts the real-path preview's mismatches and classifies each one
// exactly: a mismatch belongs to the first hidden fact whose addition to the
// provider's own plan input (rollout.Plan, as the preview computes it) makes
// it disappear. One that none removes is an error: the preview was wrong with
// what the provider reads, and the test fails.
func (rf *realPathFleet) compare(t *testing.T, name string, plan *updateRunModel, pm runPreviewModel, in rollout.PlanInput, planAt time.Time,
	run *fleetapi.UpdateRun, actual map[string]*actualMember, rel *release, offeredAtPlan map[string]map[string][]string, st *realPathStats) {
	t.Helper()
	st.runs++
	relDuring := rel != nil && rel.posted
	if relDuring {
		st.releaseRuns++
	}
	u := plan.ManagedClusterUpdate.toRollout()
	st.outcomes[runOutcome(run)]++
	for _, w := range pm.Warnings {
		if strings.Contains(w, "region's AKS list does not show") {
			st.assumedImageRuns++
		}
	}
	unannounced := false
	for _, m := range pmMembers(pm) {
		st.members++
		st.actions[m.Action]++
		st.windows[m.MaintenanceWindow]++
		if a := actual[m.Name]; a != nil && m.Action != "fail" && !strings.Contains(m.Reason.ValueString(), "; then fails: ") && a.state == "Failed" {
			unannounced = true
		}
	}
	if unannounced {
		st.failureRuns++
	}
	found := diffPreview(u, pm, nil, run, actual)
	if len(found) == 0 {
		st.cleanRuns++
		return
	}
	upgrades := map[string]rollout.UpgradeBehavior{}
	for _, m := range rf.file.Members {
		fu, _ := rf.srv.MemberUpgrade(m.Name)
		upgrades[m.Name] = rollout.UpgradeBehavior{Duration: fu.Duration.Duration, Fail: fu.Fail, Message: fu.Message}
	}
	steps := []hiddenFacts{
		{classRegionImages, []string{"region's AKS list does not show", "could not be read"}, func(in *rollout.PlanInput) {
			regions := map[string]rollout.Region{}
			for loc, reg := range in.Regions {
				reg.NodeImages = offeredAtPlan[loc]
				regions[loc] = reg
			}
			in.Regions = regions
		}},
		{classRelease, []string{"does not announce releases", "Latest takes the newest image"}, func(in *rollout.PlanInput) {
			if !relDuring {
				return
			}
			reg := in.Regions[rel.region]
			reg.Releases = append(append([]rollout.Release(nil), reg.Releases...), rollout.Release{At: rel.at, KubernetesVersion: rel.kube, NodeImageVersion: rel.image})
			in.Regions[rel.region] = reg
		}},
		{classTiming, nil, func(in *rollout.PlanInput) { in.Members = withUpgrades(in.Members, upgrades, false) }},
		{classFailure, nil, func(in *rollout.PlanInput) { in.Members = withUpgrades(in.Members, upgrades, true) }},
	}
	class := map[string]string{}
	for _, step := range steps {
		step.add(&in)
		p, err := rollout.Plan(in, planAt)
		if err != nil {
			t.Fatalf("fleet %d %s: counterfactual plan (%s): %v", rf.seed, name, step.class, err)
		}
		still := map[string]bool{}
		fails := map[string]string{}
		for _, w := range p.MemberWarnings {
			if w.Kind == rollout.MemberFails {
				fails[w.Member] = w.Detail
			}
		}
		for _, m := range diffPreview(u, runPreviewFrom(p, 0, nil), fails, run, actual) {
			still[m.key] = true
		}
		for _, m := range found {
			if class[m.key] == "" && !still[m.key] {
				class[m.key] = step.class
			}
		}
	}
	warnedBy := map[string][]string{}
	for _, step := range steps {
		warnedBy[step.class] = step.warning
	}
	for _, m := range found {
		c := class[m.key]
		if c == "" {
			c = classError
		}
		st.classes[c]++
		st.kinds[m.kind]++
		warned := false
		for _, w := range pm.Warnings {
			if slices.ContainsFunc(warnedBy[c], func(s string) bool { return strings.Contains(w, s) }) {
				st.warned[c]++
				warned = true
				break
			}
		}
		if !warned && c == classRegionImages && os.Getenv("FIDELITY_DEBUG") != "" {
			t.Logf("UNWARNED fleet %d %s %s %s: %s; warnings %q", rf.seed, name, m.member, m.kind, m.detail, pm.Warnings)
		}
		msg := fmt.Sprintf("fleet %d %s %s %s: %s", rf.seed, name, m.member, m.kind, m.detail)
		if len(st.examples[c]) < 2 {
			st.examples[c] = append(st.examples[c], msg)
		}
		if c == classError {
			t.Errorf("%s", msg)
			if os.Getenv("FIDELITY_DEBUG") != "" {
				b, _ := json.MarshalIndent(run.Properties.Status, "", " ")
				p, _ := json.MarshalIndent(pm, "", " ")
				t.Logf("plan at %s\n%s\npreview %s", planAt, b, p)
			}
		}
	}
}

// withUpgrades gives members their upgrade durations and, with failures, the
// failures the emulator has planned.
func withUpgrades(members []rollout.Member, upgrades map[string]rollout.UpgradeBehavior, failures bool) []rollout.Member {
	out := append([]rollout.Member(nil), members...)
	for i := range out {
		u := upgrades[out[i].Name]
		out[i].Upgrade.Duration = u.Duration
		if failures {
			out[i].Upgrade.Fail, out[i].Upgrade.Message = u.Fail, u.Message
		}
	}
	return out
}
