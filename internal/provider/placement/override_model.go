package placement

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/override"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// The override resources' model: decoding of both scopes and the mapping to KubeFleet's types.

func (m *resourceOverrideModel) shared() overrideModel {
	o := m.overrideModel
	o.Namespace = m.Namespace
	return o
}

func resourceOverrideModelOf(m *overrideModel) *resourceOverrideModel {
	return &resourceOverrideModel{Namespace: m.Namespace, overrideModel: *m}
}

// scope decodes and saves the model of either scope.
func (r *overrideResource) scope() scopedModel[overrideModel, resourceOverrideModel] {
	return scopedModel[overrideModel, resourceOverrideModel]{Namespaced: r.namespaced, Shared: (*resourceOverrideModel).shared, Of: resourceOverrideModelOf}
}

// decode reads a configuration or plan holding unknown values (shared.DecodePartial).
func (r *overrideResource) decode(ctx context.Context, cfg tfsdk.Config) (overrideModel, []path.Path, diag.Diagnostics) {
	return r.scope().Decode(ctx, cfg, overrideComputedPaths...)
}

func (r *overrideResource) get(ctx context.Context, from shared.ModelSource, m *overrideModel) diag.Diagnostics {
	return r.scope().Get(ctx, from, m)
}

func (r *overrideResource) set(ctx context.Context, st *tfsdk.State, m *overrideModel) diag.Diagnostics {
	return r.scope().Set(ctx, st, m)
}

func (m *overrideModel) id() string { return hub.Key(m.Namespace.ValueString(), m.Name.ValueString()) }

// placementKey is the placement the override binds to: a ResourcePlacement of the override's
// namespace for scope Namespaced, else a ClusterResourcePlacement.
func (m *overrideModel) placementKey() hub.PlacementKey {
	if m.Placement == nil {
		return hub.PlacementKey{}
	}
	k := hub.PlacementKey{Name: m.Placement.Name.ValueString()}
	if m.Placement.Scope.ValueString() == string(placementv1.NamespaceScoped) {
		k.Namespace = m.Namespace.ValueString()
	}
	return k
}

// hub is the override as KubeFleet's v1 types hold it.
func (m *overrideModel) hub() *hub.Override {
	o := &hub.Override{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString()}
	if m.Placement != nil {
		o.Spec.Placement = &placementv1.PlacementRef{Name: m.Placement.Name.ValueString(), Scope: placementv1.ResourceScope(m.Placement.Scope.ValueString())}
		if o.Spec.Placement.Scope == "" {
			o.Spec.Placement.Scope = placementv1.ClusterScoped // the CRD's default
		}
	}
	for _, s := range m.ResourceSelectors {
		if o.Namespace == "" {
			o.Spec.ClusterResourceSelectors = append(o.Spec.ClusterResourceSelectors, placementv1.ResourceSelectorTerm{
				Group: s.Group.ValueString(), Version: s.Version.ValueString(), Kind: s.Kind.ValueString(), Name: s.Name.ValueString()})
		} else {
			o.ResourceSelectors = append(o.ResourceSelectors, placementv1.ResourceSelector{
				Group: s.Group.ValueString(), Version: s.Version.ValueString(), Kind: s.Kind.ValueString(), Name: s.Name.ValueString()})
		}
	}
	o.Spec.Policy = &placementv1.OverridePolicy{OverrideRules: []placementv1.OverrideRule{}}
	for _, rule := range m.Rules {
		r := placementv1.OverrideRule{OverrideType: placementv1.OverrideType(rule.Type.ValueString())}
		if r.OverrideType == "" {
			r.OverrideType = placementv1.JSONPatchOverrideType // the CRD's default
		}
		if rule.ClusterSelector != nil {
			r.ClusterSelector = &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{}}
			for _, t := range rule.ClusterSelector.Terms {
				r.ClusterSelector.ClusterSelectorTerms = append(r.ClusterSelector.ClusterSelectorTerms, t.api())
			}
		}
		for _, p := range rule.JSONPatches {
			j := placementv1.JSONPatchOverride{Operator: placementv1.JSONPatchOverrideOperator(p.Op.ValueString()), Path: p.Path.ValueString()}
			if v := p.Value.ValueString(); v != "" {
				j.Value = apiextensionsv1.JSON{Raw: []byte(v)}
			}
			r.JSONPatchOverrides = append(r.JSONPatchOverrides, j)
		}
		o.Spec.Policy.OverrideRules = append(o.Spec.Policy.OverrideRules, r)
	}
	return o
}

