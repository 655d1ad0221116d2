package fleetapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Update strategies: fleets/updateStrategies (PUT and DELETE are
// long-running operations, final state via azure-async-operation).

// BeginCreateOrUpdateUpdateStrategy creates or replaces a strategy. Only its
// writable part (properties.strategy) is sent, so a strategy read with
// GetUpdateStrategy can be sent back. pre guards the write with an ETag.
func (c *Client) BeginCreateOrUpdateUpdateStrategy(ctx context.Context, fleet FleetID, name string, s FleetUpdateStrategy, pre *Precondition) (*runtime.Poller[FleetUpdateStrategy], error) {
	if err := checkChild(fleet, "update strategy", name); err != nil {
		return nil, err
	}
	if s.Properties == nil {
		return nil, fmt.Errorf("update strategy %s: properties.strategy is required", name)
	}
	body := FleetUpdateStrategy{Properties: &FleetUpdateStrategyProperties{Strategy: s.Properties.Strategy}}
	return begin[FleetUpdateStrategy](ctx, c, request{
		method: http.MethodPut, path: fleet.ChildID("updateStrategies", name), body: body,
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusCreated},
	}, runtime.FinalStateViaAzureAsyncOp)
}

// GetUpdateStrategy reads a strategy.
func (c *Client) GetUpdateStrategy(ctx context.Context, fleet FleetID, name string) (*FleetUpdateStrategy, error) {
	if err := checkChild(fleet, "update strategy", name); err != nil {
		return nil, err
	}
	var out FleetUpdateStrategy
	if err := c.do(ctx, request{method: http.MethodGet, path: fleet.ChildID("updateStrategies", name), ok: []int{http.StatusOK}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListUpdateStrategies lists a fleet's strategies, following nextLink.
func (c *Client) ListUpdateStrategies(ctx context.Context, fleet FleetID) ([]FleetUpdateStrategy, error) {
	if err := fleet.Validate(); err != nil {
		return nil, err
	}
	var all []FleetUpdateStrategy
	err := c.list(ctx, fleet.String()+"/updateStrategies", func(raw json.RawMessage) (string, error) {
		var page FleetUpdateStrategyListResult
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", err
		}
		all = append(all, page.Value...)
		return page.NextLink, nil
	})
	return all, err
}

// BeginDeleteUpdateStrategy deletes a strategy; runs created from it keep
// their copy. A strategy that does not exist is deleted already (204).
func (c *Client) BeginDeleteUpdateStrategy(ctx context.Context, fleet FleetID, name string, pre *Precondition) (*runtime.Poller[DeleteResult], error) {
	if err := checkChild(fleet, "update strategy", name); err != nil {
		return nil, err
	}
	return begin[DeleteResult](ctx, c, request{
		method: http.MethodDelete, path: fleet.ChildID("updateStrategies", name),
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusAccepted, http.StatusNoContent},
	}, runtime.FinalStateViaAzureAsyncOp)
}
