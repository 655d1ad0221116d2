package placement

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_resource_placement: KubeFleet's namespace-scoped ResourcePlacement
// (placement.kubernetes-fleet.io/v1 since v0.17.9). It is placementResource with the namespaced
// scope (placement_scope.go); this file holds only what differs: the namespace, resource
// selectors of namespaced kinds, the id <namespace>/<name>, and the model's mapping.

// resourcePlacementNamespaceRe: a namespace is an RFC 1123 label.
var resourcePlacementNamespaceRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// resourcePlacementSchema turns fleet_placement's schema into fleet_resource_placement's.
func resourcePlacementSchema(s *rschema.Schema) {
	s.Description = "A ResourcePlacement on the fleet hub (KubeFleet `placement.kubernetes-fleet.io/v1`, namespaced, since v0.17.9): " +
		"which resources of one hub namespace go to which member clusters, what application teams use without cluster-wide " +
		"rights. The same policy, strategy, preview, status and snapshot attributes as `fleet_placement`, computed by the same " +
		"code: the plan's `preview` shows which clusters KubeFleet's scheduler will pick (v0.18.9 schedules both kinds with one " +
		"scheduler), in which order and with which scores, and why every other cluster is left out. Resource selectors name " +
		"namespaced kinds, selected in the placement's namespace; the placement does not carry the namespace itself: place " +
		"it with a `fleet_placement` of the Namespace with `selection_scope = \"NamespaceOnly\"` (a platform team's job). Changing `policy.placement_type` or removing a toleration fails at plan, as KubeFleet rejects both."
	s.Attributes["id"] = shared.IDAttribute("`<namespace>/<name>`.")
	s.Attributes["namespace"] = shared.ReplacingAttribute("The hub namespace of the ResourcePlacement (it must exist): the namespace whose resources it selects. "+
		"Changing it replaces the placement.", stringvalidator.LengthBetween(1, 63),
		stringvalidator.RegexMatches(resourcePlacementNamespaceRe, "must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit"))
	if name, ok := s.Attributes["name"].(rschema.StringAttribute); ok {
		name.Description = "The ResourcePlacement's name: a DNS subdomain of at most 63 characters. Changing it replaces the placement."
		s.Attributes["name"] = name
	}
	selectors := placementResourceSelectorBlock()
	selectors.Description = "Required. Namespaced resources of the placement's namespace to place: ConfigMaps, Deployments, Services, ... " +
		"Repeat the block for more (ORed, 1 to 100). A ResourcePlacement cannot select cluster-scoped kinds such as Namespace " +
		"(KubeFleet rejects them; checked at validate for Namespace and at plan against the hub's API for the others)."
	attrs := map[string]rschema.Attribute{}
	for k, v := range selectors.NestedObject.Attributes {
		if k != "selection_scope" {
			attrs[k] = v
		}
	}
	if kind, ok := attrs["kind"].(rschema.StringAttribute); ok {
		kind.Description = "The kind, e.g. `ConfigMap`: a namespaced kind."
		attrs["kind"] = kind
	}
	selectors.NestedObject.Attributes = attrs
	s.Blocks["resource_selector"] = selectors
	if latest, ok := s.Attributes["latest_resource_snapshot_index"].(rschema.StringAttribute); ok {
		latest.Description = strings.Replace(latest.Description, "ClusterResourceSnapshot", "ResourceSnapshot", 1)
		s.Attributes["latest_resource_snapshot_index"] = latest
	}
}

// validateNamespacedSelectors refuses, at validate, what a ResourcePlacement cannot select that
// needs no hub: the Namespace kind, which is cluster-scoped (KubeFleet v0.18.9 refuses a
// cluster-scoped kind in a ResourcePlacement: pkg/utils/validator/placement.go, validatePlacement
// with isClusterScoped false).
func validateNamespacedSelectors(diags *diag.Diagnostics, selectors []resourceSelectorModel, unknown []path.Path) {
	for i, s := range selectors {
		p := path.Root("resource_selector").AtListIndex(i).AtName("kind")
		if shared.RelatedToAny(p, unknown) || shared.RelatedToAny(path.Root("resource_selector").AtListIndex(i).AtName("group"), unknown) {
			continue
		}
		if s.Group.ValueString() == "" && s.Kind.ValueString() == "Namespace" {
			diags.AddAttributeError(p, "Cluster-scoped kind in a ResourcePlacement",
				fmt.Sprintf("Attribute %s: a ResourcePlacement selects namespaced resources of its own namespace; Namespace is "+
					"cluster-scoped, which KubeFleet rejects. To place the namespace, use a fleet_placement of it with "+
					"selection_scope = \"NamespaceOnly\".", p))
		}
	}
}

