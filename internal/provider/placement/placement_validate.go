package placement

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// placementPolicyFields maps the policy's JSON field names onto its attribute and block names; "" marks a
// level the HCL shape flattens away (affinity.clusterAffinity, a term's labelSelector, ...).
var placementPolicyFields = map[string]string{
	"placementType": "placement_type", "clusterNames": "cluster_names", "numberOfClusters": "number_of_clusters",
	"affinity": "", "clusterAffinity": "",
	"requiredDuringSchedulingIgnoredDuringExecution": "required_cluster_selector", "clusterSelectorTerms": "",
	"preferredDuringSchedulingIgnoredDuringExecution": "preferred_cluster_selector", "preference": "", "weight": "weight",
	"labelSelector": "", "propertySelector": "property_expression", "matchExpressions": "",
	"propertySorter": "property_sorter", "sortOrder": "sort_order", "name": "name", "operator": "operator", "values": "values",
	"topologySpreadConstraints": "topology_spread_constraint", "maxSkew": "max_skew", "topologyKey": "topology_key",
	"whenUnsatisfiable": "when_unsatisfiable", "tolerations": "toleration", "key": "key", "value": "value", "effect": "effect",
}

// placementPolicyPath maps a scheduling.Path (JSON names from the policy's root) onto the
// attribute path under root (the policy block); m says which selectors a path to the whole
// affinity means.
func placementPolicyPath(root path.Path, p scheduling.Path, m *policyModel) path.Path {
	out := root
	for _, s := range p {
		if s.Field == "" {
			out = out.AtListIndex(s.Index)
		} else if name := placementPolicyFields[s.Field]; name != "" {
			out = out.AtName(name)
		}
	}
	if out.Equal(root) && len(p) > 0 && p[0].Field == "affinity" {
		// "affinity must be nil": point at whichever selectors are set.
		if m != nil && len(m.RequiredClusterSelectors) == 0 && len(m.PreferredClusterSelectors) > 0 {
			return root.AtName("preferred_cluster_selector")
		}
		return root.AtName("required_cluster_selector")
	}
	return out
}

// addPlacementPolicyIssues reports scheduling.Validate's issues at their attribute paths under root,
// leaving out those the schema already reports and those about values unknown at plan.
func addPlacementPolicyIssues(diags *diag.Diagnostics, root path.Path, m *policyModel, issues []scheduling.Issue, unknown []path.Path) {
	// One diagnostic per attribute and severity: the CRD schema and the webhook often say the
	// same thing twice (maxItems 1 and "requires exactly one value").
	type group struct {
		p        path.Path
		severity scheduling.Severity
		messages []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, is := range issues {
		p := placementPolicyPath(root, is.Path, m)
		if last, _ := p.Steps().LastStep(); last != nil {
			if name, ok := last.(path.PathStepAttributeName); ok && placementEnumAttributes[string(name)] {
				continue
			}
		}
		if shared.RelatedToAny(p, unknown) {
			continue
		}
		key := p.String() + "\x00" + string(is.Severity)
		g := byKey[key]
		if g == nil {
			g = &group{p: p, severity: is.Severity}
			byKey[key] = g
			groups = append(groups, g)
		}
		msg := strings.TrimSuffix(is.Message, ".")
		if !slices.Contains(g.messages, msg) {
			g.messages = append(g.messages, msg)
		}
	}
	for _, g := range groups {
		detail := fmt.Sprintf("Attribute %s: %s.", g.p, strings.Join(g.messages, "; "))
		if g.severity == scheduling.SeverityWarning {
			diags.AddAttributeWarning(g.p, "Placement policy will not schedule as written", detail)
		} else {
			diags.AddAttributeError(g.p, "Invalid placement policy", detail)
		}
	}
}

// validatePlacementPolicy checks a policy at validate and plan: KubeFleet's own rules
// (scheduling.Validate: the CRD schema and the hub's webhook) with attribute paths. Values unknown
// at plan are left out; with an unknown placement type nothing can be checked yet.
func validatePlacementPolicy(diags *diag.Diagnostics, root path.Path, m *policyModel, unknown []path.Path) {
	if m == nil || shared.PathsContain(unknown, root) || shared.PathsContain(unknown, root.AtName("placement_type")) {
		return
	}
	addPlacementPolicyIssues(diags, root, m, scheduling.Validate(m.toAPI()), unknown)
}
