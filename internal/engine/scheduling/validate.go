package scheduling

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
)

// Severity says whether the hub rejects a policy or accepts one that cannot work as written.
type Severity string

const (
	// SeverityError: the API server (CRD schema) or v0.18.9's validating webhook rejects it.
	SeverityError Severity = "error"
	// SeverityWarning: v0.18.9 accepts it, but every scheduling cycle fails on it or skips it.
	SeverityWarning Severity = "warning"
)

// Issue is one problem with a policy, at a path from the policy's root.
type Issue struct {
	Path     Path
	Message  string
	Severity Severity
}

// Step is one step of a Path: a field (by its JSON name) or, when Field is "", a list index.
type Step struct {
	Field string
	Index int
}

// Path locates a value inside a PlacementPolicy, e.g.
// affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].
type Path []Step

// String renders the path the way the API server does ("a.b[0].c").
func (p Path) String() string {
	var b strings.Builder
	for _, s := range p {
		if s.Field == "" {
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Field)
	}
	return b.String()
}

// Child returns the path extended by a field.
func (p Path) Child(field string) Path {
	return append(append(Path{}, p...), Step{Field: field})
}

// Index returns the path extended by a list index.
func (p Path) Index(i int) Path {
	return append(append(Path{}, p...), Step{Index: i})
}

var (
	pathAffinity   = Path{}.Child("affinity").Child("clusterAffinity")
	pathRequired   = pathAffinity.Child("requiredDuringSchedulingIgnoredDuringExecution").Child("clusterSelectorTerms")
	pathPreferred  = pathAffinity.Child("preferredDuringSchedulingIgnoredDuringExecution")
	supportedTypes = []placementv1.PlacementType{placementv1.PickAllPlacementType, placementv1.PickNPlacementType, placementv1.PickFixedPlacementType}
	// resourceCapacityTypes is the webhook's sorted list of capacity types
	// (pkg/utils/validator/placement.go: supportedResourceCapacityTypes).
	resourceCapacityTypes = []string{allocatableCapacityName, availableCapacityName, totalCapacityName}
)

// validator collects issues.
type validator struct{ issues []Issue }

func (v *validator) fail(p Path, format string, args ...any) {
	v.issues = append(v.issues, Issue{Path: p, Message: fmt.Sprintf(format, args...), Severity: SeverityError})
}

func (v *validator) warn(p Path, format string, args ...any) {
	v.issues = append(v.issues, Issue{Path: p, Message: fmt.Sprintf(format, args...), Severity: SeverityWarning})
}

// Validate checks a policy as the hub would on create or update: the CRD's schema (enums, item
// limits, minimums and maximums, with its defaults applied first) and v0.18.9's validating webhook
// (which fields each placement type allows, member names, label selectors, property names, values
// and their consistency, tolerations), with the webhook's own messages. It adds warnings for what
// v0.18.9 accepts but cannot schedule. A nil policy (PickAll) is valid.
// (config/crd/bases/placement.kubernetes-fleet.io_clusterresourceplacements.yaml;
// pkg/utils/validator/placement.go: validatePlacementPolicy.)
func Validate(policy *placementv1.PlacementPolicy) []Issue {
	p := Defaulted(policy)
	if p == nil {
		return nil
	}
	v := &validator{}
	v.schema(p)
	switch p.PlacementType {
	case placementv1.PickFixedPlacementType:
		v.pickFixed(p)
	case placementv1.PickAllPlacementType:
		v.pickAll(p)
	case placementv1.PickNPlacementType:
		v.pickN(p)
	}
	return v.issues
}

