package scheduling

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// maxClosestProperties caps the reported properties named as the closest to an unknown one.
const maxClosestProperties = 3

// skuCapacityProperty matches the Azure VM size capacity properties that Fleet Manager's hub answers
// with its property checker in required terms' property selectors, not from members' reports
// (pkg/propertyprovider/azure/provider.go: CapacityPerSKUPropertyRegex;
// pkg/scheduler/framework/plugins/clusteraffinity/types_azure.go: MatchPropertiesInPropertyChecker).
var skuCapacityProperty = regexp.MustCompile(`^kubernetes\.azure\.com/vm-sizes/([^/]+)/capacity$`)

// UnknownProperty is a property a policy names that no member cluster reports.
type UnknownProperty struct {
	// Name is the property as the policy names it.
	Name string
	// Uses says where: "required term 0", "preferred term 1 (selector)", "preferred term 1 (sorter)".
	Uses []string
	// Paths locate each use in the policy (the matchExpression's or the sorter's name).
	Paths []Path
	// Closest are the reported properties nearest to Name, best first (at most
	// maxClosestProperties): by the edit distance of the names' last segments (after the last
	// "/"), then of the whole names, then by name; after the best, only those as close or within
	// a third of Name's last segment's length.
	Closest []string
}

// ReportedProperties lists every property name some member cluster reports, sorted: its
// status.properties, and resources.kubernetes-fleet.io/<total|allocatable|available>-<resource>
// for every resource in its status.resourceUsage (the names the clusteraffinity plugin reads,
// pkg/scheduler/framework/plugins/clusteraffinity/types.go: retrievePropertyValueFrom).
func ReportedProperties(clusters []clusterv1.MemberCluster) []string {
	seen := map[string]bool{}
	addResources := func(capacityType string, l corev1.ResourceList) {
		for r := range l {
			seen[ResourcePropertyNamePrefix+capacityType+"-"+string(r)] = true
		}
	}
	for i := range clusters {
		c := &clusters[i]
		for name := range c.Status.Properties {
			seen[string(name)] = true
		}
		addResources(totalCapacityName, c.Status.ResourceUsage.Capacity)
		addResources(allocatableCapacityName, c.Status.ResourceUsage.Allocatable)
		addResources(availableCapacityName, c.Status.ResourceUsage.Available)
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// UnknownProperties lists, in the order the policy first names them, the properties its property
// selectors and sorters name that no member cluster reports: a selector requirement on such a
// property matches no cluster, and a sorter on it gives every cluster the same score
// (pkg/scheduler/framework/plugins/clusteraffinity/types.go). The SKU capacity properties that
// Fleet Manager's property checker answers in required terms are left out.
func UnknownProperties(policy *placementv1.PlacementPolicy, clusters []clusterv1.MemberCluster) []UnknownProperty {
	if policy == nil || policy.Affinity == nil || policy.Affinity.ClusterAffinity == nil {
		return nil
	}
	reported := ReportedProperties(clusters)
	known := make(map[string]bool, len(reported))
	for _, n := range reported {
		known[n] = true
	}
	var out []UnknownProperty
	index := map[string]int{}
	use := func(name, where string, p Path) {
		if name == "" || known[name] {
			return
		}
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, UnknownProperty{Name: name, Closest: closestNames(name, reported)})
		}
		out[i].Uses = append(out[i].Uses, where)
		out[i].Paths = append(out[i].Paths, p)
	}
	ca := policy.Affinity.ClusterAffinity
	if req := ca.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		for t, term := range req.ClusterSelectorTerms {
			if term.PropertySelector == nil {
				continue
			}
			for e, exp := range term.PropertySelector.MatchExpressions {
				if skuCapacityProperty.MatchString(exp.Name) {
					continue
				}
				use(exp.Name, fmt.Sprintf("required term %d", t),
					pathRequired.Index(t).Child("propertySelector").Child("matchExpressions").Index(e).Child("name"))
			}
		}
	}
	for t, pref := range ca.PreferredDuringSchedulingIgnoredDuringExecution {
		base := pathPreferred.Index(t).Child("preference")
		if ps := pref.Preference.PropertySelector; ps != nil {
			for e, exp := range ps.MatchExpressions {
				use(exp.Name, fmt.Sprintf("preferred term %d (selector)", t),
					base.Child("propertySelector").Child("matchExpressions").Index(e).Child("name"))
			}
		}
		if s := pref.Preference.PropertySorter; s != nil {
			use(s.Name, fmt.Sprintf("preferred term %d (sorter)", t), base.Child("propertySorter").Child("name"))
		}
	}
	return out
}

// UnknownPropertiesWarning words UnknownProperties as one plan warning (nil when there is none):
// one per plan however many members there are, listing each unknown property with where the
// policy names it and the closest reported ones.
func UnknownPropertiesWarning(policy *placementv1.PlacementPolicy, clusters []clusterv1.MemberCluster) []string {
	unknown := UnknownProperties(policy, clusters)
	if len(unknown) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("The policy names properties that no member cluster reports: a property selector on one matches no cluster, and a property sorter on one ranks every cluster alike.")
	for _, u := range unknown {
		fmt.Fprintf(&b, " %q (%s): ", u.Name, strings.Join(u.Uses, ", "))
		if len(u.Closest) == 0 {
			b.WriteString("members report no properties.")
			continue
		}
		quoted := make([]string, len(u.Closest))
		for i, c := range u.Closest {
			quoted[i] = fmt.Sprintf("%q", c)
		}
		fmt.Fprintf(&b, "the closest reported: %s.", strings.Join(quoted, ", "))
	}
	return []string{b.String()}
}

// closestNames ranks reported names by closeness to name (see UnknownProperty.Closest).
func closestNames(name string, reported []string) []string {
	type cand struct {
		name      string
		seg, full int
	}
	last := func(s string) string { return s[strings.LastIndex(s, "/")+1:] }
	cs := make([]cand, 0, len(reported))
	for _, r := range reported {
		cs = append(cs, cand{name: r, seg: editDistance(last(name), last(r)), full: editDistance(name, r)})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].seg != cs[j].seg {
			return cs[i].seg < cs[j].seg
		}
		if cs[i].full != cs[j].full {
			return cs[i].full < cs[j].full
		}
		return cs[i].name < cs[j].name
	})
	// The best always; the next ones only when as close, or within a third of the last segment's
	// length (a far runner-up is noise).
	near := len(last(name)) / 3
	out := make([]string, 0, maxClosestProperties)
	for i := 0; i < len(cs) && len(out) < maxClosestProperties; i++ {
		if i == 0 || cs[i].seg <= cs[0].seg || cs[i].seg <= near {
			out = append(out, cs[i].name)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, over bytes (property names are ASCII
// by the webhook's qualified-name rule).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
