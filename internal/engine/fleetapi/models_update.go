package fleetapi

import "time"

// The models of fleets/updateStrategies, fleets/updateRuns and fleets/gates,
// written against the definitions of fleets.json 2026-06-01 of the same names.
// Fields marked "preview" are of 2026-11-01-preview only
// (openapi/fleets-2026-11-01-preview.json); they are omitempty, so a body
// written under 2026-06-01 is unchanged.

// UpdateState is fleets.json UpdateState: the state of a run, stage, group,
// member update, after-stage wait or gate in a run's status.
type UpdateState string

const (
	UpdateStateNotStarted UpdateState = "NotStarted"
	UpdateStateRunning    UpdateState = "Running"
	UpdateStateStopping   UpdateState = "Stopping"
	UpdateStateStopped    UpdateState = "Stopped"
	UpdateStateSkipped    UpdateState = "Skipped"
	UpdateStateFailed     UpdateState = "Failed"
	UpdateStatePending    UpdateState = "Pending"
	UpdateStateCompleted  UpdateState = "Completed"
)

// ManagedClusterUpgradeType is fleets.json ManagedClusterUpgradeType.
type ManagedClusterUpgradeType string

const (
	UpgradeTypeFull             ManagedClusterUpgradeType = "Full"
	UpgradeTypeNodeImageOnly    ManagedClusterUpgradeType = "NodeImageOnly"
	UpgradeTypeControlPlaneOnly ManagedClusterUpgradeType = "ControlPlaneOnly"
)

// NodeImageSelectionType is fleets.json NodeImageSelectionType.
type NodeImageSelectionType string

const (
	NodeImageSelectionLatest     NodeImageSelectionType = "Latest"
	NodeImageSelectionConsistent NodeImageSelectionType = "Consistent"
	NodeImageSelectionCustom     NodeImageSelectionType = "Custom"
)

// GateType is fleets.json GateType (2026-06-01 has only Approval;
// 2026-11-01-preview adds ScheduledStart, a gate that completes itself at
// its scheduled time).
type GateType string

const (
	GateTypeApproval       GateType = "Approval"
	GateTypeScheduledStart GateType = "ScheduledStart"
)

// DayOfWeek is fleets.json DayOfWeek (2026-11-01-preview), a ScheduledStart gate's day.
type DayOfWeek string

const (
	Monday    DayOfWeek = "Monday"
	Tuesday   DayOfWeek = "Tuesday"
	Wednesday DayOfWeek = "Wednesday"
	Thursday  DayOfWeek = "Thursday"
	Friday    DayOfWeek = "Friday"
	Saturday  DayOfWeek = "Saturday"
	Sunday    DayOfWeek = "Sunday"
)

// GateState is fleets.json GateState: a gate resource exists once a run reaches it.
type GateState string

const (
	GateStatePending   GateState = "Pending"
	GateStateSkipped   GateState = "Skipped"
	GateStateCompleted GateState = "Completed"
)

// Timing is fleets.json Timing: a gate is before or after its stage or group.
type Timing string

const (
	TimingBefore Timing = "Before"
	TimingAfter  Timing = "After"
)

// TargetType is fleets.json TargetType, what a skip request skips.
type TargetType string

const (
	TargetMember         TargetType = "Member"
	TargetGroup          TargetType = "Group"
	TargetStage          TargetType = "Stage"
	TargetAfterStageWait TargetType = "AfterStageWait"
)

// FleetUpdateStrategy is Microsoft.ContainerService/fleets/updateStrategies.
type FleetUpdateStrategy struct {
	Resource
	Properties *FleetUpdateStrategyProperties `json:"properties,omitempty"`
}

type FleetUpdateStrategyProperties struct {
	ProvisioningState string            `json:"provisioningState,omitempty"`
	Strategy          UpdateRunStrategy `json:"strategy"`
}

// FleetUpdateStrategyListResult is a page of update strategies.
type FleetUpdateStrategyListResult struct {
	Value    []FleetUpdateStrategy `json:"value"`
	NextLink string                `json:"nextLink,omitempty"`
}

// UpdateRunStrategy is the order of an update: stages in sequence, groups of
// a stage in parallel, members of a group one after another.
type UpdateRunStrategy struct {
	Stages []UpdateStage `json:"stages"`
}

type UpdateStage struct {
	Name   string        `json:"name"`
	Groups []UpdateGroup `json:"groups,omitempty"`
	// AfterStageWaitInSeconds defaults to 0 (omitted).
	AfterStageWaitInSeconds int32 `json:"afterStageWaitInSeconds,omitempty"`
	// MaxConcurrency is "N" or "N%".
	MaxConcurrency string `json:"maxConcurrency,omitempty"`
	// MaxAllowedFailures (preview) is "N" or "P%" (0–100): the member
	// failures the stage tolerates, a percentage resolved at stage start.
	MaxAllowedFailures string `json:"maxAllowedFailures,omitempty"`
	// MemberSelector (preview, create-only) pre-filters the stage's members;
	// without groups it makes one implicit group of them.
	MemberSelector *MemberSelector     `json:"memberSelector,omitempty"`
	BeforeGates    []GateConfiguration `json:"beforeGates,omitempty"`
	AfterGates     []GateConfiguration `json:"afterGates,omitempty"`
}

