package fleetapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Auto-upgrade profiles: fleets/autoUpgradeProfiles. PUT and
// generateUpdateRun are long-running operations ending via
// azure-async-operation, DELETE via location (fleets.json).

// BeginCreateOrUpdateAutoUpgradeProfile creates or replaces a profile. Only
// the writable properties are sent (not provisioningState or
// autoUpgradeProfileStatus), so a profile read with GetAutoUpgradeProfile can
// be sent back. pre guards the write with an ETag.
func (c *Client) BeginCreateOrUpdateAutoUpgradeProfile(ctx context.Context, fleet FleetID, name string, p AutoUpgradeProfile, pre *Precondition) (*runtime.Poller[AutoUpgradeProfile], error) {
	if err := checkChild(fleet, "auto-upgrade profile", name); err != nil {
		return nil, err
	}
	in := p.Properties
	if in == nil || in.Channel == "" {
		return nil, fmt.Errorf("auto-upgrade profile %s: properties.channel is required", name)
	}
	body := AutoUpgradeProfile{Properties: &AutoUpgradeProfileProperties{
		UpdateStrategyID: in.UpdateStrategyID, Channel: in.Channel, NodeImageSelection: in.NodeImageSelection,
		Disabled: in.Disabled, TargetKubernetesVersion: in.TargetKubernetesVersion, LongTermSupport: in.LongTermSupport,
	}}
	return begin[AutoUpgradeProfile](ctx, c, request{
		method: http.MethodPut, path: fleet.ChildID("autoUpgradeProfiles", name), body: body,
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusCreated},
	}, runtime.FinalStateViaAzureAsyncOp)
}

// GetAutoUpgradeProfile reads a profile with its status.
func (c *Client) GetAutoUpgradeProfile(ctx context.Context, fleet FleetID, name string) (*AutoUpgradeProfile, error) {
	if err := checkChild(fleet, "auto-upgrade profile", name); err != nil {
		return nil, err
	}
	var out AutoUpgradeProfile
	if err := c.do(ctx, request{method: http.MethodGet, path: fleet.ChildID("autoUpgradeProfiles", name), ok: []int{http.StatusOK}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListAutoUpgradeProfiles lists a fleet's profiles, following nextLink.
func (c *Client) ListAutoUpgradeProfiles(ctx context.Context, fleet FleetID) ([]AutoUpgradeProfile, error) {
	if err := fleet.Validate(); err != nil {
		return nil, err
	}
	var all []AutoUpgradeProfile
	err := c.list(ctx, fleet.String()+"/autoUpgradeProfiles", func(raw json.RawMessage) (string, error) {
		var page AutoUpgradeProfileListResult
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", err
		}
		all = append(all, page.Value...)
		return page.NextLink, nil
	})
	return all, err
}

// BeginDeleteAutoUpgradeProfile deletes a profile; runs it generated stay.
func (c *Client) BeginDeleteAutoUpgradeProfile(ctx context.Context, fleet FleetID, name string, pre *Precondition) (*runtime.Poller[DeleteResult], error) {
	if err := checkChild(fleet, "auto-upgrade profile", name); err != nil {
		return nil, err
	}
	return begin[DeleteResult](ctx, c, request{
		method: http.MethodDelete, path: fleet.ChildID("autoUpgradeProfiles", name),
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusAccepted, http.StatusNoContent},
	}, runtime.FinalStateViaLocation)
}

// BeginGenerateUpdateRun asks the profile for the update run its channel's
// current target implies, created but not started; the result is the run's
// ARM ID (parse it with ParseChildID(id, "updateRuns")). fleets.json says
// the operation ends via azure-async-operation, but azcore takes a POST's
// result from the operation status body then; the result is read from the
// operation's Location instead (the status body when there is none).
func (c *Client) BeginGenerateUpdateRun(ctx context.Context, fleet FleetID, name string) (*runtime.Poller[GenerateResponse], error) {
	if err := checkChild(fleet, "auto-upgrade profile", name); err != nil {
		return nil, err
	}
	return begin[GenerateResponse](ctx, c, request{
		method: http.MethodPost, path: fleet.ChildID("autoUpgradeProfiles", name) + "/generateUpdateRun",
		ok: []int{http.StatusOK, http.StatusAccepted},
	}, runtime.FinalStateViaLocation)
}
