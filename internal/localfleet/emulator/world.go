package emulator

import (
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
	"sigs.k8s.io/yaml"
)

// world is everything the emulated Fleet API knows, behind one mutex: the
// ARM resources (fleet, members, later strategies and runs), the members'
// managed clusters (whose versions and node images update runs change) and
// the long-running operations.
type world struct {
	mu       sync.Mutex
	file     *fleetfile.File
	clock    *simclock.Clock
	store    *store
	clusters map[string]*cluster // by lower-cased name
	order    []string            // cluster names in fleet file order
	ops      map[string]*operation
	// retryAfter is the Retry-After (seconds) of running operations' answers.
	retryAfter int
}

// cluster is the state of one member's AKS managed cluster.
type cluster struct {
	Name     string
	Location string
	// KubernetesVersion is the version asked for; CurrentKubernetesVersion the
	// one running (they differ while an upgrade runs).
	KubernetesVersion        string
	CurrentKubernetesVersion string
	ProvisioningState        string
	PowerState               string
	NodePools                []*nodePool
	MaintenanceWindow        *fleetfile.MaintenanceWindow // aksManagedAutoUpgradeSchedule
	NodeOSMaintenanceWindow  *fleetfile.MaintenanceWindow // aksManagedNodeOSUpgradeSchedule
	ETag                     string
}

type nodePool struct {
	Name                       string
	Count                      int
	Mode                       string // System or User
	NodeImage                  string // "<os sku>-<version>", as AKS reports nodeImageVersion
	OrchestratorVersion        string
	CurrentOrchestratorVersion string
	ETag                       string
}

func newWorld(f *fleetfile.File, clock *simclock.Clock, hubKubeconfig []byte, hubVersion string) *world {
	w := &world{file: f, clock: clock, store: newStore(), clusters: map[string]*cluster{}, ops: map[string]*operation{}}
	now := clock.Now()
	sub, rg, name := f.Fleet.SubscriptionID, f.Fleet.ResourceGroup, f.Fleet.Name
	if hubVersion == "" {
		if ga, _, ok := w.kubernetesVersions(f.Fleet.Location, now); ok && len(ga) > 0 {
			hubVersion = ga[len(ga)-1]
		}
	}
	sys := &fleetapi.SystemData{
		CreatedBy: "localfleet", CreatedByType: "Application", CreatedAt: &now,
		LastModifiedBy: "localfleet", LastModifiedByType: "Application", LastModifiedAt: &now,
	}
	// The hub's fqdn is where its API server is, when the local fleet has one.
	fqdn := kubeconfigHost(hubKubeconfig)
	if fqdn == "" {
		fqdn = name + ".hub." + normalizeLocation(f.Fleet.Location) + ".localfleet"
	}
	fleet := fleetapi.Fleet{
		Resource: fleetapi.Resource{ID: fleetID(sub, rg, name), Name: name, Type: typeFleets, SystemData: sys},
		Location: f.Fleet.Location,
		Tags:     map[string]string{},
		Properties: &fleetapi.FleetProperties{
			ProvisioningState: "Succeeded",
			HubProfile: &fleetapi.FleetHubProfile{
				DNSPrefix: name, Fqdn: fqdn, PortalFqdn: fqdn, KubernetesVersion: hubVersion,
			},
		},
		Identity: &fleetapi.ManagedIdentity{Type: "None"},
	}
	if _, _, err := w.store.put(fleet.ID, typeFleets, fleet, precondition{}, now); err != nil {
		panic(err) // an empty store accepts every put
	}
	for _, m := range f.Members {
		if !m.IsJoined() {
			w.addCluster(m)
			continue
		}
		member := fleetapi.FleetMember{
			Resource: fleetapi.Resource{ID: memberID(sub, rg, name, m.Name), Name: m.Name, Type: typeFleetMembers, SystemData: sys},
			Properties: &fleetapi.FleetMemberProperties{
				ClusterResourceID: managedClusterID(sub, rg, m.Name),
				Group:             m.Group,
				Labels:            m.Labels,
				ProvisioningState: "Succeeded",
			},
		}
		if _, _, err := w.store.put(member.ID, typeFleetMembers, member, precondition{}, now); err != nil {
			panic(err)
		}
		w.addCluster(m)
	}
	return w
}

// addCluster adds a fleet file member's managed cluster.
func (w *world) addCluster(m fleetfile.Member) {
	c := &cluster{
		Name: m.Name, Location: m.Location,
		KubernetesVersion: m.KubernetesVersion, CurrentKubernetesVersion: m.KubernetesVersion,
		ProvisioningState: "Succeeded", PowerState: "Running",
		MaintenanceWindow: m.MaintenanceWindow, NodeOSMaintenanceWindow: m.NodeOSMaintenanceWindow,
		ETag: newETag(),
	}
	for i, p := range m.NodePools {
		mode := "User"
		if i == 0 {
			mode = "System"
		}
		c.NodePools = append(c.NodePools, &nodePool{
			Name: p.Name, Count: p.Count, Mode: mode, NodeImage: p.NodeImage,
			OrchestratorVersion: m.KubernetesVersion, CurrentOrchestratorVersion: m.KubernetesVersion,
			ETag: newETag(),
		})
	}
	w.clusters[strings.ToLower(m.Name)] = c
	w.order = append(w.order, m.Name)
}

