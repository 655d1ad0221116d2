package provider

import (
	"fmt"
	"strings"
)

// constraintBases are valid configurations of each resource; a case sets violating values into one.
var constraintBases = map[string]map[string]any{
	"fleet_update_strategy": {"name": "rollout", "stage": []any{
		map[string]any{"name": "one", "group": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}},
	}},
	"fleet_update_run": {"name": "run", "managed_cluster_update": map[string]any{"upgrade": map[string]any{"type": "Full", "kubernetes_version": "1.30.1"}},
		"stage": []any{map[string]any{"name": "one", "group": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}}}},
	"fleet_auto_upgrade_profile": {"name": "prof", "channel": "Stable"},
	"fleet_member":               {"name": "mem", "group": "g", "cluster_resource_id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c"},
	"fleet_placement": {"name": "prof", "resource_selector": []any{map[string]any{"group": "", "version": "v1", "kind": "Namespace", "name": "ns"}},
		"policy": map[string]any{"placement_type": "PickAll"}},
	"fleet_staged_update_strategy":      {"name": "rollout", "stage": []any{map[string]any{"name": "one", "after_stage_task": []any{map[string]any{"type": "TimedWait", "wait_time": "1h"}}}}},
	"fleet_staged_update_run":           {"name": "run", "placement_name": "web", "staged_update_strategy_name": "rollout"},
	"fleet_nodepool_disruption":         {"cluster": "c", "node_pool": "default", "consolidate_after": "1m", "budget": []any{map[string]any{"nodes": "10%"}}},
	"fleet_placement_disruption_budget": {"placement": "web", "min_available": "1"},
	"fleet_member_cluster_taints":       {"member_cluster": "c", "taint": []any{map[string]any{"key": "a", "effect": "NoSchedule"}}},
	"fleet_managed_namespace": {"fleet_id": armSub + "fleets/f", "name": "team-a", "location": "eastus",
		"resource_quota": map[string]any{"cpu_limit": "4"}, "network_policy": map[string]any{"ingress": "DenyAll"},
		"placement": map[string]any{"placement_type": "PickAll", "required_cluster_selector": []any{map[string]any{"labels": map[string]any{"env": "prod"}}}}},
}

const (
	rUS  = "fleet_update_strategy"
	rUR  = "fleet_update_run"
	rAUP = "fleet_auto_upgrade_profile"
	rMem = "fleet_member"
	rPl  = "fleet_placement"
	rSS  = "fleet_staged_update_strategy"
	rSR  = "fleet_staged_update_run"
	rNP  = "fleet_nodepool_disruption"
	rPDB = "fleet_placement_disruption_budget"
	rMCT = "fleet_member_cluster_taints"
	rMNS = "fleet_managed_namespace"
)

// good is a case putting a boundary value v at p and expecting no error there.
func good(res, p string, v any) constraintCase {
	return constraintCase{resource: res, set: map[string]any{p: v}, accept: true}
}

// bad is a case putting v at p and expecting the error there.
func bad(res, p string, v any) constraintCase {
	return constraintCase{resource: res, set: map[string]any{p: v}, want: p}
}

// badAt is a case setting several values and expecting the error at want.
func badAt(res, want string, set map[string]any) constraintCase {
	return constraintCase{resource: res, set: set, want: want}
}

func req(res, p string) constraintCase { return constraintCase{resource: res, required: p} }

func many(n int, f func(i int) any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func obj(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		m[k] = kv[i+1]
	}
	return m
}

var (
	armSub = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.ContainerService/"
	// a preferred term with a valid weight, for the policies below.
	pickN = func(terms ...any) map[string]any {
		return obj("placement_type", "PickN", "number_of_clusters", 2, "preferred_cluster_selector", terms)
	}
	pickAllRequired = func(terms ...any) map[string]any {
		return obj("placement_type", "PickAll", "required_cluster_selector", terms)
	}
)

// nameCases: a name attribute against the pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ and its lengths (1 to 50).
func nameCases(kind string, res []string, p string) []constraintCase {
	var out []constraintCase
	for _, r := range res {
		switch kind {
		case "pattern":
			out = append(out, bad(r, p, "Canary_1"), bad(r, p, "-canary"))
		case "minLength":
			out = append(out, bad(r, p, ""), good(r, p, "z"))
		case "maxLength":
			out = append(out, bad(r, p, strings.Repeat("a", 51)), good(r, p, strings.Repeat("z", 50)))
		}
	}
	return out
}

// pv prefixes the preview document's constraint IDs.
const pv = previewSpec + ":"

// failuresCases: a maxAllowedFailures (a count n >= 0 or a percentage 0% to 100%) at p, each
// value once, the first of each kind in a run (one validator serves strategies and runs).
func failuresCases(p string) []constraintCase {
	out := []constraintCase{bad(rUR, p, "101%"), good(rUR, p, "0")}
	for _, v := range []string{"-1", "01", "1.5", "three", "5 %"} {
		out = append(out, bad(rUS, p, v))
	}
	for _, v := range []string{"0%", "100%", "2147483647"} {
		out = append(out, good(rUS, p, v))
	}
	return out
}

// selectorOfLength is a valid label selector of exactly n (>= 10) characters: env in (a,a,…),
// 8 + 2k characters with k values, one of them "ba" when n is odd.
func selectorOfLength(n int) string {
	values := strings.Repeat("a,", (n-8)/2-1) + "a"
	if n%2 == 1 {
		values = "b" + values
	}
	return "env in (" + values + ")"
}