// schema applies the CRD's OpenAPI constraints on the policy (v1beta1, the storage version).
func (v *validator) schema(p *placementv1.PlacementPolicy) {
	known := false
	for _, t := range supportedTypes {
		known = known || p.PlacementType == t
	}
	if !known {
		v.fail(Path{}.Child("placementType"), "Unsupported value: %q: supported values: \"PickAll\", \"PickN\", \"PickFixed\"", p.PlacementType)
	}
	if len(p.ClusterNames) > 100 {
		v.fail(Path{}.Child("clusterNames"), "Too many: %d: must have at most 100 items", len(p.ClusterNames))
	}
	if p.NumberOfClusters != nil && *p.NumberOfClusters < 0 {
		v.fail(Path{}.Child("numberOfClusters"), "Invalid value: %d: should be greater than or equal to 0", *p.NumberOfClusters)
	}
	if p.Affinity != nil && p.Affinity.ClusterAffinity != nil {
		ca := p.Affinity.ClusterAffinity
		if r := ca.RequiredDuringSchedulingIgnoredDuringExecution; r != nil && len(r.ClusterSelectorTerms) > 10 {
			v.fail(pathRequired, "Too many: %d: must have at most 10 items", len(r.ClusterSelectorTerms))
		}
		if r := ca.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			for i := range r.ClusterSelectorTerms {
				v.schemaTerm(pathRequired.Index(i), &r.ClusterSelectorTerms[i])
			}
		}
		for i, t := range ca.PreferredDuringSchedulingIgnoredDuringExecution {
			pp := pathPreferred.Index(i)
			if t.Weight < -100 {
				v.fail(pp.Child("weight"), "Invalid value: %d: should be greater than or equal to -100", t.Weight)
			}
			if t.Weight > 100 {
				v.fail(pp.Child("weight"), "Invalid value: %d: should be less than or equal to 100", t.Weight)
			}
			v.schemaTerm(pp.Child("preference"), &ca.PreferredDuringSchedulingIgnoredDuringExecution[i].Preference)
		}
	}
	for i, c := range p.TopologySpreadConstraints {
		if c.MaxSkew != nil && *c.MaxSkew < 1 {
			v.fail(Path{}.Child("topologySpreadConstraints").Index(i).Child("maxSkew"), "Invalid value: %d: should be greater than or equal to 1", *c.MaxSkew)
		}
	}
	if len(p.Tolerations) > 100 {
		v.fail(Path{}.Child("tolerations"), "Too many: %d: must have at most 100 items", len(p.Tolerations))
	}
	for i, t := range p.Tolerations {
		tp := Path{}.Child("tolerations").Index(i)
		if t.Operator != corev1.TolerationOpEqual && t.Operator != corev1.TolerationOpExists {
			v.fail(tp.Child("operator"), "Unsupported value: %q: supported values: \"Equal\", \"Exists\"", t.Operator)
		}
		if t.Effect != "" && t.Effect != corev1.TaintEffectNoSchedule {
			v.fail(tp.Child("effect"), "Unsupported value: %q: supported values: \"NoSchedule\"", t.Effect)
		}
	}
}

// schemaTerm applies the schema's limits inside a cluster selector term.
func (v *validator) schemaTerm(p Path, t *placementv1.ClusterSelectorTerm) {
	if t.PropertySelector == nil {
		return
	}
	for i, e := range t.PropertySelector.MatchExpressions {
		if len(e.Values) > 1 {
			v.fail(p.Child("propertySelector").Child("matchExpressions").Index(i).Child("values"), "Too many: %d: must have at most 1 items", len(e.Values))
		}
	}
}

