package fleetapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Gates: fleets/gates, created by update runs when they reach a gate. GET,
// list ($filter) and PATCH of the state (a long-running operation, final
// state via location); there is no PUT or DELETE.

// gateNameRe is fleets.json's gateName pattern: a lower-case GUID.
var gateNameRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func checkGate(fleet FleetID, name string) error {
	if err := fleet.Validate(); err != nil {
		return err
	}
	if !gateNameRe.MatchString(name) {
		return fmt.Errorf("%q is not a gate name (a lower-case GUID)", name)
	}
	return nil
}

// GetGate reads a gate.
func (c *Client) GetGate(ctx context.Context, fleet FleetID, name string) (*Gate, error) {
	if err := checkGate(fleet, name); err != nil {
		return nil, err
	}
	var out Gate
	if err := c.do(ctx, request{method: http.MethodGet, path: fleet.ChildID("gates", name), ok: []int{http.StatusOK}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListGates lists a fleet's gates matching an OData filter ("" for all),
// following nextLink. GateFilter builds the usual one.
func (c *Client) ListGates(ctx context.Context, fleet FleetID, filter string) ([]Gate, error) {
	if err := fleet.Validate(); err != nil {
		return nil, err
	}
	var q url.Values
	if filter != "" {
		q = url.Values{"$filter": {filter}}
	}
	req, err := c.newRequest(ctx, request{method: http.MethodGet, path: fleet.String() + "/gates", query: q})
	if err != nil {
		return nil, err
	}
	var all []Gate
	seen := map[string]bool{}
	for {
		var page GateListResult
		if err := c.send(req, []int{http.StatusOK}, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Value...)
		if page.NextLink == "" {
			return all, nil
		}
		if seen[page.NextLink] {
			return nil, fmt.Errorf("GET %s/gates: the service repeated the nextLink %s", fleet, page.NextLink)
		}
		seen[page.NextLink] = true
		if req, err = runtime.NewRequest(ctx, http.MethodGet, page.NextLink); err != nil {
			return nil, fmt.Errorf("GET %s/gates: invalid nextLink: %w", fleet, err)
		}
		req.Raw().Header["Accept"] = []string{"application/json"}
	}
}

// GateFilter is the $filter of the gates of one update run (runID, its
// resource ID) in a state ("" for any).
func GateFilter(runID string, state GateState) string {
	f := "properties/target/id eq " + odataString(runID)
	if state != "" {
		f += " and properties/state eq " + odataString(string(state))
	}
	return f
}

func odataString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// BeginUpdateGate patches a gate's state.
func (c *Client) BeginUpdateGate(ctx context.Context, fleet FleetID, name string, patch GatePatch, pre *Precondition) (*runtime.Poller[Gate], error) {
	if err := checkGate(fleet, name); err != nil {
		return nil, err
	}
	return begin[Gate](ctx, c, request{
		method: http.MethodPatch, path: fleet.ChildID("gates", name), body: patch,
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusAccepted},
	}, runtime.FinalStateViaLocation)
}

// BeginApproveGate completes a Pending approval gate: PATCH
// {"properties":{"state":"Completed"}}.
func (c *Client) BeginApproveGate(ctx context.Context, fleet FleetID, name string, pre *Precondition) (*runtime.Poller[Gate], error) {
	return c.BeginUpdateGate(ctx, fleet, name, GatePatch{Properties: &GatePatchProperties{State: GateStateCompleted}}, pre)
}