type UpdateGroup struct {
	Name           string `json:"name"`
	MaxConcurrency string `json:"maxConcurrency,omitempty"`
	// MaxAllowedFailures (preview): as UpdateStage's, over this group's members.
	MaxAllowedFailures string `json:"maxAllowedFailures,omitempty"`
	// MemberSelector (preview, create-only) selects the group's members by
	// label instead of by group name; Name then only identifies the group.
	MemberSelector *MemberSelector     `json:"memberSelector,omitempty"`
	BeforeGates    []GateConfiguration `json:"beforeGates,omitempty"`
	AfterGates     []GateConfiguration `json:"afterGates,omitempty"`
}

// MemberSelector is fleets.json MemberSelector (preview): a Kubernetes label
// selector over fleet members' labels, e.g. "env=production" (at most 512 characters).
type MemberSelector struct {
	ByLabel string `json:"byLabel"`
}

type GateConfiguration struct {
	DisplayName string   `json:"displayName,omitempty"`
	Type        GateType `json:"type"`
	// ScheduledStartConfiguration (preview) is set for ScheduledStart gates.
	ScheduledStartConfiguration *ScheduledStartConfiguration `json:"scheduledStartConfiguration,omitempty"`
}

// ScheduledStartConfiguration is fleets.json ScheduledStartConfiguration
// (preview, create-only): the gate completes at the next StartDay StartTime
// ("HH:mm", 24-hour) at UTCOffset ("±HH:mm", -14:00 to +14:00).
type ScheduledStartConfiguration struct {
	StartDay  DayOfWeek `json:"startDay"`
	StartTime string    `json:"startTime"`
	UTCOffset string    `json:"utcOffset"`
}

// UpdateRun is Microsoft.ContainerService/fleets/updateRuns.
type UpdateRun struct {
	Resource
	Properties *UpdateRunProperties `json:"properties,omitempty"`
}

// UpdateRunProperties: strategy and managedClusterUpdate may change only
// until the run starts; updateStrategyId is snapshotted into strategy when
// the run is created.
type UpdateRunProperties struct {
	ProvisioningState    string                `json:"provisioningState,omitempty"`
	UpdateStrategyID     string                `json:"updateStrategyId,omitempty"`
	Strategy             *UpdateRunStrategy    `json:"strategy,omitempty"`
	ManagedClusterUpdate *ManagedClusterUpdate `json:"managedClusterUpdate,omitempty"`
	Status               *UpdateRunStatus      `json:"status,omitempty"`
	AutoUpgradeProfileID string                `json:"autoUpgradeProfileId,omitempty"`
}

// UpdateRunListResult is a page of update runs.
type UpdateRunListResult struct {
	Value    []UpdateRun `json:"value"`
	NextLink string      `json:"nextLink,omitempty"`
}

type ManagedClusterUpdate struct {
	Upgrade ManagedClusterUpgradeSpec `json:"upgrade"`
	// NodeImageSelection is create-only.
	NodeImageSelection *NodeImageSelection `json:"nodeImageSelection,omitempty"`
}

type ManagedClusterUpgradeSpec struct {
	Type ManagedClusterUpgradeType `json:"type"`
	// KubernetesVersion is required for Full and ControlPlaneOnly, forbidden for NodeImageOnly.
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
}

type NodeImageSelection struct {
	Type                    NodeImageSelectionType `json:"type"`
	CustomNodeImageVersions []NodeImageVersion     `json:"customNodeImageVersions,omitempty"`
}

// NodeImageVersion is a full image version, e.g. "AKSUbuntu-2204gen2containerd-202511.04.0".
type NodeImageVersion struct {
	Version string `json:"version,omitempty"`
}

// UpdateRunStatus is the run's status tree (read-only).
type UpdateRunStatus struct {
	Status             *UpdateStatus             `json:"status,omitempty"`
	Stages             []UpdateStageStatus       `json:"stages,omitempty"`
	NodeImageSelection *NodeImageSelectionStatus `json:"nodeImageSelection,omitempty"`
	// FailureCount (preview) is the run's member update failures; a pointer,
	// as the service reports 0.
	FailureCount *int32 `json:"failureCount,omitempty"`
}

type UpdateStatus struct {
	StartTime     *time.Time   `json:"startTime,omitempty"`
	CompletedTime *time.Time   `json:"completedTime,omitempty"`
	State         UpdateState  `json:"state,omitempty"`
	Error         *ErrorDetail `json:"error,omitempty"`
}

