package placement

import (
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"
	placementv1 "go.goms.io/fleet/apis/placement/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/shared"
)

// fleet_managed_namespace's model and its mapping onto the Fleet API's FleetManagedNamespace
// (fleets.json 2026-06-01): what a PUT sends and what a GET reads back.

type managedNamespaceModel struct {
	ID             types.String                 `tfsdk:"id"`
	FleetID        types.String                 `tfsdk:"fleet_id"`
	Name           types.String                 `tfsdk:"name"`
	Location       types.String                 `tfsdk:"location"`
	Tags           map[string]string            `tfsdk:"tags"`
	Labels         map[string]string            `tfsdk:"labels"`
	Annotations    map[string]string            `tfsdk:"annotations"`
	AdoptionPolicy types.String                 `tfsdk:"adoption_policy"`
	DeletePolicy   types.String                 `tfsdk:"delete_policy"`
	ResourceQuota  *namespaceQuotaModel         `tfsdk:"resource_quota"`
	NetworkPolicy  *namespaceNetworkPolicyModel `tfsdk:"network_policy"`
	Placement      *namespacePlacementModel     `tfsdk:"placement"`
	Timeouts       timeouts.Value               `tfsdk:"timeouts"`
	Facts          types.String                 `tfsdk:"facts"`
	Provisioning   types.String                 `tfsdk:"provisioning_state"`
	PortalFQDN     types.String                 `tfsdk:"portal_fqdn"`
	StatusMessage  types.String                 `tfsdk:"status_message"`
	PlacedMembers  types.List                   `tfsdk:"placed_members"`
	Objects        types.List                   `tfsdk:"objects"`
	Preview        types.Object                 `tfsdk:"preview"`
}

// FleetAndTimeouts is what backend.FleetOp reads of the model.
func (m managedNamespaceModel) FleetAndTimeouts() (types.String, timeouts.Value) {
	return m.FleetID, m.Timeouts
}

type namespaceQuotaModel struct {
	CPURequest    types.String `tfsdk:"cpu_request"`
	CPULimit      types.String `tfsdk:"cpu_limit"`
	MemoryRequest types.String `tfsdk:"memory_request"`
	MemoryLimit   types.String `tfsdk:"memory_limit"`
}

type namespaceNetworkPolicyModel struct {
	Ingress types.String `tfsdk:"ingress"`
	Egress  types.String `tfsdk:"egress"`
}

// namespacePlacementModel is the `placement` block: the Fleet API's subset of KubeFleet's policy
// (Placement.V1.PlacementPolicy: PickAll or PickFixed, required terms, tolerations).
type namespacePlacementModel struct {
	PlacementType            types.String        `tfsdk:"placement_type"`
	ClusterNames             []string            `tfsdk:"cluster_names"`
	RequiredClusterSelectors []requiredTermModel `tfsdk:"required_cluster_selector"`
	Tolerations              []tolerationModel   `tfsdk:"toleration"`
}

// policy is the block as fleet_placement's policy model, so that both are validated, written
// and compared by the same code (validatePlacementPolicy, toAPI, placementPolicyFromAPI).
func (m *namespacePlacementModel) policy() *policyModel {
	if m == nil {
		return nil
	}
	return &policyModel{
		PlacementType: m.PlacementType, ClusterNames: m.ClusterNames, NumberOfClusters: types.Int64Null(),
		RequiredClusterSelectors: m.RequiredClusterSelectors, Tolerations: m.Tolerations,
	}
}

// namespacePlacementFromPolicy is the block of a policy read back (nil: no block).
func namespacePlacementFromPolicy(p *policyModel) *namespacePlacementModel {
	if p == nil {
		return nil
	}
	return &namespacePlacementModel{PlacementType: p.PlacementType, ClusterNames: p.ClusterNames,
		RequiredClusterSelectors: p.RequiredClusterSelectors, Tolerations: p.Tolerations}
}

// namespaceProperties is what the namespace carries on each member; nil when the configuration
// gives none of it.
func (m *managedNamespaceModel) namespaceProperties() *fleetapi.ManagedNamespaceProperties {
	p := &fleetapi.ManagedNamespaceProperties{Labels: maps.Clone(m.Labels), Annotations: maps.Clone(m.Annotations)}
	if q := m.ResourceQuota; q != nil {
		p.DefaultResourceQuota = &fleetapi.ResourceQuota{
			CPURequest: q.CPURequest.ValueString(), CPULimit: q.CPULimit.ValueString(),
			MemoryRequest: q.MemoryRequest.ValueString(), MemoryLimit: q.MemoryLimit.ValueString(),
		}
	}
	if n := m.NetworkPolicy; n != nil {
		p.DefaultNetworkPolicy = &fleetapi.NetworkPolicy{Ingress: n.Ingress.ValueString(), Egress: n.Egress.ValueString()}
	}
	if p.Labels == nil && p.Annotations == nil && p.DefaultResourceQuota == nil && p.DefaultNetworkPolicy == nil {
		return nil
	}
	return p
}

