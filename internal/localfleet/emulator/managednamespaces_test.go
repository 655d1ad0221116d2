package emulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi/openapi"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
)

// The upstream example of a managed namespace (Azure/azure-rest-api-specs, copied with provenance
// in internal/engine/fleetapi/testdata/azure-fleet-api/README.md).
const namespaceGetExample = "../../engine/fleetapi/testdata/azure-fleet-api/stable/2026-06-01/examples/FleetManagedNamespaces_Get.json"

// fakeNamespaces records what the emulator asks of the hub; a removal is done once release is
// closed, and PlaceNamespace answers a conflict for the name conflict. PlacedMembers answers
// members (or hubErr); with hold set, each call first sends on entered, then waits for hold.
type fakeNamespaces struct {
	mu       sync.Mutex
	placed   []string
	props    map[string]fleetapi.FleetManagedNamespaceProperties
	removals map[string][]string
	release  chan struct{}
	conflict string
	members  map[string][]string
	asked    []string
	hubErr   error
	hold     chan struct{}
	entered  chan string
}

func newFakeNamespaces() *fakeNamespaces {
	return &fakeNamespaces{props: map[string]fleetapi.FleetManagedNamespaceProperties{}, removals: map[string][]string{},
		release: make(chan struct{}), members: map[string][]string{}}
}

func (f *fakeNamespaces) PlacedMembers(ctx context.Context, name string) ([]string, error) {
	f.mu.Lock()
	f.asked = append(f.asked, name)
	hold, entered := f.hold, f.entered
	f.mu.Unlock()
	if hold != nil {
		entered <- name
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hubErr != nil {
		return nil, f.hubErr
	}
	return append([]string(nil), f.members[name]...), nil
}

// setPlaced makes the hub report name placed on members (and clears a hub error).
func (f *fakeNamespaces) setPlaced(name string, members ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.members[name], f.hubErr = members, nil
}

// askedCount is how many times the hub was asked where a namespace is placed.
func (f *fakeNamespaces) askedCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.asked)
}

func (f *fakeNamespaces) PlaceNamespace(_ context.Context, id, name string, props fleetapi.FleetManagedNamespaceProperties) error {
	if name == f.conflict {
		return fmt.Errorf("%w: the hub has a ClusterResourcePlacement %q it did not get from the Fleet API", emulator.ErrNamespaceConflict, name)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !strings.HasSuffix(id, "/managedNamespaces/"+name) {
		return fmt.Errorf("id %s does not name %s", id, name)
	}
	f.placed = append(f.placed, name)
	f.props[name] = props
	return nil
}

func (f *fakeNamespaces) RemoveNamespace(_ context.Context, name, deletePolicy string) (bool, error) {
	f.mu.Lock()
	f.removals[name] = append(f.removals[name], deletePolicy)
	f.mu.Unlock()
	select {
	case <-f.release:
		return true, nil
	default:
		return false, nil
	}
}

func (f *fakeNamespaces) placements() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.placed...)
}

// nsFixture is an emulator of the quickstart fleet with the Fleet API client and, when hooks is
// set, a hub that follows its managed namespaces.
type nsFixture struct {
	*fixture
	c     *fleetapi.Client
	fleet fleetapi.FleetID
}

func newNSFixture(t *testing.T, hooks emulator.NamespaceHooks) *nsFixture {
	t.Helper()
	zero := 0
	fx := newFixture(t, func(c *emulator.Config) {
		c.RetryAfterSeconds = &zero
		if hooks != nil {
			c.Namespaces = hooks
		}
	})
	opts := &arm.ClientOptions{ClientOptions: fx.opts}
	opts.PerCallPolicies = []policy.Policy{instantOperations{}}
	c, err := fleetapi.NewClientWithOptions(fx.cred, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &nsFixture{fixture: fx, c: c, fleet: fleetapi.FleetID{SubscriptionID: fx.sub, ResourceGroupName: fx.rg, Name: fx.file.Fleet.Name}}
}

// send sends body (nil: none) with headers through the ARM pipeline and returns the answer.
func (fx *nsFixture) send(t *testing.T, method, path string, body any, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := path
	if !strings.HasPrefix(u, "https://") {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u = fx.arm.Endpoint() + u + sep + "api-version=" + fleetapi.APIVersion
	}
	req, err := runtime.NewRequest(ctx, method, u)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Raw().Header.Set(k, v)
	}
	if body != nil {
		b, ok := body.([]byte)
		if !ok {
			if b, err = json.Marshal(body); err != nil {
				t.Fatal(err)
			}
		}
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(b)), "application/json"); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := fx.arm.Pipeline().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp, buf.Bytes()
}

