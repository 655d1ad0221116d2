package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// OverrideCase is one generated placement with its overrides: a namespace holding a ConfigMap and a
// Deployment, a ClusterRole, a PickFixed placement of them on Members, and ClusterResourceOverrides
// (of the namespace, which KubeFleet applies to everything in it, and of the ClusterRole) and
// ResourceOverrides (of the ConfigMap and the Deployment).
type OverrideCase struct {
	Name      string // the placement's, the namespace's and the ClusterRole's
	Members   []string
	Labeled   bool // whether the Deployment has labels (an add under /metadata/labels fails otherwise)
	Annotated bool // whether the namespaced objects have annotations
	CROs      []placementv1.ClusterResourceOverride
	ROs       []placementv1.ResourceOverride
}

// OverrideCases draws n cases from seed over the healthy members: every op (add, remove, replace),
// Delete rules, both variables (${MEMBER-CLUSTER-NAME}, ${MEMBER-CLUSTER-LABEL-KEY-<key>}, some
// of keys members lack, one malformed), selectors by labels (match labels and expressions; nil
// selecting no cluster, empty selecting all) and by labels with a property requirement (which
// v0.18.9's validator refuses; the hub agent, with its webhook off here, matches on the labels
// alone), several overrides on one placement, and patches that fail.
func OverrideCases(seed uint64, n int, healthy []string) []OverrideCase {
	rng := rand.New(rand.NewPCG(seed, seed^0x0e))
	out := make([]OverrideCase, 0, n)
	for i := range n {
		c := OverrideCase{Name: fmt.Sprintf("ovc-%03d", i), Labeled: rng.IntN(4) != 0, Annotated: rng.IntN(3) == 0}
		k := 2 + rng.IntN(6)
		for _, j := range rng.Perm(len(healthy))[:k] {
			c.Members = append(c.Members, healthy[j])
		}
		ref := &placementv1.PlacementRef{Name: c.Name}
		targets := rng.Perm(4)[:1+rng.IntN(4)] // which of the four objects get an override
		for _, t := range targets {
			switch t {
			case 0:
				c.CROs = append(c.CROs, placementv1.ClusterResourceOverride{
					ObjectMeta: metav1.ObjectMeta{Name: c.Name + "-ns"},
					Spec: placementv1.ClusterResourceOverrideSpec{Placement: ref,
						ClusterResourceSelectors: []placementv1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: c.Name}},
						Policy:                   randomOverridePolicy(rng, genericOps)},
				})
			case 1:
				c.CROs = append(c.CROs, placementv1.ClusterResourceOverride{
					ObjectMeta: metav1.ObjectMeta{Name: c.Name + "-role"},
					Spec: placementv1.ClusterResourceOverrideSpec{Placement: ref,
						ClusterResourceSelectors: []placementv1.ResourceSelectorTerm{{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: c.Name}},
						Policy:                   randomOverridePolicy(rng, roleOps)},
				})
			case 2:
				c.ROs = append(c.ROs, placementv1.ResourceOverride{
					ObjectMeta: metav1.ObjectMeta{Namespace: c.Name, Name: "cfg"},
					Spec: placementv1.ResourceOverrideSpec{Placement: &placementv1.PlacementRef{Name: c.Name, Scope: placementv1.ClusterScoped},
						ResourceSelectors: []placementv1.ResourceSelector{{Version: "v1", Kind: "ConfigMap", Name: "cfg"}},
						Policy:            randomOverridePolicy(rng, configMapOps)},
				})
			case 3:
				c.ROs = append(c.ROs, placementv1.ResourceOverride{
					ObjectMeta: metav1.ObjectMeta{Namespace: c.Name, Name: "web"},
					Spec: placementv1.ResourceOverrideSpec{Placement: &placementv1.PlacementRef{Name: c.Name, Scope: placementv1.ClusterScoped},
						ResourceSelectors: []placementv1.ResourceSelector{{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web"}},
						Policy:            randomOverridePolicy(rng, deploymentOps)},
				})
			}
		}
		out = append(out, c)
	}
	return out
}

type opChoice struct{ op, path, value string }

var (
	// genericOps work on every object with labels (and, when annotated, annotations).
	genericOps = []opChoice{
		{"add", "/metadata/labels/served-by", `"${MEMBER-CLUSTER-NAME}"`},
		{"add", "/metadata/labels/env", `"${MEMBER-CLUSTER-LABEL-KEY-env}"`},
		{"add", "/metadata/labels/tier", `"t-${MEMBER-CLUSTER-LABEL-KEY-tier}"`}, // tier: absent on some members
		{"replace", "/metadata/labels/app", `"${MEMBER-CLUSTER-LABEL-KEY-team}-${MEMBER-CLUSTER-NAME}"`},
		{"remove", "/metadata/labels/app", ``},
		{"add", "/metadata/annotations/region", `"${MEMBER-CLUSTER-LABEL-KEY-env}"`}, // fails without annotations
		{"add", "/metadata/annotations", `{"owner":"${MEMBER-CLUSTER-NAME}","n":"1"}`},
		{"replace", "/metadata/labels/app", `"${MEMBER-CLUSTER-LABEL-KEY-env"`}, // the closing brace missing
	}
	roleOps = append([]opChoice{
		{"add", "/rules/0/verbs/-", `"watch"`},
		{"replace", "/rules/0/resources", `["configmaps","secrets"]`},
		{"remove", "/rules/1", ``}, // there is one rule: fails
	}, genericOps[:5]...)
	configMapOps = append([]opChoice{
		{"replace", "/data/k", `"v-${MEMBER-CLUSTER-NAME}"`},
		{"add", "/data/new", `"${MEMBER-CLUSTER-LABEL-KEY-rack}"`}, // rack: absent on some members
		{"remove", "/data/k", ``},
		{"remove", "/data/nope", ``}, // fails
		{"add", "/data", `{"only":"${MEMBER-CLUSTER-LABEL-KEY-env}"}`},
	}, genericOps...)
	deploymentOps = append([]opChoice{
		{"replace", "/spec/replicas", `3`},
		{"replace", "/spec/replicas", `5`},
		{"replace", "/spec/template/spec/containers/0/image", `"registry-${MEMBER-CLUSTER-LABEL-KEY-env}.example.com/web:1.2"`},
		{"add", "/spec/template/metadata/labels/cluster", `"${MEMBER-CLUSTER-NAME}"`},
		{"replace", "/spec/paused", `true`}, // absent: fails
		{"add", "/spec/minReadySeconds", `10`},
	}, genericOps...)
)

