package fleetapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Update runs: fleets/updateRuns. PUT is a long-running operation with its
// final state via azure-async-operation; DELETE, start, stop and skip end
// via location (fleets.json). Every Begin* returns azcore's poller on the
// client's pipeline: PollUntilDone waits, honoring Retry-After and ctx.
// The operations of start, stop and skip end when the action is applied,
// not when the rollout ends: poll GetUpdateRun for that.

// Precondition guards a write with entity tags: If-Match (the resource is
// still at that eTag, "*" for any) and If-None-Match ("*": create only).
type Precondition struct {
	IfMatch     string
	IfNoneMatch string
}

func (p *Precondition) headers() map[string]string {
	if p == nil {
		return nil
	}
	h := map[string]string{}
	if p.IfMatch != "" {
		h["If-Match"] = p.IfMatch
	}
	if p.IfNoneMatch != "" {
		h["If-None-Match"] = p.IfNoneMatch
	}
	return h
}

// DeleteResult is the (empty) result of a delete operation.
type DeleteResult struct{}

// BeginCreateOrUpdateUpdateRun creates a run, or changes one that has not
// started. Only the writable properties (updateStrategyId, strategy,
// managedClusterUpdate) are sent, so a run read with GetUpdateRun can be sent
// back.
func (c *Client) BeginCreateOrUpdateUpdateRun(ctx context.Context, fleet FleetID, name string, run UpdateRun, pre *Precondition) (*runtime.Poller[UpdateRun], error) {
	if err := checkChild(fleet, "update run", name); err != nil {
		return nil, err
	}
	p := run.Properties
	if p == nil || p.ManagedClusterUpdate == nil {
		return nil, fmt.Errorf("update run %s: properties.managedClusterUpdate is required", name)
	}
	body := UpdateRun{Properties: &UpdateRunProperties{
		UpdateStrategyID: p.UpdateStrategyID, Strategy: p.Strategy, ManagedClusterUpdate: p.ManagedClusterUpdate,
	}}
	return begin[UpdateRun](ctx, c, request{
		method: http.MethodPut, path: fleet.ChildID("updateRuns", name), body: body,
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusCreated},
	}, runtime.FinalStateViaAzureAsyncOp)
}

// GetUpdateRun reads a run with its status tree.
func (c *Client) GetUpdateRun(ctx context.Context, fleet FleetID, name string) (*UpdateRun, error) {
	if err := checkChild(fleet, "update run", name); err != nil {
		return nil, err
	}
	var out UpdateRun
	if err := c.do(ctx, request{method: http.MethodGet, path: fleet.ChildID("updateRuns", name), ok: []int{http.StatusOK}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListUpdateRuns lists a fleet's runs, following nextLink.
func (c *Client) ListUpdateRuns(ctx context.Context, fleet FleetID) ([]UpdateRun, error) {
	if err := fleet.Validate(); err != nil {
		return nil, err
	}
	var all []UpdateRun
	err := c.list(ctx, fleet.String()+"/updateRuns", func(raw json.RawMessage) (string, error) {
		var page UpdateRunListResult
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", err
		}
		all = append(all, page.Value...)
		return page.NextLink, nil
	})
	return all, err
}

// BeginDeleteUpdateRun deletes a run and its gates.
func (c *Client) BeginDeleteUpdateRun(ctx context.Context, fleet FleetID, name string, pre *Precondition) (*runtime.Poller[DeleteResult], error) {
	if err := checkChild(fleet, "update run", name); err != nil {
		return nil, err
	}
	return begin[DeleteResult](ctx, c, request{
		method: http.MethodDelete, path: fleet.ChildID("updateRuns", name),
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusAccepted, http.StatusNoContent},
	}, runtime.FinalStateViaLocation)
}

// BeginStartUpdateRun starts a run that is NotStarted, Stopped or Failed.
func (c *Client) BeginStartUpdateRun(ctx context.Context, fleet FleetID, name string, pre *Precondition) (*runtime.Poller[UpdateRun], error) {
	return c.runAction(ctx, fleet, name, "start", nil, pre)
}

// BeginStopUpdateRun stops a Running or Pending run; member upgrades under
// way finish (the run is Stopping until they do).
func (c *Client) BeginStopUpdateRun(ctx context.Context, fleet FleetID, name string, pre *Precondition) (*runtime.Poller[UpdateRun], error) {
	return c.runAction(ctx, fleet, name, "stop", nil, pre)
}

// BeginSkipUpdateRun skips members, groups, stages or after-stage waits.
func (c *Client) BeginSkipUpdateRun(ctx context.Context, fleet FleetID, name string, skip SkipProperties, pre *Precondition) (*runtime.Poller[UpdateRun], error) {
	if len(skip.Targets) == 0 {
		return nil, errors.New("skip: at least one target is required")
	}
	return c.runAction(ctx, fleet, name, "skip", skip, pre)
}

func (c *Client) runAction(ctx context.Context, fleet FleetID, name, action string, body any, pre *Precondition) (*runtime.Poller[UpdateRun], error) {
	if err := checkChild(fleet, "update run", name); err != nil {
		return nil, err
	}
	return begin[UpdateRun](ctx, c, request{
		method: http.MethodPost, path: fleet.ChildID("updateRuns", name) + "/" + action, body: body,
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusAccepted},
	}, runtime.FinalStateViaLocation)
}

// begin sends the first request of a long-running operation and returns the
// poller that follows it. A status outside r.ok is an *Error; a failed
// operation is reported by the poller as an *azcore.ResponseError.
func begin[T any](ctx context.Context, c *Client, r request, final runtime.FinalStateVia) (*runtime.Poller[T], error) {
	req, err := c.newRequest(ctx, r)
	if err != nil {
		return nil, err
	}
	resp, err := c.arm.Pipeline().Do(req)
	if err != nil {
		return nil, err
	}
	if !runtime.HasStatusCode(resp, r.ok...) {
		return nil, newError(resp)
	}
	return runtime.NewPoller(resp, c.arm.Pipeline(), &runtime.NewPollerOptions[T]{FinalStateVia: final})
}

// childNameRe is the name pattern of update runs and strategies (1–50
// characters) in fleets.json.
var childNameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func checkChild(fleet FleetID, kind, name string) error {
	if err := fleet.Validate(); err != nil {
		return err
	}
	if len(name) > 50 || !childNameRe.MatchString(name) {
		return fmt.Errorf("%q is not an %s name (lower-case letters, digits and '-', 1 to 50 characters)", name, kind)
	}
	return nil
}
