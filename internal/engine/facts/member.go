package facts

import (
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

// Maintenance configuration names AKS uses for the schedules update runs honour
// (Fleet docs, concepts-update-orchestration.md "Planned maintenance").
const (
	AutoUpgradeSchedule   = "aksManagedAutoUpgradeSchedule"
	NodeOSUpgradeSchedule = "aksManagedNodeOSUpgradeSchedule"
)

// Member is one fleet member as the Fleet API and AKS see it.
type Member struct {
	Name              string
	Group             string
	Labels            map[string]string
	ClusterResourceID string
	// Cluster is the member's managed cluster; nil when ClusterErr is set.
	Cluster    *armcontainerservice.ManagedCluster
	ClusterErr error
	// Windows by maintenance configuration name (AutoUpgradeSchedule, NodeOSUpgradeSchedule).
	Windows map[string]*armcontainerservice.MaintenanceWindow
}

// MemberRecord is a Member in a form that survives JSON: the managed cluster
// cut to what the rollout rules read (RolloutMember), its error as text.
type MemberRecord struct {
	Name              string                                            `json:"name"`
	Group             string                                            `json:"group,omitempty"`
	Labels            map[string]string                                 `json:"labels,omitempty"`
	ClusterResourceID string                                            `json:"clusterResourceId,omitempty"`
	Cluster           *armcontainerservice.ManagedCluster               `json:"cluster,omitempty"`
	ClusterErr        string                                            `json:"clusterErr,omitempty"`
	Windows           map[string]*armcontainerservice.MaintenanceWindow `json:"windows,omitempty"`
}

// RecordOf is m as the snapshot keeps it.
func RecordOf(m Member) MemberRecord {
	out := MemberRecord{Name: m.Name, Group: m.Group, Labels: m.Labels, ClusterResourceID: m.ClusterResourceID, Windows: m.Windows}
	if m.ClusterErr != nil {
		out.ClusterErr = m.ClusterErr.Error()
	}
	if mc := m.Cluster; mc != nil {
		cut := &armcontainerservice.ManagedCluster{ID: mc.ID, Name: mc.Name, Location: mc.Location}
		if p := mc.Properties; p != nil {
			cut.Properties = &armcontainerservice.ManagedClusterProperties{
				KubernetesVersion: p.KubernetesVersion, CurrentKubernetesVersion: p.CurrentKubernetesVersion,
			}
			for _, ap := range p.AgentPoolProfiles {
				if ap == nil {
					continue
				}
				cut.Properties.AgentPoolProfiles = append(cut.Properties.AgentPoolProfiles, &armcontainerservice.ManagedClusterAgentPoolProfile{
					Name: ap.Name, NodeImageVersion: ap.NodeImageVersion, OrchestratorVersion: ap.OrchestratorVersion,
					CurrentOrchestratorVersion: ap.CurrentOrchestratorVersion, OSSKU: ap.OSSKU, OSType: ap.OSType,
				})
			}
		}
		out.Cluster = cut
	}
	return out
}

// Member is the record as the inventory reads it.
func (m MemberRecord) Member() Member {
	out := Member{Name: m.Name, Group: m.Group, Labels: m.Labels, ClusterResourceID: m.ClusterResourceID, Cluster: m.Cluster, Windows: m.Windows}
	if m.ClusterErr != "" {
		out.ClusterErr = errors.New(m.ClusterErr)
	}
	return out
}
