package emulator

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// The members' AKS managed clusters, answered with armcontainerservice v6
// models so the SDK parses them. managedClusters accept any api-version.

const managedClusterPath = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters/{resourceName}"

// The two AKS-managed maintenance configurations.
const (
	autoUpgradeSchedule   = "aksManagedAutoUpgradeSchedule"
	nodeOSUpgradeSchedule = "aksManagedNodeOSUpgradeSchedule"
)

func (s *Server) registerManagedClusterRoutes() {
	s.router.handle(http.MethodGet, "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.ContainerService/managedClusters", nil, s.listManagedClusters)
	s.router.handle(http.MethodGet, managedClusterPath, nil, s.getManagedCluster)
	s.router.handle(http.MethodPost, managedClusterPath+"/listClusterUserCredential", nil, s.listClusterUserCredential)
	s.router.handle(http.MethodGet, managedClusterPath+"/maintenanceConfigurations", nil, s.listMaintenanceConfigurations)
	s.router.handle(http.MethodGet, managedClusterPath+"/maintenanceConfigurations/{configName}", nil, s.getMaintenanceConfiguration)
}

// clusterOf finds a request's managed cluster. The caller holds the world lock.
func (s *Server) clusterOf(p params) (*cluster, error) {
	if err := s.checkResourceGroup(p); err != nil {
		return nil, err
	}
	c, ok := s.world.clusters[strings.ToLower(p["resourceName"])]
	if !ok {
		return nil, armErrorf(http.StatusNotFound, "ResourceNotFound",
			"The Resource 'Microsoft.ContainerService/managedClusters/%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
			p["resourceName"], p["resourceGroupName"])
	}
	return c, nil
}

// parentCluster is clusterOf for a request on a cluster's child resource.
func (s *Server) parentCluster(p params) (*cluster, error) {
	c, err := s.clusterOf(p)
	var ae *armError
	if errors.As(err, &ae) && ae.code == "ResourceNotFound" {
		return nil, armErrorf(http.StatusNotFound, "ParentResourceNotFound",
			"Can not perform requested operation on nested resource. Parent resource '%s' not found.", p["resourceName"])
	}
	return c, err
}

func (s *Server) clusterView(c *cluster) armcontainerservice.ManagedCluster {
	f := s.cfg.File.Fleet
	fqdn := kubeconfigHost(s.cfg.MemberKubeconfigs[c.Name])
	if fqdn == "" {
		fqdn = c.Name + ".hcp." + normalizeLocation(c.Location) + ".localfleet"
	}
	pools := make([]*armcontainerservice.ManagedClusterAgentPoolProfile, 0, len(c.NodePools))
	for _, np := range c.NodePools {
		sku, _ := fleetfile.SplitNodeImage(np.NodeImage)
		pools = append(pools, &armcontainerservice.ManagedClusterAgentPoolProfile{
			Name:                       to.Ptr(np.Name),
			Count:                      to.Ptr(int32(np.Count)),
			Mode:                       to.Ptr(armcontainerservice.AgentPoolMode(np.Mode)),
			OSType:                     to.Ptr(armcontainerservice.OSTypeLinux),
			OSSKU:                      to.Ptr(osSKU(sku)),
			Type:                       to.Ptr(armcontainerservice.AgentPoolTypeVirtualMachineScaleSets),
			VMSize:                     to.Ptr("Standard_D4ds_v5"),
			NodeImageVersion:           to.Ptr(np.NodeImage),
			OrchestratorVersion:        to.Ptr(np.OrchestratorVersion),
			CurrentOrchestratorVersion: to.Ptr(np.CurrentOrchestratorVersion),
			ProvisioningState:          to.Ptr(c.ProvisioningState),
			PowerState:                 &armcontainerservice.PowerState{Code: to.Ptr(armcontainerservice.Code(c.PowerState))},
			ETag:                       to.Ptr(np.ETag),
		})
	}
	return armcontainerservice.ManagedCluster{
		ID:       to.Ptr(managedClusterID(f.SubscriptionID, f.ResourceGroup, c.Name)),
		Name:     to.Ptr(c.Name),
		Type:     to.Ptr(typeManagedClusters),
		Location: to.Ptr(c.Location),
		ETag:     to.Ptr(c.ETag),
		Tags:     map[string]*string{},
		SKU: &armcontainerservice.ManagedClusterSKU{
			Name: to.Ptr(armcontainerservice.ManagedClusterSKUNameBase),
			Tier: to.Ptr(armcontainerservice.ManagedClusterSKUTierFree),
		},
		Properties: &armcontainerservice.ManagedClusterProperties{
			KubernetesVersion:        to.Ptr(c.KubernetesVersion),
			CurrentKubernetesVersion: to.Ptr(c.CurrentKubernetesVersion),
			ProvisioningState:        to.Ptr(c.ProvisioningState),
			PowerState:               &armcontainerservice.PowerState{Code: to.Ptr(armcontainerservice.Code(c.PowerState))},
			DNSPrefix:                to.Ptr(c.Name),
			Fqdn:                     to.Ptr(fqdn),
			AzurePortalFQDN:          to.Ptr(fqdn),
			NodeResourceGroup:        to.Ptr(fmt.Sprintf("MC_%s_%s_%s", f.ResourceGroup, c.Name, normalizeLocation(c.Location))),
			EnableRBAC:               to.Ptr(true),
			MaxAgentPools:            to.Ptr(int32(100)),
			SupportPlan:              to.Ptr(armcontainerservice.KubernetesSupportPlanKubernetesOfficial),
			AgentPoolProfiles:        pools,
			// The emulator never upgrades a cluster on its own: only update runs do.
			AutoUpgradeProfile: &armcontainerservice.ManagedClusterAutoUpgradeProfile{
				UpgradeChannel:       to.Ptr(armcontainerservice.UpgradeChannelNone),
				NodeOSUpgradeChannel: to.Ptr(armcontainerservice.NodeOSUpgradeChannelNone),
			},
		},
	}
}