// checkSelectedKinds refuses, at plan, a selector whose kind the hub does not serve, or serves in the
// other scope: KubeFleet v0.18.9's resource selector resolver turns both into the placement's
// InvalidResourceSelectors condition (pkg/utils/controller/resource_selector_resolver.go,
// fetchResources: "failed to get GVR of the selector", "cannot select namespace-scoped resource … in
// a clusterResourcePlacement", "cannot select cluster-scoped resource … in a resourcePlacement").
// Namespaces are the cluster scope's own selector and are left to the schema.
func checkSelectedKinds(diags *diag.Diagnostics, hc *hub.Client, selectors []resourceSelectorModel, unknown []path.Path, namespaced bool) {
	if hc.Kubernetes() == nil {
		return
	}
	disc := hc.Kubernetes().Discovery()
	for i, s := range selectors {
		p := path.Root("resource_selector").AtListIndex(i)
		if shared.RelatedToAny(p.AtName("kind"), unknown) || shared.RelatedToAny(p.AtName("group"), unknown) || shared.RelatedToAny(p.AtName("version"), unknown) {
			continue
		}
		gv := schema.GroupVersion{Group: s.Group.ValueString(), Version: s.Version.ValueString()}
		kind := s.Kind.ValueString()
		if !namespaced && gv.Group == "" && kind == "Namespace" {
			continue
		}
		rl, err := disc.ServerResourcesForGroupVersion(gv.String())
		if err != nil && !hub.IsNotFound(err) {
			diags.AddAttributeWarning(p, "Cannot check the selected kind",
				fmt.Sprintf("Attribute %s: reading the hub's %s API failed (%v); if the hub does not serve %s there, the hub agent will not place it.", p, gv, err, kind))
			continue
		}
		found, isNamespaced := false, false
		if err == nil {
			for _, r := range rl.APIResources {
				if r.Kind == kind && !strings.Contains(r.Name, "/") {
					found, isNamespaced = true, r.Namespaced
					break
				}
			}
		}
		switch {
		case !found:
			diags.AddAttributeError(p.AtName("kind"), "Kind not served by the hub",
				fmt.Sprintf("Attribute %s: the hub serves no kind %s in %s, so KubeFleet cannot select it (the placement would report InvalidResourceSelectors). Check group, version and kind.", p.AtName("kind"), kind, gv))
		case namespaced && !isNamespaced:
			diags.AddAttributeError(p.AtName("kind"), "Cluster-scoped kind in a ResourcePlacement",
				fmt.Sprintf("Attribute %s: %s (%s) is cluster-scoped; a ResourcePlacement selects namespaced resources of its own namespace, and KubeFleet rejects it. Use fleet_placement for cluster-scoped resources.", p.AtName("kind"), kind, gv))
		case !namespaced && isNamespaced:
			diags.AddAttributeError(p.AtName("kind"), "Namespaced kind in a fleet_placement",
				fmt.Sprintf("Attribute %s: %s (%s) is namespaced; a ClusterResourcePlacement selects cluster-scoped resources and namespaces (with everything in them), and KubeFleet rejects it. Select its namespace, or use fleet_resource_placement.", p.AtName("kind"), kind, gv))
		}
	}
}

// namespaceCollectionCondition is the member condition saying its agent reports the member's
// namespaces (pkg/propertyprovider/commons.go, NamespaceCollectionSucceededCondType).
const namespaceCollectionCondition = "NamespaceCollectionSucceeded"

// warnNamespaceCollection warns, once, when members report namespace collection: KubeFleet
// v0.18.9's scheduler then leaves out, for a ResourcePlacement, every such member that lacks its
// namespace (pkg/scheduler/framework/plugins/namespaceaffinity/filtering.go), which the preview
// does not model. Members without the condition are not filtered (the plugin skips them), so
// on fleets without namespace collection the preview is exact.
func warnNamespaceCollection(ctx context.Context, diags *diag.Diagnostics, v view.Fleet, namespace string) {
	members, err := v.HubMemberClusters(ctx)
	if err != nil {
		return // the preview has reported it
	}
	if w := namespaceCollectionWarning(members, namespace); w != "" {
		diags.AddAttributeWarning(path.Root("preview"), "Preview may list clusters without the namespace", w)
	}
}