// memberCluster is the managed cluster of a fleet member: the one its
// clusterResourceId names. The caller holds w.mu.
func (w *world) memberCluster(member string) (*cluster, bool) {
	f := w.file.Fleet
	rec, ok := w.store.get(memberID(f.SubscriptionID, f.ResourceGroup, f.Name, member))
	if !ok {
		return nil, false
	}
	m, _ := rec.Value.(fleetapi.FleetMember)
	if m.Properties == nil {
		return nil, false
	}
	id := m.Properties.ClusterResourceID
	c, ok := w.clusters[strings.ToLower(id[strings.LastIndex(id, "/")+1:])]
	return c, ok
}

// render runs fn under the world's lock and marshals what it returns there,
// so no response shares memory with state that later changes.
func (w *world) render(fn func() (any, error)) ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	v, err := fn()
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// kubeconfigHost is the host name of a kubeconfig's first server, or ""
// when there is none.
func kubeconfigHost(kubeconfig []byte) string {
	var kc struct {
		Clusters []struct {
			Cluster struct {
				Server string `json:"server"`
			} `json:"cluster"`
		} `json:"clusters"`
	}
	if len(kubeconfig) == 0 || yaml.Unmarshal(kubeconfig, &kc) != nil || len(kc.Clusters) == 0 {
		return ""
	}
	u, err := url.Parse(kc.Clusters[0].Cluster.Server)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// region returns the fleet file's region for a location ("East US" or "eastus").
func (w *world) region(location string) (fleetfile.Region, string, bool) {
	want := normalizeLocation(location)
	for name, r := range w.file.Regions {
		if normalizeLocation(name) == want {
			return r, name, true
		}
	}
	return fleetfile.Region{}, "", false
}

// regionNames lists the fleet file's regions, sorted.
func (w *world) regionNames() []string {
	names := make([]string, 0, len(w.file.Regions))
	for n := range w.file.Regions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// kubernetesVersions lists the GA and preview versions available in a
// region at now: the file's lists plus the releases whose time has come.
// A version that is both GA and preview counts as GA. Both lists are sorted.
func (w *world) kubernetesVersions(location string, now time.Time) (ga, preview []string, ok bool) {
	r, _, ok := w.region(location)
	if !ok {
		return nil, nil, false
	}
	isGA, isPreview := map[string]bool{}, map[string]bool{}
	for _, v := range r.KubernetesVersions {
		isGA[v] = true
	}
	for _, v := range r.PreviewVersions {
		isPreview[v] = true
	}
	for _, rel := range r.Releases {
		if rel.KubernetesVersion == "" || now.Before(rel.At) {
			continue
		}
		if rel.Preview {
			isPreview[rel.KubernetesVersion] = true
		} else {
			isGA[rel.KubernetesVersion] = true
		}
	}
	for v := range isGA {
		ga = append(ga, v)
	}
	for v := range isPreview {
		if !isGA[v] {
			preview = append(preview, v)
		}
	}
	sortVersions(ga)
	sortVersions(preview)
	return ga, preview, true
}

// nodeImages lists, per OS SKU, the node image versions available in a
// region at now (the file's plus released ones), sorted ascending.
func (w *world) nodeImages(location string, now time.Time) (map[string][]string, bool) {
	r, _, ok := w.region(location)
	if !ok {
		return nil, false
	}
	sets := map[string]map[string]bool{}
	add := func(sku, v string) {
		if sets[sku] == nil {
			sets[sku] = map[string]bool{}
		}
		sets[sku][v] = true
	}
	for sku, vs := range r.NodeImages {
		for _, v := range vs {
			add(sku, v)
		}
	}
	for _, rel := range r.Releases {
		if rel.NodeImage != "" && !now.Before(rel.At) {
			add(fleetfile.SplitNodeImage(rel.NodeImage))
		}
	}
	out := map[string][]string{}
	for sku, set := range sets {
		for v := range set {
			out[sku] = append(out[sku], v)
		}
		sort.Strings(out[sku]) // node image versions are YYYYMM.DD.N: lexical order is release order
	}
	return out, true
}

// parseVersion reads "MAJOR.MINOR.PATCH" (or "MAJOR.MINOR").
func parseVersion(v string) [3]int {
	var out [3]int
	for i, part := range strings.SplitN(v, ".", 3) {
		out[i], _ = strconv.Atoi(part)
	}
	return out
}

func compareVersions(a, b string) int {
	pa, pb := parseVersion(a), parseVersion(b)
	for i := range pa {
		if pa[i] != pb[i] {
			if pa[i] < pb[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func sortVersions(vs []string) {
	sort.Slice(vs, func(i, j int) bool { return compareVersions(vs[i], vs[j]) < 0 })
}

// minorOf turns "1.32.5" into "1.32".
func minorOf(v string) string {
	p := parseVersion(v)
	return strconv.Itoa(p[0]) + "." + strconv.Itoa(p[1])
}