func (fx *nsFixture) nsPath(name string) string { return fx.fleetPath("/managedNamespaces/" + name) }

// put PUTs a managed namespace and waits for its operation; it fails unless the answer is want.
func (fx *nsFixture) put(t *testing.T, name string, body any, headers map[string]string, want int) []byte {
	t.Helper()
	resp, b := fx.send(t, http.MethodPut, fx.nsPath(name), body, headers)
	if resp.StatusCode != want {
		t.Fatalf("PUT %s: %d %s, want %d", name, resp.StatusCode, b, want)
	}
	if want < 300 {
		op := resp.Header.Get("Azure-AsyncOperation")
		if op == "" {
			t.Fatalf("PUT %s: %d without Azure-AsyncOperation", name, resp.StatusCode)
		}
		if st := fx.operation(t, op); st.Status != "Succeeded" {
			t.Fatalf("PUT %s: operation %+v", name, st)
		}
	}
	return b
}

type opStatus struct {
	Name   string                `json:"name"`
	Status string                `json:"status"`
	Error  *fleetapi.ErrorDetail `json:"error"`
}

func (fx *nsFixture) operation(t *testing.T, url string) opStatus {
	t.Helper()
	resp, b := fx.send(t, http.MethodGet, url, nil, nil)
	var st opStatus
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	decode(t, b, &st)
	return st
}

// get reads a namespace, refusing fields the model lacks and a body the spec would not describe
// (each property known, of its type and enum; read-only ones are expected in an answer).
func (fx *nsFixture) get(t *testing.T, name string) (fleetapi.FleetManagedNamespace, http.Header) {
	t.Helper()
	resp, b := fx.send(t, http.MethodGet, fx.nsPath(name), nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", name, resp.StatusCode, b)
	}
	spec, err := openapi.Fleets()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range spec.CheckBody(http.MethodPut, fx.nsPath("x"), b) {
		if v.Rule != "readOnly" {
			t.Errorf("GET %s: the answer breaks fleets.json: %s\n%s", name, v, b)
		}
	}
	var ns fleetapi.FleetManagedNamespace
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ns); err != nil {
		t.Fatalf("GET %s: %v\n%s", name, err, b)
	}
	return ns, resp.Header
}

// refused checks a refusal's status, code and, when given, target and a part of its message.
func refused(t *testing.T, what string, resp *http.Response, b []byte, status int, code, target, msg string) {
	t.Helper()
	e := armError(t, b)
	if resp.StatusCode != status || e.Code != code || (target != "" && e.Target != target) || !strings.Contains(e.Message, msg) {
		t.Errorf("%s: %d %s (target %q): %s; want %d %s at %q containing %q", what, resp.StatusCode, e.Code, e.Target, e.Message, status, code, target, msg)
	}
}

// namespaceBody is a PUT body selecting env=prod members, with a quota and a network policy.
func namespaceBody() map[string]any {
	return map[string]any{
		"location": "eastus",
		"tags":     map[string]any{"team": "a"},
		"properties": map[string]any{
			"adoptionPolicy": "IfIdentical",
			"deletePolicy":   "Delete",
			"managedNamespaceProperties": map[string]any{
				"labels":               map[string]any{"team": "a"},
				"annotations":          map[string]any{"owner": "team-a@example.com"},
				"defaultResourceQuota": map[string]any{"cpuRequest": "2", "memoryLimit": "4Gi"},
				"defaultNetworkPolicy": map[string]any{"ingress": "AllowSameNamespace", "egress": "AllowAll"},
			},
			"propagationPolicy": map[string]any{"type": "Placement", "placementProfile": map[string]any{"defaultClusterResourcePlacement": map[string]any{
				"policy": map[string]any{
					"placementType": "PickAll",
					"affinity": map[string]any{"clusterAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
						"clusterSelectorTerms": []any{map[string]any{"labelSelector": map[string]any{"matchLabels": map[string]any{"env": "prod"}}}},
					}}},
					"tolerations": []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}},
				},
			}}},
		},
	}
}

// with returns a deep copy of body with the value at the dotted path set (nil deletes it).
func with(body map[string]any, path string, v any) map[string]any {
	b, _ := json.Marshal(body)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	parts := strings.Split(path, ".")
	m := out
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
	} else {
		m[parts[len(parts)-1]] = v
	}
	return out
}

const policyAt = "properties.propagationPolicy.placementProfile.defaultClusterResourcePlacement.policy"

