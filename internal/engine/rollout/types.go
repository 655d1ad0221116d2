// Package rollout holds the rules of an Azure Kubernetes Fleet Manager update run
// (fleets/updateRuns, api-version 2026-06-01) as pure functions: which members a
// strategy selects, in which order they are updated, what each member is upgraded
// to or why it is skipped or left pending, and how member, group, stage and run
// states propagate. The provider's preview (Plan), the local Fleet API emulator
// (NewRun, Start, Stop, Skip, CompleteGate, Advance on a simulated clock) and the
// tests all call the same code.
//
// Sources, cited rule by rule in comments:
//   - the official spec internal/engine/fleetapi/openapi/fleets.json, from azure-rest-api-specs
//     (UpdateRunStrategy, UpdateStage, UpdateGroup, ManagedClusterUpdate,
//     NodeImageSelectionType, UpdateState, SkipTarget);
//   - the preview spec 2026-11-01-preview fleets.json (azure-rest-api-specs commit 062ccb13),
//     for what a Strategy with API PreviewAPI may add: maxAllowedFailures (failures.go),
//     memberSelector (selectors.go) and ScheduledStart gates (scheduled_start.go);
//   - MicrosoftDocs/azure-aks-docs articles/kubernetes-fleet/concepts-update-orchestration.md
//     ("Update Run states", "Planned maintenance windows", "Maximum concurrency");
//   - articles/kubernetes-fleet/faq.md, update-orchestration.md, update-strategies-gates-approvals.md;
//   - articles/aks/upgrade-aks-control-plane.md and supported-kubernetes-versions.md (AKS upgrade rules).
//
// Where the documents are silent a comment starting with "Choice:" says what
// this package does instead. Nothing here does I/O or reads a clock.
package rollout

import (
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/containerservice/armcontainerservice/v6"
)

// State is fleets.json UpdateState: "The state of the UpdateRun, UpdateStage, UpdateGroup, or MemberUpdate."
// Gates in a run's status use the same values (UpdateRunGateStatus.status is an UpdateStatus).
type State string

const (
	NotStarted State = "NotStarted"
	Running    State = "Running"
	Pending    State = "Pending"
	Stopping   State = "Stopping"
	Stopped    State = "Stopped"
	Skipped    State = "Skipped"
	Failed     State = "Failed"
	Completed  State = "Completed"
)

// Finished reports whether s is Completed or Skipped: nothing more will happen to it.
func (s State) Finished() bool { return s == Completed || s == Skipped }

// InFlight reports whether a member upgrade is under way (Running, or Stopping while it finishes).
func (s State) InFlight() bool { return s == Running || s == Stopping }

// Strategy is fleets.json UpdateRunStrategy: "Stages within a run are executed sequentially
// one after another. Groups within a stage are executed in parallel. Member clusters within
// a group are updated sequentially one after another.".
type Strategy struct {
	Stages []Stage
	// API is the Fleet API version the strategy was written in; it decides which fields
	// ValidateStrategy accepts. Zero is StableAPI.
	API APIVersion
}

// APIVersion names the Fleet API version whose update-run rules apply.
type APIVersion string

const (
	// StableAPI (2026-06-01, also the zero value): Approval gates only; groups select members by
	// update group; no failure thresholds.
	StableAPI APIVersion = "2026-06-01"
	// PreviewAPI (2026-11-01-preview) adds UpdateStage/UpdateGroup maxAllowedFailures and
	// memberSelector, and ScheduledStart gates.
	PreviewAPI APIVersion = "2026-11-01-preview"
)

// preview reports whether s may use the preview API's fields.
func (s *Strategy) preview() bool { return s != nil && s.API == PreviewAPI }

// Stage is fleets.json UpdateStage.
type Stage struct {
	Name                    string
	Groups                  []Group
	AfterStageWaitInSeconds int32
	// MaxConcurrency is "N" or "N%"; empty means the default of 50 (concepts-update-orchestration.md).
	MaxConcurrency string
	// MaxAllowedFailures is "N" or "P%" as the preview API writes it; empty means unset (failures.go).
	MaxAllowedFailures string
	// MemberSelector (preview) selects the stage's members; nil means none (selectors.go).
	MemberSelector *MemberSelector
	BeforeGates    []Gate
	AfterGates     []Gate
}

// Group is fleets.json UpdateGroup: "Name of the group. It must match a group name of an existing fleet member.".
type Group struct {
	Name string
	// MaxConcurrency is "N" or "N%"; empty means the default of 1.
	MaxConcurrency string
	// MaxAllowedFailures is "N" or "P%" as the preview API writes it; empty means unset (failures.go).
	MaxAllowedFailures string
	// MemberSelector (preview): "If specified, label-based selection will override group name based
	// selection, and Name is only used as an identifier." nil means none.
	MemberSelector *MemberSelector
	BeforeGates    []Gate
	AfterGates     []Gate
}

// MemberSelector is the preview API's MemberSelector: "Select members of a fleet."
type MemberSelector struct {
	// ByLabel is a "Kubernetes-style label selector for selecting Fleet members, e.g. `env=production`."
	ByLabel string
}

// GateType is fleets.json GateType. 2026-06-01 has only Approval; 2026-11-01-preview adds ScheduledStart.
type GateType string

const (
	// Approval: "An approval gate is completed by setting its state to be Completed."
	Approval GateType = "Approval"
	// ScheduledStart (preview): "A scheduled start gate is automatically completed when the scheduled
	// time is reached." (scheduled_start.go)
	ScheduledStart GateType = "ScheduledStart"
)

