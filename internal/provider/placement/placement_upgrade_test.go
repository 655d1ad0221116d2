package placement_test

import (
	"context"
	"encoding/json"
	"math/big"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	fleetprovider "github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// upgradeBlocksV0 runs UpgradeResourceState on a version-0 state of typeName and returns the
// upgraded state as JSON values (after the framework decoded it with the new schema and encoded it
// again, as Terraform gets it).
func upgradeBlocksV0(t *testing.T, typeName, v0 string) map[string]any {
	t.Helper()
	ctx := context.Background()
	srv, err := fleetprovider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(v0)) {
		t.Fatalf("the v0 state is not JSON: %s", v0)
	}
	resp, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(v0)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 0 || resp.UpgradedState == nil {
		t.Fatalf("diagnostics %s", diagsText(resp.Diagnostics))
	}
	schemaResp, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s := schemaResp.ResourceSchemas[typeName]
	if s.Version != 1 {
		t.Errorf("%s: schema version = %d, want 1", typeName, s.Version)
	}
	v, err := resp.UpgradedState.Unmarshal(s.ValueType())
	if err != nil {
		t.Fatal(err)
	}
	out, _ := goValue(t, v).(map[string]any)
	return out
}

// goValue is v as encoding/json decodes the JSON of it.
func goValue(t *testing.T, v tftypes.Value) any {
	t.Helper()
	if v.IsNull() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.Object{}), v.Type().Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			t.Fatal(err)
		}
		out := map[string]any{}
		for k, e := range m {
			out[k] = goValue(t, e)
		}
		return out
	case v.Type().Is(tftypes.List{}), v.Type().Is(tftypes.Set{}):
		var l []tftypes.Value
		if err := v.As(&l); err != nil {
			t.Fatal(err)
		}
		out := []any{}
		for _, e := range l {
			out = append(out, goValue(t, e))
		}
		return out
	case v.Type().Is(tftypes.Number):
		var f big.Float
		if err := v.As(&f); err != nil {
			t.Fatal(err)
		}
		n, _ := f.Float64()
		return n
	case v.Type().Is(tftypes.Bool):
		var b bool
		if err := v.As(&b); err != nil {
			t.Fatal(err)
		}
		return b
	default:
		var s string
		if err := v.As(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// at walks a decoded JSON value by object keys and list indexes.
func at(t *testing.T, v any, steps ...any) any {
	t.Helper()
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %q", v, k)
			}
			if _, ok := m[k]; !ok {
				t.Fatalf("no %q in %v", k, upgradeKeys(m))
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no element %d", v, k)
			}
			v = l[k]
		}
	}
	return v
}

func expectJSON(t *testing.T, state map[string]any, want any, steps ...any) {
	t.Helper()
	if got := at(t, state, steps...); !reflect.DeepEqual(got, want) {
		t.Errorf("%v = %#v, want %#v", steps, got, want)
	}
}

// A fleet_placement as version 0 stored it: every nested argument a nested attribute, and
// strategy and apply_strategy as the old schema's defaults filled them in.
const placementStateV0 = `{
  "id": "web", "name": "web",
  "resource_selectors": [
    {"group": "", "version": "v1", "kind": "Namespace", "name": "web", "label_selector": null, "selection_scope": "NamespaceWithResources"},
    {"group": "", "version": "v1", "kind": "Namespace", "name": null, "selection_scope": "NamespaceOnly",
     "label_selector": {"match_labels": {"app": "web"}, "match_expressions": [{"key": "tier", "operator": "In", "values": ["gold"]}]}}
  ],
  "policy": {
    "placement_type": "PickN", "cluster_names": null, "number_of_clusters": 2,
    "required_cluster_selectors": [{"labels": {"env": "prod"},
      "label_expressions": [{"key": "tier", "operator": "Exists", "values": null}],
      "property_expressions": [{"name": "kubernetes-fleet.io/node-count", "operator": "Ge", "values": ["3"]}]}],
    "preferred_cluster_selectors": [{"weight": 50, "labels": null, "label_expressions": null,
      "property_sorter": {"name": "kubernetes-fleet.io/node-count", "sort_order": "Descending"}}],
    "topology_spread_constraints": [{"max_skew": 1, "topology_key": "region", "when_unsatisfiable": null}],
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
  },
  "strategy": {"type": "RollingUpdate", "max_unavailable": "25%", "max_surge": "25%", "unavailable_period_seconds": 60},
  "apply_strategy": {"type": "ClientSideApply", "comparison_option": "PartialComparison", "when_to_apply": "Always",
    "when_to_take_over": "Always", "allow_co_ownership": false, "server_side_apply_config": null},
  "revision_history_limit": 10, "wait_for_rollout": false, "timeouts": null, "facts": null,
  "preview": null, "status": null, "latest_resource_snapshot_index": "0",
  "resource_snapshots": [{"index": "0", "created_at": "2026-01-02T03:04:05Z"}]
}`

