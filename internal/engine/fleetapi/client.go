package fleetapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/azure"
)

// ProviderNamespace is the ARM namespace of fleets.
const ProviderNamespace = "Microsoft.ContainerService"

// Client calls the Fleet API (Microsoft.ContainerService/fleets/*) through
// an ARM pipeline: bearer token, azcore's retry policy (429 with
// Retry-After, 5xx, connection resets), the caller's context, and the Date
// recorder of the session. Operations on other fleet resources
// (updateStrategies, updateRuns, gates, autoUpgradeProfiles) live in files of
// their own and use the helpers at the end of this file.
type Client struct {
	arm   *arm.Client
	clock *azure.DateClock
	// apiVersion is every request's api-version: APIVersion unless
	// WithAPIVersion chose PreviewAPIVersion.
	apiVersion string
}

// PreviewAPIVersion is the preview api-version a client may opt into
// (fleets.json 2026-11-01-preview: failure thresholds, member selectors,
// ScheduledStart gates, member credentials). Its models are the fields and
// types marked preview; its methods refuse a stable client.
const PreviewAPIVersion = "2026-11-01-preview"

// ClientOption configures a client at construction.
type ClientOption func(*Client) error

// WithAPIVersion makes the client send api-version v, APIVersion or
// PreviewAPIVersion; any other is an error, as the models are written for
// those two only.
func WithAPIVersion(v string) ClientOption {
	return func(c *Client) error {
		if v != APIVersion && v != PreviewAPIVersion {
			return fmt.Errorf("fleetapi: api-version %q is not supported (%s or %s)", v, APIVersion, PreviewAPIVersion)
		}
		c.apiVersion = v
		return nil
	}
}

