// Package fleetapi is the client of the Azure Kubernetes Fleet Manager
// resource provider (Microsoft.ContainerService/fleets/*) and the models of
// its api-version 2026-06-01, written against the official spec
// (internal/engine/fleetapi/openapi/fleets.json, from azure-rest-api-specs) because no generated
// SDK covers that version. The local fleet's emulator serves the same types.
package fleetapi

import "time"

// APIVersion is the Fleet API version every request carries.
const APIVersion = "2026-06-01"

// SystemData is ARM's common systemData.
type SystemData struct {
	CreatedBy          string     `json:"createdBy,omitempty"`
	CreatedByType      string     `json:"createdByType,omitempty"`
	CreatedAt          *time.Time `json:"createdAt,omitempty"`
	LastModifiedBy     string     `json:"lastModifiedBy,omitempty"`
	LastModifiedByType string     `json:"lastModifiedByType,omitempty"`
	LastModifiedAt     *time.Time `json:"lastModifiedAt,omitempty"`
}

// Resource holds the fields every ARM resource shares.
type Resource struct {
	ID         string      `json:"id,omitempty"`
	Name       string      `json:"name,omitempty"`
	Type       string      `json:"type,omitempty"`
	SystemData *SystemData `json:"systemData,omitempty"`
	ETag       string      `json:"eTag,omitempty"`
}

// ErrorDetail is common-types v5 ErrorDetail.
type ErrorDetail struct {
	Code           string                `json:"code,omitempty"`
	Message        string                `json:"message,omitempty"`
	Target         string                `json:"target,omitempty"`
	Details        []ErrorDetail         `json:"details,omitempty"`
	AdditionalInfo []ErrorAdditionalInfo `json:"additionalInfo,omitempty"`
}

type ErrorAdditionalInfo struct {
	Type string `json:"type,omitempty"`
	Info any    `json:"info,omitempty"`
}

// ErrorResponse is ARM's error envelope.
type ErrorResponse struct {
	Error *ErrorDetail `json:"error,omitempty"`
}

// Fleet is Microsoft.ContainerService/fleets.
type Fleet struct {
	Resource
	Location   string            `json:"location,omitempty"`
	Tags       map[string]string `json:"tags,omitempty"`
	Properties *FleetProperties  `json:"properties,omitempty"`
	Identity   *ManagedIdentity  `json:"identity,omitempty"`
}

type ManagedIdentity struct {
	Type                   string         `json:"type,omitempty"`
	PrincipalID            string         `json:"principalId,omitempty"`
	TenantID               string         `json:"tenantId,omitempty"`
	UserAssignedIdentities map[string]any `json:"userAssignedIdentities,omitempty"`
}

type FleetProperties struct {
	ProvisioningState string           `json:"provisioningState,omitempty"`
	HubProfile        *FleetHubProfile `json:"hubProfile,omitempty"`
	Status            *OperationStatus `json:"status,omitempty"`
}

type FleetHubProfile struct {
	DNSPrefix              string                  `json:"dnsPrefix,omitempty"`
	APIServerAccessProfile *APIServerAccessProfile `json:"apiServerAccessProfile,omitempty"`
	AgentProfile           *AgentProfile           `json:"agentProfile,omitempty"`
	Fqdn                   string                  `json:"fqdn,omitempty"`
	KubernetesVersion      string                  `json:"kubernetesVersion,omitempty"`
	PortalFqdn             string                  `json:"portalFqdn,omitempty"`
}

type APIServerAccessProfile struct {
	EnablePrivateCluster  *bool  `json:"enablePrivateCluster,omitempty"`
	EnableVnetIntegration *bool  `json:"enableVnetIntegration,omitempty"`
	SubnetID              string `json:"subnetId,omitempty"`
}

type AgentProfile struct {
	SubnetID string `json:"subnetId,omitempty"`
	VMSize   string `json:"vmSize,omitempty"`
}

