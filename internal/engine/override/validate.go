package override

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
	"go.goms.io/fleet/pkg/utils/validator"
)

// Where locates an issue: the index of a resource selector, or of a rule and, within it, of a
// JSON patch operation; -1 where it does not apply (an issue of the whole override).
type Where struct{ Selector, Rule, Op int }

// Issue is one refusal of v0.18.9's override webhook, in its words, with where it is.
type Issue struct {
	Where   Where
	Message string
}

var whole = Where{-1, -1, -1}

// Validate is what v0.18.9's validating webhooks refuse of o given the other overrides on the hub
// (pkg/webhook/clusterresourceoverride and resourceoverride, both calling
// pkg/utils/validator.ValidateClusterResourceOverride / ValidateResourceOverride). KubeFleet's
// validator is called once per selector, rule and patch operation so each refusal has its place,
// and once on the whole override for what spans elements (duplicate selectors, another override of
// the same resource). Also the CRD's rules the API server checks: 1 to 20 selectors and rules and
// operations per rule, a ClusterResourceOverride's placement not Namespaced
// (config/crd/bases/placement.kubernetes-fleet.io_clusterresourceoverrides.yaml).
func Validate(o Override, others []Override) []Issue {
	var issues []Issue
	add := func(w Where, err error) {
		if err != nil {
			issues = append(issues, Issue{Where: w, Message: err.Error()})
		}
	}
	nSel := len(o.Spec.ClusterResourceSelectors)
	if o.Namespace != "" {
		nSel = len(o.ResourceSelectors)
	}
	if nSel < 1 || nSel > 20 {
		add(Where{-1, -1, -1}, fmt.Errorf("resource selectors must hold 1 to 20 items, got %d", nSel))
	}
	if o.Namespace == "" && o.Spec.Placement != nil && o.Spec.Placement.Scope == placementv1beta1.NamespaceScoped {
		add(whole, fmt.Errorf("clusterResourceOverride placement reference cannot be Namespaced scope"))
	}
	// A placeholder that passes every check, to validate one part at a time.
	okSelector := o
	okSelector.Spec.ClusterResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "x"}}
	okSelector.ResourceSelectors = []placementv1beta1.ResourceSelector{{Version: "v1", Kind: "ConfigMap", Name: "x"}}
	for i := range nSel {
		one := o
		one.Spec.Policy = nil
		if o.Namespace == "" {
			one.Spec.ClusterResourceSelectors = o.Spec.ClusterResourceSelectors[i : i+1]
		} else {
			one.ResourceSelectors = o.ResourceSelectors[i : i+1]
		}
		add(Where{i, -1, -1}, call(one, nil))
	}
	if o.Spec.Policy == nil {
		add(whole, fmt.Errorf("policy is required"))
	} else {
		rules := o.Spec.Policy.OverrideRules
		if len(rules) < 1 || len(rules) > 20 {
			add(whole, fmt.Errorf("override rules must hold 1 to 20 items, got %d", len(rules)))
		}
		for i, rule := range rules {
			if rule.OverrideType == "" {
				rule.OverrideType = placementv1beta1.JSONPatchOverrideType // the CRD's default
			}
			if n := len(rule.JSONPatchOverrides); n > 20 {
				add(Where{-1, i, -1}, fmt.Errorf("jsonPatchOverrides must hold at most 20 items, got %d", n))
			}
			r := rule
			r.JSONPatchOverrides = nil
			if rule.OverrideType == placementv1beta1.JSONPatchOverrideType {
				// The per-operation checks below; here the selector and the type.
				r.OverrideType = placementv1beta1.DeleteOverrideType
			}
			one := okSelector
			one.Spec.Policy = &placementv1beta1.OverridePolicy{OverrideRules: []placementv1beta1.OverrideRule{r}}
			add(Where{-1, i, -1}, call(one, nil))
			switch {
			case rule.OverrideType == placementv1beta1.DeleteOverrideType && len(rule.JSONPatchOverrides) > 0:
				one.Spec.Policy.OverrideRules[0] = placementv1beta1.OverrideRule{OverrideType: rule.OverrideType, JSONPatchOverrides: rule.JSONPatchOverrides}
				add(Where{-1, i, -1}, call(one, nil))
			case rule.OverrideType == placementv1beta1.JSONPatchOverrideType && len(rule.JSONPatchOverrides) == 0:
				one.Spec.Policy.OverrideRules[0] = placementv1beta1.OverrideRule{OverrideType: rule.OverrideType}
				add(Where{-1, i, -1}, call(one, nil))
			case rule.OverrideType == placementv1beta1.JSONPatchOverrideType:
				for j, op := range rule.JSONPatchOverrides {
					one.Spec.Policy.OverrideRules[0] = placementv1beta1.OverrideRule{OverrideType: rule.OverrideType, JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{op}}
					add(Where{-1, i, j}, call(one, nil))
					add(Where{-1, i, j}, checkOp(op))
				}
			}
		}
	}
	// What spans elements: duplicates and the one-override-per-resource limit.
	whole := o
	whole.Spec.Policy = nil
	if len(issues) == 0 {
		add(Where{-1, -1, -1}, call(whole, others))
	}
	return issues
}

// checkOp is what the CRD's enum and JSON patch itself refuse of an operation: an unknown op, an add
// or replace without a value (RFC 6902 section 4), a value that is not JSON.
func checkOp(op placementv1beta1.JSONPatchOverride) error {
	switch op.Operator {
	case placementv1beta1.JSONPatchOverrideOpAdd, placementv1beta1.JSONPatchOverrideOpReplace:
		if len(op.Value.Raw) == 0 {
			return fmt.Errorf("%s operation requires a value", op.Operator)
		}
	case placementv1beta1.JSONPatchOverrideOpRemove:
	default:
		return fmt.Errorf("unsupported operation %q: must be add, remove or replace", op.Operator)
	}
	return nil
}

// call runs KubeFleet's validator of o's kind.
func call(o Override, others []Override) error {
	if o.Namespace == "" {
		cro := placementv1beta1.ClusterResourceOverride{ObjectMeta: metav1.ObjectMeta{Name: o.Name}, Spec: o.Spec}
		var list *placementv1beta1.ClusterResourceOverrideList
		for _, x := range others {
			if x.Namespace == "" {
				if list == nil {
					list = &placementv1beta1.ClusterResourceOverrideList{}
				}
				list.Items = append(list.Items, placementv1beta1.ClusterResourceOverride{ObjectMeta: metav1.ObjectMeta{Name: x.Name}, Spec: x.Spec})
			}
		}
		return validator.ValidateClusterResourceOverride(cro, list)
	}
	ro := placementv1beta1.ResourceOverride{
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name},
		Spec:       placementv1beta1.ResourceOverrideSpec{Placement: o.Spec.Placement, ResourceSelectors: o.ResourceSelectors, Policy: o.Spec.Policy},
	}
	var list *placementv1beta1.ResourceOverrideList
	for _, x := range others {
		if x.Namespace == o.Namespace {
			if list == nil {
				list = &placementv1beta1.ResourceOverrideList{}
			}
			list.Items = append(list.Items, placementv1beta1.ResourceOverride{
				ObjectMeta: metav1.ObjectMeta{Namespace: x.Namespace, Name: x.Name},
				Spec:       placementv1beta1.ResourceOverrideSpec{Placement: x.Spec.Placement, ResourceSelectors: x.ResourceSelectors, Policy: x.Spec.Policy},
			})
		}
	}
	return validator.ValidateResourceOverride(ro, list)
}