// Gate is fleets.json GateConfiguration.
type Gate struct {
	DisplayName string
	Type        GateType
	// ScheduledStart is GateConfiguration.scheduledStartConfiguration: "Scheduled start configuration
	// for gates of type ScheduledStart." nil for Approval gates.
	ScheduledStart *ScheduledStartConfig
}

// Timing is fleets.json Timing: whether a gate is before or after its stage or group.
type Timing string

const (
	Before Timing = "Before"
	After  Timing = "After"
)

// UpgradeType is fleets.json ManagedClusterUpgradeType.
type UpgradeType string

const (
	// Full "upgrades the control plane and all agent pools of the target ManagedClusters".
	Full UpgradeType = "Full"
	// ControlPlaneOnly "only targets the KubernetesVersion of the ManagedClusters and will not be applied to the AgentPool".
	ControlPlaneOnly UpgradeType = "ControlPlaneOnly"
	// NodeImageOnly "upgrades only the node images of the target ManagedClusters".
	NodeImageOnly UpgradeType = "NodeImageOnly"
)

// NodeImageSelectionType is fleets.json NodeImageSelectionType.
type NodeImageSelectionType string

const (
	Latest     NodeImageSelectionType = "Latest"
	Consistent NodeImageSelectionType = "Consistent"
	Custom     NodeImageSelectionType = "Custom"
)

// Update is fleets.json ManagedClusterUpdate.
type Update struct {
	Upgrade           UpgradeType
	KubernetesVersion string
	// NodeImageSelection defaults to Latest when empty.
	// Choice: the spec makes nodeImageSelection optional without naming a default; Latest is
	// what the portal and CLI preselect and what azurerm sends.
	NodeImageSelection NodeImageSelectionType
	// CustomNodeImageVersions are full node image versions, e.g. "AKSUbuntu-2204gen2containerd-202511.04.0".
	CustomNodeImageVersions []string
}

// Member is what the rules need to know about one fleet member and its managed cluster.
// The provider fills it from the Fleet API (fleets/members) and AKS (managedClusters,
// agentPools, maintenanceConfigurations); the emulator from its fleet file.
type Member struct {
	Name  string
	Group string // the Fleet member's update group
	// Labels are the Fleet member's labels, which a memberSelector matches (preview).
	Labels   map[string]string
	Location string // the managed cluster's Azure region
	// KubernetesVersion is the control plane's current version, e.g. "1.32.5".
	KubernetesVersion string
	// LongTermSupport: the cluster is on the AKS LTS plan (may skip minors between LTS versions).
	LongTermSupport bool
	NodePools       []NodePool
	// AutoUpgradeWindow is the aksManagedAutoUpgradeSchedule maintenance window, nil if none.
	AutoUpgradeWindow *armcontainerservice.MaintenanceWindow
	// NodeOSUpgradeWindow is the aksManagedNodeOSUpgradeSchedule maintenance window, nil if none.
	NodeOSUpgradeWindow *armcontainerservice.MaintenanceWindow
	// Upgrade says how an upgrade of this member behaves once started. The emulator sets it from
	// its fleet file; the provider leaves it zero (instant, successful) for previews.
	Upgrade UpgradeBehavior
}

// NodePool is one agent pool of a member's cluster.
type NodePool struct {
	Name  string
	OSSKU string
	// NodeImageVersion is the full image version, "<image type>-<version>",
	// e.g. "AKSUbuntu-2204gen2containerd-202510.01.0".
	NodeImageVersion string
	// KubernetesVersion is the pool's orchestrator version; empty means the control plane's.
	KubernetesVersion string
}

// UpgradeBehavior is how a started member upgrade ends.
type UpgradeBehavior struct {
	Duration time.Duration
	Fail     bool
	Message  string
}

// Region is what AKS offers in one Azure region.
type Region struct {
	// KubernetesVersions available now (GA and preview alike: a manual run may target either).
	KubernetesVersions []string
	// NodeImages available now, by image type ("AKSUbuntu-2204gen2containerd") → versions ("202511.04.0").
	NodeImages map[string][]string
	// Releases become available at a later time (the emulator's fleet file; empty from Azure).
	Releases []Release
}

// Release makes a Kubernetes version or a node image available in a region at a time.
type Release struct {
	At                time.Time
	KubernetesVersion string
	// NodeImageVersion is a full node image version.
	NodeImageVersion string
}

// Fleet is the world an update run acts on at one moment: the fleet's members and the
// regions' offerings. Regions is keyed by location.
type Fleet struct {
	Members []Member
	Regions map[string]Region
}

// memberIndex maps names to members for repeated lookups.
func (f Fleet) memberIndex() map[string]*Member {
	idx := make(map[string]*Member, len(f.Members))
	for i := range f.Members {
		idx[f.Members[i].Name] = &f.Members[i]
	}
	return idx
}

// PollInterval is how often Fleet re-checks a Pending member.
// faq.md: "Fleet Manager polls for open maintenance windows every 60 minutes, so the maximum wait time is 60 minutes from window open."
// Choice: a Pending member is re-checked every PollInterval from the moment it became Pending.
const PollInterval = 60 * time.Minute

// DefaultStageName and DefaultGroupName name the single stage and group of a run without a strategy.
// fleets.json UpdateRunProperties.strategy: "If not set, all members will be updated sequentially.
// The UpdateRun status will show a single UpdateStage and a single UpdateGroup targeting all members."
// Choice: the spec does not name them; "default" is used for both.
const (
	DefaultStageName = "default"
	DefaultGroupName = "default"
)
