package facts

import (
	"fmt"
	"sort"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	corev1 "k8s.io/api/core/v1"
)

// Moved lists what changed between the snapshot a plan read and the fleet as it is now, one line
// per input, member and kind of change, each starting with the input it is of ("hub member
// clusters: member cluster a: labels …"), in member order: what an apply of a saved plan tells
// the user moved since the review. Heartbeat times, which move every minute, count only through
// the conditions they set. Both snapshots are scoped alike (Only).
func Moved(planned, now *Snapshot) []string {
	var out []string
	add := func(in Input, lines []string) {
		for _, l := range lines {
			out = append(out, string(in)+": "+l)
		}
	}
	add(InputSettings, movedSettings(planned.Settings, now.Settings))
	if planned.HubRead && now.HubRead {
		add(InputHubMembers, movedHub(planned.Hub, now.Hub))
	}
	if planned.PlacementsRead && now.PlacementsRead {
		add(InputPlacements, movedPlacements(planned.Placements, now.Placements))
	}
	add(InputRunInputs, movedStaged(planned.Staged, now.Staged))
	add(InputSelectedResources, movedResources(planned.Overrides, now.Overrides))
	add(InputOverrideSnapshots, movedOverrideSnapshots(planned.OverrideSnapshots, now.OverrideSnapshots))
	for _, pf := range planned.Fleets {
		for _, nf := range now.Fleets {
			if strings.EqualFold(pf.ID, nf.ID) {
				add(InputFleetMembers, movedMembers(pf.Members, nf.Members))
				if pf.Windows && nf.Windows {
					add(InputWindows, movedWindows(pf.Members, nf.Members))
				}
				add(InputStrategies, movedStrategies(pf, nf))
			}
		}
	}
	add(InputRegions, movedRegions(planned.Regions, now.Regions))
	add(InputKarpenter, movedClusters(planned.Clusters, now.Clusters))
	return out
}

func movedHub(planned, now []clusterv1.MemberCluster) []string {
	return pairUp(planned, now, func(mc clusterv1.MemberCluster) string { return mc.Name }, "member cluster", "the hub",
		func(name string, b, a clusterv1.MemberCluster) []string {
			var out []string
			if d := mapDiff(b.Labels, a.Labels); d != "" {
				out = append(out, fmt.Sprintf("member cluster %s: labels %s", name, d))
			}
			if bt, at := taintsText(b.Spec.Taints), taintsText(a.Spec.Taints); bt != at {
				out = append(out, fmt.Sprintf("member cluster %s: taints [%s] → [%s]", name, bt, at))
			}
			if d := mapDiff(conditionsOf(b), conditionsOf(a)); d != "" {
				out = append(out, fmt.Sprintf("member cluster %s: conditions %s", name, d))
			}
			if d := mapDiff(propertiesOf(b), propertiesOf(a)); d != "" {
				out = append(out, fmt.Sprintf("member cluster %s: properties %s", name, d))
			}
			return out
		})
}

func movedMembers(planned, now []MemberRecord) []string {
	return pairUp(planned, now, func(m MemberRecord) string { return m.Name }, "member", "the fleet",
		func(name string, b, a MemberRecord) []string {
			var out []string
			if b.Group != a.Group {
				out = append(out, fmt.Sprintf("member %s: update group %q → %q", name, b.Group, a.Group))
			}
			if d := mapDiff(b.Labels, a.Labels); d != "" {
				out = append(out, fmt.Sprintf("member %s: labels %s", name, d))
			}
			if d := mapDiff(versionsOf(b), versionsOf(a)); d != "" {
				out = append(out, fmt.Sprintf("member %s: versions %s", name, d))
			}
			return out
		})
}

// movedWindows says whose maintenance windows changed (members that left or joined are movedMembers').
func movedWindows(planned, now []MemberRecord) []string {
	return pairUp(planned, now, func(m MemberRecord) string { return m.Name }, "", "",
		func(name string, b, a MemberRecord) []string {
			if d := mapDiff(windowsOf(b), windowsOf(a)); d != "" {
				return []string{fmt.Sprintf("member %s: maintenance windows %s", name, d)}
			}
			return nil
		})
}

