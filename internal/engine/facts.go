package engine

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
	clusterv1 "go.goms.io/fleet/apis/cluster/v1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// Facts are what previews read of the fleet, taken once at plan (the
// fleet_facts data source) and carried by the configuration to apply.
// Terraform plans a resource again during apply and refuses any planned value
// that changed, yet gives that re-plan only the configuration, the prior state
// and its private data: a data source read at plan is not read again, so the
// facts it read are what lets the apply's re-plan compute the very preview the
// reviewer saw (DESIGN.md, "The plan/apply contract").
type Facts struct {
	// TakenAt is the provider's clock and FleetNow the Fleet API's when the facts were read: previews
	// computed from the facts are computed at these times.
	TakenAt  time.Time `json:"takenAt"`
	FleetNow time.Time `json:"fleetNow"`
	// Hub are the hub's MemberClusters; HubRead says the hub was read (the provider has one).
	HubRead bool                      `json:"hubRead"`
	Hub     []clusterv1.MemberCluster `json:"hub,omitempty"`
	// Placements are the hub's placements of both scopes with their bindings, read with the hub
	// (what member cluster taint and placement disruption budget previews read); PlacementsRead
	// says they were, PlacementsErr why not.
	PlacementsRead bool             `json:"placementsRead,omitempty"`
	PlacementsErr  string           `json:"placementsErr,omitempty"`
	Placements     []PlacementFacts `json:"placements,omitempty"`
	// Staged are the inputs of the staged update runs the data source names (staged_runs).
	Staged []StagedFacts `json:"staged,omitempty"`
	// Overrides are the latest resources of the placements the data source names
	// (override_placements), OverrideSnapshots the latest override snapshots of the namespaces
	// involved: what override previews read.
	Overrides         []OverrideFacts         `json:"overrides,omitempty"`
	OverrideSnapshots []OverrideSnapshotFacts `json:"overrideSnapshots,omitempty"`
	Fleets            []FleetFacts            `json:"fleets,omitempty"`
	// Clusters are member clusters' Karpenter pictures (fleet_nodepool_disruption).
	Clusters []ClusterFacts `json:"clusters,omitempty"`
	// Regions are AKS's Kubernetes versions and node images in the members' regions.
	Regions []RegionFacts `json:"regions,omitempty"`
	// Settings are the provider's preview settings at plan (facts_settings.go).
	Settings *PreviewSettings `json:"settings,omitempty"`
}

// FleetFacts are one fleet's members as the inventory reads them.
type FleetFacts struct {
	ID string `json:"id"`
	// Windows says the members' maintenance windows were read.
	Windows bool          `json:"windows"`
	Members []MemberFacts `json:"members"`
	// Strategies are the fleet's update strategies (facts_strategies.go); StrategiesRead says they
	// were listed, StrategiesErr why not.
	StrategiesRead bool            `json:"strategiesRead,omitempty"`
	StrategiesErr  string          `json:"strategiesErr,omitempty"`
	Strategies     []StrategyFacts `json:"strategies,omitempty"`
}

// MemberFacts is a Member in a form that survives JSON: the managed cluster
// cut to what the rollout rules read (RolloutMember), its error as text.
type MemberFacts struct {
	Name              string                                            `json:"name"`
	Group             string                                            `json:"group,omitempty"`
	Labels            map[string]string                                 `json:"labels,omitempty"`
	ClusterResourceID string                                            `json:"clusterResourceId,omitempty"`
	Cluster           *armcontainerservice.ManagedCluster               `json:"cluster,omitempty"`
	ClusterErr        string                                            `json:"clusterErr,omitempty"`
	Windows           map[string]*armcontainerservice.MaintenanceWindow `json:"windows,omitempty"`
}

// factsPrefix versions the encoding: a provider that cannot read a value says so.
const factsPrefix = "fleetfacts1."

