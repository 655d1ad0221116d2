package fleetapi

// Managed namespaces: fleets/managedNamespaces (fleets.json 2026-06-01,
// FleetManagedNamespace and the Placement.V1.* definitions it embeds). The
// placement policy is the API's own subset of KubeFleet's v1 PlacementPolicy
// (PickAll and PickFixed; required cluster affinity; tolerations), kept as
// its own types so a strict body check refuses what ARM does not define;
// namespace_policy.go converts it to and from KubeFleet's.

// FleetManagedNamespace is Microsoft.ContainerService/fleets/managedNamespaces,
// a tracked resource (location and tags).
type FleetManagedNamespace struct {
	Resource
	Location   string                           `json:"location,omitempty"`
	Tags       map[string]string                `json:"tags,omitempty"`
	Properties *FleetManagedNamespaceProperties `json:"properties,omitempty"`
}

// FleetManagedNamespaceProperties: adoptionPolicy and deletePolicy are
// required in a PUT.
type FleetManagedNamespaceProperties struct {
	ProvisioningState          string                      `json:"provisioningState,omitempty"`
	ManagedNamespaceProperties *ManagedNamespaceProperties `json:"managedNamespaceProperties,omitempty"`
	AdoptionPolicy             string                      `json:"adoptionPolicy,omitempty"`
	DeletePolicy               string                      `json:"deletePolicy,omitempty"`
	PropagationPolicy          *PropagationPolicy          `json:"propagationPolicy,omitempty"`
	Status                     *OperationStatus            `json:"status,omitempty"`
	PortalFqdn                 string                      `json:"portalFqdn,omitempty"`
	// PlacedMembers is read-only and preview-only (2026-11-01-preview): "The
	// Fleet members where this managed namespace is currently placed."
	PlacedMembers []string `json:"placedMembers,omitempty"`
}

// ManagedNamespaceProperties is what the namespace carries on each member.
type ManagedNamespaceProperties struct {
	Labels               map[string]string `json:"labels,omitempty"`
	Annotations          map[string]string `json:"annotations,omitempty"`
	DefaultResourceQuota *ResourceQuota    `json:"defaultResourceQuota,omitempty"`
	DefaultNetworkPolicy *NetworkPolicy    `json:"defaultNetworkPolicy,omitempty"`
}

// ResourceQuota holds Kubernetes quantities (the spec gives no pattern).
type ResourceQuota struct {
	CPURequest    string `json:"cpuRequest,omitempty"`
	CPULimit      string `json:"cpuLimit,omitempty"`
	MemoryRequest string `json:"memoryRequest,omitempty"`
	MemoryLimit   string `json:"memoryLimit,omitempty"`
}

// NetworkPolicy: each direction is a PolicyRule; an absent one writes no policy.
type NetworkPolicy struct {
	Ingress string `json:"ingress,omitempty"`
	Egress  string `json:"egress,omitempty"`
}

// PropagationPolicy: type is required and Placement is its only value.
type PropagationPolicy struct {
	Type             string            `json:"type"`
	PlacementProfile *PlacementProfile `json:"placementProfile,omitempty"`
}

type PlacementProfile struct {
	DefaultClusterResourcePlacement *ClusterResourcePlacementSpec `json:"defaultClusterResourcePlacement,omitempty"`
}

// ClusterResourcePlacementSpec is Placement.V1.ClusterResourcePlacementSpec:
// the policy only ("If unspecified, all the joined member clusters are selected").
type ClusterResourcePlacementSpec struct {
	Policy *PlacementPolicy `json:"policy,omitempty"`
}

// PlacementPolicy is Placement.V1.PlacementPolicy.
type PlacementPolicy struct {
	PlacementType string       `json:"placementType,omitempty"`
	ClusterNames  []string     `json:"clusterNames,omitempty"`
	Affinity      *Affinity    `json:"affinity,omitempty"`
	Tolerations   []Toleration `json:"tolerations,omitempty"`
}

type Affinity struct {
	ClusterAffinity *ClusterAffinity `json:"clusterAffinity,omitempty"`
}

type ClusterAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution *ClusterSelector `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// ClusterSelector: the terms are ORed; clusterSelectorTerms is required.
type ClusterSelector struct {
	ClusterSelectorTerms []ClusterSelectorTerm `json:"clusterSelectorTerms"`
}

// ClusterSelectorTerm: label and property selectors are ANDed.
type ClusterSelectorTerm struct {
	LabelSelector    *LabelSelector    `json:"labelSelector,omitempty"`
	PropertySelector *PropertySelector `json:"propertySelector,omitempty"`
}

type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// PropertySelector: matchExpressions is required and ANDed.
type PropertySelector struct {
	MatchExpressions []PropertySelectorRequirement `json:"matchExpressions"`
}

type PropertySelectorRequirement struct {
	Name     string   `json:"name"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

// Toleration is Placement.V1.Toleration (effect: NoSchedule only).
type Toleration struct {
	Key      string `json:"key,omitempty"`
	Operator string `json:"operator,omitempty"`
	Value    string `json:"value,omitempty"`
	Effect   string `json:"effect,omitempty"`
}

// FleetManagedNamespacePatch is the stable PATCH body: tags only.
type FleetManagedNamespacePatch struct {
	Tags map[string]string `json:"tags,omitempty"`
}

// FleetManagedNamespaceListResult is a page of managed namespaces.
type FleetManagedNamespaceListResult struct {
	Value    []FleetManagedNamespace `json:"value"`
	NextLink string                  `json:"nextLink,omitempty"`
}

// The enums of fleets.json.
const (
	AdoptionPolicyNever       = "Never"
	AdoptionPolicyIfIdentical = "IfIdentical"
	AdoptionPolicyAlways      = "Always"
	DeletePolicyKeep          = "Keep"
	DeletePolicyDelete        = "Delete"
	PolicyRuleAllowAll        = "AllowAll"
	PolicyRuleDenyAll         = "DenyAll"
	PolicyRuleAllowSameNS     = "AllowSameNamespace"
	PropagationTypePlacement  = "Placement"
)
