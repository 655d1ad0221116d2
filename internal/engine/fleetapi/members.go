package fleetapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Fleet members: fleets/members. PUT is a long-running operation with its
// final state via azure-async-operation, DELETE via location (fleets.json).

// BeginCreateOrUpdateMember joins a cluster to the fleet, or changes a
// member's group and labels (clusterResourceId is set at creation only).
// Only the writable properties are sent. pre guards the write with an ETag.
func (c *Client) BeginCreateOrUpdateMember(ctx context.Context, fleet FleetID, name string, m FleetMember, pre *Precondition) (*runtime.Poller[FleetMember], error) {
	if err := fleet.Validate(); err != nil {
		return nil, err
	}
	if len(name) < 1 || len(name) > 50 || !childNameRe.MatchString(name) {
		return nil, fmt.Errorf("%q is not a fleet member name (lower-case letters, digits and '-', 1 to 50 characters)", name)
	}
	p := m.Properties
	if p == nil || p.ClusterResourceID == "" {
		return nil, fmt.Errorf("fleet member %s: properties.clusterResourceId is required", name)
	}
	body := FleetMember{Properties: &FleetMemberProperties{ClusterResourceID: p.ClusterResourceID, Group: p.Group, Labels: p.Labels}}
	return begin[FleetMember](ctx, c, request{
		method: http.MethodPut, path: fleet.ChildID("members", name), body: body,
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusCreated},
	}, runtime.FinalStateViaAzureAsyncOp)
}

// BeginDeleteMember removes a member from the fleet (its cluster stays). A
// member that does not exist is deleted already (204).
func (c *Client) BeginDeleteMember(ctx context.Context, fleet FleetID, name string, pre *Precondition) (*runtime.Poller[DeleteResult], error) {
	if err := fleet.Validate(); err != nil {
		return nil, err
	}
	return begin[DeleteResult](ctx, c, request{
		method: http.MethodDelete, path: fleet.ChildID("members", name),
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusAccepted, http.StatusNoContent},
	}, runtime.FinalStateViaLocation)
}