// pickFixed: clusterNames only, each a valid member name, unique
// (pkg/utils/validator/placement.go: validatePolicyForPickFixedPlacementType).
//
// v0.18.9 accepts an empty clusterNames (v0.14.0 rejected it); its scheduler then skips every
// cycle (pkg/scheduler/framework/framework.go: runSchedulingCycleForPickFixedPlacementType), so
// nothing is ever placed: a warning.
func (v *validator) pickFixed(p *placementv1.PlacementPolicy) {
	if len(p.ClusterNames) == 0 {
		v.warn(Path{}.Child("clusterNames"), "no cluster names for policy type %s: the hub accepts it, but its scheduler skips every scheduling cycle of this placement, so nothing is placed", placementv1.PickFixedPlacementType)
	}
	seen := make(map[string]bool)
	for i, name := range p.ClusterNames {
		np := Path{}.Child("clusterNames").Index(i)
		if errs := validation.IsDNS1123Subdomain(name); errs != nil {
			v.fail(np, "PickFixed cluster name %s is not a valid member name: %s", name, strings.Join(errs, "; "))
		}
		if len(name) > validation.DNS1035LabelMaxLength {
			v.fail(np, "PickFixed cluster name %s cannot have length exceeding %d", name, validation.DNS1035LabelMaxLength)
		}
		if seen[name] {
			v.fail(Path{}.Child("clusterNames").Index(i), "cluster names must be unique for policy type %s", placementv1.PickFixedPlacementType)
			break
		}
		seen[name] = true
	}
	if p.NumberOfClusters != nil {
		v.fail(Path{}.Child("numberOfClusters"), "number of clusters must be nil for policy type %s, only valid for PickN placement policy type", placementv1.PickFixedPlacementType)
	}
	if p.Affinity != nil {
		v.fail(Path{}.Child("affinity"), "affinity must be nil for policy type %s, only valid for PickAll/PickN placement policy types", placementv1.PickFixedPlacementType)
	}
	if len(p.TopologySpreadConstraints) > 0 {
		v.fail(Path{}.Child("topologySpreadConstraints"), "topology spread constraints needs to be empty for policy type %s, only valid for PickN policy type", placementv1.PickFixedPlacementType)
	}
	if p.Tolerations != nil {
		v.fail(Path{}.Child("tolerations"), "tolerations needs to be empty for policy type %s, only valid for PickAll/PickN", placementv1.PickFixedPlacementType)
	}
}

// pickAll: no clusterNames, numberOfClusters or topology spread constraints; preferred terms are
// rejected (pkg/utils/validator/placement.go: validatePolicyForPickAllPlacementType).
func (v *validator) pickAll(p *placementv1.PlacementPolicy) {
	if len(p.ClusterNames) > 0 {
		v.fail(Path{}.Child("clusterNames"), "cluster names needs to be empty for policy type %s, only valid for PickFixed policy type", placementv1.PickAllPlacementType)
	}
	if p.NumberOfClusters != nil {
		v.fail(Path{}.Child("numberOfClusters"), "number of clusters must be nil for policy type %s, only valid for PickN placement policy type", placementv1.PickAllPlacementType)
	}
	if p.Affinity != nil && p.Affinity.ClusterAffinity != nil {
		v.clusterAffinity(p.Affinity.ClusterAffinity, p.PlacementType)
	}
	if len(p.TopologySpreadConstraints) > 0 {
		v.fail(Path{}.Child("topologySpreadConstraints"), "topology spread constraints needs to be empty for policy type %s, only valid for PickN policy type", placementv1.PickAllPlacementType)
	}
	v.tolerations(p.Tolerations)
}

// pickN: numberOfClusters required, no clusterNames
// (pkg/utils/validator/placement.go: validatePolicyForPickNPolicyType).
func (v *validator) pickN(p *placementv1.PlacementPolicy) {
	if len(p.ClusterNames) > 0 {
		v.fail(Path{}.Child("clusterNames"), "cluster names needs to be empty for policy type %s, only valid for PickFixed policy type", placementv1.PickNPlacementType)
	}
	if p.NumberOfClusters == nil {
		v.fail(Path{}.Child("numberOfClusters"), "number of cluster cannot be nil for policy type %s", placementv1.PickNPlacementType)
	} else if *p.NumberOfClusters < 0 {
		v.fail(Path{}.Child("numberOfClusters"), "number of clusters cannot be %d for policy type %s", *p.NumberOfClusters, placementv1.PickNPlacementType)
	}
	if p.Affinity != nil && p.Affinity.ClusterAffinity != nil {
		v.clusterAffinity(p.Affinity.ClusterAffinity, p.PlacementType)
	}
	for i, c := range p.TopologySpreadConstraints {
		if len(c.WhenUnsatisfiable) > 0 && c.WhenUnsatisfiable != placementv1.DoNotSchedule && c.WhenUnsatisfiable != placementv1.ScheduleAnyway {
			v.fail(Path{}.Child("topologySpreadConstraints").Index(i).Child("whenUnsatisfiable"), "unknown unsatisfiable type %s", c.WhenUnsatisfiable)
		}
	}
	v.tolerations(p.Tolerations)
}