// namespaceCollectionWarning is warnNamespaceCollection's text, "" when no member reports namespaces.
func namespaceCollectionWarning(members []clusterv1.MemberCluster, namespace string) string {
	var names []string
	for i := range members {
		if meta.FindStatusCondition(members[i].Status.Conditions, namespaceCollectionCondition) != nil {
			names = append(names, members[i].Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	first := names[:min(len(names), 3)]
	more := ""
	if len(names) > len(first) {
		more = ", …"
	}
	return fmt.Sprintf("%d member cluster(s) report their namespaces (%s%s): KubeFleet's scheduler does not pick, for a ResourcePlacement, "+
		"a cluster that reports namespaces without %q; the preview does not check that. Place the namespace on the clusters first "+
		"(a fleet_placement of it with selection_scope = \"NamespaceOnly\").", len(names), strings.Join(first, ", "), more, namespace)
}

// importResourcePlacement imports a ResourcePlacement by <namespace>/<name>.
func importResourcePlacement(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ns, name, ok := strings.Cut(req.ID, "/")
	if !ok || len(ns) > 63 || !resourcePlacementNamespaceRe.MatchString(ns) || len(name) > 63 || !shared.DNSSubdomainRe.MatchString(name) {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected <namespace>/<name> of a ResourcePlacement on the fleet hub "+
			"(a namespace and a DNS subdomain of at most 63 characters), got %q.", req.ID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

// ---- models ----

// resourcePlacementModel is fleet_resource_placement's model: placementModel with the namespace
// and selectors without selection_scope. The shared implementation works on placementModel.
type resourcePlacementModel struct {
	ID                   types.String              `tfsdk:"id"`
	Namespace            types.String              `tfsdk:"namespace"`
	Name                 types.String              `tfsdk:"name"`
	ResourceSelectors    []namespacedSelectorModel `tfsdk:"resource_selector"`
	Policy               *policyModel              `tfsdk:"policy"`
	Strategy             *placementStrategyModel   `tfsdk:"strategy"`
	ApplyStrategy        *applyStrategyModel       `tfsdk:"apply_strategy"`
	RevisionHistoryLimit types.Int64               `tfsdk:"revision_history_limit"`
	WaitForRollout       types.Bool                `tfsdk:"wait_for_rollout"`
	Timeouts             timeouts.Value            `tfsdk:"timeouts"`
	Facts                types.String              `tfsdk:"facts"`
	Preview              types.Object              `tfsdk:"preview"`
	Status               types.Object              `tfsdk:"status"`
	LatestResourceIndex  types.String              `tfsdk:"latest_resource_snapshot_index"`
	ResourceSnapshots    types.List                `tfsdk:"resource_snapshots"`
}

type namespacedSelectorModel struct {
	Group         types.String                 `tfsdk:"group"`
	Version       types.String                 `tfsdk:"version"`
	Kind          types.String                 `tfsdk:"kind"`
	Name          types.String                 `tfsdk:"name"`
	LabelSelector *placementLabelSelectorModel `tfsdk:"label_selector"`
}

// shared is the model the shared implementation works on.
func (m *resourcePlacementModel) shared() placementModel {
	out := placementModel{
		ID: m.ID, Namespace: m.Namespace, Name: m.Name, Policy: m.Policy, Strategy: m.Strategy, ApplyStrategy: m.ApplyStrategy,
		RevisionHistoryLimit: m.RevisionHistoryLimit, WaitForRollout: m.WaitForRollout, Timeouts: m.Timeouts,
		Facts: m.Facts, Preview: m.Preview, Status: m.Status, LatestResourceIndex: m.LatestResourceIndex, ResourceSnapshots: m.ResourceSnapshots,
	}
	if m.ResourceSelectors != nil {
		out.ResourceSelectors = make([]resourceSelectorModel, 0, len(m.ResourceSelectors))
	}
	for _, s := range m.ResourceSelectors {
		out.ResourceSelectors = append(out.ResourceSelectors, resourceSelectorModel{
			Group: s.Group, Version: s.Version, Kind: s.Kind, Name: s.Name, LabelSelector: s.LabelSelector,
			SelectionScope: types.StringNull(),
		})
	}
	return out
}

// resourcePlacementModelOf is the shared model as fleet_resource_placement's.
func resourcePlacementModelOf(m *placementModel) *resourcePlacementModel {
	out := &resourcePlacementModel{
		ID: m.ID, Namespace: m.Namespace, Name: m.Name, Policy: m.Policy, Strategy: m.Strategy, ApplyStrategy: m.ApplyStrategy,
		RevisionHistoryLimit: m.RevisionHistoryLimit, WaitForRollout: m.WaitForRollout, Timeouts: m.Timeouts,
		Facts: m.Facts, Preview: m.Preview, Status: m.Status, LatestResourceIndex: m.LatestResourceIndex, ResourceSnapshots: m.ResourceSnapshots,
	}
	if m.ResourceSelectors != nil {
		out.ResourceSelectors = make([]namespacedSelectorModel, 0, len(m.ResourceSelectors))
	}
	for _, s := range m.ResourceSelectors {
		out.ResourceSelectors = append(out.ResourceSelectors, namespacedSelectorModel{
			Group: s.Group, Version: s.Version, Kind: s.Kind, Name: s.Name, LabelSelector: s.LabelSelector,
		})
	}
	return out
}
