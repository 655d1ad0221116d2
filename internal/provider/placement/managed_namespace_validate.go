package placement

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_managed_namespace's checks: at validate what needs no backend (Kubernetes' own label,
// annotation and quantity rules; KubeFleet's policy rules by scheduling.Validate), at plan what
// needs the prior state (KubeFleet's immutable fields). Nothing is sent before they pass.

// validateManagedNamespace checks a configuration (or plan) m; unknown are the paths not known yet.
func validateManagedNamespace(diags *diag.Diagnostics, m *managedNamespaceModel, unknown []path.Path) {
	if n := m.Name.ValueString(); !shared.PathsContain(unknown, path.Root("name")) && (strings.HasPrefix(n, "fleet-") || strings.HasPrefix(n, "kube-")) {
		// KubeFleet v0.18.9 reserves them: its webhook refuses them and its hub agent places nothing
		// of them (pkg/utils/common.go IsReservedNamespace, ShouldPropagateNamespace).
		diags.AddAttributeError(path.Root("name"), "Reserved namespace name",
			fmt.Sprintf("Attribute name: %q starts with fleet- or kube-, which the fleet reserves for itself: such a namespace is never placed on members.", n))
	}
	validateNamespaceMetadata(diags, m, unknown)
	if q := m.ResourceQuota; q != nil && !shared.RelatedToAny(path.Root("resource_quota"), unknown) {
		fields := []struct {
			attr string
			v    types.String
			q    fleetapi.ResourceQuota
		}{
			{"cpu_request", q.CPURequest, fleetapi.ResourceQuota{CPURequest: q.CPURequest.ValueString()}},
			{"cpu_limit", q.CPULimit, fleetapi.ResourceQuota{CPULimit: q.CPULimit.ValueString()}},
			{"memory_request", q.MemoryRequest, fleetapi.ResourceQuota{MemoryRequest: q.MemoryRequest.ValueString()}},
			{"memory_limit", q.MemoryLimit, fleetapi.ResourceQuota{MemoryLimit: q.MemoryLimit.ValueString()}},
		}
		set := 0
		for _, f := range fields {
			if !f.v.IsNull() {
				set++
			}
			if f.v.IsNull() || f.v.IsUnknown() {
				continue
			}
			p := path.Root("resource_quota").AtName(f.attr)
			// The quota's spec.hard as the namespace will carry it (managednamespace.QuotaHard):
			// resource.ParseQuantity, and at least 0.
			if _, err := managednamespace.QuotaHard(f.q); err != nil || f.v.ValueString() == "" {
				why := "an empty string is not a quantity"
				if err != nil {
					why = err.Error()
				}
				diags.AddAttributeError(p, "Invalid quantity", fmt.Sprintf("Attribute %s: %s.", p, why))
			}
		}
		if set == 0 {
			diags.AddAttributeError(path.Root("resource_quota"), "Empty resource quota",
				"Block resource_quota sets no limit: give at least one of cpu_request, cpu_limit, memory_request and memory_limit, or omit the block (no quota is written then).")
		}
	}
	if n := m.NetworkPolicy; n != nil && n.Ingress.IsNull() && n.Egress.IsNull() && !shared.RelatedToAny(path.Root("network_policy"), unknown) {
		diags.AddAttributeError(path.Root("network_policy"), "Empty network policy",
			"Block network_policy sets no rule: give ingress, egress or both, or omit the block (no network policy is written then).")
	}
	validateNamespacePlacement(diags, m.Placement, unknown)
}

// validateNamespaceMetadata checks labels and annotations by the API server's own rules
// (k8s.io/apimachinery ValidateLabels, ValidateAnnotations), each at its key.
func validateNamespaceMetadata(diags *diag.Diagnostics, m *managedNamespaceModel, unknown []path.Path) {
	for _, k := range sortedKeys(m.Labels) {
		p := path.Root("labels").AtMapKey(k)
		if shared.RelatedToAny(p, unknown) {
			continue
		}
		if k == managednamespace.ManagedByLabel {
			diags.AddAttributeError(p, "Reserved label",
				fmt.Sprintf("Attribute %s: Fleet Manager sets the label %s on every managed namespace itself; remove it from labels.", p, k))
			continue
		}
		addFieldErrors(diags, p, "Invalid label", metav1validation.ValidateLabels(map[string]string{k: m.Labels[k]}, field.NewPath("labels")))
	}
	for _, k := range sortedKeys(m.Annotations) {
		p := path.Root("annotations").AtMapKey(k)
		if shared.RelatedToAny(p, unknown) {
			continue
		}
		addFieldErrors(diags, p, "Invalid annotation", apivalidation.ValidateAnnotations(map[string]string{k: m.Annotations[k]}, field.NewPath("annotations")))
	}
	if len(m.Annotations) > 1 && !shared.RelatedToAny(path.Root("annotations"), unknown) {
		// The size limit is on all of them together (apivalidation.TotalAnnotationSizeLimitB).
		for _, e := range apivalidation.ValidateAnnotations(m.Annotations, field.NewPath("annotations")) {
			if e.Type == field.ErrorTypeTooLong {
				diags.AddAttributeError(path.Root("annotations"), "Invalid annotations", fmt.Sprintf("Attribute annotations: %s.", e.ErrorBody()))
			}
		}
	}
}

