package fleetapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Managed namespaces: fleets/managedNamespaces (fleets.json 2026-06-01). PUT
// is long-running with the final state via azure-async-operation; DELETE
// answers 202 or 204 with the final state via location. The stable PATCH
// carries tags only, so every change of properties is a PUT.

// ManagedNamespaceNameMax is fleets.json's managedNamespaceName maxLength
// (63, a Kubernetes namespace name; other children allow 50).
const ManagedNamespaceNameMax = 63

// CheckManagedNamespaceName checks a name against fleets.json's
// managedNamespaceName parameter.
func CheckManagedNamespaceName(name string) error {
	if len(name) < 1 || len(name) > ManagedNamespaceNameMax || !childNameRe.MatchString(name) {
		return fmt.Errorf("%q is not a managed namespace name (lower-case letters, digits and '-', 1 to 63 characters, starting and ending with a letter or digit)", name)
	}
	return nil
}

func checkNamespace(fleet FleetID, name string) error {
	if err := fleet.Validate(); err != nil {
		return err
	}
	return CheckManagedNamespaceName(name)
}

// BeginCreateOrUpdateManagedNamespace creates or replaces a managed
// namespace. Only its writable part (location, tags and the properties a
// PUT may carry) is sent, so a namespace read with GetManagedNamespace can
// be sent back. pre guards the write with an ETag (If-None-Match: * to
// create only).
func (c *Client) BeginCreateOrUpdateManagedNamespace(ctx context.Context, fleet FleetID, name string, ns FleetManagedNamespace, pre *Precondition) (*runtime.Poller[FleetManagedNamespace], error) {
	if err := checkNamespace(fleet, name); err != nil {
		return nil, err
	}
	p := ns.Properties
	if p == nil || p.AdoptionPolicy == "" || p.DeletePolicy == "" {
		return nil, fmt.Errorf("managed namespace %s: properties.adoptionPolicy and properties.deletePolicy are required", name)
	}
	if ns.Location == "" {
		return nil, fmt.Errorf("managed namespace %s: location is required", name)
	}
	body := FleetManagedNamespace{Location: ns.Location, Tags: ns.Tags, Properties: &FleetManagedNamespaceProperties{
		ManagedNamespaceProperties: p.ManagedNamespaceProperties,
		AdoptionPolicy:             p.AdoptionPolicy,
		DeletePolicy:               p.DeletePolicy,
		PropagationPolicy:          p.PropagationPolicy,
	}}
	return begin[FleetManagedNamespace](ctx, c, request{
		method: http.MethodPut, path: fleet.ChildID("managedNamespaces", name), body: body,
		headers: pre.headers(), ok: []int{http.StatusOK, http.StatusCreated},
	}, runtime.FinalStateViaAzureAsyncOp)
}

// GetManagedNamespace reads a managed namespace.
func (c *Client) GetManagedNamespace(ctx context.Context, fleet FleetID, name string) (*FleetManagedNamespace, error) {
	if err := checkNamespace(fleet, name); err != nil {
		return nil, err
	}
	var out FleetManagedNamespace
	if err := c.do(ctx, request{method: http.MethodGet, path: fleet.ChildID("managedNamespaces", name), ok: []int{http.StatusOK}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListManagedNamespaces lists a fleet's managed namespaces, following nextLink.
func (c *Client) ListManagedNamespaces(ctx context.Context, fleet FleetID) ([]FleetManagedNamespace, error) {
	if err := fleet.Validate(); err != nil {
		return nil, err
	}
	var all []FleetManagedNamespace
	err := c.list(ctx, fleet.String()+"/managedNamespaces", func(raw json.RawMessage) (string, error) {
		var page FleetManagedNamespaceListResult
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", err
		}
		all = append(all, page.Value...)
		return page.NextLink, nil
	})
	return all, err
}

// BeginDeleteManagedNamespace deletes a managed namespace; its deletePolicy
// decides whether the namespaces on the members go too. One that does not
// exist is deleted already (204).
func (c *Client) BeginDeleteManagedNamespace(ctx context.Context, fleet FleetID, name string, pre *Precondition) (*runtime.Poller[DeleteResult], error) {
	if err := checkNamespace(fleet, name); err != nil {
		return nil, err
	}
	return begin[DeleteResult](ctx, c, request{
		method: http.MethodDelete, path: fleet.ChildID("managedNamespaces", name),
		headers: pre.headers(), ok: []int{http.StatusAccepted, http.StatusNoContent},
	}, runtime.FinalStateViaLocation)
}