func newClient(a *arm.Client, clock *azure.DateClock, options []ClientOption) (*Client, error) {
	c := &Client{arm: a, clock: clock, apiVersion: APIVersion}
	for _, o := range options {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// NewClient returns a client on the session's cloud and credential.
func NewClient(s *azure.Session, options ...ClientOption) (*Client, error) {
	c, err := arm.NewClient("fleetapi", s.ModuleVersion(), s.Credential, s.ClientOptions())
	if err != nil {
		return nil, err
	}
	return newClient(c, s.Clock, options)
}

// NewClientWithOptions returns a client with explicit ARM options (tests,
// or a caller that builds its own pipeline). clock may be nil.
func NewClientWithOptions(cred azcore.TokenCredential, opts *arm.ClientOptions, clock *azure.DateClock, options ...ClientOption) (*Client, error) {
	if clock == nil {
		clock = &azure.DateClock{}
	}
	if opts == nil {
		opts = &arm.ClientOptions{}
	}
	o := opts.Clone()
	o.PerRetryPolicies = append(o.PerRetryPolicies, clock.Policy())
	c, err := arm.NewClient("fleetapi", "v0.0.0", cred, o)
	if err != nil {
		return nil, err
	}
	return newClient(c, clock, options)
}

// APIVersion is the api-version the client sends.
func (c *Client) APIVersion() string {
	if c.apiVersion == "" {
		return APIVersion
	}
	return c.apiVersion
}

// requirePreview refuses, before any request, a preview-only operation on a
// client of the stable api-version, which does not define it.
func (c *Client) requirePreview(op string) error {
	if v := c.APIVersion(); v != PreviewAPIVersion {
		return fmt.Errorf("fleetapi: %s is defined by api-version %s only; this client sends %s", op, PreviewAPIVersion, v)
	}
	return nil
}

// Endpoint is the ARM base URL the client sends to.
func (c *Client) Endpoint() string { return c.arm.Endpoint() }

// Pipeline is the client's ARM pipeline (for runtime.NewPoller).
func (c *Client) Pipeline() runtime.Pipeline { return c.arm.Pipeline() }

// Clock is the Date recorder of the client's responses.
func (c *Client) Clock() *azure.DateClock { return c.clock }

// GetFleet reads a fleet.
func (c *Client) GetFleet(ctx context.Context, id FleetID) (*Fleet, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	var out Fleet
	if err := c.do(ctx, request{method: http.MethodGet, path: id.String(), ok: []int{http.StatusOK}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListCredentials returns the first kubeconfig of fleets/listCredentials:
// the hub's, as `az fleet get-credentials` writes it.
func (c *Client) ListCredentials(ctx context.Context, id FleetID) ([]byte, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	var out FleetCredentialResults
	if err := c.do(ctx, request{method: http.MethodPost, path: id.String() + "/listCredentials", ok: []int{http.StatusOK}}, &out); err != nil {
		return nil, err
	}
	for _, k := range out.Kubeconfigs {
		if len(k.Value) > 0 {
			return k.Value, nil
		}
	}
	return nil, fmt.Errorf("POST %s/listCredentials returned no kubeconfig", id)
}

// ListMembers lists every member of a fleet, following nextLink.
func (c *Client) ListMembers(ctx context.Context, id FleetID) ([]FleetMember, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	var all []FleetMember
	err := c.list(ctx, id.String()+"/members", func(raw json.RawMessage) (string, error) {
		var page FleetMemberListResult
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", err
		}
		all = append(all, page.Value...)
		return page.NextLink, nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// GetMember reads one fleet member.
func (c *Client) GetMember(ctx context.Context, id FleetID, name string) (*FleetMember, error) {
	if err := id.Validate(); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, errors.New("fleet member name is empty")
	}
	var out FleetMember
	if err := c.do(ctx, request{method: http.MethodGet, path: id.ChildID("members", name), ok: []int{http.StatusOK}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// request describes one call: path is an ARM resource path (a resource ID
// or an ID plus an action); api-version is added.
type request struct {
	method  string
	path    string
	query   url.Values
	body    any
	headers map[string]string
	// ok are the success status codes; any other is an *Error.
	ok []int
}

// newRequest builds the policy.Request of r.
func (c *Client) newRequest(ctx context.Context, r request) (*policy.Request, error) {
	req, err := runtime.NewRequest(ctx, r.method, runtime.JoinPaths(c.arm.Endpoint(), escapePath(r.path)))
	if err != nil {
		return nil, err
	}
	q := req.Raw().URL.Query()
	for k, vs := range r.query {
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	q.Set("api-version", c.APIVersion())
	req.Raw().URL.RawQuery = q.Encode()
	req.Raw().Header["Accept"] = []string{"application/json"}
	for k, v := range r.headers {
		req.Raw().Header.Set(k, v)
	}
	if r.body != nil {
		if err := runtime.MarshalAsJSON(req, r.body); err != nil {
			return nil, err
		}
	}
	return req, nil
}

// do sends r and decodes a success body into out (if out is not nil). A
// status outside r.ok is returned as *Error. The response's body has been
// read and closed.
func (c *Client) do(ctx context.Context, r request, out any) error {
	req, err := c.newRequest(ctx, r)
	if err != nil {
		return err
	}
	return c.send(req, r.ok, out)
}

func (c *Client) send(req *policy.Request, ok []int, out any) error {
	resp, err := c.arm.Pipeline().Do(req)
	if err != nil {
		return err
	}
	if !runtime.HasStatusCode(resp, ok...) {
		return newError(resp)
	}
	if out != nil && resp.StatusCode != http.StatusNoContent {
		if err := runtime.UnmarshalAsJSON(resp, out); err != nil {
			return fmt.Errorf("%s %s: decoding the response: %w", req.Raw().Method, redactURL(req.Raw().URL), err)
		}
	} else {
		runtime.Drain(resp)
	}
	return nil
}

// list GETs path and every nextLink after it, handing each page's body to
// page, which returns the page's nextLink.
func (c *Client) list(ctx context.Context, path string, page func(json.RawMessage) (string, error)) error {
	req, err := c.newRequest(ctx, request{method: http.MethodGet, path: path})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for {
		var raw json.RawMessage
		if err := c.send(req, []int{http.StatusOK}, &raw); err != nil {
			return err
		}
		next, err := page(raw)
		if err != nil {
			return fmt.Errorf("GET %s: decoding a page: %w", path, err)
		}
		if next == "" {
			return nil
		}
		if seen[next] {
			return fmt.Errorf("GET %s: the service repeated the nextLink %s", path, next)
		}
		seen[next] = true
		req, err = runtime.NewRequest(ctx, http.MethodGet, next)
		if err != nil {
			return fmt.Errorf("GET %s: invalid nextLink: %w", path, err)
		}
		req.Raw().Header["Accept"] = []string{"application/json"}
	}
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.RawQuery = ""
	return c.String()
}

// Error is an error response of the Fleet API (ARM's error envelope).
type Error struct {
	StatusCode int
	Code       string
	Message    string
	Target     string
	Details    []ErrorDetail
	Method     string
	URL        string
	// RequestID is x-ms-request-id (or the correlation ID), for support.
	RequestID string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Method, e.URL, e.StatusCode)
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	for _, d := range e.Details {
		if d.Message != "" {
			fmt.Fprintf(&b, "; %s: %s", d.Code, d.Message)
		}
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

func newError(resp *http.Response) error {
	e := &Error{StatusCode: resp.StatusCode}
	if resp.Request != nil {
		e.Method = resp.Request.Method
		e.URL = redactURL(resp.Request.URL)
	}
	e.RequestID = resp.Header.Get("x-ms-request-id")
	if e.RequestID == "" {
		e.RequestID = resp.Header.Get("x-ms-correlation-request-id")
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var env struct {
		Error *ErrorDetail `json:"error"`
		ErrorDetail
	}
	if len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &env) == nil {
		d := env.Error
		if d == nil && (env.Code != "" || env.Message != "") {
			d = &env.ErrorDetail
		}
		if d != nil {
			e.Code, e.Message, e.Target, e.Details = d.Code, d.Message, d.Target, d.Details
		}
	}
	if e.Code == "" {
		if c := resp.Header.Get("x-ms-error-code"); c != "" {
			e.Code = c
		}
	}
	if e.Message == "" && e.Code == "" {
		e.Message = strings.TrimSpace(http.StatusText(resp.StatusCode))
	}
	return e
}

// AsError returns the *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// StatusCode is the HTTP status of an API error in err's chain (an *Error
// or azcore's *ResponseError, which pollers return), or 0.
func StatusCode(err error) int {
	if e, ok := AsError(err); ok {
		return e.StatusCode
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// IsNotFound reports a 404: the resource is gone.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// IsConflict reports a 409 (e.g. an update run that is not in a state for the operation).
func IsConflict(err error) bool { return StatusCode(err) == http.StatusConflict }

// IsPreconditionFailed reports a 412: an If-Match ETag no longer matches.
func IsPreconditionFailed(err error) bool { return StatusCode(err) == http.StatusPreconditionFailed }

var (
	fleetsType   = arm.NewResourceType(ProviderNamespace, "fleets")
	fleetTypeIDs = []arm.ResourceType{arm.TenantResourceType, arm.SubscriptionResourceType, arm.ResourceGroupResourceType, fleetsType}
	fleetNameRe  = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
)

// FleetID identifies a fleet.
type FleetID struct {
	SubscriptionID    string
	ResourceGroupName string
	Name              string
}

// ParseFleetID parses a fleet's ARM resource ID
// (/subscriptions/…/resourceGroups/…/providers/Microsoft.ContainerService/fleets/…).
func ParseFleetID(id string) (FleetID, error) {
	rid, err := arm.ParseResourceID(id)
	if err != nil {
		return FleetID{}, err
	}
	if err := rid.ValidateResourceTypeChain(fleetTypeIDs); err != nil {
		return FleetID{}, fmt.Errorf("%q is not a fleet ID (/subscriptions/<subscription>/resourceGroups/<group>/providers/Microsoft.ContainerService/fleets/<name>): %w", id, err)
	}
	f := FleetID{SubscriptionID: rid.SubscriptionID, ResourceGroupName: rid.ResourceGroupName, Name: rid.Name}
	return f, f.Validate()
}

// ParseChildID parses the ID of a fleet's child resource of type childType
// ("members", "updateRuns", "updateStrategies", "autoUpgradeProfiles",
// "gates") into its fleet and name.
func ParseChildID(id, childType string) (FleetID, string, error) {
	rid, err := arm.ParseResourceID(id)
	if err != nil {
		return FleetID{}, "", err
	}
	chain := append(append([]arm.ResourceType{}, fleetTypeIDs...), fleetsType.AppendChild(childType))
	if err := rid.ValidateResourceTypeChain(chain); err != nil {
		return FleetID{}, "", fmt.Errorf("%q is not the ID of a fleet's %s: %w", id, childType, err)
	}
	if rid.Parent == nil || rid.Name == "" {
		return FleetID{}, "", fmt.Errorf("%q is not the ID of a fleet's %s", id, childType)
	}
	f := FleetID{SubscriptionID: rid.SubscriptionID, ResourceGroupName: rid.ResourceGroupName, Name: rid.Parent.Name}
	return f, rid.Name, f.Validate()
}

// Validate checks that every part is set and the name is a fleet name.
func (f FleetID) Validate() error {
	switch {
	case f.SubscriptionID == "":
		return errors.New("fleet ID has no subscription")
	case f.ResourceGroupName == "":
		return errors.New("fleet ID has no resource group")
	case f.Name == "":
		return errors.New("fleet ID has no fleet name")
	case len(f.Name) > 63 || !fleetNameRe.MatchString(f.Name):
		return fmt.Errorf("%q is not a fleet name (lower-case letters, digits and '-', 1 to 63 characters)", f.Name)
	}
	return nil
}

// String is the fleet's resource ID.
func (f FleetID) String() string {
	return "/subscriptions/" + f.SubscriptionID + "/resourceGroups/" + f.ResourceGroupName +
		"/providers/" + ProviderNamespace + "/fleets/" + f.Name
}

// ChildID is the resource ID of the fleet's child childType/name.
func (f FleetID) ChildID(childType, name string) string {
	return f.String() + "/" + childType + "/" + name
}