// A PUT creates the namespace (201 with an operation that has succeeded), the hub is asked to
// place it with what was sent, and a GET shows it as fleets.json describes it: Succeeded, the
// operation as its last, the fleet hub's portal FQDN, its ETag.
func TestManagedNamespaceCreate(t *testing.T) {
	hooks := newFakeNamespaces()
	fx := newNSFixture(t, hooks)
	b := fx.put(t, "team-a", namespaceBody(), map[string]string{"If-None-Match": "*"}, http.StatusCreated)
	var created fleetapi.FleetManagedNamespace
	decode(t, b, &created)
	ns, h := fx.get(t, "team-a")
	p := ns.Properties
	if ns.ID != fx.fleet.ChildID("managedNamespaces", "team-a") || ns.Type != "Microsoft.ContainerService/fleets/managedNamespaces" || ns.Location != "eastus" || ns.Tags["team"] != "a" {
		t.Errorf("resource %s %s %s %v", ns.ID, ns.Type, ns.Location, ns.Tags)
	}
	if p.ProvisioningState != "Succeeded" || p.PortalFqdn != "127.0.0.1" || p.Status == nil || p.Status.LastOperationID == "" || p.AdoptionPolicy != "IfIdentical" || p.DeletePolicy != "Delete" {
		t.Errorf("properties %+v", p)
	}
	if ns.ETag == "" || h.Get("ETag") != ns.ETag || created.ETag != ns.ETag {
		t.Errorf("eTag %q, header %q, PUT answer %q", ns.ETag, h.Get("ETag"), created.ETag)
	}
	if q := p.ManagedNamespaceProperties.DefaultResourceQuota; q == nil || q.CPURequest != "2" || q.MemoryLimit != "4Gi" {
		t.Errorf("quota %+v", q)
	}
	if got := hooks.placements(); !reflect.DeepEqual(got, []string{"team-a"}) {
		t.Fatalf("placed %v", got)
	}
	hooks.mu.Lock()
	sent := hooks.props["team-a"]
	hooks.mu.Unlock()
	pol := sent.PropagationPolicy.PlacementProfile.DefaultClusterResourcePlacement.Policy
	if pol.PlacementType != "PickAll" || len(pol.Tolerations) != 1 || sent.ManagedNamespaceProperties.Labels["team"] != "a" {
		t.Errorf("the hub was given %+v", sent)
	}
	// The operation the PUT answered is the namespace's last.
	var op opStatus
	resp, _ := fx.send(t, http.MethodPut, fx.nsPath("team-a"), namespaceBody(), map[string]string{"If-Match": ns.ETag})
	decode(t, fx.operationBody(t, resp.Header.Get("Azure-AsyncOperation")), &op)
	if again, _ := fx.get(t, "team-a"); resp.StatusCode != http.StatusOK || again.Properties.Status.LastOperationID != op.Name || op.Name == p.Status.LastOperationID {
		t.Errorf("replace: %d, lastOperationId %s, operation %s (before %s)", resp.StatusCode, again.Properties.Status.LastOperationID, op.Name, p.Status.LastOperationID)
	}
}

func (fx *nsFixture) operationBody(t *testing.T, url string) []byte {
	t.Helper()
	resp, b := fx.send(t, http.MethodGet, url, nil, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return b
}

// The upstream example, sent back without its read-only properties, is accepted once its
// toleration is fixed: as published ({operator: Exists, value: "true"}) KubeFleet's webhook
// refuses it, and so does the emulator, with the webhook's message at the toleration's value.
func TestManagedNamespaceUpstreamExample(t *testing.T) {
	fx := newNSFixture(t, nil)
	raw, err := os.ReadFile(namespaceGetExample)
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Responses map[string]struct {
			Body map[string]any `json:"body"`
		} `json:"responses"`
	}
	decode(t, raw, &ex)
	body := ex.Responses["200"].Body
	for _, k := range []string{"id", "name", "type", "systemData", "eTag"} {
		delete(body, k)
	}
	for _, k := range []string{"status", "portalFqdn", "provisioningState"} {
		body = with(body, "properties."+k, nil)
	}
	resp, b := fx.send(t, http.MethodPut, fx.nsPath("namespace1"), body, nil)
	refused(t, "the example as published", resp, b, http.StatusBadRequest, "InvalidParameter", policyAt+".tolerations[0].value", "toleration value needs to be empty, when operator is Exists")

	tolerations := []any{map[string]any{"key": "AIWorkloadOnly", "operator": "Exists", "effect": "NoSchedule"}}
	fixed := with(body, "properties.propagationPolicy.placementProfile.defaultClusterResourcePlacement.policy.tolerations", tolerations)
	fx.put(t, "namespace1", fixed, nil, http.StatusCreated)
	ns, _ := fx.get(t, "namespace1")
	term := ns.Properties.PropagationPolicy.PlacementProfile.DefaultClusterResourcePlacement.Policy.Affinity.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms[0]
	if term.PropertySelector.MatchExpressions[0].Name != "zones" || term.LabelSelector.MatchExpressions[0].Values[1] != "production2" || ns.Properties.ManagedNamespaceProperties.DefaultNetworkPolicy.Ingress != "AllowSameNamespace" {
		t.Errorf("stored %+v", ns.Properties)
	}
}

