package typoacc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	clusterv1beta1 "go.goms.io/fleet/apis/cluster/v1beta1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// Upstream shapes: the keys a user copies from KubeFleet's YAML, Karpenter's NodePool or the Fleet
// API's JSON, in snake_case, for each block of ours that maps one of their objects. Where our
// name differs (resourceSelectors → resource_selector, rollingUpdate flattened into strategy,
// clusterSelectorTerms → term), the upstream key must fail validate by name.

// upstreamKey is one field of an upstream object.
type upstreamKey struct {
	name   string // snake_case
	object bool   // an object or a list of objects: written as a block
	source string
}

// kubeShapes: block path (kind/type/path; "" is the body) → the Go types it maps.
var kubeShapes = map[string][]any{
	"placement:":                                                     {placementv1.PlacementSpec{}},
	"placement:resource_selector":                                    {placementv1.ResourceSelectorTerm{}},
	"placement:resource_selector.label_selector":                     {metav1.LabelSelector{}},
	"placement:resource_selector.label_selector.match_expression":    {metav1.LabelSelectorRequirement{}},
	"placement:policy":                                               {placementv1.PlacementPolicy{}},
	"placement:policy.required_cluster_selector":                     {placementv1.ClusterSelectorTerm{}, metav1.LabelSelector{}},
	"placement:policy.required_cluster_selector.label_expression":    {metav1.LabelSelectorRequirement{}},
	"placement:policy.required_cluster_selector.property_expression": {placementv1.PropertySelectorRequirement{}},
	"placement:policy.preferred_cluster_selector":                    {placementv1.PreferredClusterSelector{}, metav1.LabelSelector{}},
	"placement:policy.preferred_cluster_selector.label_expression":   {metav1.LabelSelectorRequirement{}},
	"placement:policy.preferred_cluster_selector.property_sorter":    {placementv1.PropertySorter{}},
	"placement:policy.topology_spread_constraint":                    {placementv1.TopologySpreadConstraint{}},
	"placement:policy.toleration":                                    {placementv1.Toleration{}},
	"placement:strategy":                                             {placementv1.RolloutStrategy{}, placementv1.RollingUpdateConfig{}},
	"placement:apply_strategy":                                       {placementv1.ApplyStrategy{}},
	"placement:apply_strategy.server_side_apply_config":              {placementv1.ServerSideApplyConfig{}},
	"cro:":                                {placementv1.ClusterResourceOverrideSpec{}},
	"ro:":                                 {placementv1.ResourceOverrideSpec{}},
	"override:placement":                  {placementv1.PlacementRef{}},
	"cro:resource_selector":               {placementv1.ResourceSelectorTerm{}},
	"ro:resource_selector":                {placementv1.ResourceSelector{}},
	"override:rule":                       {placementv1.OverrideRule{}},
	"override:rule.cluster_selector":      {placementv1.ClusterSelector{}},
	"override:rule.cluster_selector.term": {placementv1.ClusterSelectorTerm{}, metav1.LabelSelector{}},
	"override:rule.cluster_selector.term.expression":                              {metav1.LabelSelectorRequirement{}},
	"override:rule.cluster_selector.term.property":                                {placementv1.PropertySelectorRequirement{}},
	"override:rule.json_patch":                                                    {placementv1.JSONPatchOverride{}},
	"resource/fleet_staged_update_strategy:":                                      {placementv1.UpdateStrategySpec{}},
	"resource/fleet_staged_update_strategy:stage":                                 {placementv1.StageConfig{}},
	"resource/fleet_staged_update_strategy:stage.after_stage_task":                {placementv1.StageTask{}},
	"resource/fleet_staged_update_strategy:stage.before_stage_task":               {placementv1.StageTask{}},
	"resource/fleet_staged_update_strategy:stage.label_selector":                  {metav1.LabelSelector{}},
	"resource/fleet_staged_update_strategy:stage.label_selector.match_expression": {metav1.LabelSelectorRequirement{}},
	"resource/fleet_staged_update_run:":                                           {placementv1.UpdateRunSpec{}},
	"resource/fleet_member_cluster_taints:taint":                                  {clusterv1beta1.Taint{}},
	"resource/fleet_nodepool_disruption:":                                         {karpv1.Disruption{}},
	"resource/fleet_nodepool_disruption:budget":                                   {karpv1.Budget{}},
}

// kubeGroups: which block paths of which types a kubeShapes group prefix stands for.
var kubeGroups = map[string][]string{
	"placement": {"resource/fleet_placement", "resource/fleet_resource_placement", "data/fleet_placement_preview"},
	"cro":       {"resource/fleet_cluster_resource_override"},
	"ro":        {"resource/fleet_resource_override"},
	"override":  {"resource/fleet_cluster_resource_override", "resource/fleet_resource_override"},
}