// OperationStatus is the status of fleets and members.
type OperationStatus struct {
	LastOperationID    string       `json:"lastOperationId,omitempty"`
	LastOperationError *ErrorDetail `json:"lastOperationError,omitempty"`
}

// FleetMember is Microsoft.ContainerService/fleets/members.
type FleetMember struct {
	Resource
	Properties *FleetMemberProperties `json:"properties,omitempty"`
}

type FleetMemberProperties struct {
	ClusterResourceID string            `json:"clusterResourceId,omitempty"`
	Group             string            `json:"group,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	ProvisioningState string            `json:"provisioningState,omitempty"`
	Status            *OperationStatus  `json:"status,omitempty"`
	// MeshProperties (2026-11-01-preview, read-only) is parsed only, so that
	// a preview member strict-decodes; the provider does not use cluster meshes.
	MeshProperties *MeshProperties `json:"meshProperties,omitempty"`
}

// MeshProperties is fleets.json MeshProperties (2026-11-01-preview).
type MeshProperties struct {
	CiliumProperties             *CiliumProperties `json:"ciliumProperties,omitempty"`
	Status                       *MeshMemberStatus `json:"status,omitempty"`
	ClusterMeshProfileResourceID string            `json:"clusterMeshProfileResourceId,omitempty"`
}

// CiliumProperties is the Cilium cluster ID (1–255) and name Fleet assigns.
type CiliumProperties struct {
	ID   int32  `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// MeshMemberStatus is fleets.json MeshMemberStatus.
type MeshMemberStatus struct {
	State           string       `json:"state,omitempty"`
	LastUpdatedAt   *time.Time   `json:"lastUpdatedAt,omitempty"`
	LastOperationID string       `json:"lastOperationId,omitempty"`
	Error           *ErrorDetail `json:"error,omitempty"`
}

// FleetMemberListResult is a page of members.
type FleetMemberListResult struct {
	Value    []FleetMember `json:"value"`
	NextLink string        `json:"nextLink,omitempty"`
}

// FleetCredentialResults is the answer of fleets/listCredentials.
type FleetCredentialResults struct {
	Kubeconfigs []FleetCredentialResult `json:"kubeconfigs,omitempty"`
}

// FleetCredentialResult carries one kubeconfig; Value is base64 in JSON.
type FleetCredentialResult struct {
	Name  string `json:"name,omitempty"`
	Value []byte `json:"value,omitempty"`
}

// FleetMemberCredentialRequest is the body of listMemberCredentials
// (fleets.json 2026-11-01-preview, the fleet's and a managed namespace's):
// no member names select every member; ContinuationToken is the previous
// page's.
type FleetMemberCredentialRequest struct {
	MemberNames       []string `json:"memberNames,omitempty"`
	MaxPageSize       *int32   `json:"maxPageSize,omitempty"`
	ContinuationToken string   `json:"continuationToken,omitempty"`
}

// FleetMemberCredentialResults is a page of listMemberCredentials; a
// ContinuationToken means more pages.
type FleetMemberCredentialResults struct {
	Value             []FleetMemberCredentialResult `json:"value"`
	ContinuationToken string                        `json:"continuationToken,omitempty"`
}

// FleetMemberCredentialStatus is fleets.json FleetMemberCredentialStatus.
type FleetMemberCredentialStatus string

const (
	MemberCredentialSucceeded FleetMemberCredentialStatus = "Succeeded"
	MemberCredentialFailed    FleetMemberCredentialStatus = "Failed"
)

// FleetMemberCredentialResult is one member's answer: a kubeconfig when
// Succeeded, an error when Failed. Kubeconfig is base64 text (the spec types
// it a string of format password, not bytes): DecodeKubeconfig decodes it.
type FleetMemberCredentialResult struct {
	Name       string                      `json:"name"`
	Status     FleetMemberCredentialStatus `json:"status"`
	Kubeconfig string                      `json:"kubeconfig,omitempty"`
	Error      *ErrorDetail                `json:"error,omitempty"`
}