func taintsText(ts []clusterv1.Taint) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func conditionsOf(mc clusterv1.MemberCluster) map[string]string {
	out := map[string]string{}
	for _, c := range mc.Status.Conditions {
		out[c.Type] = string(c.Status)
	}
	for _, as := range mc.Status.AgentStatus {
		for _, c := range as.Conditions {
			out[string(as.Type)+"/"+c.Type] = string(c.Status)
		}
	}
	return out
}

func propertiesOf(mc clusterv1.MemberCluster) map[string]string {
	out := map[string]string{}
	for name, p := range mc.Status.Properties {
		out[string(name)] = p.Value
	}
	ru := mc.Status.ResourceUsage
	for kind, list := range map[string]map[string]string{"capacity": quantities(ru.Capacity), "allocatable": quantities(ru.Allocatable), "available": quantities(ru.Available)} {
		for r, q := range list {
			out[kind+"/"+r] = q
		}
	}
	return out
}

func versionsOf(m MemberRecord) map[string]string {
	out := map[string]string{}
	if m.ClusterErr != "" {
		out["cluster"] = "unreadable"
	}
	mc := m.Cluster
	if mc == nil || mc.Properties == nil {
		return out
	}
	if v := mc.Properties.CurrentKubernetesVersion; v != nil {
		out["kubernetes"] = *v
	}
	for _, p := range mc.Properties.AgentPoolProfiles {
		if p != nil && p.Name != nil && p.NodeImageVersion != nil {
			out["node image of "+*p.Name] = *p.NodeImageVersion
		}
	}
	return out
}

func windowsOf(m MemberRecord) map[string]string {
	out := map[string]string{}
	for name, w := range m.Windows {
		if w != nil {
			out[name] = windowText(w)
		}
	}
	return out
}

// windowText is a maintenance window in a line ("weekly on Saturday at 02:00+00:00 for 4h").
func windowText(w *armcontainerservice.MaintenanceWindow) string {
	when := "on a schedule"
	if s := w.Schedule; s != nil {
		switch {
		case s.Daily != nil:
			when = fmt.Sprintf("every %d day(s)", deref(s.Daily.IntervalDays))
		case s.Weekly != nil && s.Weekly.DayOfWeek != nil:
			when = fmt.Sprintf("every %d week(s) on %s", deref(s.Weekly.IntervalWeeks), *s.Weekly.DayOfWeek)
		case s.AbsoluteMonthly != nil:
			when = fmt.Sprintf("every %d month(s) on day %d", deref(s.AbsoluteMonthly.IntervalMonths), deref(s.AbsoluteMonthly.DayOfMonth))
		case s.RelativeMonthly != nil && s.RelativeMonthly.DayOfWeek != nil && s.RelativeMonthly.WeekIndex != nil:
			when = fmt.Sprintf("every %d month(s) on the %s %s", deref(s.RelativeMonthly.IntervalMonths), *s.RelativeMonthly.WeekIndex, *s.RelativeMonthly.DayOfWeek)
		}
	}
	return fmt.Sprintf("%s at %s%s for %dh", when, deref(w.StartTime), deref(w.UTCOffset), deref(w.DurationHours))
}

func quantities(l corev1.ResourceList) map[string]string {
	out := make(map[string]string, len(l))
	for name, q := range l {
		out[string(name)] = q.String()
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// movedStrategies names each strategy of planned whose stages changed or that is gone now.
func movedStrategies(planned, now FleetRecord) []string {
	if !planned.StrategiesRead || !now.StrategiesRead {
		return nil
	}
	var out []string
	for _, b := range planned.Strategies {
		found := false
		for _, a := range now.Strategies {
			if !strings.EqualFold(a.Name, b.Name) {
				continue
			}
			found = true
			if bt, at := stagesText(b.Strategy), stagesText(a.Strategy); bt != at {
				out = append(out, fmt.Sprintf("update strategy %s: stages %s → %s", b.Name, bt, at))
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("update strategy %s: deleted", b.Name))
		}
	}
	return out
}