// randomOverridePolicy draws 1-3 rules: JSON patches of 1-3 operations from ops, or (one in six)
// a Delete.
func randomOverridePolicy(rng *rand.Rand, ops []opChoice) *placementv1.OverridePolicy {
	p := &placementv1.OverridePolicy{}
	for range 1 + rng.IntN(3) {
		r := placementv1.OverrideRule{ClusterSelector: randomOverrideClusterSelector(rng)}
		if rng.IntN(6) == 0 {
			r.OverrideType = placementv1.DeleteOverrideType
		} else {
			r.OverrideType = placementv1.JSONPatchOverrideType
			for range 1 + rng.IntN(3) {
				o := ops[rng.IntN(len(ops))]
				j := placementv1.JSONPatchOverride{Operator: placementv1.JSONPatchOverrideOperator(o.op), Path: o.path}
				if o.value != "" {
					j.Value = apiextensionsv1.JSON{Raw: []byte(o.value)}
				}
				r.JSONPatchOverrides = append(r.JSONPatchOverrides, j)
			}
		}
		p.OverrideRules = append(p.OverrideRules, r)
	}
	return p
}

// randomOverrideClusterSelector: nil (no cluster, one in twelve), empty (all), or 1-2 terms of
// labels, one in five with a property requirement too.
func randomOverrideClusterSelector(rng *rand.Rand) *placementv1.ClusterSelector {
	switch rng.IntN(12) {
	case 0:
		return nil
	case 1, 2:
		return &placementv1.ClusterSelector{ClusterSelectorTerms: []placementv1.ClusterSelectorTerm{}} // the CRD requires the list
	}
	s := &placementv1.ClusterSelector{}
	for range 1 + rng.IntN(2) {
		var ls *metav1.LabelSelector
		switch rng.IntN(4) {
		case 0:
			ls = &metav1.LabelSelector{MatchLabels: map[string]string{LabelEnv: envs[rng.IntN(len(envs))]}}
		case 1:
			ls = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: LabelEnv, Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "canary"}}}}
		case 2:
			ls = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: LabelTier, Operator: metav1.LabelSelectorOpExists}}}
		default:
			ls = &metav1.LabelSelector{MatchLabels: map[string]string{LabelTeam: teams[rng.IntN(len(teams))]}}
		}
		t := placementv1.ClusterSelectorTerm{LabelSelector: ls}
		if rng.IntN(5) == 0 {
			t.PropertySelector = &placementv1.PropertySelector{MatchExpressions: []placementv1.PropertySelectorRequirement{
				{Name: PropCoreCost, Operator: placementv1.PropertySelectorLessThan, Values: []string{"0.08"}}}}
		}
		s.ClusterSelectorTerms = append(s.ClusterSelectorTerms, t)
	}
	return s
}

// caseObjects are the hub objects of a case as JSON: the namespace, the ClusterRole, the
// ConfigMap and the Deployment.
func caseObjects(c OverrideCase) []string {
	labels := map[string]string{"app": "web"}
	var ann map[string]string
	if c.Annotated {
		ann = map[string]string{"note": "hub"}
	}
	md := func(name, ns string, l map[string]string) map[string]any {
		m := map[string]any{"name": name}
		if ns != "" {
			m["namespace"] = ns
		}
		if l != nil {
			m["labels"] = l
		}
		if ann != nil && ns != "" {
			m["annotations"] = ann
		}
		return m
	}
	depLabels := map[string]string(nil)
	if c.Labeled {
		depLabels = labels
	}
	objs := []map[string]any{
		{"apiVersion": "v1", "kind": "Namespace", "metadata": md(c.Name, "", labels)},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": md(c.Name, "", labels),
			"rules": []any{map[string]any{"apiGroups": []string{""}, "resources": []string{"configmaps"}, "verbs": []string{"get"}}}},
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md("cfg", c.Name, labels), "data": map[string]string{"k": "v"}},
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": md("web", c.Name, depLabels), "spec": map[string]any{
			"replicas": 1,
			"selector": map[string]any{"matchLabels": map[string]string{"app": "web"}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]string{"app": "web"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "image": "web:1.2"}}},
			},
		}},
	}
	out := make([]string, len(objs))
	for i, o := range objs {
		b, _ := json.Marshal(o)
		out[i] = string(b)
	}
	return out
}