// clusterAffinity validates required terms (label selector, property selector, no sorter) and,
// for PickN, preferred terms (label selector, sorter, no property selector); PickAll rejects
// preferred terms (pkg/utils/validator/placement.go: validateClusterAffinity).
func (v *validator) clusterAffinity(ca *placementv1.ClusterAffinity, placementType placementv1.PlacementType) {
	if r := ca.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		for i := range r.ClusterSelectorTerms {
			t := &r.ClusterSelectorTerms[i]
			tp := pathRequired.Index(i)
			v.labelSelector(tp.Child("labelSelector"), t.LabelSelector, "cluster selector")
			if t.PropertySorter != nil {
				v.fail(tp.Child("propertySorter"), "PropertySorter is not allowed for RequiredDuringSchedulingIgnoredDuringExecution affinity")
			}
			if t.PropertySelector != nil {
				v.propertySelector(tp.Child("propertySelector"), t.PropertySelector)
			}
		}
	}
	if len(ca.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return
	}
	if placementType == placementv1.PickAllPlacementType {
		v.fail(pathPreferred, "PreferredDuringSchedulingIgnoredDuringExecution will be ignored for placement policy type %s", placementType)
		return
	}
	for i := range ca.PreferredDuringSchedulingIgnoredDuringExecution {
		t := &ca.PreferredDuringSchedulingIgnoredDuringExecution[i].Preference
		tp := pathPreferred.Index(i).Child("preference")
		v.labelSelector(tp.Child("labelSelector"), t.LabelSelector, "preferred cluster selector")
		if t.PropertySelector != nil {
			v.fail(tp.Child("propertySelector"), "PropertySelector is not allowed for PreferredDuringSchedulingIgnoredDuringExecution affinity")
		}
		if s := t.PropertySorter; s != nil {
			if err := validatePropertyName(s.Name); err != nil {
				v.fail(tp.Child("propertySorter").Child("name"), "%v", err)
			} else {
				v.schedulerCanRead(tp.Child("propertySorter").Child("name"), s.Name)
			}
			if s.SortOrder != placementv1.Descending && s.SortOrder != placementv1.Ascending {
				v.fail(tp.Child("propertySorter").Child("sortOrder"), "invalid property sort order %s", s.SortOrder)
			}
		}
	}
}

// labelSelector (pkg/utils/validator/placement.go: validateLabelSelector).
func (v *validator) labelSelector(p Path, ls *metav1.LabelSelector, parent string) {
	if _, err := metav1.LabelSelectorAsSelector(ls); err != nil {
		v.fail(p, "the labelSelector in %s %+v is invalid: %v", parent, ls, err)
	}
}

// propertySelector validates each expression's name, then its operator with its values (an
// unknown operator, a value count other than one, a value that is not a Quantity: the first
// problem only), then the requirements on each property together
// (pkg/utils/validator/placement.go: validatePropertySelectorRequirements,
// validateOperatorAndValues, validateRequirementsConsistency).
func (v *validator) propertySelector(p Path, ps *placementv1.PropertySelector) {
	for i, req := range ps.MatchExpressions {
		ep := p.Child("matchExpressions").Index(i)
		nameOK := true
		if err := validatePropertyName(req.Name); err != nil {
			v.fail(ep.Child("name"), "invalid property name %s: %v", req.Name, err)
			nameOK = false
		}
		switch {
		case !knownOperator(req.Operator):
			v.fail(ep.Child("operator"), "invalid requirement on property %s: unsupported operator %s", req.Name, req.Operator)
		case len(req.Values) != 1:
			// More than one value is also a schema error (maxItems 1), reported by schemaTerm.
			v.fail(ep.Child("values"), "invalid requirement on property %s: operator %s requires exactly one value, got %d", req.Name, req.Operator, len(req.Values))
		default:
			if _, err := resource.ParseQuantity(req.Values[0]); err != nil {
				v.fail(ep.Child("values"), "invalid requirement on property %s: value %q is not a valid resource.Quantity: %v", req.Name, req.Values[0], err)
			}
		}
		if nameOK {
			v.schedulerCanRead(ep.Child("name"), req.Name)
		}
	}
	v.contradictions(p, ps)
}