// apiShapes: block path → the definitions of the Fleet API's fleets.json (2026-06-01) it maps.
var apiShapes = map[string][]string{
	"resource/fleet_update_strategy:":                                                          {"FleetUpdateStrategyProperties", "UpdateRunStrategy"},
	"resource/fleet_update_run:":                                                               {"UpdateRunProperties", "UpdateRunStrategy"},
	"strategy:stage":                                                                           {"UpdateStage"},
	"strategy:stage.group":                                                                     {"UpdateGroup"},
	"strategy:stage.before_gate":                                                               {"GateConfiguration"},
	"strategy:stage.after_gate":                                                                {"GateConfiguration"},
	"strategy:stage.group.before_gate":                                                         {"GateConfiguration"},
	"strategy:stage.group.after_gate":                                                          {"GateConfiguration"},
	"resource/fleet_update_run:managed_cluster_update":                                         {"ManagedClusterUpdate"},
	"resource/fleet_update_run:managed_cluster_update.upgrade":                                 {"ManagedClusterUpgradeSpec"},
	"resource/fleet_update_run:managed_cluster_update.node_image_selection":                    {"NodeImageSelection"},
	"resource/fleet_auto_upgrade_profile:":                                                     {"AutoUpgradeProfileProperties"},
	"resource/fleet_member:":                                                                   {"FleetMemberProperties"},
	"action/fleet_update_run_skip:":                                                            {"SkipProperties"},
	"action/fleet_update_run_skip:target":                                                      {"SkipTarget"},
	"resource/fleet_managed_namespace:":                                                        {"FleetManagedNamespaceProperties", "ManagedNamespaceProperties"},
	"resource/fleet_managed_namespace:resource_quota":                                          {"ResourceQuota"},
	"resource/fleet_managed_namespace:network_policy":                                          {"NetworkPolicy"},
	"resource/fleet_managed_namespace:placement":                                               {"Placement.V1.PlacementPolicy"},
	"resource/fleet_managed_namespace:placement.required_cluster_selector":                     {"Placement.V1.ClusterSelectorTerm", "Meta.V1.LabelSelector"},
	"resource/fleet_managed_namespace:placement.required_cluster_selector.label_expression":    {"Meta.V1.LabelSelectorRequirement"},
	"resource/fleet_managed_namespace:placement.required_cluster_selector.property_expression": {"Placement.V1.PropertySelectorRequirement"},
	"resource/fleet_managed_namespace:placement.toleration":                                    {"Placement.V1.Toleration"},
}

var apiGroups = map[string][]string{"strategy": {"resource/fleet_update_strategy", "resource/fleet_update_run"}}

// upstreamKeys returns, per "kind/type:path", the upstream keys of the objects mapped there.
func upstreamKeys(t *testing.T) map[string][]upstreamKey {
	t.Helper()
	out := map[string][]upstreamKey{}
	expand := func(key string, groups map[string][]string) []string {
		group, p, _ := strings.Cut(key, ":")
		if types, ok := groups[group]; ok {
			var keys []string
			for _, typ := range types {
				keys = append(keys, typ+":"+p)
			}
			return keys
		}
		return []string{key}
	}
	for key, objs := range kubeShapes {
		for _, o := range objs {
			rt := reflect.TypeOf(o)
			src := rt.PkgPath() + "." + rt.Name()
			for _, f := range jsonFields(rt) {
				for _, k := range expand(key, kubeGroups) {
					out[k] = append(out[k], upstreamKey{name: snake(f.name), object: f.object, source: src})
				}
			}
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "engine", "fleetapi", "openapi", "fleets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Definitions map[string]struct {
			Properties map[string]struct {
				ReadOnly bool           `json:"readOnly"`
				Ref      string         `json:"$ref"`
				Items    map[string]any `json:"items"`
			} `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for key, defs := range apiShapes {
		for _, def := range defs {
			d, ok := doc.Definitions[def]
			if !ok {
				t.Fatalf("fleets.json has no definition %s", def)
			}
			for name, p := range d.Properties {
				if p.ReadOnly || name == "status" || name == "autoUpgradeProfileStatus" {
					continue // the service's, never written
				}
				_, itemRef := p.Items["$ref"]
				for _, k := range expand(key, apiGroups) {
					out[k] = append(out[k], upstreamKey{name: snake(name), object: p.Ref != "" || itemRef, source: "fleets.json#/definitions/" + def})
				}
			}
		}
	}
	for k := range out {
		sort.Slice(out[k], func(i, j int) bool { return out[k][i].name < out[k][j].name })
	}
	return out
}

type jsonField struct {
	name   string
	object bool
}

// jsonFields are rt's JSON fields, inlined structs flattened, status and metadata left out.
func jsonFields(rt reflect.Type) []jsonField {
	var out []jsonField
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		tag := strings.Split(f.Tag.Get("json"), ",")
		if tag[0] == "-" || !f.IsExported() {
			continue
		}
		if len(tag) > 1 && tag[1] == "inline" || f.Anonymous && tag[0] == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		object := ft.Kind() == reflect.Struct && ft.PkgPath() != "k8s.io/apimachinery/pkg/apis/meta/v1" && ft.Name() != "IntOrString" && ft.Name() != "Quantity"
		if ft.Name() == "LabelSelector" {
			object = true
		}
		out = append(out, jsonField{name: tag[0], object: object})
	}
	return out
}

// snake is a camelCase JSON name in snake_case: rollingUpdate → rolling_update.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && !(s[i-1] >= 'A' && s[i-1] <= 'Z') {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