// ETag preconditions: If-None-Match * on an existing namespace and an If-Match that is not its
// ETag are refused (412) and change nothing.
func TestManagedNamespacePreconditions(t *testing.T) {
	hooks := newFakeNamespaces()
	fx := newNSFixture(t, hooks)
	fx.put(t, "team-a", namespaceBody(), nil, http.StatusCreated)
	before, _ := fx.get(t, "team-a")
	resp, b := fx.send(t, http.MethodPut, fx.nsPath("team-a"), namespaceBody(), map[string]string{"If-None-Match": "*"})
	refused(t, "If-None-Match *", resp, b, http.StatusPreconditionFailed, "PreconditionFailed", "", "")
	resp, b = fx.send(t, http.MethodPut, fx.nsPath("team-a"), namespaceBody(), map[string]string{"If-Match": `"not-the-etag"`})
	refused(t, "If-Match", resp, b, http.StatusPreconditionFailed, "PreconditionFailed", "", "")
	resp, b = fx.send(t, http.MethodDelete, fx.nsPath("team-a"), nil, map[string]string{"If-Match": `"not-the-etag"`})
	refused(t, "DELETE If-Match", resp, b, http.StatusPreconditionFailed, "PreconditionFailed", "", "")
	if after, _ := fx.get(t, "team-a"); after.ETag != before.ETag || len(hooks.placements()) != 1 {
		t.Errorf("a refused write changed the namespace (%s → %s) or reached the hub (%v)", before.ETag, after.ETag, hooks.placements())
	}
}

// Names: 63 characters are a namespace name, 64 are not; KubeFleet's reserved prefixes are refused.
func TestManagedNamespaceNames(t *testing.T) {
	fx := newNSFixture(t, nil)
	fx.put(t, strings.Repeat("a", 63), namespaceBody(), nil, http.StatusCreated)
	for _, name := range []string{strings.Repeat("a", 64), "kube-apps", "fleet-apps", "Team"} {
		resp, b := fx.send(t, http.MethodPut, fx.nsPath(name), namespaceBody(), nil)
		refused(t, name, resp, b, http.StatusBadRequest, "InvalidResourceName", "", "")
	}
}