// propagation is the propagation policy: always the Placement type ("Default is Placement"),
// with the placement block's policy when there is one (none: the generated placement picks every
// joined member, "If unspecified, all the joined member clusters are selected").
func (m *managedNamespaceModel) propagation() *fleetapi.PropagationPolicy {
	pp := &fleetapi.PropagationPolicy{Type: fleetapi.PropagationTypePlacement}
	if m.Placement != nil {
		pp.PlacementProfile = &fleetapi.PlacementProfile{DefaultClusterResourcePlacement: &fleetapi.ClusterResourcePlacementSpec{
			Policy: fleetapi.PlacementPolicyFromKubeFleet(m.Placement.policy().toAPI()),
		}}
	}
	return pp
}

// toAPI is the body of the PUT.
func (m *managedNamespaceModel) toAPI() fleetapi.FleetManagedNamespace {
	return fleetapi.FleetManagedNamespace{
		Location: m.Location.ValueString(),
		Tags:     maps.Clone(m.Tags),
		Properties: &fleetapi.FleetManagedNamespaceProperties{
			ManagedNamespaceProperties: m.namespaceProperties(),
			AdoptionPolicy:             m.AdoptionPolicy.ValueString(),
			DeletePolicy:               m.DeletePolicy.ValueString(),
			PropagationPolicy:          m.propagation(),
		},
	}
}

// kubeFleetPolicy is the policy the generated ClusterResourcePlacement will have
// (managednamespace.Placement: none is PickAll): what the preview schedules.
func (m *managedNamespaceModel) kubeFleetPolicy() (*placementv1.PlacementPolicy, error) {
	body := m.toAPI()
	crp, err := managednamespace.Placement("", m.Name.ValueString(), body.Properties)
	if err != nil {
		return nil, err
	}
	return crp.Spec.Policy, nil
}

// setFromAPI reads a managed namespace as the Fleet API returns it into m, which holds the prior
// state (on import, only the key): what the configuration writes, and the computed attributes.
func (m *managedNamespaceModel) setFromAPI(got *fleetapi.FleetManagedNamespace) {
	if got.Location != "" && !sameLocation(m.Location.ValueString(), got.Location) {
		m.Location = types.StringValue(got.Location)
	}
	m.Tags = keepEmpty(m.Tags, got.Tags)
	p := got.Properties
	if p == nil {
		p = &fleetapi.FleetManagedNamespaceProperties{}
	}
	ns := p.ManagedNamespaceProperties
	if ns == nil {
		ns = &fleetapi.ManagedNamespaceProperties{}
	}
	labels := maps.Clone(ns.Labels)
	delete(labels, managednamespace.ManagedByLabel) // reserved: the configuration cannot set it (validateNamespaceMetadata)
	m.Labels = keepEmpty(m.Labels, labels)
	m.Annotations = keepEmpty(m.Annotations, ns.Annotations)
	m.ResourceQuota = nil
	if q := ns.DefaultResourceQuota; q != nil {
		m.ResourceQuota = &namespaceQuotaModel{CPURequest: shared.StringOrNull(q.CPURequest), CPULimit: shared.StringOrNull(q.CPULimit),
			MemoryRequest: shared.StringOrNull(q.MemoryRequest), MemoryLimit: shared.StringOrNull(q.MemoryLimit)}
	}
	m.NetworkPolicy = nil
	if n := ns.DefaultNetworkPolicy; n != nil {
		m.NetworkPolicy = &namespaceNetworkPolicyModel{Ingress: shared.StringOrNull(n.Ingress), Egress: shared.StringOrNull(n.Egress)}
	}
	// The spec's defaults ("Default is Never", "Default is Keep") for a body that left them out.
	m.AdoptionPolicy = types.StringValue(fleetapi.AdoptionPolicyNever)
	if p.AdoptionPolicy != "" {
		m.AdoptionPolicy = types.StringValue(p.AdoptionPolicy)
	}
	m.DeletePolicy = types.StringValue(fleetapi.DeletePolicyKeep)
	if p.DeletePolicy != "" {
		m.DeletePolicy = types.StringValue(p.DeletePolicy)
	}
	m.Placement = nil
	if pp := p.PropagationPolicy; pp != nil && pp.PlacementProfile != nil && pp.PlacementProfile.DefaultClusterResourcePlacement != nil {
		if pol := pp.PlacementProfile.DefaultClusterResourcePlacement.Policy; pol != nil {
			m.Placement = namespacePlacementFromPolicy(placementPolicyFromAPI(pol.ToKubeFleet()))
		}
	}
	m.Provisioning = shared.StringOrNull(p.ProvisioningState)
	m.PortalFQDN = shared.StringOrNull(p.PortalFqdn)
	m.StatusMessage = types.StringNull()
	if s := p.Status; s != nil && s.LastOperationError != nil {
		m.StatusMessage = shared.StringOrNull(s.LastOperationError.Message)
	}
}

// sameLocation compares Azure locations as ARM does: "East US" is eastus (azurerm's
// location.Normalize).
func sameLocation(a, b string) bool {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "")) }
	return norm(a) == norm(b)
}

// keepEmpty is a map read back: an empty one keeps the prior value's shape (`labels = {}` in the
// configuration reads back as {}, an unset one as null).
func keepEmpty(prior, got map[string]string) map[string]string {
	if len(got) == 0 {
		if prior != nil && len(prior) == 0 {
			return prior
		}
		return nil
	}
	return maps.Clone(got)
}
