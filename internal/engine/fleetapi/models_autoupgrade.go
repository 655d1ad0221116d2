package fleetapi

import "time"

// The models of fleets/autoUpgradeProfiles, written against the definitions
// of fleets.json 2026-06-01 of the same names.

// UpgradeChannel is fleets.json UpgradeChannel.
type UpgradeChannel string

const (
	UpgradeChannelStable                  UpgradeChannel = "Stable"
	UpgradeChannelRapid                   UpgradeChannel = "Rapid"
	UpgradeChannelNodeImage               UpgradeChannel = "NodeImage"
	UpgradeChannelTargetKubernetesVersion UpgradeChannel = "TargetKubernetesVersion"
	// UpgradeChannelSecurityPatch (2026-11-01-preview) applies security
	// patches to the nodes of the target clusters.
	UpgradeChannelSecurityPatch UpgradeChannel = "SecurityPatch"
)

// AutoUpgradeNodeImageSelectionType is fleets.json AutoUpgradeNodeImageSelectionType
// (Latest or Consistent; no Custom).
type AutoUpgradeNodeImageSelectionType string

const (
	AutoUpgradeNodeImageLatest     AutoUpgradeNodeImageSelectionType = "Latest"
	AutoUpgradeNodeImageConsistent AutoUpgradeNodeImageSelectionType = "Consistent"
)

// AutoUpgradeLastTriggerStatus is fleets.json AutoUpgradeLastTriggerStatus.
type AutoUpgradeLastTriggerStatus string

const (
	AutoUpgradeTriggerSucceeded AutoUpgradeLastTriggerStatus = "Succeeded"
	AutoUpgradeTriggerFailed    AutoUpgradeLastTriggerStatus = "Failed"
)

// AutoUpgradeProfile is Microsoft.ContainerService/fleets/autoUpgradeProfiles.
type AutoUpgradeProfile struct {
	Resource
	Properties *AutoUpgradeProfileProperties `json:"properties,omitempty"`
}

// AutoUpgradeProfileProperties: updateStrategyId and nodeImageSelection.type
// are create-only (x-ms-mutability read, create); channel is required;
// targetKubernetesVersion ("major.minor") is set exactly with the
// TargetKubernetesVersion channel and longTermSupport only with it.
type AutoUpgradeProfileProperties struct {
	ProvisioningState        string                         `json:"provisioningState,omitempty"`
	UpdateStrategyID         string                         `json:"updateStrategyId,omitempty"`
	Channel                  UpgradeChannel                 `json:"channel"`
	NodeImageSelection       *AutoUpgradeNodeImageSelection `json:"nodeImageSelection,omitempty"`
	Disabled                 *bool                          `json:"disabled,omitempty"`
	AutoUpgradeProfileStatus *AutoUpgradeProfileStatus      `json:"autoUpgradeProfileStatus,omitempty"`
	TargetKubernetesVersion  string                         `json:"targetKubernetesVersion,omitempty"`
	LongTermSupport          *bool                          `json:"longTermSupport,omitempty"`
}

// AutoUpgradeNodeImageSelection is fleets.json AutoUpgradeNodeImageSelection.
type AutoUpgradeNodeImageSelection struct {
	Type AutoUpgradeNodeImageSelectionType `json:"type"`
}

// AutoUpgradeProfileStatus is the read-only record of the profile's last
// trigger (an attempt to create and start a run when a new version is released).
type AutoUpgradeProfileStatus struct {
	LastTriggeredAt            *time.Time                   `json:"lastTriggeredAt,omitempty"`
	LastTriggerStatus          AutoUpgradeLastTriggerStatus `json:"lastTriggerStatus,omitempty"`
	LastTriggerError           *ErrorDetail                 `json:"lastTriggerError,omitempty"`
	LastTriggerUpgradeVersions []string                     `json:"lastTriggerUpgradeVersions,omitempty"`
	// LastTriggerMessage (2026-11-01-preview) tells more of the last attempt.
	LastTriggerMessage string `json:"lastTriggerMessage,omitempty"`
}

// AutoUpgradeProfileListResult is a page of profiles.
type AutoUpgradeProfileListResult struct {
	Value    []AutoUpgradeProfile `json:"value"`
	NextLink string               `json:"nextLink,omitempty"`
}

// GenerateResponse is the result of generateUpdateRun: the run's ARM ID.
type GenerateResponse struct {
	ID string `json:"id"`
}