// scheduledStart is a valid ScheduledStart configuration.
var scheduledStart = obj("start_day", "Monday", "start_time", "18:00", "utc_offset", "-05:00")

// scheduledStartCase: a ScheduledStart before-gate of a stage whose configuration has v at attribute a.
func scheduledStartCase(res, a string, v any) constraintCase {
	c := deepCopy(scheduledStart)
	c[a] = v
	return badAt(res, "stage[0].before_gate[0].scheduled_start."+a, map[string]any{"stage[0].before_gate": []any{obj("type", "ScheduledStart", "scheduled_start", c)}})
}

// scheduledStartAccept is scheduledStartCase for a value the source allows.
func scheduledStartAccept(res, a string, v any) constraintCase {
	c := deepCopy(scheduledStart)
	c[a] = v
	return constraintCase{resource: res, set: map[string]any{"stage[0].before_gate": []any{obj("type", "ScheduledStart", "scheduled_start", c)}}, accept: true}
}

var constraintCases = map[string][]constraintCase{
	// ---- Fleet API, fleets.json 2026-06-01 ----
	"fleets.json:FleetUpdateStrategyProperties.strategy:required": {req(rUS, "stage")},
	"fleets.json:UpdateRunStrategy.stages:required":               {req(rUS, "stage")},
	"fleets.json:UpdateStage.name:required":                       {req(rUS, "stage[0].name"), req(rUR, "stage[0].name")},
	"fleets.json:UpdateStage.name:pattern":                        nameCases("pattern", []string{rUS, rUR}, "stage[0].name"),
	"fleets.json:UpdateStage.name:minLength":                      nameCases("minLength", []string{rUS, rUR}, "stage[0].name"),
	"fleets.json:UpdateStage.name:maxLength":                      nameCases("maxLength", []string{rUS, rUR}, "stage[0].name"),
	"fleets.json:UpdateGroup.name:required":                       {req(rUS, "stage[0].group[0].name"), req(rUR, "stage[0].group[0].name")},
	"fleets.json:UpdateGroup.name:pattern":                        nameCases("pattern", []string{rUS, rUR}, "stage[0].group[1].name"),
	"fleets.json:UpdateGroup.name:minLength":                      nameCases("minLength", []string{rUS, rUR}, "stage[0].group[1].name"),
	"fleets.json:UpdateGroup.name:maxLength":                      nameCases("maxLength", []string{rUS, rUR}, "stage[0].group[1].name"),
	"fleets.json:GateConfiguration.type:required":                 {req(rUS, "stage[0].before_gate[0].type"), req(rUS, "stage[0].group[0].after_gate[0].type")},
	"fleets.json:GateConfiguration.type:enum": {
		badAt(rUS, "stage[0].before_gate[0].type", map[string]any{"stage[0].before_gate": []any{obj("type", "Manual")}}),
		badAt(rUR, "stage[0].group[1].after_gate[0].type", map[string]any{"stage[0].group[1].after_gate": []any{obj("type", "approval")}}),
	},
	"fleets.json:GateConfiguration.displayName:minLength":           {badAt(rUS, "stage[0].after_gate[0].display_name", map[string]any{"stage[0].after_gate": []any{obj("type", "Approval", "display_name", "")}})},
	"fleets.json:GateConfiguration.displayName:maxLength":           {badAt(rUS, "stage[0].group[0].before_gate[0].display_name", map[string]any{"stage[0].group[0].before_gate": []any{obj("type", "Approval", "display_name", strings.Repeat("x", 101))}})},
	"fleets.json:UpdateRunProperties.managedClusterUpdate:required": {req(rUR, "managed_cluster_update")},
	"fleets.json:ManagedClusterUpdate.upgrade:required":             {req(rUR, "managed_cluster_update.upgrade")},
	"fleets.json:ManagedClusterUpgradeSpec.type:required":           {req(rUR, "managed_cluster_update.upgrade.type")},
	"fleets.json:ManagedClusterUpgradeSpec.type:enum":               {bad(rUR, "managed_cluster_update.upgrade.type", "Partial")},
	"fleets.json:NodeImageSelection.type:required":                  {req(rUR, "managed_cluster_update.node_image_selection.type")},
	"fleets.json:NodeImageSelection.type:enum":                      {badAt(rUR, "managed_cluster_update.node_image_selection.type", map[string]any{"managed_cluster_update.node_image_selection": obj("type", "Newest")})},
	"fleets.json:UpdateRunProperties.updateStrategyId:arm-id": {
		badAt(rUR, "update_strategy_id", map[string]any{"stage": nil, "update_strategy_id": armSub + "managedClusters/c"}),
	},
	"fleets.json:SkipTarget.type:required":                             {req(rUR, "skip[0].type")},
	"fleets.json:SkipTarget.name:required":                             {req(rUR, "skip[0].name")},
	"fleets.json:SkipTarget.type:enum":                                 {badAt(rUR, "skip[0].type", map[string]any{"skip": []any{obj("type", "Cluster", "name", "a")}})},
	"fleets.json:AutoUpgradeProfileProperties.channel:required":        {req(rAUP, "channel")},
	"fleets.json:AutoUpgradeProfileProperties.channel:enum":            {bad(rAUP, "channel", "Beta")},
	"fleets.json:AutoUpgradeNodeImageSelection.type:enum":              {bad(rAUP, "node_image_selection_type", "Custom")},
	"fleets.json:AutoUpgradeProfileProperties.updateStrategyId:arm-id": {bad(rAUP, "update_strategy_id", "strategy-1")},
	"fleets.json:FleetMemberProperties.clusterResourceId:required":     {req(rMem, "cluster_resource_id")},
	"fleets.json:FleetMemberProperties.clusterResourceId:arm-id": {
		bad(rMem, "cluster_resource_id", "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm"),
	},
	"fleets.json:FleetMemberProperties.group:pattern":         nameCases("pattern", []string{rMem}, "group"),
	"fleets.json:FleetMemberProperties.group:minLength":       nameCases("minLength", []string{rMem}, "group"),
	"fleets.json:FleetMemberProperties.group:maxLength":       nameCases("maxLength", []string{rMem}, "group"),
	"fleets.json:FleetMemberUpdateProperties.group:pattern":   nameCases("pattern", []string{rMem}, "group"),
	"fleets.json:FleetMemberUpdateProperties.group:minLength": nameCases("minLength", []string{rMem}, "group"),
	"fleets.json:FleetMemberUpdateProperties.group:maxLength": nameCases("maxLength", []string{rMem}, "group"),
	"fleets.json:parameters.fleetName:pattern": {
		bad(rUS, "fleet_id", armSub+"fleets/Fleet_1"), bad(rUR, "fleet_id", armSub+"fleets/-fleet"), bad(rMem, "fleet_id", armSub+"fleets/Fleet_1"),
	},
	"fleets.json:parameters.fleetName:minLength":              {bad(rUS, "fleet_id", armSub+"fleets/"), bad(rUR, "fleet_id", armSub+"fleets")},
	"fleets.json:parameters.fleetName:maxLength":              {bad(rAUP, "fleet_id", armSub+"fleets/"+strings.Repeat("f", 64))},
	"fleets.json:parameters.fleetMemberName:pattern":          nameCases("pattern", []string{rMem}, "name"),
	"fleets.json:parameters.fleetMemberName:minLength":        nameCases("minLength", []string{rMem}, "name"),
	"fleets.json:parameters.fleetMemberName:maxLength":        nameCases("maxLength", []string{rMem}, "name"),
	"fleets.json:parameters.autoUpgradeProfileName:pattern":   nameCases("pattern", []string{rAUP}, "name"),
	"fleets.json:parameters.autoUpgradeProfileName:minLength": nameCases("minLength", []string{rAUP}, "name"),
	"fleets.json:parameters.autoUpgradeProfileName:maxLength": nameCases("maxLength", []string{rAUP}, "name"),
	"fleets.json:parameters.updateRunName:pattern":            nameCases("pattern", []string{rUR}, "name"),
	"fleets.json:parameters.updateRunName:minLength":          nameCases("minLength", []string{rUR}, "name"),
	"fleets.json:parameters.updateRunName:maxLength":          nameCases("maxLength", []string{rUR}, "name"),
	"fleets.json:parameters.updateStrategyName:pattern":       nameCases("pattern", []string{rUS}, "name"),
	"fleets.json:parameters.updateStrategyName:minLength":     nameCases("minLength", []string{rUS}, "name"),
	"fleets.json:parameters.updateStrategyName:maxLength":     nameCases("maxLength", []string{rUS}, "name"),
	// A managed namespace's name is a Kubernetes namespace name: 1 to 63 characters.
	"fleets.json:parameters.managedNamespaceName:pattern":             nameCases("pattern", []string{rMNS}, "name"),
	"fleets.json:parameters.managedNamespaceName:minLength":           nameCases("minLength", []string{rMNS}, "name"),
	"fleets.json:parameters.managedNamespaceName:maxLength":           {bad(rMNS, "name", strings.Repeat("a", 64)), good(rMNS, "name", strings.Repeat("z", 63))},
	"fleets.json:FleetManagedNamespaceProperties.adoptionPolicy:enum": {bad(rMNS, "adoption_policy", "Sometimes")},
	"fleets.json:FleetManagedNamespaceProperties.deletePolicy:enum":   {bad(rMNS, "delete_policy", "Purge")},
	"fleets.json:NetworkPolicy.ingress:enum":                          {bad(rMNS, "network_policy.ingress", "Deny")},
	"fleets.json:NetworkPolicy.egress:enum":                           {bad(rMNS, "network_policy.egress", "AllowNone")},
	"fleets.json:Placement.V1.PlacementPolicy.placementType:enum":     {bad(rMNS, "placement.placement_type", "PickN")},
	"fleets.json:Placement.V1.Toleration.operator:enum": {badAt(rMNS, "placement.toleration[0].operator",
		map[string]any{"placement.toleration": []any{obj("key", "k", "operator", "In", "value", "v")}})},
	"fleets.json:Placement.V1.Toleration.effect:enum": {badAt(rMNS, "placement.toleration[0].effect",
		map[string]any{"placement.toleration": []any{obj("key", "k", "operator", "Exists", "effect", "NoExecute")}})},
	"fleets.json:Meta.V1.LabelSelectorRequirement.key:required":      {req(rMNS, "placement.required_cluster_selector[0].label_expression[0].key")},
	"fleets.json:Meta.V1.LabelSelectorRequirement.operator:required": {req(rMNS, "placement.required_cluster_selector[0].label_expression[0].operator")},
	"fleets.json:Meta.V1.LabelSelectorRequirement.operator:enum": {badAt(rMNS, "placement.required_cluster_selector[0].label_expression[0].operator",
		map[string]any{"placement.required_cluster_selector[0].label_expression": []any{obj("key", "tier", "operator", "Matches", "values", []any{"gold"})}})},
	"fleets.json:Placement.V1.PropertySelectorRequirement.name:required":     {req(rMNS, "placement.required_cluster_selector[0].property_expression[0].name")},
	"fleets.json:Placement.V1.PropertySelectorRequirement.operator:required": {req(rMNS, "placement.required_cluster_selector[0].property_expression[0].operator")},
	"fleets.json:Placement.V1.PropertySelectorRequirement.values:required":   {req(rMNS, "placement.required_cluster_selector[0].property_expression[0].values")},
	"fleets.json:Placement.V1.PropertySelectorRequirement.operator:enum": {badAt(rMNS, "placement.required_cluster_selector[0].property_expression[0].operator",
		map[string]any{"placement.required_cluster_selector[0].property_expression": []any{obj("name", "kubernetes-fleet.io/node-count", "operator", "Gte", "values", []any{"3"})}})},

	// ---- Fleet API, fleets-2026-11-01-preview.json: only what differs from fleets.json above ----
	// The provider checks these values at validate whatever fleet_api_version says (validate runs
	// unconfigured); under the stable version the plan refuses the arguments (preview_arguments.go).
	pv + "UpdateStage.maxAllowedFailures:pattern": failuresCases("stage[0].max_allowed_failures"),
	pv + "UpdateGroup.maxAllowedFailures:pattern": failuresCases("stage[0].group[1].max_allowed_failures"),
	pv + "MemberSelector.byLabel:required":        {req(rUS, "stage[0].member_selector.by_label"), req(rUR, "stage[0].group[1].member_selector.by_label")},
	pv + "MemberSelector.byLabel:maxLength": {bad(rUS, "stage[0].member_selector.by_label", selectorOfLength(513)),
		bad(rUR, "stage[0].group[1].member_selector.by_label", selectorOfLength(513)),
		good(rUS, "stage[0].group[0].member_selector.by_label", selectorOfLength(512)), good(rUR, "stage[0].member_selector.by_label", selectorOfLength(512))},
	pv + "GateConfiguration.type:enum": {
		badAt(rUS, "stage[0].before_gate[0].type", map[string]any{"stage[0].before_gate": []any{obj("type", "Scheduled")}}),
		badAt(rUR, "stage[0].group[0].before_gate[0].type", map[string]any{"stage[0].group[0].before_gate": []any{obj("type", "scheduledstart")}}),
		// the value only the preview has: valid at validate (the plan refuses it under the stable version)
		{resource: rUS, set: map[string]any{"stage[0].before_gate": []any{obj("type", "ScheduledStart", "scheduled_start", scheduledStart)}}, accept: true},
		{resource: rUR, set: map[string]any{"stage[0].group[1].before_gate": []any{obj("type", "ScheduledStart", "scheduled_start", scheduledStart)}}, accept: true},
	},
	pv + "ScheduledStartConfiguration.startDay:required":  {req(rUS, "stage[0].before_gate[0].scheduled_start.start_day")},
	pv + "ScheduledStartConfiguration.startTime:required": {req(rUR, "stage[0].group[0].before_gate[0].scheduled_start.start_time")},
	pv + "ScheduledStartConfiguration.utcOffset:required": {req(rUS, "stage[0].group[1].before_gate[0].scheduled_start.utc_offset")},
	pv + "ScheduledStartConfiguration.startDay:enum": {scheduledStartCase(rUS, "start_day", "monday"), scheduledStartCase(rUR, "start_day", "Mon"),
		scheduledStartAccept(rUS, "start_day", "Sunday")},
	pv + "ScheduledStartConfiguration.startTime:pattern": {scheduledStartCase(rUS, "start_time", "24:00"), scheduledStartCase(rUR, "start_time", "9:00"),
		scheduledStartCase(rUS, "start_time", "18:60"), scheduledStartAccept(rUR, "start_time", "23:59"), scheduledStartAccept(rUS, "start_time", "00:00")},
	pv + "ScheduledStartConfiguration.utcOffset:pattern": {scheduledStartCase(rUS, "utc_offset", "+14:01"), scheduledStartCase(rUR, "utc_offset", "-15:00"),
		scheduledStartCase(rUS, "utc_offset", "05:00"), scheduledStartCase(rUR, "utc_offset", "+05:60"),
		scheduledStartAccept(rUS, "utc_offset", "+14:00"), scheduledStartAccept(rUR, "utc_offset", "-14:00")},
	// SecurityPatch, the value only the preview has: valid at validate (the plan refuses it under the stable version).
	pv + "AutoUpgradeProfileProperties.channel:enum": {bad(rAUP, "channel", "Security"), good(rAUP, "channel", "SecurityPatch")},

	// ---- KubeFleet v0.18.9, ClusterResourcePlacement (the CRD's storage version) ----
	"crp:spec.resourceSelectors:required": {req(rPl, "resource_selector")},
	"crp:spec.resourceSelectors:minItems": {bad(rPl, "resource_selector", []any{})},
	"crp:spec.resourceSelectors:maxItems": {bad(rPl, "resource_selector", many(101, func(i int) any {
		return obj("group", "", "version", "v1", "kind", "Namespace", "name", fmt.Sprintf("ns-%d", i))
	}))},
	"crp:spec.resourceSelectors[].kind:required":    {req(rPl, "resource_selector[0].kind")},
	"crp:spec.resourceSelectors[].version:required": {req(rPl, "resource_selector[0].version")},
	"crp:spec.resourceSelectors[].labelSelector.matchExpressions[].key:required": {
		req(rPl, "resource_selector[0].label_selector.match_expression[0].key")},
	"crp:spec.resourceSelectors[].labelSelector.matchExpressions[].operator:required": {
		req(rPl, "resource_selector[0].label_selector.match_expression[0].operator")},
	"crp:spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[].weight:required": {
		req(rPl, "policy.preferred_cluster_selector[0].weight")},
	"crp:spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[].weight:minimum": {
		badAt(rPl, "policy.preferred_cluster_selector[1].weight", map[string]any{"policy": pickN(
			obj("weight", 10, "labels", obj("env", "prod")), obj("weight", -101, "labels", obj("env", "test")))})},
	"crp:spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[].weight:maximum": {
		badAt(rPl, "policy.preferred_cluster_selector[0].weight", map[string]any{"policy": pickN(obj("weight", 101, "labels", obj("env", "prod")))})},
	"crp:spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference.labelSelector.matchExpressions[].key:required": {
		req(rPl, "policy.preferred_cluster_selector[0].label_expression[0].key")},
	"crp:spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference.labelSelector.matchExpressions[].operator:required": {
		req(rPl, "policy.preferred_cluster_selector[0].label_expression[0].operator")},
	"crp:spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference.propertySorter.name:required": {
		req(rPl, "policy.preferred_cluster_selector[0].property_sorter.name")},
	"crp:spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference.propertySorter.sortOrder:required": {
		req(rPl, "policy.preferred_cluster_selector[0].property_sorter.sort_order")},
	"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms:maxItems": {
		badAt(rPl, "policy.required_cluster_selector", map[string]any{"policy": pickAllRequired(many(11, func(i int) any {
			return obj("labels", obj("env", fmt.Sprint(i)))
		})...)})},
	"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[].labelSelector.matchExpressions[].key:required": {
		req(rPl, "policy.required_cluster_selector[0].label_expression[0].key")},
	"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[].labelSelector.matchExpressions[].operator:required": {
		req(rPl, "policy.required_cluster_selector[0].label_expression[0].operator")},
	"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[].propertySelector.matchExpressions[].name:required": {
		req(rPl, "policy.required_cluster_selector[0].property_expression[0].name")},
	"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[].propertySelector.matchExpressions[].operator:required": {
		req(rPl, "policy.required_cluster_selector[0].property_expression[0].operator")},
	"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[].propertySelector.matchExpressions[].values:required": {
		req(rPl, "policy.required_cluster_selector[0].property_expression[0].values")},
	"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[].propertySelector.matchExpressions[].values:maxItems": {
		badAt(rPl, "policy.required_cluster_selector[0].property_expression[0].values", map[string]any{"policy": pickAllRequired(
			obj("property_expression", []any{obj("name", "kubernetes-fleet.io/node-count", "operator", "Ge", "values", []any{"1", "2"})}))})},
	"crp:spec.policy.clusterNames:maxItems": {badAt(rPl, "policy.cluster_names", map[string]any{"policy": obj("placement_type", "PickFixed",
		"cluster_names", many(101, func(i int) any { return fmt.Sprintf("c%d", i) }))})},
	"crp:spec.policy.numberOfClusters:minimum": {badAt(rPl, "policy.number_of_clusters", map[string]any{"policy": obj("placement_type", "PickN", "number_of_clusters", -1)})},
	"crp:spec.policy.placementType:enum":       {bad(rPl, "policy.placement_type", "PickSome")},
	"crp:spec.policy.tolerations:maxItems": {bad(rPl, "policy.toleration", many(101, func(i int) any {
		return obj("key", fmt.Sprintf("k%d", i), "operator", "Exists")
	}))},
	"crp:spec.policy.tolerations[].effect:enum":                        {badAt(rPl, "policy.toleration[0].effect", map[string]any{"policy.toleration": []any{obj("key", "k", "operator", "Exists", "effect", "NoExecute")}})},
	"crp:spec.policy.tolerations[].operator:enum":                      {badAt(rPl, "policy.toleration[0].operator", map[string]any{"policy.toleration": []any{obj("key", "k", "operator", "In", "value", "v")}})},
	"crp:spec.policy.topologySpreadConstraints[].topologyKey:required": {req(rPl, "policy.topology_spread_constraint[0].topology_key")},
	"crp:spec.policy.topologySpreadConstraints[].maxSkew:minimum": {badAt(rPl, "policy.topology_spread_constraint[0].max_skew", map[string]any{
		"policy": obj("placement_type", "PickN", "number_of_clusters", 2, "topology_spread_constraint", []any{obj("topology_key", "region", "max_skew", 0)})})},
	"crp:spec.revisionHistoryLimit:minimum":                  {bad(rPl, "revision_history_limit", 0)},
	"crp:spec.revisionHistoryLimit:maximum":                  {bad(rPl, "revision_history_limit", 1001)},
	"crp:spec.strategy.rollingUpdate.maxSurge:pattern":       {bad(rPl, "strategy.max_surge", "-5%"), bad(rPl, "strategy.max_surge", "101%")},
	"crp:spec.strategy.rollingUpdate.maxUnavailable:pattern": {bad(rPl, "strategy.max_unavailable", "-5%"), bad(rPl, "strategy.max_unavailable", "25 %")},
	"crp:spec.strategy.type:enum":                            {bad(rPl, "strategy.type", "Canary")},
	"crp:spec.resourceSelectors[].selectionScope:enum":       {bad(rPl, "resource_selector[0].selection_scope", "Everything")},

	// ---- KubeFleet v0.18.9, ClusterStagedUpdateStrategy v1 ----
	"stagedstrategy:spec.stages:required":         {req(rSS, "stage")},
	"stagedstrategy:spec.stages:maxItems":         {bad(rSS, "stage", many(32, func(i int) any { return obj("name", fmt.Sprintf("s%d", i)) }))},
	"stagedstrategy:spec.stages[].name:required":  {req(rSS, "stage[0].name")},
	"stagedstrategy:spec.stages[].name:pattern":   {bad(rSS, "stage[0].name", "canary-1"), bad(rSS, "stage[0].name", "Canary")},
	"stagedstrategy:spec.stages[].name:maxLength": {bad(rSS, "stage[0].name", strings.Repeat("s", 64))},
	"stagedstrategy:spec.stages[].afterStageTasks:maxItems": {bad(rSS, "stage[0].after_stage_task", []any{
		obj("type", "TimedWait", "wait_time", "1h"), obj("type", "Approval"), obj("type", "Approval")})},
	"stagedstrategy:spec.stages[].afterStageTasks[].type:required":    {req(rSS, "stage[0].after_stage_task[0].type")},
	"stagedstrategy:spec.stages[].afterStageTasks[].type:enum":        {bad(rSS, "stage[0].after_stage_task[0].type", "Sleep")},
	"stagedstrategy:spec.stages[].afterStageTasks[].waitTime:pattern": {bad(rSS, "stage[0].after_stage_task[0].wait_time", "soon")},
	"stagedstrategy:spec.stages[].afterStageTasks:cel[0]": {badAt(rSS, "stage[0].after_stage_task[0].wait_time", map[string]any{
		"stage[0].after_stage_task": []any{obj("type", "Approval", "wait_time", "1m")}})},
	"stagedstrategy:spec.stages[].afterStageTasks:cel[1]": {badAt(rSS, "stage[0].after_stage_task[0].wait_time", map[string]any{
		"stage[0].after_stage_task": []any{obj("type", "TimedWait")}})},
	"stagedstrategy:spec.stages[].beforeStageTasks:maxItems":        {bad(rSS, "stage[0].before_stage_task", []any{obj("type", "Approval"), obj("type", "Approval")})},
	"stagedstrategy:spec.stages[].beforeStageTasks:cel[1]":          {bad(rSS, "stage[0].before_stage_task[0].type", "TimedWait")},
	"stagedstrategy:spec.stages[].beforeStageTasks[].type:required": {req(rSS, "stage[0].before_stage_task[0].type")},
	"stagedstrategy:spec.stages[].beforeStageTasks[].type:enum":     {bad(rSS, "stage[0].before_stage_task[0].type", "Sleep")},
	"fleets.json:UpdateStage.maxConcurrency:pattern": {bad(rUS, "stage[0].max_concurrency", "0"), bad(rUS, "stage[0].max_concurrency", "0%"),
		bad(rUS, "stage[0].max_concurrency", "101%"), bad(rUR, "stage[0].max_concurrency", "many"), good(rUS, "stage[0].max_concurrency", "100%"), good(rUR, "stage[0].max_concurrency", "1")},
	"fleets.json:UpdateGroup.maxConcurrency:pattern": {bad(rUS, "stage[0].group[0].max_concurrency", "0"), bad(rUR, "stage[0].group[0].max_concurrency", "-5%"),
		good(rUS, "stage[0].group[0].max_concurrency", "25%")},
	"stagedstrategy:spec.stages[].maxConcurrency:pattern": {bad(rSS, "stage[0].max_concurrency", "0%"), bad(rSS, "stage[0].max_concurrency", "101%"),
		bad(rSS, "stage[0].max_concurrency", "half"), bad(rSS, "stage[0].max_concurrency", "-1")},
	"stagedstrategy:spec.stages[].maxConcurrency:cel[0]":                         {bad(rSS, "stage[0].max_concurrency", "0")},
	"stagedstrategy:spec.stages[].labelSelector.matchExpressions[].key:required": {req(rSS, "stage[0].label_selector.match_expression[0].key")},
	"stagedstrategy:spec.stages[].labelSelector.matchExpressions[].operator:required": {
		req(rSS, "stage[0].label_selector.match_expression[0].operator")},

	// ---- KubeFleet v0.18.9, ClusterStagedUpdateRun v1 ----
	"stagedrun:spec.placementName:required":             {req(rSR, "placement_name")},
	"stagedrun:spec.stagedRolloutStrategyName:required": {req(rSR, "staged_update_strategy_name")},
	"stagedrun:spec.placementName:maxLength":            {bad(rSR, "placement_name", strings.Repeat("p", 256))},
	"stagedrun:spec.state:enum":                         {bad(rSR, "state", "Pause")},

	// ---- Karpenter v1.14.1, NodePool v1: the fields fleet_nodepool_disruption sets ----
	// ---- KubeFleet v0.18.9 ClusterResourcePlacementDisruptionBudget and MemberCluster taints ----
	"crpdb:spec:cel[0]": {badAt(rPDB, "min_available", map[string]any{"max_unavailable": "1"})},
	"crpdb:spec.maxUnavailable:cel[0]": {
		badAt(rPDB, "max_unavailable", map[string]any{"min_available": nil, "max_unavailable": "101%"}),
		badAt(rPDB, "max_unavailable", map[string]any{"min_available": nil, "max_unavailable": "-1"}),
		{resource: rPDB, set: map[string]any{"min_available": nil, "max_unavailable": "100%"}, accept: true},
	},
	"crpdb:spec.minAvailable:cel[0]":              {bad(rPDB, "min_available", "150%"), bad(rPDB, "min_available", "1.5"), good(rPDB, "min_available", "0%")},
	"membercluster:spec.taints:maxItems":          {bad(rMCT, "taint", many(101, func(i int) any { return obj("key", fmt.Sprintf("k%d", i), "effect", "NoSchedule") }))},
	"membercluster:spec.taints[].effect:required": {req(rMCT, "taint[0].effect")},
	"membercluster:spec.taints[].key:required":    {req(rMCT, "taint[0].key")},
	"membercluster:spec.taints[].effect:enum":     {bad(rMCT, "taint[0].effect", "NoExecute")},
	"nodepool:spec.disruption.budgets:maxItems":   {bad(rNP, "budget", many(51, func(int) any { return obj("nodes", "1") }))},
	"nodepool:spec.disruption.budgets:cel[0]": {
		// the element whose schedule and duration disagree
		badAt(rNP, "budget[0]", map[string]any{"budget[0].duration": "1h"}),
		badAt(rNP, "budget[0]", map[string]any{"budget[0].schedule": "0 9 * * *"}),
	},
	"nodepool:spec.disruption.budgets[].nodes:required":          {req(rNP, "budget[0].nodes")},
	"nodepool:spec.disruption.budgets[].nodes:pattern":           {bad(rNP, "budget[0].nodes", "-5%"), bad(rNP, "budget[0].nodes", "150%")},
	"nodepool:spec.disruption.budgets[].duration:pattern":        {badAt(rNP, "budget[0].duration", map[string]any{"budget[0]": obj("nodes", "1", "schedule", "@daily", "duration", "1d")})},
	"nodepool:spec.disruption.budgets[].schedule:pattern":        {badAt(rNP, "budget[0].schedule", map[string]any{"budget[0]": obj("nodes", "1", "schedule", "daily", "duration", "1h")})},
	"nodepool:spec.disruption.budgets[].reasons:maxItems":        {bad(rNP, "budget[0].reasons", many(51, func(int) any { return "Empty" }))},
	"nodepool:spec.disruption.budgets[].reasons[]:enum":          {bad(rNP, "budget[0].reasons", []any{"Expired"})},
	"nodepool:spec.disruption.consolidateAfter:pattern":          {bad(rNP, "consolidate_after", "5 minutes"), bad(rNP, "consolidate_after", "1d")},
	"nodepool:spec.disruption.consolidationPolicy:enum":          {bad(rNP, "consolidation_policy", "Sometimes")},
	"nodepool:spec.template.spec.expireAfter:pattern":            {bad(rNP, "expire_after", "30 days")},
	"nodepool:spec.template.spec.terminationGracePeriod:pattern": {bad(rNP, "termination_grace_period", "1d"), bad(rNP, "termination_grace_period", "Never")},
}