// Bodies ARM (fleets.json) or the hub (KubeFleet's webhook, the API server) would refuse are
// refused before the hub is asked, with the offending property as the target.
func TestManagedNamespaceRefusals(t *testing.T) {
	hooks := newFakeNamespaces()
	fx := newNSFixture(t, hooks)
	fixed := map[string]any{"placementType": "PickFixed", "clusterNames": []any{"prod-east-1"}}
	for _, tc := range []struct {
		name, path string
		value      any
		code       string
		target     string
		msg        string
	}{
		{"PickN", policyAt + ".placementType", "PickN", "InvalidRequestContent", policyAt + ".placementType", "is not one of PickAll, PickFixed"},
		{"PickFixed with affinity", policyAt + ".placementType", "PickFixed", "InvalidParameter", policyAt + ".affinity", "affinity must be nil for policy type PickFixed"},
		{"PickFixed with tolerations", policyAt, with(fixed, "tolerations", []any{map[string]any{"key": "a", "operator": "Exists"}}), "InvalidParameter", policyAt + ".tolerations", "tolerations needs to be empty"},
		{"Exists with a value", policyAt + ".tolerations", []any{map[string]any{"key": "a", "operator": "Exists", "value": "b"}}, "InvalidParameter", policyAt + ".tolerations[0].value", "toleration value needs to be empty"},
		{"toleration effect", policyAt + ".tolerations", []any{map[string]any{"key": "a", "operator": "Exists", "effect": "NoExecute"}}, "InvalidRequestContent", policyAt + ".tolerations[0].effect", "NoExecute"},
		{"bad label selector", policyAt + ".affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms", []any{map[string]any{"labelSelector": map[string]any{"matchLabels": map[string]any{"env": "a b"}}}}, "InvalidParameter", policyAt + ".affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].labelSelector", "invalid"},
		{"property selector without values", policyAt + ".affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms", []any{map[string]any{"propertySelector": map[string]any{"matchExpressions": []any{map[string]any{"name": "zones", "operator": "Gt"}}}}}, "InvalidRequestContent", policyAt + ".affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms[0].propertySelector.matchExpressions[0].values", "required"},
		{"bad quota", "properties.managedNamespaceProperties.defaultResourceQuota.cpuRequest", "lots", "InvalidParameter", "", "defaultResourceQuota.cpuRequest \"lots\" is not a Kubernetes quantity"},
		{"negative quota", "properties.managedNamespaceProperties.defaultResourceQuota.memoryLimit", "-1Gi", "InvalidParameter", "", "must be greater than or equal to 0"},
		{"bad network rule", "properties.managedNamespaceProperties.defaultNetworkPolicy.egress", "AllowSome", "InvalidRequestContent", "properties.managedNamespaceProperties.defaultNetworkPolicy.egress", "not one of"},
		{"bad label", "properties.managedNamespaceProperties.labels", map[string]any{"-team": "a"}, "InvalidParameter", "properties.managedNamespaceProperties.labels", "name part must consist of"},
		{"bad annotation", "properties.managedNamespaceProperties.annotations", map[string]any{"a/b/c": "x"}, "InvalidParameter", "properties.managedNamespaceProperties.annotations", "a valid label key must consist of"},
		{"no adoption policy", "properties.adoptionPolicy", nil, "InvalidRequestContent", "properties.adoptionPolicy", "required"},
		{"no delete policy", "properties.deletePolicy", nil, "InvalidRequestContent", "properties.deletePolicy", "required"},
		{"no properties", "properties", nil, "InvalidRequestContent", "properties", "adoptionPolicy and properties.deletePolicy are required"},
		{"no location", "location", nil, "InvalidRequestContent", "location", "required"},
		{"no propagation type", "properties.propagationPolicy.type", nil, "InvalidRequestContent", "properties.propagationPolicy.type", "required"},
		{"read-only state", "properties.provisioningState", "Succeeded", "InvalidRequestContent", "properties.provisioningState", "read-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := fx.send(t, http.MethodPut, fx.nsPath("refused"), with(namespaceBody(), tc.path, tc.value), nil)
			refused(t, tc.name, resp, b, http.StatusBadRequest, tc.code, tc.target, tc.msg)
		})
	}
	if got := hooks.placements(); len(got) != 0 {
		t.Errorf("refused bodies reached the hub: %v", got)
	}
	if resp, b := fx.send(t, http.MethodGet, fx.nsPath("refused"), nil, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a refused namespace exists: %d %s", resp.StatusCode, b)
	}
	// The same body, valid, is created: each refusal was the one change.
	fx.put(t, "refused", namespaceBody(), nil, http.StatusCreated)
}

// An update may add tolerations but not remove one nor change the placement type (KubeFleet's
// webhook), and keeps the location (ARM).
func TestManagedNamespaceUpdateRules(t *testing.T) {
	hooks := newFakeNamespaces()
	fx := newNSFixture(t, hooks)
	fx.put(t, "team-a", namespaceBody(), nil, http.StatusCreated)
	tols := policyAt + ".tolerations"
	for _, tc := range []struct {
		name, path string
		value      any
		status     int
		code, msg  string
	}{
		{"toleration removed", tols, nil, http.StatusBadRequest, "InvalidParameter", "only additions to tolerations are allowed"},
		{"toleration changed", tols, []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "cpu", "effect": "NoSchedule"}}, http.StatusBadRequest, "InvalidParameter", "only additions to tolerations are allowed"},
		{"placement type changed", policyAt, map[string]any{"placementType": "PickFixed", "clusterNames": []any{"prod-east-1"}}, http.StatusBadRequest, "InvalidParameter", "placement type is immutable"},
		{"location changed", "location", "westeurope", http.StatusBadRequest, "InvalidResourceLocation", "eastus"},
	} {
		resp, b := fx.send(t, http.MethodPut, fx.nsPath("team-a"), with(namespaceBody(), tc.path, tc.value), nil)
		refused(t, tc.name, resp, b, tc.status, tc.code, "", tc.msg)
	}
	added := []any{
		map[string]any{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
		map[string]any{"key": "zone", "operator": "Exists"},
	}
	fx.put(t, "team-a", with(namespaceBody(), tols, added), nil, http.StatusOK)
	if got := hooks.placements(); len(got) != 2 {
		t.Errorf("placed %v: the refused updates reached the hub, or the accepted one did not", got)
	}
}