// schedulerCanRead warns about a resource property name the webhook accepts (it splits the name
// once) but the scheduler cannot resolve (it splits on every "-")
// (pkg/scheduler/framework/plugins/clusteraffinity/types.go: retrieveResourceUsageFrom).
func (v *validator) schedulerCanRead(p Path, name string) {
	rest, ok := strings.CutPrefix(name, ResourcePropertyNamePrefix)
	if !ok {
		return
	}
	if segs := strings.Split(rest, "-"); len(segs) != 2 || segs[1] == "" {
		v.warn(p, "resource property %s cannot be resolved by the scheduler, which expects exactly one \"-\" between the capacity type and the resource name: the hub accepts it but every scheduling cycle of this placement fails", name)
	}
}

func knownOperator(op placementv1.PropertySelectorOperator) bool {
	switch op {
	case placementv1.PropertySelectorGreaterThan, placementv1.PropertySelectorGreaterThanOrEqualTo,
		placementv1.PropertySelectorLessThan, placementv1.PropertySelectorLessThanOrEqualTo,
		placementv1.PropertySelectorEqualTo, placementv1.PropertySelectorNotEqualTo:
		return true
	}
	return false
}

// validatePropertyName: resource properties need a known capacity type before the first "-" and
// must be qualified names; other names are "/"-separated segments, the first a DNS subdomain or a
// qualified name, the others qualified names (pkg/utils/validator/placement.go: validateName).
func validatePropertyName(name string) error {
	if rest, ok := strings.CutPrefix(name, ResourcePropertyNamePrefix); ok {
		segs := strings.SplitN(rest, "-", 2)
		if len(segs) != 2 {
			return fmt.Errorf("invalid resource property name %s, expected format is [PREFIX]/[CAPACITY_TYPE]-[RESOURCE_NAME]", name)
		}
		switch segs[0] {
		case totalCapacityName, allocatableCapacityName, availableCapacityName:
		default:
			return fmt.Errorf("invalid capacity type in resource property name %s, supported values are %+v", name, resourceCapacityTypes)
		}
		if errs := validation.IsQualifiedName(name); errs != nil {
			return fmt.Errorf("property name %s is not valid: %s", name, strings.Join(errs, "; "))
		}
		return nil
	}
	segs := strings.Split(name, "/")
	if len(segs) <= 1 {
		if errs := validation.IsQualifiedName(name); errs != nil {
			return fmt.Errorf("property name %s is not valid: %s", name, strings.Join(errs, "; "))
		}
		return nil
	}
	sub, qual := validation.IsDNS1123Subdomain(segs[0]), validation.IsQualifiedName(segs[0])
	if len(sub) != 0 && len(qual) != 0 {
		return fmt.Errorf("property name first segment %s is not valid: it is neither a valid DNS subdomain (%s) nor a valid qualified name (%s)",
			segs[0], strings.Join(sub, "; "), strings.Join(qual, "; "))
	}
	for _, seg := range segs[1:] {
		if errs := validation.IsQualifiedName(seg); errs != nil {
			return fmt.Errorf("property name segment %s is not valid: %s", seg, strings.Join(errs, "; "))
		}
	}
	return nil
}