func notApplicable(c schemaConstraint) string {
	if c.readOnly {
		return "read-only: the service sets it"
	}
	for _, r := range notApplicableRules {
		if strings.HasPrefix(c.ID, r[0]) {
			return r[1]
		}
	}
	return ""
}

// notApplicableRules: constraint ID prefixes our resources cannot violate, and why.
var notApplicableRules = [][2]string{
	{"membercluster:spec.identity", "fleet_member_cluster_taints manages a MemberCluster's taints only; Fleet Manager creates the MemberCluster with its identity"},
	{"membercluster:spec.deleteOptions", "fleet_member_cluster_taints manages a MemberCluster's taints only"},
	{"membercluster:spec.heartbeatPeriodSeconds", "fleet_member_cluster_taints manages a MemberCluster's taints only; the member agent's heartbeat is not set from Terraform"},
	{"fleets.json:AutoUpgradeNodeImageSelection.type:required", "flattened into node_image_selection_type: the provider sends nodeImageSelection only with a type"},
	{"fleets.json:GatePatchProperties.state:enum", "users do not give a gate state: fleet_update_run's approval blocks make the provider set Completed itself"},
	{"fleets.json:SkipProperties.targets:required", "the provider sends a skip request only for targets newly added to skip, never an empty one"},
	{"fleets.json:parameters.gateName:", "gate names are GUIDs the service generates; the provider reads them from the run's status"},
	{"fleets.json:FleetManagedNamespaceProperties.adoptionPolicy:required", "adoption_policy defaults to Never (the spec's \"Default is Never\"): the provider always sends it"},
	{"fleets.json:FleetManagedNamespaceProperties.deletePolicy:required", "delete_policy defaults to Keep (the spec's \"Default is Keep\"): the provider always sends it"},
	{"fleets.json:PropagationPolicy.type:", "fleet_managed_namespace has no propagation type to give: the provider always sends Placement, the only value"},
	{"fleets.json:Placement.V1.ClusterSelector.clusterSelectorTerms:required",
		"the provider sends requiredDuringScheduling only with placement.required_cluster_selector blocks, as clusterSelectorTerms"},
	{"fleets.json:Placement.V1.PropertySelector.matchExpressions:required",
		"the provider sends a propertySelector only with property_expression blocks, as matchExpressions"},
	{pv + "FleetMemberCredentialRequest.maxPageSize:", "the provider never sends maxPageSize: fleetapi's memberCredentials sends memberNames only and follows the continuation tokens"},
	{pv + "parameters.clusterMeshProfileName:", "no resource of the provider manages cluster mesh profiles (preview fleets/clusterMeshProfiles)"},
	{"crp:spec.resourceSelectors[].group:required", "group defaults to \"\" (the core group): the provider always sends it"},
	{"crp:spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference:required",
		"a preferred_cluster_selector block is the term's preference itself: the provider always sends one"},
	{"crp:spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[].preference.propertySelector",
		"preferred_cluster_selector blocks have no property expressions (only property_sorter), as KubeFleet's scheduler ignores them in preferred terms"},
	{"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms:required",
		"the provider sends requiredDuringScheduling only with required_cluster_selector blocks, as clusterSelectorTerms"},
	{"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[].propertySelector.matchExpressions:required",
		"the provider sends a propertySelector only with property_expression blocks, as matchExpressions"},
	{"crp:spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[].propertySorter",
		"required_cluster_selector blocks have no property_sorter: a sorter only ranks, so it belongs to preferred terms"},
	{"crp:spec.strategy.applyStrategy.", "apply strategies are not exposed: KubeFleet's defaults apply"},
	{"crp:spec.strategy.deleteStrategy.", "delete strategies are not exposed: KubeFleet's default applies"},
	{"crp:spec.strategy.reportBackStrategy", "report-back strategies are not exposed: KubeFleet's default (Disabled) applies"},
	{"crp:spec.statusReportingScope:", "status_reporting_scope is not an attribute of fleet_placement: the default ClusterScopeOnly applies"},
	{"crp:spec:cel[1]", "NamespaceAccessible needs statusReportingScope, which is not an attribute of fleet_placement (ClusterScopeOnly applies)"},
	{"crp:spec:cel[2]", "statusReportingScope is immutable once set: it is not an attribute of fleet_placement, so it is never set"},
	{"crp:spec:cel[3]", "NamespaceWithResourceSelectors is never sent: selection_scope accepts NamespaceWithResources and NamespaceOnly only"},
	{"crp:spec:cel[4]", "NamespaceWithResourceSelectors is never sent: selection_scope accepts NamespaceWithResources and NamespaceOnly only"},
	{"crp:spec:cel[5]", "NamespaceWithResourceSelectors is never sent: selection_scope accepts NamespaceWithResources and NamespaceOnly only"},
	{"crp:spec:cel[0]", "a transition rule (policy cannot be removed once set), so not a validate-time check: ModifyPlan refuses removing the policy " +
		"(checkPlacementImmutable on scheduling.ImmutableChanges; TestImmutableChanges, TestAccPlacementInvalidInputs/immutable_fields)"},
	{"crp:spec.policy:cel[0]", "a transition rule (placement type is immutable), so not a validate-time check: ModifyPlan refuses the change " +
		"(checkPlacementImmutable; TestImmutableChanges, TestAccPlacementInvalidInputs/immutable_fields)"},
	{"crp:spec.strategy.type:cel[0]", "a transition rule (no change from External), so not a validate-time check: ModifyPlan refuses the change " +
		"(checkStrategyImmutable; TestAccPlacementInvalidInputs/strategy_type_from_External)"},
	{"stagedrun:spec:cel[", "state transitions (not Initialize → Stop, Run → Initialize, Stop → Initialize) need the prior state: fleet_staged_update_run checks them at plan, with the attribute path state (TestAccStagedUpdateRunStatesAndBatches)"},
	{"stagedrun:spec.placementName:cel[0]", "self == oldSelf: placement_name forces replacement of fleet_staged_update_run"},
	{"stagedrun:spec.resourceSnapshotIndex:cel[0]", "self == oldSelf: a configured resource_snapshot_index forces replacement of fleet_staged_update_run"},
	{"stagedrun:spec.stagedRolloutStrategyName:cel[0]", "self == oldSelf: staged_update_strategy_name forces replacement of fleet_staged_update_run"},
	{"stagedstrategy:spec.stages[].beforeStageTasks:cel[0]", "before_stage_task blocks have no wait_time attribute: an Approval task cannot carry one"},
	{"stagedstrategy:spec.stages[].beforeStageTasks[].waitTime:", "before_stage_task blocks have no wait_time attribute (only Approval tasks, which take none)"},
	{"nodepool:spec:", "replicas, limits and weight are not attributes of fleet_nodepool_disruption, which patches an existing NodePool's disruption fields"},
	{"nodepool:spec.template:required", "the NodePool exists (its template with it): fleet_nodepool_disruption patches its disruption fields only"},
	{"nodepool:spec.limits", "limits are not an attribute of fleet_nodepool_disruption"},
	{"nodepool:spec.replicas", "replicas is not an attribute of fleet_nodepool_disruption"},
	{"nodepool:spec.weight", "weight is not an attribute of fleet_nodepool_disruption"},
	{"nodepool:spec.template.spec:required", "the NodePool exists (its template with it): fleet_nodepool_disruption patches its disruption fields only"},
	{"nodepool:spec.template.metadata.labels", "template labels are not an attribute of fleet_nodepool_disruption (do_not_disrupt sets an annotation)"},
	{"nodepool:spec.template.spec.nodeClassRef", "nodeClassRef is not an attribute of fleet_nodepool_disruption"},
	{"nodepool:spec.template.spec.requirements", "requirements are not an attribute of fleet_nodepool_disruption"},
	{"nodepool:spec.template.spec.taints", "taints are not an attribute of fleet_nodepool_disruption"},
	{"nodepool:spec.template.spec.startupTaints", "startup taints are not an attribute of fleet_nodepool_disruption"},
	{"nodepool:spec.disruption.consolidateAfter:required",
		"the NodePool's disruption block already holds consolidateAfter (the CRD defaults it); a null consolidate_after leaves the server's value"},
}