// osSKU is AKS's osSKU for a node image's OS SKU prefix, e.g.
// AKSUbuntu-2204gen2containerd -> Ubuntu, AKSAzureLinux-V2gen2 -> AzureLinux.
func osSKU(imageSKU string) armcontainerservice.OSSKU {
	parts := strings.Split(strings.TrimPrefix(imageSKU, "AKS"), "-")
	switch {
	case parts[0] == "Windows" && len(parts) > 1:
		return armcontainerservice.OSSKU("Windows" + parts[1])
	case parts[0] == "":
		return armcontainerservice.OSSKUUbuntu
	}
	return armcontainerservice.OSSKU(parts[0])
}

func (s *Server) getManagedCluster(w http.ResponseWriter, r *http.Request, p params) error {
	etag := ""
	b, err := s.world.render(func() (any, error) {
		c, err := s.clusterOf(p)
		if err != nil {
			return nil, err
		}
		etag = c.ETag
		return s.clusterView(c), nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("ETag", etag)
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

func (s *Server) listManagedClusters(w http.ResponseWriter, r *http.Request, p params) error {
	b, err := s.world.render(func() (any, error) {
		if err := s.checkResourceGroup(p); err != nil {
			return nil, err
		}
		out := listResult[armcontainerservice.ManagedCluster]{Value: []armcontainerservice.ManagedCluster{}}
		for _, name := range s.world.order {
			out.Value = append(out.Value, s.clusterView(s.world.clusters[strings.ToLower(name)]))
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

func (s *Server) listClusterUserCredential(w http.ResponseWriter, r *http.Request, p params) error {
	s.world.mu.Lock()
	c, err := s.clusterOf(p)
	s.world.mu.Unlock()
	if err != nil {
		return err
	}
	kc, ok := s.cfg.MemberKubeconfigs[c.Name]
	if !ok || len(kc) == 0 {
		return armErrorf(http.StatusBadRequest, "OperationNotAllowed",
			"Managed cluster '%s' is simulated by the local fleet and has no API server, so it has no credentials. "+
				"Only members with a 'karpenter' section in the fleet file get a kube-apiserver.", c.Name)
	}
	writeJSON(w, http.StatusOK, armcontainerservice.CredentialResults{
		Kubeconfigs: []*armcontainerservice.CredentialResult{{Name: to.Ptr("clusterUser"), Value: kc}},
	})
	return nil
}

// maintenanceConfigurations are a cluster's AKS-managed schedules: the
// fleet file's maintenanceWindow and nodeOSMaintenanceWindow.
func (s *Server) maintenanceConfigurations(c *cluster) []armcontainerservice.MaintenanceConfiguration {
	f := s.cfg.File
	var out []armcontainerservice.MaintenanceConfiguration
	for _, mc := range []struct {
		name string
		w    *fleetfile.MaintenanceWindow
	}{{autoUpgradeSchedule, c.MaintenanceWindow}, {nodeOSUpgradeSchedule, c.NodeOSMaintenanceWindow}} {
		if mc.w == nil {
			continue
		}
		out = append(out, armcontainerservice.MaintenanceConfiguration{
			ID:         to.Ptr(managedClusterID(f.Fleet.SubscriptionID, f.Fleet.ResourceGroup, c.Name) + "/maintenanceConfigurations/" + mc.name),
			Name:       to.Ptr(mc.name),
			Type:       to.Ptr(typeMaintenanceConfigurations),
			Properties: &armcontainerservice.MaintenanceConfigurationProperties{MaintenanceWindow: maintenanceWindow(mc.w, f.Clock.Start)},
		})
	}
	return out
}

// maintenanceWindow renders a fleet file window in AKS's shape; a window
// without startDate starts on the clock's start date.
func maintenanceWindow(w *fleetfile.MaintenanceWindow, clockStart time.Time) *armcontainerservice.MaintenanceWindow {
	start := time.Date(clockStart.Year(), clockStart.Month(), clockStart.Day(), 0, 0, 0, 0, time.UTC)
	if w.StartDate != "" {
		if d, err := time.Parse(time.DateOnly, w.StartDate); err == nil {
			start = d
		}
	}
	sched := &armcontainerservice.Schedule{}
	if w.Daily {
		sched.Daily = &armcontainerservice.DailySchedule{IntervalDays: to.Ptr(int32(1))}
	} else {
		interval := w.IntervalWeeks
		if interval == 0 {
			interval = 1
		}
		sched.Weekly = &armcontainerservice.WeeklySchedule{
			DayOfWeek:     to.Ptr(armcontainerservice.WeekDay(w.Weekly)),
			IntervalWeeks: to.Ptr(int32(interval)),
		}
	}
	offset := w.UTCOffset
	if offset == "" {
		offset = "+00:00"
	}
	return &armcontainerservice.MaintenanceWindow{
		Schedule:      sched,
		DurationHours: to.Ptr(int32(w.DurationHours)),
		StartTime:     to.Ptr(w.StartTime),
		UTCOffset:     to.Ptr(offset),
		StartDate:     &start,
	}
}

func (s *Server) listMaintenanceConfigurations(w http.ResponseWriter, r *http.Request, p params) error {
	b, err := s.world.render(func() (any, error) {
		c, err := s.parentCluster(p)
		if err != nil {
			return nil, err
		}
		out := listResult[armcontainerservice.MaintenanceConfiguration]{Value: s.maintenanceConfigurations(c)}
		if out.Value == nil {
			out.Value = []armcontainerservice.MaintenanceConfiguration{}
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

func (s *Server) getMaintenanceConfiguration(w http.ResponseWriter, r *http.Request, p params) error {
	b, err := s.world.render(func() (any, error) {
		c, err := s.parentCluster(p)
		if err != nil {
			return nil, err
		}
		for _, mc := range s.maintenanceConfigurations(c) {
			if strings.EqualFold(*mc.Name, p["configName"]) {
				return mc, nil
			}
		}
		return nil, armErrorf(http.StatusNotFound, "ResourceNotFound",
			"The Resource 'Microsoft.ContainerService/managedClusters/%s/maintenanceConfigurations/%s' under resource group '%s' was not found.",
			p["resourceName"], p["configName"], p["resourceGroupName"])
	})
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}