func (t *overrideTermModel) api() placementv1.ClusterSelectorTerm {
	var term placementv1.ClusterSelectorTerm
	if len(t.Labels) > 0 || len(t.Expressions) > 0 {
		term.LabelSelector = &metav1.LabelSelector{}
		for k, v := range t.Labels {
			if term.LabelSelector.MatchLabels == nil {
				term.LabelSelector.MatchLabels = map[string]string{}
			}
			term.LabelSelector.MatchLabels[k] = v.ValueString()
		}
		for _, e := range t.Expressions {
			term.LabelSelector.MatchExpressions = append(term.LabelSelector.MatchExpressions, metav1.LabelSelectorRequirement{
				Key: e.Key.ValueString(), Operator: metav1.LabelSelectorOperator(e.Operator.ValueString()), Values: stringsOf(e.Values)})
		}
	}
	if len(t.Properties) > 0 {
		term.PropertySelector = &placementv1.PropertySelector{}
		for _, p := range t.Properties {
			term.PropertySelector.MatchExpressions = append(term.PropertySelector.MatchExpressions, placementv1.PropertySelectorRequirement{
				Name: p.Name.ValueString(), Operator: placementv1.PropertySelectorOperator(p.Operator.ValueString()), Values: stringsOf(p.Values)})
		}
	}
	return term
}

func stringsOf(vs []types.String) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.ValueString())
	}
	return out
}

func stringValues(ss []string) []types.String {
	if len(ss) == 0 {
		return nil
	}
	out := make([]types.String, 0, len(ss))
	for _, s := range ss {
		out = append(out, types.StringValue(s))
	}
	return out
}

// engine is the override as internal/engine/override takes it (KubeFleet's v1beta1 types: the same
// JSON as v1), as its first snapshot.
func (m *overrideModel) engine() override.Override {
	o, _ := engineOverride(m.hub(), override.SnapshotName(m.Name.ValueString(), 0))
	return o
}

func engineOverride(o *hub.Override, snapshot string) (override.Override, error) {
	out := override.Override{Namespace: o.Namespace, Name: o.Name, Snapshot: snapshot}
	b, err := json.Marshal(o.Spec)
	if err == nil {
		err = json.Unmarshal(b, &out.Spec)
	}
	if err == nil && o.ResourceSelectors != nil {
		b, _ = json.Marshal(o.ResourceSelectors)
		err = json.Unmarshal(b, &out.ResourceSelectors)
	}
	return out, err
}

