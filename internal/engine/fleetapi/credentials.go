package fleetapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
)

// Credentials of 2026-11-01-preview (fleets.json of that version):
// members' kubeconfigs through the fleet (fleets/listMemberCredentials) and
// the hub's and members' kubeconfigs scoped to a managed namespace
// (managedNamespaces/listCredentials, …/listMemberCredentials). Each is a
// POST that 2026-06-01 does not define, so a stable client refuses them
// before sending anything. Their bodies never reach the request log
// (httplog.CredentialEndpoint: a "list…credential…" action).

// ListMemberCredentials returns the kubeconfigs of the fleet's members
// named (every member when names is empty), one result per member:
// Succeeded with a kubeconfig or Failed with an error. It follows the
// response's continuationToken, as fleets.json's FleetMemberCredentialRequest
// defines paging.
func (c *Client) ListMemberCredentials(ctx context.Context, fleet FleetID, names []string) ([]FleetMemberCredentialResult, error) {
	if err := c.requirePreview("listMemberCredentials"); err != nil {
		return nil, err
	}
	if err := fleet.Validate(); err != nil {
		return nil, err
	}
	return c.memberCredentials(ctx, fleet.String()+"/listMemberCredentials", names)
}

// ListManagedNamespaceCredentials returns the hub's kubeconfig scoped to a
// managed namespace (the first of FleetCredentialResults, as ListCredentials).
func (c *Client) ListManagedNamespaceCredentials(ctx context.Context, fleet FleetID, namespace string) ([]byte, error) {
	if err := c.requirePreview("managedNamespaces/listCredentials"); err != nil {
		return nil, err
	}
	if err := checkNamespace(fleet, namespace); err != nil {
		return nil, err
	}
	path := fleet.ChildID("managedNamespaces", namespace) + "/listCredentials"
	var out FleetCredentialResults
	if err := c.do(ctx, request{method: http.MethodPost, path: path, ok: []int{http.StatusOK}}, &out); err != nil {
		return nil, err
	}
	for _, k := range out.Kubeconfigs {
		if len(k.Value) > 0 {
			return k.Value, nil
		}
	}
	return nil, fmt.Errorf("POST %s returned no kubeconfig", path)
}

// ListManagedNamespaceMemberCredentials is ListMemberCredentials scoped to a
// managed namespace.
func (c *Client) ListManagedNamespaceMemberCredentials(ctx context.Context, fleet FleetID, namespace string, names []string) ([]FleetMemberCredentialResult, error) {
	if err := c.requirePreview("managedNamespaces/listMemberCredentials"); err != nil {
		return nil, err
	}
	if err := checkNamespace(fleet, namespace); err != nil {
		return nil, err
	}
	return c.memberCredentials(ctx, fleet.ChildID("managedNamespaces", namespace)+"/listMemberCredentials", names)
}

// memberCredentials POSTs a FleetMemberCredentialRequest to path, again with
// each page's continuationToken until a page has none. The body is sent
// every time (the spec requires it; {} selects every member).
func (c *Client) memberCredentials(ctx context.Context, path string, names []string) ([]FleetMemberCredentialResult, error) {
	for _, n := range names {
		if len(n) < 1 || len(n) > 50 || !childNameRe.MatchString(n) {
			return nil, fmt.Errorf("%q is not a fleet member name (lower-case letters, digits and '-', 1 to 50 characters)", n)
		}
	}
	var all []FleetMemberCredentialResult
	seen := map[string]bool{}
	body := FleetMemberCredentialRequest{MemberNames: names}
	for {
		var page FleetMemberCredentialResults
		if err := c.do(ctx, request{method: http.MethodPost, path: path, body: body, ok: []int{http.StatusOK}}, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Value...)
		if page.ContinuationToken == "" {
			return all, nil
		}
		// A token the service already gave would loop for ever.
		if seen[page.ContinuationToken] {
			return nil, fmt.Errorf("POST %s: the service repeated a continuation token", path)
		}
		seen[page.ContinuationToken] = true
		body.ContinuationToken = page.ContinuationToken
	}
}

// DecodeKubeconfig decodes a Succeeded result's base64 kubeconfig; a Failed
// one returns its error.
func (r FleetMemberCredentialResult) DecodeKubeconfig() ([]byte, error) {
	if r.Status != MemberCredentialSucceeded {
		msg := "no error details"
		if r.Error != nil {
			msg = r.Error.Code + ": " + r.Error.Message
		}
		return nil, fmt.Errorf("member %s: credentials %s (%s)", r.Name, r.Status, msg)
	}
	b, err := base64.StdEncoding.DecodeString(r.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("member %s: the kubeconfig is not base64: %w", r.Name, err)
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("member %s: credentials Succeeded without a kubeconfig", r.Name)
	}
	return b, nil
}