func addFieldErrors(diags *diag.Diagnostics, p path.Path, summary string, errs field.ErrorList) {
	for _, e := range errs {
		diags.AddAttributeError(p, summary, fmt.Sprintf("Attribute %s: %s.", p, strings.TrimSuffix(e.ErrorBody(), ".")))
	}
}

// validateNamespacePlacement checks the placement block: KubeFleet's rules on its policy
// (validatePlacementPolicy, at the block's paths), and PickFixed's cluster names, which
// KubeFleet accepts empty but then never places (a warning there; an error here, where the
// configuration means a fixed set).
func validateNamespacePlacement(diags *diag.Diagnostics, m *namespacePlacementModel, unknown []path.Path) {
	root := path.Root("placement")
	if m == nil || shared.PathsContain(unknown, root) {
		return
	}
	names := root.AtName("cluster_names")
	if m.PlacementType.ValueString() == string(placementv1.PickFixedPlacementType) && !m.PlacementType.IsUnknown() &&
		len(m.ClusterNames) == 0 && !shared.RelatedToAny(names, unknown) {
		diags.AddAttributeError(names, "Missing cluster names",
			fmt.Sprintf("Attribute %s is required with placement_type PickFixed: the members to place the namespace on.", names))
	}
	var issues []scheduling.Issue
	switch placementv1.PlacementType(m.PlacementType.ValueString()) {
	case placementv1.PickAllPlacementType, placementv1.PickFixedPlacementType:
	default:
		return // the schema's OneOf refuses another type (PickN has no number_of_clusters here)
	}
	if !shared.PathsContain(unknown, root.AtName("placement_type")) {
		for _, is := range scheduling.Validate(m.policy().toAPI()) {
			if len(is.Path) == 1 && is.Path[0].Field == "clusterNames" && is.Severity == scheduling.SeverityWarning {
				continue // the empty PickFixed list: the error above
			}
			issues = append(issues, is)
		}
	}
	addPlacementPolicyIssues(diags, root, m.policy(), issues, unknown)
}

// checkNamespacePlacementImmutable fails a plan that changes what KubeFleet's webhook forbids
// changing in the generated placement's policy (scheduling.ImmutableChanges): its type, and
// existing tolerations. Both policies are the generated placement's (no block: PickAll).
func checkNamespacePlacementImmutable(diags *diag.Diagnostics, old, updated *managedNamespaceModel, unknown []path.Path) {
	oldPolicy, err1 := old.kubeFleetPolicy()
	newPolicy, err2 := updated.kubeFleetPolicy()
	if err1 != nil || err2 != nil {
		return // an adoption policy the schema refuses
	}
	typePath, tolerationsPath := path.Root("placement").AtName("placement_type"), path.Root("placement").AtName("toleration")
	if updated.Placement == nil {
		typePath, tolerationsPath = path.Root("placement"), path.Root("placement")
	}
	for _, is := range scheduling.ImmutableChanges(oldPolicy, newPolicy) {
		switch is.Path.String() {
		case "placementType":
			if shared.RelatedToAny(typePath, unknown) {
				continue
			}
			diags.AddAttributeError(typePath, "Placement type cannot change",
				fmt.Sprintf("Attribute %s: the placement type is immutable (%s → %s): KubeFleet rejects the change of the generated "+
					"placement. To change it, create a managed namespace with another name, or destroy this one first.",
					typePath, oldPolicy.PlacementType, newPolicy.PlacementType))
		case "tolerations":
			if shared.RelatedToAny(tolerationsPath, unknown) {
				continue
			}
			diags.AddAttributeError(tolerationsPath, "Tolerations can only be added",
				fmt.Sprintf("Attribute %s: %s; KubeFleet rejects removing or changing a toleration of the generated placement "+
					"(removed or changed: %s). Keep the existing tolerations and append new ones.",
					tolerationsPath, is.Message, removedTolerations(old.Placement.policy(), updated.Placement.policy())))
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