// fromHub reads the hub's override into m, keeping m's spelling where the hub holds the same
// (defaults left out, JSON values formatted as configured).
func (m *overrideModel) fromHub(o *hub.Override) {
	prior := *m
	keep := func(p types.String, v, def string) types.String {
		if v == def && (p.IsNull() || p.ValueString() == "") {
			return p
		}
		return types.StringValue(v)
	}
	if o.Spec.Placement != nil {
		var ps types.String
		if prior.Placement != nil {
			ps = prior.Placement.Scope
		} else {
			ps = types.StringNull()
		}
		m.Placement = &overridePlacementRef{Name: types.StringValue(o.Spec.Placement.Name), Scope: keep(ps, string(o.Spec.Placement.Scope), string(placementv1.ClusterScoped))}
	}
	m.ResourceSelectors = nil
	sel := func(i int, g, v, k, n string) {
		pg := types.StringNull()
		if i < len(prior.ResourceSelectors) {
			pg = prior.ResourceSelectors[i].Group
		}
		m.ResourceSelectors = append(m.ResourceSelectors, overrideSelector{Group: keep(pg, g, ""), Version: types.StringValue(v), Kind: types.StringValue(k), Name: types.StringValue(n)})
	}
	for i, s := range o.Spec.ClusterResourceSelectors {
		sel(i, s.Group, s.Version, s.Kind, s.Name)
	}
	for i, s := range o.ResourceSelectors {
		sel(i, s.Group, s.Version, s.Kind, s.Name)
	}
	m.Rules = nil
	if o.Spec.Policy == nil {
		return
	}
	for i, r := range o.Spec.Policy.OverrideRules {
		var pr overrideRuleModel
		if i < len(prior.Rules) {
			pr = prior.Rules[i]
		} else {
			pr.Type = types.StringNull()
		}
		rule := overrideRuleModel{Type: keep(pr.Type, string(r.OverrideType), string(placementv1.JSONPatchOverrideType))}
		if r.ClusterSelector != nil {
			// No terms (every cluster) is `cluster_selector {}`: an empty list block is null.
			rule.ClusterSelector = &overrideClusterSelector{}
			for _, t := range r.ClusterSelector.ClusterSelectorTerms {
				rule.ClusterSelector.Terms = append(rule.ClusterSelector.Terms, termFromAPI(t))
			}
		}
		for j, p := range r.JSONPatchOverrides {
			v := types.StringNull()
			if len(p.Value.Raw) > 0 {
				v = types.StringValue(string(p.Value.Raw))
				if j < len(pr.JSONPatches) && sameJSON(pr.JSONPatches[j].Value.ValueString(), string(p.Value.Raw)) {
					v = pr.JSONPatches[j].Value
				}
			}
			rule.JSONPatches = append(rule.JSONPatches, overridePatchModel{Op: types.StringValue(string(p.Operator)), Path: types.StringValue(p.Path), Value: v})
		}
		m.Rules = append(m.Rules, rule)
	}
}

func termFromAPI(t placementv1.ClusterSelectorTerm) overrideTermModel {
	var out overrideTermModel
	if ls := t.LabelSelector; ls != nil {
		if len(ls.MatchLabels) > 0 {
			out.Labels = map[string]types.String{}
			for k, v := range ls.MatchLabels {
				out.Labels[k] = types.StringValue(v)
			}
		}
		for _, e := range ls.MatchExpressions {
			out.Expressions = append(out.Expressions, overrideRequirement{Key: types.StringValue(e.Key), Operator: types.StringValue(string(e.Operator)), Values: stringValues(e.Values)})
		}
	}
	if ps := t.PropertySelector; ps != nil {
		for _, p := range ps.MatchExpressions {
			out.Properties = append(out.Properties, overridePropertyReq{Name: types.StringValue(p.Name), Operator: types.StringValue(string(p.Operator)), Values: stringValues(p.Values)})
		}
	}
	return out
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// otherOverrides are the latest snapshots of the hub's other overrides of m's kind (in m's
// namespace for a ResourceOverride), as the engine takes them.
func otherOverrides(ctx context.Context, v view.Fleet, m *overrideModel) ([]override.Override, error) {
	snaps, err := v.LatestOverrideSnapshots(ctx, m.Namespace.ValueString())
	if err != nil {
		return nil, err
	}
	var out []override.Override
	for _, s := range snaps {
		if s.Override == m.Name.ValueString() {
			continue
		}
		o, err := engineOverride(&hub.Override{Namespace: s.Namespace, Name: s.Override, Spec: s.Spec, ResourceSelectors: s.ResourceSelectors}, s.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Snapshot < out[j].Snapshot })
	return out, nil
}