// ReadFacts reads the facts previews need: the hub's MemberClusters and
// placements with their bindings (when the provider has a hub), the members of each fleet, with their
// maintenance windows when windows is set (they cost an ARM read per member),
// the fleets' update strategies, the Karpenter picture of the named member clusters, and the
// provider's preview settings.
func (c *Clients) ReadFacts(ctx context.Context, fleets []fleetapi.FleetID, hub, windows bool, clusters ...string) (*Facts, error) {
	f := &Facts{}
	if hub {
		mcs, err := c.HubMemberClusters(ctx)
		if err != nil {
			return nil, err
		}
		f.HubRead = true
		f.Hub = make([]clusterv1.MemberCluster, len(mcs))
		for i := range mcs {
			f.Hub[i] = *mcs[i].DeepCopy()
			f.Hub[i].ManagedFields = nil
		}
		c.readPlacementFacts(ctx, f)
	}
	for _, fleet := range fleets {
		read := c.MemberClusters
		if windows {
			read = c.Members
		}
		members, err := read(ctx, fleet)
		if err != nil {
			return nil, err
		}
		ff := FleetFacts{ID: fleet.String(), Windows: windows, Members: make([]MemberFacts, len(members))}
		for i, m := range members {
			ff.Members[i] = memberFacts(m)
		}
		c.readStrategyFacts(ctx, fleet, &ff)
		f.Fleets = append(f.Fleets, ff)
	}
	if err := c.readRegionFacts(ctx, f); err != nil {
		return nil, err
	}
	for _, name := range clusters {
		cf, err := c.readClusterFacts(ctx, name)
		if err != nil {
			return nil, err
		}
		f.Clusters = append(f.Clusters, cf)
	}
	f.TakenAt, f.FleetNow = c.Now().Truncate(time.Second), c.FleetNow().Truncate(time.Second)
	f.Settings = c.previewSettings()
	return f, nil
}

func memberFacts(m Member) MemberFacts {
	out := MemberFacts{Name: m.Name, Group: m.Group, Labels: m.Labels, ClusterResourceID: m.ClusterResourceID, Windows: m.Windows}
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

func (m MemberFacts) member() Member {
	out := Member{Name: m.Name, Group: m.Group, Labels: m.Labels, ClusterResourceID: m.ClusterResourceID, Cluster: m.Cluster, Windows: m.Windows}
	if m.ClusterErr != "" {
		out.ClusterErr = errors.New(m.ClusterErr)
	}
	return out
}

// Encode is the facts as the data source hands them on: gzip'd JSON in
// base64 behind a version prefix (about 75 bytes a member with hub, members and windows: 74,524
// bytes for a generated 1,000-member fleet with varied labels and heartbeat times).
func (f *Facts) Encode() (string, error) {
	raw, err := json.Marshal(f)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(raw); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return factsPrefix + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// Digest names the facts (the data source's id): equal facts, equal digest.
func (f *Facts) Digest() string {
	raw, _ := json.Marshal(f)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// DecodeFacts reads what Encode wrote.
func DecodeFacts(s string) (*Facts, error) {
	if !strings.HasPrefix(s, factsPrefix) {
		return nil, errors.New("not a value of data.fleet_facts' content (it starts with " + factsPrefix + ")")
	}
	zipped, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, factsPrefix))
	if err != nil {
		return nil, fmt.Errorf("not a value of data.fleet_facts' content: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		return nil, fmt.Errorf("not a value of data.fleet_facts' content: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, 1<<30))
	if err != nil {
		return nil, fmt.Errorf("not a value of data.fleet_facts' content: %w", err)
	}
	var f Facts
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("not a value of data.fleet_facts' content: %w", err)
	}
	return &f, nil
}

// WithFacts is a view of the bundle whose inventory and clocks answer from
// f, sharing its connections; every other read stays live.
func (c *Clients) WithFacts(f *Facts) *Clients {
	live := c
	if c.live != nil {
		live = c.live
	}
	return &Clients{o: c.o, conns: c.conns, inv: &inventory{}, pinned: f, live: live}
}

// Pinned reports whether the bundle answers from facts a plan read.
func (c *Clients) Pinned() bool { return c.pinned != nil }

// Live is the provider's own bundle (itself unless a WithFacts view).
func (c *Clients) Live() *Clients {
	if c.live != nil {
		return c.live
	}
	return c
}

// FactsNotReadError says the facts lack what a preview needs.
type FactsNotReadError struct{ What string }

func (e *FactsNotReadError) Error() string {
	return "data.fleet_facts did not read " + e.What
}

func (f *Facts) hubMemberClusters() ([]clusterv1.MemberCluster, error) {
	if !f.HubRead {
		return nil, &FactsNotReadError{What: "the hub's member clusters (the provider had no hub when it was read)"}
	}
	out := make([]clusterv1.MemberCluster, len(f.Hub))
	for i := range f.Hub {
		out[i] = *f.Hub[i].DeepCopy()
	}
	return out, nil
}

func (f *Facts) members(fleet fleetapi.FleetID, windows bool) ([]Member, error) {
	for _, ff := range f.Fleets {
		if !strings.EqualFold(ff.ID, fleet.String()) {
			continue
		}
		if windows && !ff.Windows {
			return nil, &FactsNotReadError{What: "the maintenance windows of fleet " + ff.ID + " (set maintenance_windows = true)"}
		}
		out := make([]Member, len(ff.Members))
		for i, m := range ff.Members {
			out[i] = m.member()
		}
		return out, nil
	}
	return nil, &FactsNotReadError{What: "fleet " + fleet.String() + " (add it to fleet_ids)"}
}