// tolerations (pkg/utils/validator/placement.go: validateTolerations).
func (v *validator) tolerations(tolerations []placementv1.Toleration) {
	seen := make(map[placementv1.Toleration]bool)
	for i, t := range tolerations {
		tp := Path{}.Child("tolerations").Index(i)
		if t.Key != "" {
			for _, msg := range validation.IsQualifiedName(t.Key) {
				v.fail(tp.Child("key"), "invalid toleration key %+v: %s", t, msg)
			}
		}
		switch t.Operator {
		case corev1.TolerationOpExists:
			if t.Value != "" {
				v.fail(tp.Child("value"), "invalid toleration %+v: %s", t, "toleration value needs to be empty, when operator is Exists")
			}
		case corev1.TolerationOpEqual:
			if t.Key == "" {
				v.fail(tp.Child("key"), "invalid toleration %+v: %s", t, "toleration key cannot be empty, when operator is Equal")
			}
			for _, msg := range validation.IsValidLabelValue(t.Value) {
				v.fail(tp.Child("value"), "invalid toleration value %+v: %s", t, msg)
			}
		}
		if seen[t] {
			v.fail(tp, "toleration %+v already exists, tolerations must be unique", t)
		}
		seen[t] = true
	}
}

// ImmutableChanges checks an update of a placement's policy as v0.18.9's hub does: a policy once
// set cannot be removed (the CRD's rule on spec, config/crd/bases/
// placement.kubernetes-fleet.io_clusterresourceplacements.yaml: "policy cannot be removed once
// set"; its path is the policy itself, the empty Path), the placement type cannot change (a nil
// policy counts as PickAll) and tolerations can only be added (pkg/utils/validator/placement.go:
// HandlePlacementValidation, IsPlacementPolicyTypeUpdated, IsTolerationsUpdatedOrDeleted).
func ImmutableChanges(old, updated *placementv1.PlacementPolicy) []Issue {
	o, n := Defaulted(old), Defaulted(updated)
	var issues []Issue
	if old != nil && updated == nil {
		issues = append(issues, Issue{Path: Path{}, Message: "policy cannot be removed once set", Severity: SeverityError})
	}
	if placementTypeChanged(o, n) {
		issues = append(issues, Issue{Path: Path{}.Child("placementType"), Message: "placement type is immutable", Severity: SeverityError})
	}
	if tolerationsRemoved(policyTolerations(o), policyTolerations(n)) {
		issues = append(issues, Issue{Path: Path{}.Child("tolerations"), Message: "tolerations have been updated/deleted, only additions to tolerations are allowed", Severity: SeverityError})
	}
	return issues
}

// placementTypeChanged (pkg/utils/validator/placement.go: IsPlacementPolicyTypeUpdated).
func placementTypeChanged(old, updated *placementv1.PlacementPolicy) bool {
	switch {
	case old == nil && updated != nil:
		return updated.PlacementType != placementv1.PickAllPlacementType
	case old != nil && updated == nil:
		return old.PlacementType != placementv1.PickAllPlacementType
	case old != nil && updated != nil:
		return updated.PlacementType != old.PlacementType
	}
	return false
}

// tolerationsRemoved (pkg/utils/validator/placement.go: IsTolerationsUpdatedOrDeleted).
func tolerationsRemoved(old, updated []placementv1.Toleration) bool {
	present := make(map[placementv1.Toleration]bool, len(updated))
	for _, t := range updated {
		present[t] = true
	}
	for _, t := range old {
		if !present[t] {
			return true
		}
	}
	return false
}

// propertyBound is one side of the interval a property's requirements allow (upstream's boundary).
type propertyBound struct {
	q      resource.Quantity
	strict bool
}

// propertyBounds is the view of every requirement on one property (upstream's requirementBounds).
type propertyBounds struct {
	lower, upper *propertyBound
	eq           *resource.Quantity
	ne           []resource.Quantity
}