// The stable PATCH carries tags only: they replace the namespace's, the rest stays; properties in
// a PATCH are refused by the strict check.
func TestManagedNamespacePatchTagsOnly(t *testing.T) {
	fx := newNSFixture(t, newFakeNamespaces())
	fx.put(t, "team-a", namespaceBody(), nil, http.StatusCreated)
	before, _ := fx.get(t, "team-a")
	resp, b := fx.send(t, http.MethodPatch, fx.nsPath("team-a"), map[string]any{"tags": map[string]any{"tag2": "tagValue2"}}, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH: %d %s", resp.StatusCode, b)
	}
	after, _ := fx.get(t, "team-a")
	if !reflect.DeepEqual(after.Tags, map[string]string{"tag2": "tagValue2"}) || after.ETag == before.ETag ||
		!reflect.DeepEqual(after.Properties.ManagedNamespaceProperties, before.Properties.ManagedNamespaceProperties) {
		t.Errorf("after PATCH: tags %v, eTag %s (was %s), properties %+v", after.Tags, after.ETag, before.ETag, after.Properties.ManagedNamespaceProperties)
	}
	resp, b = fx.send(t, http.MethodPatch, fx.nsPath("team-a"), map[string]any{"properties": map[string]any{"deletePolicy": "Keep"}}, nil)
	refused(t, "PATCH properties", resp, b, http.StatusBadRequest, "InvalidRequestContent", "properties", "not in the api-version's schema")
	resp, b = fx.send(t, http.MethodPatch, fx.nsPath("nothing"), map[string]any{"tags": map[string]any{}}, nil)
	refused(t, "PATCH of nothing", resp, b, http.StatusNotFound, "ResourceNotFound", "", "")
}

