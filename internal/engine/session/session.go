// Package session is the provider's backend session: its connections to the Fleet API, AKS, the
// hub and the member clusters (built on first use, cached for the provider process), the member
// inventory read once per process, the live view of the fleet (View) and the reading of a
// snapshot of it (Read). Previews never see a Session: they receive a view.Fleet.
package session

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	"k8s.io/client-go/rest"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/aks"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/kube"
)

// NotConfiguredError says a backend's provider block is missing. Resources
// turn it into a plan-time error that names the block.
type NotConfiguredError struct {
	// Block is the provider block: "azure", "hub" or "clusters".
	Block string
	// Detail says what was wanted and how to configure it.
	Detail string
}

func (e *NotConfiguredError) Error() string {
	var msg string
	switch e.Block {
	case "azure":
		msg = "the provider's azure block (or ARM_* environment) is not configured"
	case "hub":
		msg = "the provider's hub block (or FLEET_HUB_CONFIG_PATH) is not configured, nor its azure block (or ARM_* environment) to get the hub's credentials from the Fleet API"
	default:
		msg = "the provider's " + e.Block + " block is not configured"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// IsNotConfigured reports a *NotConfiguredError in err's chain.
func IsNotConfigured(err error) bool {
	var e *NotConfiguredError
	return errors.As(err, &e)
}

// ConfigUnknownError says a backend's provider configuration depends on
// values not known until apply; a preview that needs it stays unknown.
type ConfigUnknownError struct {
	Block string
}

func (e *ConfigUnknownError) Error() string {
	return "the provider's " + e.Block + " configuration depends on values known only after apply"
}

// IsConfigUnknown reports a *ConfigUnknownError in err's chain.
func IsConfigUnknown(err error) bool {
	var e *ConfigUnknownError
	return errors.As(err, &e)
}

// Options are what the provider's Configure resolved.
type Options struct {
	// Azure is the ARM session; nil when the azure block is not configured.
	Azure *azure.Session
	// AzureUnknown: the azure block has values unknown at plan.
	AzureUnknown bool
	// DefaultFleet is azure.resource_group_name + fleet_name, if set.
	DefaultFleet *fleetapi.FleetID

	// Hub is the hub's client configuration; nil when the hub block is not
	// configured (then the Fleet API gives it).
	Hub        *rest.Config
	HubUnknown bool

	// Clusters are the configured member clusters by name.
	Clusters map[string]*rest.Config
	// UnknownClusters are clusters whose configuration is unknown at plan;
	// ClustersUnknown means the whole map is.
	UnknownClusters map[string]bool
	ClustersUnknown bool

	// UserAgent of Kubernetes requests.
	UserAgent string
	// Now is the provider's clock (nil: time.Now).
	Now func() time.Time
	// ListLimit is how many per-cluster entries a preview lists (the provider's preview_detail);
	// 0 lists every one. Counts are always complete.
	ListLimit int
	// PreviewDetail is the preview_detail ListLimit comes from, as the facts record it.
	PreviewDetail string
	// FleetAPIVersion is the provider's fleet_api_version (empty: the stable fleetapi.APIVersion).
	FleetAPIVersion string
	// QuietSavedPlans turns off the note that a preview computed without facts breaks a saved
	// plan (the provider's saved_plan_warning = false).
	QuietSavedPlans bool
}

// Session is the backend session handed to resources and data sources. Kubernetes
// clients are built on first use and cached for the provider process; the
// hub's and members' credentials come from the Fleet API and AKS when the
// hub / clusters blocks do not give them.
type Session struct {
	o Options
	*conns
	inv *inventory
}

// inventory is what the fleet's members are, read once per provider process (inventory.go).
type inventory struct {
	hub lazy[[]clusterv1.MemberCluster]
	mu  sync.Mutex
	// members are the members with their clusters; windows their maintenance windows by
	// member name, read as previews need them (windowsSem: one reader per fleet at a time).
	members     map[fleetapi.FleetID]*lazy[[]facts.Member]
	windows     map[fleetapi.FleetID]map[string]memberWindows
	windowsSem  map[fleetapi.FleetID]chan struct{}
	windowReads int
	// planned update groups by fleet and member name: see PlanMemberGroup.
	plannedGroups map[fleetapi.FleetID]map[string]string

	// HubLists counts the hub's MemberCluster list requests (tests assert the bar).
	hubLists int
	// warnings said while reading (InventoryWarnings); reported counts those TakeInventoryWarnings handed out.
	warnings []string
	reported int
}

type memberWindows struct {
	windows map[string]*armcontainerservice.MaintenanceWindow
	err     error
}

// conns are the backend connections.
type conns struct {
	fleetOnce sync.Once
	fleet     *fleetapi.Client
	fleetErr  error
	aksOnce   sync.Once
	aks       *aks.Client

	hub lazy[*kube.Client]
	// hubAPI is the hub's typed client, kept so its discovery of served API versions runs once
	// per process; hubAPIOf is the connection it wraps.
	hubAPI   *hub.Client
	hubAPIOf *kube.Client

	mu       sync.Mutex
	clusters map[string]*lazy[*kube.Client]
	// batchCredentialCalls counts fleets/listMemberCredentials requests (prefetchClusters).
	batchCredentialCalls int

	// noted are the notes said once per provider process (FirstNote).
	noted sync.Map
}

// New returns the bundle for o.
func New(o Options) *Session {
	return &Session{o: o, conns: &conns{clusters: map[string]*lazy[*kube.Client]{}}, inv: &inventory{}}
}

// QuietSavedPlans reports the provider's saved_plan_warning = false.
func (c *Session) QuietSavedPlans() bool { return c.o.QuietSavedPlans }

// FirstNote reports whether this is the first time the provider process (this bundle and its
// pinned views) is asked for the note key: a note meant once per plan, not once per resource.
func (c *Session) FirstNote(key string) bool {
	_, said := c.noted.LoadOrStore(key, true)
	return !said
}

// ListLimit is how many per-cluster entries a preview lists (preview_detail); 0 lists all.
func (c *Session) ListLimit() int {
	return c.o.ListLimit
}

// Now is the provider's clock.
func (c *Session) Now() time.Time {
	if c.o.Now != nil {
		return c.o.Now().UTC()
	}
	return time.Now().UTC()
}

// FleetNow is the Fleet API's current time: the Date of its latest
// response (fleet previews are computed at it), or the provider's clock
// before any response.
func (c *Session) FleetNow() time.Time {
	if c.o.Azure == nil {
		return c.Now()
	}
	return c.o.Azure.Clock.Now(c.Now)
}

func (c *Session) azureSession() (*azure.Session, error) {
	if c.o.AzureUnknown {
		return nil, &ConfigUnknownError{Block: "azure"}
	}
	if c.o.Azure == nil {
		return nil, &NotConfiguredError{Block: "azure"}
	}
	return c.o.Azure, nil
}

// AzureSession is the ARM session (cloud, credential, pipeline options).
func (c *Session) AzureSession() (*azure.Session, error) { return c.azureSession() }

// FleetAPIVersion is the Fleet API version requests are sent with.
func (c *Session) FleetAPIVersion() string {
	if c.o.FleetAPIVersion == "" {
		return fleetapi.APIVersion
	}
	return c.o.FleetAPIVersion
}

// Fleet is the Fleet API client.
func (c *Session) Fleet() (*fleetapi.Client, error) {
	s, err := c.azureSession()
	if err != nil {
		return nil, err
	}
	c.fleetOnce.Do(func() {
		var opts []fleetapi.ClientOption
		if v := c.o.FleetAPIVersion; v != "" {
			opts = append(opts, fleetapi.WithAPIVersion(v))
		}
		c.fleet, c.fleetErr = fleetapi.NewClient(s, opts...)
	})
	return c.fleet, c.fleetErr
}

// AKS is the managed clusters client.
func (c *Session) AKS() (*aks.Client, error) {
	s, err := c.azureSession()
	if err != nil {
		return nil, err
	}
	c.aksOnce.Do(func() { c.aks = aks.NewClient(s) })
	return c.aks, nil
}

// DefaultFleet is the provider's fleet (azure.resource_group_name and
// fleet_name, or FLEET_RESOURCE_GROUP_NAME and FLEET_NAME).
func (c *Session) DefaultFleet() (fleetapi.FleetID, error) {
	if _, err := c.azureSession(); err != nil {
		return fleetapi.FleetID{}, err
	}
	if c.o.DefaultFleet == nil {
		return fleetapi.FleetID{}, &NotConfiguredError{Block: "azure",
			Detail: "no default fleet: set azure.resource_group_name and azure.fleet_name (or FLEET_RESOURCE_GROUP_NAME and FLEET_NAME)"}
	}
	if c.o.DefaultFleet.Name == "" || c.o.DefaultFleet.ResourceGroupName == "" {
		return fleetapi.FleetID{}, &NotConfiguredError{Block: "azure",
			Detail: "no default fleet: set both azure.resource_group_name and azure.fleet_name"}
	}
	return *c.o.DefaultFleet, nil
}

// ResolveFleet parses a resource's fleet_id, or returns the default fleet
// when it is empty.
func (c *Session) ResolveFleet(fleetID string) (fleetapi.FleetID, error) {
	if fleetID == "" {
		f, err := c.DefaultFleet()
		if err != nil && IsNotConfigured(err) && c.o.Azure != nil {
			return f, &NotConfiguredError{Block: "azure",
				Detail: "fleet_id is not set and the provider has no default fleet: set fleet_id, or azure.resource_group_name and azure.fleet_name (or FLEET_RESOURCE_GROUP_NAME and FLEET_NAME)"}
		}
		return f, err
	}
	return fleetapi.ParseFleetID(fleetID)
}

// Hub is the fleet hub's clients: from the hub block, or else from the
// default fleet's listCredentials.
func (c *Session) Hub(ctx context.Context) (*kube.Client, error) {
	if c.o.HubUnknown {
		return nil, &ConfigUnknownError{Block: "hub"}
	}
	return c.hub.get(ctx, func(ctx context.Context) (*kube.Client, error) {
		if c.o.Hub != nil {
			return kube.NewClient(c.o.Hub, c.o.UserAgent)
		}
		if c.o.AzureUnknown {
			return nil, &ConfigUnknownError{Block: "azure"}
		}
		if c.o.Azure == nil {
			return nil, &NotConfiguredError{Block: "hub"}
		}
		fid, err := c.DefaultFleet()
		if err != nil {
			return nil, fmt.Errorf("the provider's hub block is not configured, and the hub's credentials cannot come from the Fleet API: %w", err)
		}
		fc, err := c.Fleet()
		if err != nil {
			return nil, err
		}
		kc, err := fc.ListCredentials(ctx, fid)
		if err != nil {
			return nil, fmt.Errorf("getting the hub's credentials from the Fleet API (listCredentials of %s): %w", fid, err)
		}
		cfg, err := c.fromKubeconfig(kc)
		if err != nil {
			return nil, fmt.Errorf("the hub kubeconfig of fleet %s: %w", fid, err)
		}
		return kube.NewClient(cfg, c.o.UserAgent)
	})
}

// Cluster is a member cluster's clients: from the clusters block, or else
// the fleet member of that name in the default fleet, whose managed
// cluster's user credentials AKS gives.
// HubAPI is the typed KubeFleet client of the hub (Hub's connection).
func (c *Session) HubAPI(ctx context.Context) (*hub.Client, error) {
	kc, err := c.Hub(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hubAPI == nil || c.hubAPIOf != kc {
		c.hubAPI, c.hubAPIOf = hub.New(kc), kc
	}
	return c.hubAPI, nil
}

func (c *Session) Cluster(ctx context.Context, name string) (*kube.Client, error) {
	if name == "" {
		return nil, errors.New("no cluster name given")
	}
	if c.o.ClustersUnknown || c.o.UnknownClusters[name] {
		return nil, &ConfigUnknownError{Block: fmt.Sprintf("clusters[%q]", name)}
	}
	c.mu.Lock()
	l, ok := c.clusters[name]
	if !ok {
		l = &lazy[*kube.Client]{}
		c.clusters[name] = l
	}
	c.mu.Unlock()
	return l.get(ctx, func(ctx context.Context) (*kube.Client, error) {
		if cfg, ok := c.o.Clusters[name]; ok {
			return kube.NewClient(cfg, c.o.UserAgent)
		}
		if c.o.AzureUnknown {
			return nil, &ConfigUnknownError{Block: "azure"}
		}
		if c.o.Azure == nil {
			return nil, &NotConfiguredError{Block: "clusters", Detail: fmt.Sprintf(
				"cluster %q is not the name of a cluster block of the provider, and without the azure block (or ARM_* environment) its credentials cannot come from the Fleet API (configured clusters: %s)",
				name, c.clusterList())}
		}
		fid, err := c.DefaultFleet()
		if err != nil {
			return nil, fmt.Errorf("cluster %q is not the name of a cluster block of the provider, and its credentials cannot come from its fleet member: %w", name, err)
		}
		fc, err := c.Fleet()
		if err != nil {
			return nil, err
		}
		m, err := fc.GetMember(ctx, fid, name)
		if err != nil {
			if fleetapi.IsNotFound(err) {
				return nil, fmt.Errorf("cluster %q is neither the name of a cluster block of the provider (%s) nor a member of fleet %s", name, c.clusterList(), fid)
			}
			return nil, fmt.Errorf("reading fleet member %q: %w", name, err)
		}
		if m.Properties == nil || m.Properties.ClusterResourceID == "" {
			return nil, fmt.Errorf("fleet member %q of %s has no clusterResourceId", name, fid)
		}
		cid, err := aks.ParseClusterID(m.Properties.ClusterResourceID)
		if err != nil {
			return nil, fmt.Errorf("fleet member %q: %w", name, err)
		}
		ac, err := c.AKS()
		if err != nil {
			return nil, err
		}
		kc, err := ac.ClusterUserKubeconfig(ctx, cid)
		if err != nil {
			return nil, fmt.Errorf("getting the credentials of member %q (listClusterUserCredential of %s): %w", name, cid, err)
		}
		cfg, err := c.fromKubeconfig(kc)
		if err != nil {
			return nil, fmt.Errorf("the kubeconfig of member %q: %w", name, err)
		}
		return kube.NewClient(cfg, c.o.UserAgent)
	})
}

// ClusterNames lists the clusters block's keys.
func (c *Session) ClusterNames() []string {
	names := make([]string, 0, len(c.o.Clusters))
	for n := range c.o.Clusters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (c *Session) clusterList() string {
	names := c.ClusterNames()
	if len(names) == 0 {
		return "none"
	}
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", n)
	}
	return s
}

// fromKubeconfig reads a kubeconfig the Fleet API or AKS gave; one that
// wants kubelogin is served with the provider's own Azure credential.
func (c *Session) fromKubeconfig(kc []byte) (*rest.Config, error) {
	cfg, err := kube.FromKubeconfig(kc)
	if err != nil {
		return nil, err
	}
	if serverID, ok := kube.KubeloginServerID(cfg); ok && c.o.Azure != nil {
		cfg = kube.WithAzureToken(cfg, serverID, c.o.Azure.Token)
	}
	if err := kube.CheckServed(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// lazy builds a value once; a failed build is retried by the next caller.
// Waiting for another caller's build honours the context.
type lazy[T any] struct {
	once sync.Once
	sem  chan struct{}
	val  T
	done bool
}

func (l *lazy[T]) get(ctx context.Context, build func(context.Context) (T, error)) (T, error) {
	l.once.Do(func() { l.sem = make(chan struct{}, 1) })
	var zero T
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	defer func() { <-l.sem }()
	if l.done {
		return l.val, nil
	}
	v, err := build(ctx)
	if err != nil {
		return zero, err
	}
	l.val, l.done = v, true
	return v, nil
}
