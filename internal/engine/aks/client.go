// Package aks reads member clusters from Azure Kubernetes Service
// (Microsoft.ContainerService/managedClusters) with armcontainerservice/v6,
// on the provider's Azure session (same cloud, credential, retry policy and
// Date clock as the Fleet API client).
package aks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
)

var managedClusterTypes = []arm.ResourceType{
	arm.TenantResourceType, arm.SubscriptionResourceType, arm.ResourceGroupResourceType,
	arm.NewResourceType("Microsoft.ContainerService", "managedClusters"),
}

// ClusterID identifies a managed cluster.
type ClusterID struct {
	SubscriptionID    string
	ResourceGroupName string
	Name              string
}

// ParseClusterID parses a managed cluster's resource ID (a fleet member's
// clusterResourceId).
func ParseClusterID(id string) (ClusterID, error) {
	rid, err := arm.ParseResourceID(id)
	if err != nil {
		return ClusterID{}, err
	}
	if err := rid.ValidateResourceTypeChain(managedClusterTypes); err != nil {
		return ClusterID{}, fmt.Errorf("%q is not a managed cluster ID: %w", id, err)
	}
	return ClusterID{SubscriptionID: rid.SubscriptionID, ResourceGroupName: rid.ResourceGroupName, Name: rid.Name}, nil
}

// String is the cluster's resource ID.
func (c ClusterID) String() string {
	return "/subscriptions/" + c.SubscriptionID + "/resourceGroups/" + c.ResourceGroupName +
		"/providers/Microsoft.ContainerService/managedClusters/" + c.Name
}

// Client reads managed clusters in any subscription the credential reaches
// (members may live outside the fleet's subscription).
type Client struct {
	cred           azcore.TokenCredential
	opts           *arm.ClientOptions
	subscriptionID string

	versionsMu sync.Mutex
	versions   map[string][]*armcontainerservice.KubernetesVersion

	imagesMu sync.Mutex
	images   map[string]nodeImagesResult
	raw      *arm.Client

	mu   sync.Mutex
	subs map[string]*subscriptionClients
}

type subscriptionClients struct {
	clusters     *armcontainerservice.ManagedClustersClient
	maintenances *armcontainerservice.MaintenanceConfigurationsClient
}

// NewClient returns a client on the session; the session's subscription is
// the default for location-scoped calls.
func NewClient(s *azure.Session) *Client {
	return NewClientWithOptions(s.SubscriptionID, s.Credential, s.ClientOptions())
}

// NewClientWithOptions returns a client with explicit ARM options (tests).
func NewClientWithOptions(subscriptionID string, cred azcore.TokenCredential, opts *arm.ClientOptions) *Client {
	return &Client{cred: cred, opts: opts, subscriptionID: subscriptionID, subs: map[string]*subscriptionClients{}}
}

func (c *Client) forSubscription(sub string) (*subscriptionClients, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc, ok := c.subs[sub]; ok {
		return sc, nil
	}
	mc, err := armcontainerservice.NewManagedClustersClient(sub, c.cred, c.opts)
	if err != nil {
		return nil, err
	}
	mt, err := armcontainerservice.NewMaintenanceConfigurationsClient(sub, c.cred, c.opts)
	if err != nil {
		return nil, err
	}
	sc := &subscriptionClients{clusters: mc, maintenances: mt}
	c.subs[sub] = sc
	return sc, nil
}

// GetCluster reads a managed cluster (versions, node pools, location).
func (c *Client) GetCluster(ctx context.Context, id ClusterID) (*armcontainerservice.ManagedCluster, error) {
	sc, err := c.forSubscription(id.SubscriptionID)
	if err != nil {
		return nil, err
	}
	resp, err := sc.clusters.Get(ctx, id.ResourceGroupName, id.Name, nil)
	if err != nil {
		return nil, err
	}
	return &resp.ManagedCluster, nil
}

// ListClusters lists the managed clusters of a resource group (Managed
// Clusters - List By Resource Group, GET .../resourceGroups/{rg}/providers/
// Microsoft.ContainerService/managedClusters): one ARM read per page of the
// group's clusters, where GetCluster costs one per cluster. ARM lists are
// read from the resource provider, so they are as current as a GET (Azure
// Resource Graph, the other bulk read, is eventually consistent).
func (c *Client) ListClusters(ctx context.Context, subscriptionID, resourceGroup string) ([]*armcontainerservice.ManagedCluster, error) {
	sc, err := c.forSubscription(subscriptionID)
	if err != nil {
		return nil, err
	}
	var out []*armcontainerservice.ManagedCluster
	pager := sc.clusters.NewListByResourceGroupPager(resourceGroup, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Value...)
	}
	return out, nil
}

// IsForbidden reports a 403 from ARM: the principal may not perform the
// operation (e.g. list a resource group's clusters with rights on single clusters only).
func IsForbidden(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusForbidden
}

// ClusterUserKubeconfig returns the first kubeconfig of
// listClusterUserCredential, as `az aks get-credentials` gets it. Entra
// clusters get the exec (kubelogin) format, which the engine then serves
// with the provider's own Azure credential.
func (c *Client) ClusterUserKubeconfig(ctx context.Context, id ClusterID) ([]byte, error) {
	sc, err := c.forSubscription(id.SubscriptionID)
	if err != nil {
		return nil, err
	}
	resp, err := sc.clusters.ListClusterUserCredentials(ctx, id.ResourceGroupName, id.Name,
		&armcontainerservice.ManagedClustersClientListClusterUserCredentialsOptions{Format: to.Ptr(armcontainerservice.FormatExec)})
	if err != nil {
		return nil, err
	}
	for _, k := range resp.Kubeconfigs {
		if k != nil && len(k.Value) > 0 {
			return k.Value, nil
		}
	}
	return nil, fmt.Errorf("listClusterUserCredential of %s returned no kubeconfig", id)
}