type UpdateStageStatus struct {
	Status               *UpdateStatus         `json:"status,omitempty"`
	Name                 string                `json:"name,omitempty"`
	MaxConcurrency       int32                 `json:"maxConcurrency,omitempty"`
	FailureCount         *int32                `json:"failureCount,omitempty"`       // preview
	MaxAllowedFailures   *int32                `json:"maxAllowedFailures,omitempty"` // preview: the strategy's, resolved to a count
	Groups               []UpdateGroupStatus   `json:"groups,omitempty"`
	BeforeGates          []UpdateRunGateStatus `json:"beforeGates,omitempty"`
	AfterGates           []UpdateRunGateStatus `json:"afterGates,omitempty"`
	AfterStageWaitStatus *WaitStatus           `json:"afterStageWaitStatus,omitempty"`
}

type UpdateGroupStatus struct {
	Status             *UpdateStatus         `json:"status,omitempty"`
	Name               string                `json:"name,omitempty"`
	MaxConcurrency     int32                 `json:"maxConcurrency,omitempty"`
	FailureCount       *int32                `json:"failureCount,omitempty"`       // preview
	MaxAllowedFailures *int32                `json:"maxAllowedFailures,omitempty"` // preview: the strategy's, resolved to a count
	Members            []MemberUpdateStatus  `json:"members,omitempty"`
	BeforeGates        []UpdateRunGateStatus `json:"beforeGates,omitempty"`
	AfterGates         []UpdateRunGateStatus `json:"afterGates,omitempty"`
}

type MemberUpdateStatus struct {
	Status            *UpdateStatus `json:"status,omitempty"`
	Name              string        `json:"name,omitempty"`
	ClusterResourceID string        `json:"clusterResourceId,omitempty"`
	OperationID       string        `json:"operationId,omitempty"`
	Message           string        `json:"message,omitempty"`
}

type WaitStatus struct {
	Status                *UpdateStatus `json:"status,omitempty"`
	WaitDurationInSeconds int32         `json:"waitDurationInSeconds,omitempty"`
}

// UpdateRunGateStatus is a gate in the run's status; GateID is set once the
// run has reached the gate and created its fleets/gates resource.
type UpdateRunGateStatus struct {
	DisplayName string        `json:"displayName,omitempty"`
	GateID      string        `json:"gateId,omitempty"`
	Status      *UpdateStatus `json:"status,omitempty"`
}

// NodeImageSelectionStatus is set only for Consistent node image selection.
type NodeImageSelectionStatus struct {
	SelectedNodeImageVersions []NodeImageVersion `json:"selectedNodeImageVersions,omitempty"`
}

// SkipProperties is the body of updateRuns/skip.
type SkipProperties struct {
	Targets []SkipTarget `json:"targets"`
}

// SkipTarget names a member, group or stage; for AfterStageWait, the stage.
type SkipTarget struct {
	Type TargetType `json:"type"`
	Name string     `json:"name"`
}

// Gate is Microsoft.ContainerService/fleets/gates, created by runs (no PUT or DELETE).
type Gate struct {
	Resource
	Properties *GateProperties `json:"properties,omitempty"`
}

type GateProperties struct {
	ProvisioningState string     `json:"provisioningState,omitempty"`
	DisplayName       string     `json:"displayName,omitempty"`
	GateType          GateType   `json:"gateType"`
	Target            GateTarget `json:"target"`
	State             GateState  `json:"state"`
	// ScheduledStartProperties is of ScheduledStart gates (2026-06-01-preview
	// and 2026-11-01-preview); 2026-06-01 has Approval gates only.
	ScheduledStartProperties *ScheduledStartProperties `json:"scheduledStartProperties,omitempty"`
}

type GateTarget struct {
	// ID is the update run's resource ID.
	ID                  string                         `json:"id"`
	UpdateRunProperties *UpdateRunGateTargetProperties `json:"updateRunProperties,omitempty"`
}

// UpdateRunGateTargetProperties locates a gate in its run; Group is empty
// for a stage's gate.
type UpdateRunGateTargetProperties struct {
	Name   string `json:"name"`
	Stage  string `json:"stage,omitempty"`
	Group  string `json:"group,omitempty"`
	Timing Timing `json:"timing"`
}

// ScheduledStartProperties is fleets.json ScheduledStartProperties
// (preview): the gate's configuration and, read-only, the UTC instant the
// service resolved it to when it created the gate.
type ScheduledStartProperties struct {
	StartDay          DayOfWeek  `json:"startDay,omitempty"`
	StartTime         string     `json:"startTime,omitempty"`
	UTCOffset         string     `json:"utcOffset,omitempty"`
	AbsoluteStartTime *time.Time `json:"absoluteStartTime,omitempty"`
}

// GateListResult is a page of gates.
type GateListResult struct {
	Value    []Gate `json:"value"`
	NextLink string `json:"nextLink,omitempty"`
}

// GatePatch is the body of a gate PATCH.
type GatePatch struct {
	Properties *GatePatchProperties `json:"properties,omitempty"`
}

type GatePatchProperties struct {
	State GateState `json:"state,omitempty"`
}