// contradictions rejects requirements on one property that no value can meet, with the webhook's
// words, at the property's first expression (pkg/utils/validator/placement.go:
// validateRequirementsConsistency, collectRequirementBounds, checkEqVsNe, checkInterval,
// checkEqInsideBounds). Malformed requirements (reported above) are left out. v0.14.0 accepted
// such terms; v0.18.9 rejects them.
func (v *validator) contradictions(p Path, ps *placementv1.PropertySelector) {
	first := map[string]int{}
	byName := map[string][]placementv1.PropertySelectorRequirement{}
	var names []string
	for i, e := range ps.MatchExpressions {
		if _, ok := first[e.Name]; !ok {
			first[e.Name] = i
			names = append(names, e.Name)
		}
		byName[e.Name] = append(byName[e.Name], e)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := requirementsConsistency(byName[name]); err != nil {
			v.fail(p.Child("matchExpressions").Index(first[name]), "inconsistent requirements on property %s: %v", name, err)
		}
	}
}

// requirementsConsistency (pkg/utils/validator/placement.go: validateRequirementsConsistency).
func requirementsConsistency(reqs []placementv1.PropertySelectorRequirement) error {
	if len(reqs) < 2 {
		return nil
	}
	b := &propertyBounds{}
	for _, r := range reqs {
		if !knownOperator(r.Operator) || len(r.Values) != 1 {
			continue
		}
		q, err := resource.ParseQuantity(r.Values[0])
		if err != nil {
			continue
		}
		switch r.Operator {
		case placementv1.PropertySelectorGreaterThan:
			b.tighten(&b.lower, propertyBound{q: q, strict: true}, 1)
		case placementv1.PropertySelectorGreaterThanOrEqualTo:
			b.tighten(&b.lower, propertyBound{q: q}, 1)
		case placementv1.PropertySelectorLessThan:
			b.tighten(&b.upper, propertyBound{q: q, strict: true}, -1)
		case placementv1.PropertySelectorLessThanOrEqualTo:
			b.tighten(&b.upper, propertyBound{q: q}, -1)
		case placementv1.PropertySelectorEqualTo:
			if b.eq != nil && b.eq.Cmp(q) != 0 {
				return fmt.Errorf("conflicting Eq values %s and %s", b.eq.String(), q.String())
			}
			b.eq = &q
		case placementv1.PropertySelectorNotEqualTo:
			b.ne = append(b.ne, q)
		}
	}
	if b.eq != nil {
		for _, n := range b.ne {
			if b.eq.Cmp(n) == 0 {
				return fmt.Errorf("conflicting Eq and Ne on same value %s", b.eq.String())
			}
		}
	}
	if b.lower != nil && b.upper != nil {
		c := b.lower.q.Cmp(b.upper.q)
		if c > 0 || (c == 0 && (b.lower.strict || b.upper.strict)) {
			return fmt.Errorf("lower bound (%s) and upper bound (%s) exclude all values", b.lower.q.String(), b.upper.q.String())
		}
	}
	if b.eq != nil {
		if b.lower != nil {
			if c := b.eq.Cmp(b.lower.q); c < 0 || (c == 0 && b.lower.strict) {
				return fmt.Errorf("eq value %s violates lower bound %s", b.eq.String(), b.lower.q.String())
			}
		}
		if b.upper != nil {
			if c := b.eq.Cmp(b.upper.q); c > 0 || (c == 0 && b.upper.strict) {
				return fmt.Errorf("eq value %s violates upper bound %s", b.eq.String(), b.upper.q.String())
			}
		}
	}
	return nil
}

// tighten keeps the more restrictive bound: the larger lower bound (dir 1) or the smaller upper
// bound (dir -1), the strict one at a tie (upstream's tightenLower, tightenUpper).
func (b *propertyBounds) tighten(cur **propertyBound, nb propertyBound, dir int) {
	if *cur == nil {
		*cur = &nb
		return
	}
	c := nb.q.Cmp((*cur).q) * dir
	if c > 0 || (c == 0 && nb.strict && !(*cur).strict) {
		*cur = &nb
	}
}