// ListKubernetesVersions lists the Kubernetes versions AKS offers in a
// location (in the session's subscription), once per location and process:
// every preview of a plan reads the same list (a failed read is not kept).
func (c *Client) ListKubernetesVersions(ctx context.Context, location string) ([]*armcontainerservice.KubernetesVersion, error) {
	c.versionsMu.Lock()
	defer c.versionsMu.Unlock()
	if v, ok := c.versions[location]; ok {
		return v, nil
	}
	sc, err := c.forSubscription(c.subscriptionID)
	if err != nil {
		return nil, err
	}
	resp, err := sc.clusters.ListKubernetesVersions(ctx, location, nil)
	if err != nil {
		return nil, err
	}
	if c.versions == nil {
		c.versions = map[string][]*armcontainerservice.KubernetesVersion{}
	}
	c.versions[location] = resp.Values
	return resp.Values, nil
}

// NodeImageVersionsAPIVersion is the api-version of
// locations/nodeImageVersions, which only AKS's preview API versions serve
// (specification/containerservice/.../aks/preview/2025-07-02-preview,
// example NodeImageVersions_List.json); armcontainerservice v6 has no client for it.
const NodeImageVersionsAPIVersion = "2025-07-02-preview"

// NodeImageVersion is one entry of locations/nodeImageVersions: the latest
// version of one node image ("AKSUbuntu-2204gen2containerd-202511.04.0" is
// os AKSUbuntu, sku 2204gen2containerd, version 202511.04.0).
type NodeImageVersion struct {
	FullName string `json:"fullName,omitempty"`
	OS       string `json:"os,omitempty"`
	SKU      string `json:"sku,omitempty"`
	Version  string `json:"version,omitempty"`
}

// NodeImageVersionsListResult is a page of locations/nodeImageVersions.
type NodeImageVersionsListResult struct {
	Value    []NodeImageVersion `json:"value"`
	NextLink string             `json:"nextLink,omitempty"`
}

type nodeImagesResult struct {
	values []NodeImageVersion
	err    error
}

// ListNodeImageVersions lists the latest version of each node image AKS
// offers in a location (GET .../locations/{location}/nodeImageVersions, in
// the session's subscription), once per location and process. A failure is
// kept too: where the API is not served (a cloud without the preview API),
// every preview of a plan falls back the same way after one request.
func (c *Client) ListNodeImageVersions(ctx context.Context, location string) ([]NodeImageVersion, error) {
	c.imagesMu.Lock()
	defer c.imagesMu.Unlock()
	if r, ok := c.images[location]; ok {
		return r.values, r.err
	}
	values, err := c.listNodeImageVersions(ctx, location)
	if ctx.Err() != nil {
		return nil, err // a cancelled read says nothing about the API
	}
	if c.images == nil {
		c.images = map[string]nodeImagesResult{}
	}
	c.images[location] = nodeImagesResult{values, err}
	return values, err
}

func (c *Client) listNodeImageVersions(ctx context.Context, location string) ([]NodeImageVersion, error) {
	if c.raw == nil {
		raw, err := arm.NewClient("aks-nodeimageversions", "v0.0.0", c.cred, c.opts)
		if err != nil {
			return nil, err
		}
		c.raw = raw
	}
	next := runtime.JoinPaths(c.raw.Endpoint(), "/subscriptions/"+url.PathEscape(c.subscriptionID)+
		"/providers/Microsoft.ContainerService/locations/"+url.PathEscape(location)+"/nodeImageVersions") +
		"?api-version=" + NodeImageVersionsAPIVersion
	var out []NodeImageVersion
	for pages := 0; next != ""; pages++ {
		if pages == 100 {
			return nil, fmt.Errorf("nodeImageVersions of %s: more than 100 pages", location)
		}
		req, err := runtime.NewRequest(ctx, http.MethodGet, next)
		if err != nil {
			return nil, err
		}
		req.Raw().Header.Set("Accept", "application/json")
		resp, err := c.raw.Pipeline().Do(req)
		if err != nil {
			return nil, err
		}
		if !runtime.HasStatusCode(resp, http.StatusOK) {
			return nil, runtime.NewResponseError(resp)
		}
		var page NodeImageVersionsListResult
		if err := runtime.UnmarshalAsJSON(resp, &page); err != nil {
			return nil, fmt.Errorf("nodeImageVersions of %s: %w", location, err)
		}
		out = append(out, page.Value...)
		next = page.NextLink
	}
	return out, nil
}

// ListMaintenanceConfigurations lists a cluster's maintenance
// configurations (aksManagedAutoUpgradeSchedule, aksManagedNodeOSUpgradeSchedule, default).
func (c *Client) ListMaintenanceConfigurations(ctx context.Context, id ClusterID) ([]*armcontainerservice.MaintenanceConfiguration, error) {
	sc, err := c.forSubscription(id.SubscriptionID)
	if err != nil {
		return nil, err
	}
	var out []*armcontainerservice.MaintenanceConfiguration
	pager := sc.maintenances.NewListByManagedClusterPager(id.ResourceGroupName, id.Name, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Value...)
	}
	return out, nil
}

// IsNotFound reports a 404 from AKS.
func IsNotFound(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusNotFound
}