func TestPlacementStateUpgradeV0(t *testing.T) {
	st := upgradeBlocksV0(t, "fleet_placement", placementStateV0)
	expectJSON(t, st, "NamespaceOnly", "resource_selector", 1, "selection_scope")
	expectJSON(t, st, map[string]any{"app": "web"}, "resource_selector", 1, "label_selector", "match_labels")
	expectJSON(t, st, "tier", "resource_selector", 1, "label_selector", "match_expression", 0, "key")
	expectJSON(t, st, nil, "resource_selector", 0, "label_selector")
	expectJSON(t, st, "Exists", "policy", "required_cluster_selector", 0, "label_expression", 0, "operator")
	expectJSON(t, st, []any{"3"}, "policy", "required_cluster_selector", 0, "property_expression", 0, "values")
	expectJSON(t, st, "Descending", "policy", "preferred_cluster_selector", 0, "property_sorter", "sort_order")
	expectJSON(t, st, []any{}, "policy", "preferred_cluster_selector", 0, "label_expression") // an absent list block
	expectJSON(t, st, "region", "policy", "topology_spread_constraint", 0, "topology_key")
	expectJSON(t, st, "gpu", "policy", "toleration", 0, "value")
	// The defaults the old schema filled in are an omitted block now.
	expectJSON(t, st, nil, "strategy")
	expectJSON(t, st, nil, "apply_strategy")
	expectJSON(t, st, "0", "resource_snapshots", 0, "index")

	// Settings the user wrote stay.
	var v0 map[string]any
	_ = json.Unmarshal([]byte(placementStateV0), &v0)
	v0["strategy"] = map[string]any{"type": "External", "max_unavailable": nil, "max_surge": nil, "unavailable_period_seconds": nil}
	v0["apply_strategy"] = map[string]any{"type": "ServerSideApply", "comparison_option": "PartialComparison", "when_to_apply": "Always",
		"when_to_take_over": "Always", "allow_co_ownership": false, "server_side_apply_config": map[string]any{"force_conflicts": true}}
	v0["policy"] = nil
	raw, _ := json.Marshal(v0)
	st = upgradeBlocksV0(t, "fleet_placement", string(raw))
	expectJSON(t, st, "External", "strategy", "type")
	expectJSON(t, st, true, "apply_strategy", "server_side_apply_config", "force_conflicts")
	expectJSON(t, st, nil, "policy")
	// A strategy that differs from the defaults in one setting stays too.
	v0["strategy"] = map[string]any{"type": "RollingUpdate", "max_unavailable": "25%", "max_surge": "25%", "unavailable_period_seconds": 30}
	raw, _ = json.Marshal(v0)
	st = upgradeBlocksV0(t, "fleet_placement", string(raw))
	expectJSON(t, st, float64(30), "strategy", "unavailable_period_seconds")
}