// DELETE answers 202 with a Location; the operation runs, and the namespace shows Deleting (and
// refuses writes), until the hub has let it go; then it is gone, and a second DELETE is 204.
func TestManagedNamespaceDelete(t *testing.T) {
	hooks := newFakeNamespaces()
	fx := newNSFixture(t, hooks)
	fx.put(t, "team-a", with(namespaceBody(), "properties.deletePolicy", "Keep"), nil, http.StatusCreated)
	resp, b := fx.send(t, http.MethodDelete, fx.nsPath("team-a"), nil, nil)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusAccepted || loc == "" {
		t.Fatalf("DELETE: %d %s, Location %q", resp.StatusCode, b, loc)
	}
	err := waitFor(5*time.Second, func() bool {
		hooks.mu.Lock()
		defer hooks.mu.Unlock()
		return len(hooks.removals["team-a"]) >= 2
	})
	if err != nil {
		t.Fatalf("the hub was not asked again while the removal ran: %v", err)
	}
	if r, _ := fx.send(t, http.MethodGet, loc, nil, nil); r.StatusCode != http.StatusAccepted {
		t.Fatalf("Location while the hub holds the namespace: %d, want 202", r.StatusCode)
	}
	ns, _ := fx.get(t, "team-a")
	if ns.Properties.ProvisioningState != "Deleting" || ns.Properties.Status.LastOperationID == "" {
		t.Errorf("while deleting: %+v", ns.Properties)
	}
	r, b := fx.send(t, http.MethodPut, fx.nsPath("team-a"), namespaceBody(), nil)
	refused(t, "PUT while deleting", r, b, http.StatusConflict, "Conflict", "", "being deleted")
	if again, _ := fx.send(t, http.MethodDelete, fx.nsPath("team-a"), nil, nil); again.Header.Get("Location") != loc {
		t.Errorf("a second DELETE started another operation: %s, want %s", again.Header.Get("Location"), loc)
	}
	close(hooks.release)
	err = waitFor(10*time.Second, func() bool {
		r, _ := fx.send(t, http.MethodGet, loc, nil, nil)
		return r.StatusCode == http.StatusNoContent
	})
	if err != nil {
		t.Fatalf("the operation did not end: %v", err)
	}
	if r, b := fx.send(t, http.MethodGet, fx.nsPath("team-a"), nil, nil); r.StatusCode != http.StatusNotFound {
		t.Fatalf("after the operation: %d %s", r.StatusCode, b)
	}
	hooks.mu.Lock()
	for _, p := range hooks.removals["team-a"] {
		if p != "Keep" {
			t.Errorf("removal asked with deletePolicy %s, want Keep", p)
		}
	}
	hooks.mu.Unlock()
	if r, _ := fx.send(t, http.MethodDelete, fx.nsPath("team-a"), nil, nil); r.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE of a deleted namespace: %d, want 204", r.StatusCode)
	}
	// The client's poller (final state via location) follows the same operation to its end.
	fx.put(t, "team-b", namespaceBody(), nil, http.StatusCreated)
	if _, err := lro(fx.c.BeginDeleteManagedNamespace(context.Background(), fx.fleet, "team-b", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.c.GetManagedNamespace(context.Background(), fx.fleet, "team-b"); !fleetapi.IsNotFound(err) {
		t.Errorf("team-b after the client's delete: %v", err)
	}
}

func waitFor(bound time.Duration, cond func() bool) error {
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", bound)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// A placement of the namespace's name that the Fleet API did not write is a conflict (409), and
// nothing is stored.
func TestManagedNamespaceHubConflict(t *testing.T) {
	hooks := newFakeNamespaces()
	hooks.conflict = "taken"
	fx := newNSFixture(t, hooks)
	resp, b := fx.send(t, http.MethodPut, fx.nsPath("taken"), namespaceBody(), nil)
	refused(t, "PUT over a foreign placement", resp, b, http.StatusConflict, "Conflict", "", "did not get from the Fleet API")
	if r, _ := fx.send(t, http.MethodGet, fx.nsPath("taken"), nil, nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("the refused namespace was stored: %d", r.StatusCode)
	}
}

// Lists page with $top and nextLink, in creation order; the client follows every page.
func TestManagedNamespaceList(t *testing.T) {
	fx := newNSFixture(t, nil)
	names := []string{"ns-c", "ns-a", "ns-b"}
	for _, n := range names {
		fx.put(t, n, namespaceBody(), nil, http.StatusCreated)
	}
	resp, b := fx.send(t, http.MethodGet, fx.fleetPath("/managedNamespaces?$top=2"), nil, nil)
	var page fleetapi.FleetManagedNamespaceListResult
	decode(t, b, &page)
	if resp.StatusCode != http.StatusOK || len(page.Value) != 2 || page.NextLink == "" {
		t.Fatalf("first page: %d, %d items, nextLink %q", resp.StatusCode, len(page.Value), page.NextLink)
	}
	resp, b = fx.send(t, http.MethodGet, page.NextLink, nil, nil)
	var second fleetapi.FleetManagedNamespaceListResult
	decode(t, b, &second)
	if resp.StatusCode != http.StatusOK || len(second.Value) != 1 || second.NextLink != "" || second.Value[0].Name != "ns-b" {
		t.Fatalf("second page: %d %s", resp.StatusCode, b)
	}
	all, err := fx.c.ListManagedNamespaces(context.Background(), fx.fleet)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ns := range all {
		got = append(got, ns.Name)
	}
	if !reflect.DeepEqual(got, names) {
		t.Errorf("listed %v, want %v", got, names)
	}
}

// getAt reads path at api-version v without failing the test (a goroutine's read), returning the
// status, the ETag and the body.
func (fx *nsFixture) getAt(path, v string) (int, string, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := runtime.NewRequest(ctx, http.MethodGet, fx.arm.Endpoint()+path+"?api-version="+v)
	if err != nil {
		return 0, "", nil, err
	}
	resp, err := fx.arm.Pipeline().Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	return resp.StatusCode, resp.Header.Get("ETag"), buf.Bytes(), err
}

// previewNamespace reads a namespace at the preview version, holding the answer to the preview
// document (read-only properties expected) and to the model.
func (fx *nsFixture) previewNamespace(t *testing.T, name string) (fleetapi.FleetManagedNamespace, string) {
	t.Helper()
	status, etag, b, err := fx.getAt(fx.nsPath(name), fleetapi.PreviewAPIVersion)
	if err != nil || status != http.StatusOK {
		t.Fatalf("preview GET %s: %d %s (%v)", name, status, b, err)
	}
	spec, err := openapi.ForVersion(fleetapi.PreviewAPIVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range spec.CheckBody(http.MethodPut, fx.nsPath("x"), b) {
		if v.Rule != "readOnly" {
			t.Errorf("preview GET %s: the answer breaks the preview document: %s\n%s", name, v, b)
		}
	}
	var ns fleetapi.FleetManagedNamespace
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ns); err != nil {
		t.Fatalf("preview GET %s: %v\n%s", name, err, b)
	}
	return ns, etag
}

// The preview's placedMembers is where the hub says the namespace is placed when it is read: the
// hub is asked before each preview read (one namespace or the list), never while the emulator's
// world is locked (another request is answered while the hub is slow), and not for a stable read,
// whose answer leaves the property out. Observing the hub changes no ETag; a hub that fails to
// answer leaves what was seen last; a namespace deleted and created again starts unseen.
func TestManagedNamespacePlacedMembers(t *testing.T) {
	hooks := newFakeNamespaces()
	fx := newNSFixture(t, hooks)
	fx.put(t, "team-a", namespaceBody(), nil, http.StatusCreated)
	fx.put(t, "team-b", namespaceBody(), nil, http.StatusCreated)
	hooks.setPlaced("team-a", "canary-east", "prod-east-1")

	ns, etag := fx.previewNamespace(t, "team-a")
	if got := ns.Properties.PlacedMembers; !reflect.DeepEqual(got, []string{"canary-east", "prod-east-1"}) {
		t.Errorf("preview placedMembers %v, want [canary-east prod-east-1]", got)
	}
	asked := hooks.askedCount()
	_, h := fx.get(t, "team-a") // stable: DisallowUnknownFields would take placedMembers, so look at the body
	if resp, b := fx.send(t, http.MethodGet, fx.nsPath("team-a"), nil, nil); resp.StatusCode != http.StatusOK || strings.Contains(string(b), "placedMembers") {
		t.Errorf("stable GET: %d %s, want no placedMembers", resp.StatusCode, b)
	}
	if resp, b := fx.send(t, http.MethodGet, fx.fleetPath("/managedNamespaces"), nil, nil); resp.StatusCode != http.StatusOK || strings.Contains(string(b), "placedMembers") {
		t.Errorf("stable list: %d %s, want no placedMembers", resp.StatusCode, b)
	}
	if n := hooks.askedCount(); n != asked {
		t.Errorf("stable reads asked the hub %d times", n-asked)
	}
	if h.Get("ETag") != etag {
		t.Errorf("stable ETag %s, preview %s: one resource, one ETag", h.Get("ETag"), etag)
	}

	// The hub moves the namespace (a member agent applied it, a member left): the next read says so.
	hooks.setPlaced("team-a", "canary-east")
	ns, etag2 := fx.previewNamespace(t, "team-a")
	if got := ns.Properties.PlacedMembers; !reflect.DeepEqual(got, []string{"canary-east"}) || etag2 != etag {
		t.Errorf("after the hub moved it: placedMembers %v, ETag %s (was %s); want [canary-east], the same ETag", got, etag2, etag)
	}
	status, _, b, err := fx.getAt(fx.fleetPath("/managedNamespaces"), fleetapi.PreviewAPIVersion)
	var list fleetapi.FleetManagedNamespaceListResult
	if err != nil || status != http.StatusOK {
		t.Fatalf("preview list: %d %s (%v)", status, b, err)
	}
	decode(t, b, &list)
	placedIn := map[string][]string{}
	for _, v := range list.Value {
		placedIn[v.Name] = v.Properties.PlacedMembers
	}
	if !reflect.DeepEqual(placedIn, map[string][]string{"team-a": {"canary-east"}, "team-b": nil}) {
		t.Errorf("preview list: placedMembers %v", placedIn)
	}

	// A slow hub: while it is being asked for team-a, a read of team-b is answered.
	hold, entered := make(chan struct{}), make(chan string)
	hooks.mu.Lock()
	hooks.hold, hooks.entered = hold, entered
	hooks.mu.Unlock()
	type answer struct {
		status int
		body   []byte
		err    error
	}
	slow := make(chan answer, 1)
	go func() {
		status, _, b, err := fx.getAt(fx.nsPath("team-a"), fleetapi.PreviewAPIVersion)
		slow <- answer{status, b, err}
	}()
	if name := <-entered; name != "team-a" {
		t.Fatalf("the hub was asked for %s, want team-a", name)
	}
	hooks.mu.Lock()
	hooks.hold, hooks.entered = nil, nil
	hooks.mu.Unlock()
	if ns, _ := fx.get(t, "team-b"); ns.Name != "team-b" {
		t.Errorf("read while the hub was slow: %+v", ns)
	}
	close(hold)
	a := <-slow
	if a.err != nil || a.status != http.StatusOK || !strings.Contains(string(a.body), `"placedMembers":["canary-east"]`) {
		t.Errorf("the slow read: %d %s (%v)", a.status, a.body, a.err)
	}

	// The hub fails to answer: the read still answers, with what was seen last.
	hooks.mu.Lock()
	hooks.hubErr = errors.New("hub unreachable")
	hooks.mu.Unlock()
	if ns, _ := fx.previewNamespace(t, "team-a"); !reflect.DeepEqual(ns.Properties.PlacedMembers, []string{"canary-east"}) {
		t.Errorf("with the hub failing: placedMembers %v, want the last seen [canary-east]", ns.Properties.PlacedMembers)
	}
	if len(fx.log.matching("managed namespace team-a", "hub unreachable", "answering what was seen last")) == 0 {
		t.Error("the failed hub request was not logged")
	}

	// Deleted and created again (the hub still failing): nothing seen of the new one.
	close(hooks.release)
	if _, err := lro(fx.c.BeginDeleteManagedNamespace(context.Background(), fx.fleet, "team-a", nil)); err != nil {
		t.Fatal(err)
	}
	fx.put(t, "team-a", namespaceBody(), nil, http.StatusCreated)
	if ns, _ := fx.previewNamespace(t, "team-a"); ns.Properties.PlacedMembers != nil {
		t.Errorf("created again: placedMembers %v, want none seen", ns.Properties.PlacedMembers)
	}
}