func TestResourcePlacementStateUpgradeV0(t *testing.T) {
	st := upgradeBlocksV0(t, "fleet_resource_placement", `{
  "id": "app/web", "namespace": "app", "name": "web",
  "resource_selectors": [
    {"group": "apps", "version": "v1", "kind": "Deployment", "name": null,
     "label_selector": {"match_labels": null, "match_expressions": [{"key": "app", "operator": "In", "values": ["web"]}]}}
  ],
  "policy": {"placement_type": "PickAll", "cluster_names": null, "number_of_clusters": null,
    "required_cluster_selectors": null, "preferred_cluster_selectors": null, "topology_spread_constraints": null,
    "tolerations": [{"key": null, "operator": "Exists", "value": null, "effect": null}]},
  "strategy": {"type": "RollingUpdate", "max_unavailable": "25%", "max_surge": "25%", "unavailable_period_seconds": 60},
  "apply_strategy": {"type": "ClientSideApply", "comparison_option": "FullComparison", "when_to_apply": "IfNotDrifted",
    "when_to_take_over": "Always", "allow_co_ownership": false, "server_side_apply_config": null},
  "revision_history_limit": 10, "wait_for_rollout": true,
  "timeouts": {"create": "30m", "update": null, "delete": null}, "facts": null,
  "preview": null, "status": null, "latest_resource_snapshot_index": null, "resource_snapshots": []
}`)
	expectJSON(t, st, "app", "resource_selector", 0, "label_selector", "match_expression", 0, "key")
	expectJSON(t, st, "Exists", "policy", "toleration", 0, "operator")
	expectJSON(t, st, []any{}, "policy", "required_cluster_selector")
	expectJSON(t, st, nil, "strategy")
	expectJSON(t, st, "IfNotDrifted", "apply_strategy", "when_to_apply")
	expectJSON(t, st, "30m", "timeouts", "create")
}

const overrideRulesV0 = `"rules": [
    {"cluster_selector": {"terms": [
       {"labels": {"env": "prod"}, "expressions": [{"key": "region", "operator": "In", "values": ["eastus"]}], "properties": null},
       {"labels": null, "expressions": null, "properties": [{"name": "kubernetes-fleet.io/node-count", "operator": "Gt", "values": ["3"]}]}]},
     "type": null,
     "json_patches": [{"op": "add", "path": "/metadata/labels/cluster", "value": "\"${MEMBER-CLUSTER-NAME}\""}]},
    {"cluster_selector": {"terms": null}, "type": "Delete", "json_patches": null},
    {"cluster_selector": null, "type": "JSONPatch", "json_patches": [{"op": "remove", "path": "/spec/replicas", "value": null}]}
  ]`

func checkOverrideRules(t *testing.T, st map[string]any) {
	t.Helper()
	expectJSON(t, st, "region", "rule", 0, "cluster_selector", "term", 0, "expression", 0, "key")
	expectJSON(t, st, "Gt", "rule", 0, "cluster_selector", "term", 1, "property", 0, "operator")
	expectJSON(t, st, "/metadata/labels/cluster", "rule", 0, "json_patch", 0, "path")
	expectJSON(t, st, []any{}, "rule", 1, "cluster_selector", "term") // every cluster: cluster_selector {}
	expectJSON(t, st, "Delete", "rule", 1, "type")
	expectJSON(t, st, nil, "rule", 2, "cluster_selector")
	expectJSON(t, st, "remove", "rule", 2, "json_patch", 0, "op")
}

func TestClusterResourceOverrideStateUpgradeV0(t *testing.T) {
	st := upgradeBlocksV0(t, "fleet_cluster_resource_override", `{
  "id": "web-labels", "name": "web-labels",
  "placement": {"name": "web", "scope": null},
  "resource_selectors": [{"group": null, "version": "v1", "kind": "Namespace", "name": "web"}],
  `+overrideRulesV0+`,
  "preview": null, "facts": null
}`)
	expectJSON(t, st, "web", "placement", "name")
	expectJSON(t, st, "Namespace", "resource_selector", 0, "kind")
	checkOverrideRules(t, st)
}

func TestResourceOverrideStateUpgradeV0(t *testing.T) {
	st := upgradeBlocksV0(t, "fleet_resource_override", `{
  "id": "app/web-replicas", "namespace": "app", "name": "web-replicas",
  "placement": {"name": "web", "scope": "Namespaced"},
  "resource_selectors": [{"group": "apps", "version": "v1", "kind": "Deployment", "name": "web"}],
  `+overrideRulesV0+`,
  "preview": null, "facts": "abc"
}`)
	expectJSON(t, st, "Namespaced", "placement", "scope")
	expectJSON(t, st, "Deployment", "resource_selector", 0, "kind")
	expectJSON(t, st, "app", "namespace")
	checkOverrideRules(t, st)
}

func diagsText(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+": "+d.Detail)
	}
	return strings.Join(out, "; ")
}

func upgradeKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
