package emulator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/managednamespace"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/scheduling"
)

// fleets/managedNamespaces (fleets.json 2026-06-01): a namespace with its
// default quota and network policy, placed on members by a generated
// ClusterResourcePlacement (managednamespace.Placement). PUT is long-running
// (final state via azure-async-operation) and ends at once with the hub's
// objects written; the stable PATCH carries tags only; DELETE answers 202
// (final state via location) and ends once the generated placement is gone
// from the hub, or 204 when there is nothing to delete. In a local fleet
// Config.Namespaces makes the hub follow, and its real hub agent schedules
// the placement.
//
// The local hub runs KubeFleet's hub agent with its webhook off, so what
// the webhook would refuse in Azure is refused here, before anything is
// written: the placement policy (scheduling.Validate, with the webhook's
// messages), the immutable parts of an update (scheduling.ImmutableChanges),
// names in the namespaces KubeFleet reserves, and what the hub's API server
// would refuse of the namespace (labels, annotations, quota quantities).
//
// The preview's read-only placedMembers ("The Fleet members where this
// managed namespace is currently placed", fleets-2026-11-01-preview.json) is
// what the hub reports now, so a read at the preview version first asks the
// hooks (PlacedMembers) and then answers. Choice: it asks on read, outside
// the world lock, rather than keeping a value the runner refreshes: the
// placement changes with no Fleet API request (the real hub agent schedules,
// member agents apply, members join and leave), a value noted at write time
// would be stale at once and a poller would ask the hub for every namespace
// while nobody reads; and a hub that answers slowly (a minute at worst) must
// not hold every other request of the emulator. What a read saw is kept
// beside the record, not in it: the record's ETag stays that of the last
// write (an observation is no write; a client's If-Match after a read must
// not fail because a member agent applied the namespace meanwhile), and a
// read whose hub request fails answers what was seen last.

const typeManagedNamespaces = providerNS + "/fleets/managedNamespaces"

// NamespaceHooks make a local fleet's hub follow the Fleet API's managed
// namespaces.
type NamespaceHooks interface {
	// PlaceNamespace writes (creates or updates) the hub's Namespace, its
	// default ResourceQuota and NetworkPolicy, and the generated placement of
	// the managed namespace id named name. An error wrapping
	// ErrNamespaceConflict, returned before anything is written, is answered
	// 409 Conflict.
	PlaceNamespace(ctx context.Context, id, name string, props fleetapi.FleetManagedNamespaceProperties) error
	// RemoveNamespace takes the managed namespace off the hub as its
	// deletePolicy says (Delete: the generated placement, which removes what
	// it placed, and the hub's Namespace; Keep: the placement only, leaving
	// the namespace where it is). It is called again until it reports done,
	// which it does once the generated placement is gone.
	RemoveNamespace(ctx context.Context, name, deletePolicy string) (done bool, err error)
	// PlacedMembers lists, sorted, the members the managed namespace named
	// name is placed on now: those where its generated placement is Applied
	// and Available; none when there is no such placement.
	PlacedMembers(ctx context.Context, name string) ([]string, error)
}

// ErrNamespaceConflict is what a NamespaceHooks error wraps when the hub
// holds an object of the namespace's name that the Fleet API did not write.
var ErrNamespaceConflict = errors.New("conflicting object on the hub")

// A DELETE waits this long for the hub, polling it every removalPoll.
const (
	removalTimeout = 5 * time.Minute
	removalPoll    = 250 * time.Millisecond
)

// policyPath is where a managed namespace's placement policy is in a body.
const policyPath = "properties.propagationPolicy.placementProfile.defaultClusterResourcePlacement.policy"

type managedNamespaces struct {
	s *Server
	// removing are the deletions under way by store key; guarded by w.mu.
	removing map[string]*operation
	// placed is each namespace's placedMembers as a read last saw them on
	// the hub, by store key; guarded by w.mu.
	placed map[string][]string
}

func (s *Server) registerManagedNamespaceRoutes() {
	mn := &managedNamespaces{s: s, removing: map[string]*operation{}, placed: map[string][]string{}}
	s.registerChild(&childKind{
		typ: typeManagedNamespaces, segment: "managedNamespaces", param: "managedNamespaceName", label: "managed namespace",
		checkName: checkManagedNamespaceName, view: viewOf(mn.view), decode: decodeManagedNamespace, patch: mn.patch,
		build: mn.build, operated: mn.operated, commit: mn.commit, remove: mn.remove,
		// A read at the preview version observes the hub first: placedMembers.
		beforeRead: func(r *http.Request, p params) {
			if isPreview(r) {
				mn.observePlacements(r.Context(), p)
			}
		},
	})
}

// observePlacements asks the hub where the namespaces a read is about (the
// one named, or every one of the fleet) are placed, without the world lock,
// and keeps what it answered for the read's view. A hub error leaves the
// namespace's last observation (logged).
func (mn *managedNamespaces) observePlacements(ctx context.Context, p params) {
	hooks := mn.s.cfg.Namespaces
	if hooks == nil {
		return
	}
	w := mn.s.world
	type target struct{ id, name string }
	var targets []target
	w.mu.Lock()
	if fleet, err := mn.s.parentFleet(p); err == nil {
		recs := w.store.children(fleet.ID, typeManagedNamespaces)
		if name, one := p["managedNamespaceName"]; one {
			recs = nil
			if rec, ok := w.store.get(fleet.ID + "/managedNamespaces/" + name); ok {
				recs = []*record{rec}
			}
		}
		for _, rec := range recs {
			targets = append(targets, target{id: rec.ID, name: namespaceOf(rec).Name})
		}
	}
	w.mu.Unlock()
	if len(targets) == 0 {
		return
	}
	// Kubernetes requests time out after a minute (DESIGN.md).
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	seen := make(map[string][]string, len(targets))
	for _, t := range targets {
		members, err := hooks.PlacedMembers(ctx, t.name)
		if err != nil {
			if mn.s.cfg.Logf != nil {
				mn.s.cfg.Logf("managed namespace %s: where it is placed: %v (answering what was seen last)", t.name, err)
			}
			continue
		}
		seen[t.id] = members
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, members := range seen {
		if _, ok := w.store.get(id); ok { // not deleted meanwhile
			mn.placed[storeKey(id)] = members
		}
	}
}

// checkManagedNamespaceName is fleets.json's managedNamespaceName (1–63
// characters, a DNS label), outside the namespaces KubeFleet reserves: its
// webhook refuses to create fleet-* and kube-* namespaces and its hub agent
// propagates nothing from them (go.goms.io/fleet v0.18.9
// pkg/webhook/fleetresourcehandler handleNamespace, pkg/utils
// IsReservedNamespace, ShouldPropagateNamespace).
func checkManagedNamespaceName(name string) error {
	if err := fleetapi.CheckManagedNamespaceName(name); err != nil {
		return armErrorf(http.StatusBadRequest, "InvalidResourceName", "The managed namespace name is invalid: %v.", err)
	}
	if strings.HasPrefix(name, "fleet-") || strings.HasPrefix(name, "kube-") {
		return armErrorf(http.StatusBadRequest, "InvalidResourceName",
			"The managed namespace name '%s' is invalid: namespaces starting with 'fleet-' or 'kube-' are reserved by the fleet.", name)
	}
	return nil
}

// namespaceWrite is what a PUT sends (or a PATCH leaves) of a managed
// namespace: its writable part.
type namespaceWrite struct {
	location string
	tags     map[string]string
	props    fleetapi.FleetManagedNamespaceProperties
}

func namespaceOf(rec *record) fleetapi.FleetManagedNamespace {
	v, _ := rec.Value.(fleetapi.FleetManagedNamespace)
	return v
}

// view is the namespace as the API shows it, with the members a read last
// saw it placed on (a stable answer leaves them out: stableView). The caller
// holds w.mu.
func (mn *managedNamespaces) view(rec *record) fleetapi.FleetManagedNamespace {
	v := namespaceOf(rec)
	v.ETag, v.SystemData = rec.ETag, mn.s.systemData(rec)
	if members := mn.placed[storeKey(rec.ID)]; len(members) > 0 && v.Properties != nil {
		props := *v.Properties
		props.PlacedMembers = slices.Clone(members)
		v.Properties = &props
	}
	return v
}

// decodeManagedNamespace reads a PUT body (the strict check has already
// refused what fleets.json does not allow) and refuses what the hub would.
func decodeManagedNamespace(r *http.Request) (any, error) {
	var body fleetapi.FleetManagedNamespace
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	p := body.Properties
	if p == nil {
		// adoptionPolicy and deletePolicy are required (fleets.json FleetManagedNamespaceProperties).
		e := armErrorf(http.StatusBadRequest, "InvalidRequestContent", "properties: properties.adoptionPolicy and properties.deletePolicy are required.")
		e.target = "properties"
		return nil, e
	}
	if err := checkNamespaceObjects(path.Base(r.URL.Path), p.ManagedNamespaceProperties); err != nil {
		return nil, err
	}
	if err := checkPlacementPolicy(p); err != nil {
		return nil, err
	}
	return namespaceWrite{location: body.Location, tags: body.Tags, props: fleetapi.FleetManagedNamespaceProperties{
		ManagedNamespaceProperties: p.ManagedNamespaceProperties,
		AdoptionPolicy:             p.AdoptionPolicy,
		DeletePolicy:               p.DeletePolicy,
		PropagationPolicy:          p.PropagationPolicy,
	}}, nil
}

// checkNamespaceObjects refuses what the hub's API server would refuse of
// the Namespace, ResourceQuota and NetworkPolicy the namespace becomes
// (k8s.io/apimachinery ValidateLabels, ValidateAnnotations; quota
// quantities and network rules by managednamespace.Build).
func checkNamespaceObjects(name string, p *fleetapi.ManagedNamespaceProperties) error {
	if p == nil {
		return nil
	}
	base := field.NewPath("properties", "managedNamespaceProperties")
	errs := metav1validation.ValidateLabels(p.Labels, base.Child("labels"))
	errs = append(errs, apivalidation.ValidateAnnotations(p.Annotations, base.Child("annotations"))...)
	if len(errs) > 0 {
		e := armErrorf(http.StatusBadRequest, "InvalidParameter", "%s", errs.ToAggregate().Error())
		e.target = errs[0].Field
		return e
	}
	if _, err := managednamespace.Build(name, p); err != nil {
		return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.managedNamespaceProperties.%v", err)
	}
	return nil
}

// checkPlacementPolicy refuses a policy KubeFleet's webhook would refuse
// in the generated placement (its warnings are accepted, as the hub accepts
// them).
func checkPlacementPolicy(p *fleetapi.FleetManagedNamespaceProperties) error {
	crp, err := managednamespace.Placement("", "", p)
	if err != nil {
		return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.%v", err)
	}
	var errs []scheduling.Issue
	for _, is := range scheduling.Validate(crp.Spec.Policy) {
		if is.Severity == scheduling.SeverityError {
			errs = append(errs, is)
		}
	}
	return policyError(errs)
}

// policyError is a 400 naming each issue at its path in the body; nil
// without issues.
func policyError(issues []scheduling.Issue) error {
	if len(issues) == 0 {
		return nil
	}
	msgs := make([]string, len(issues))
	for i, is := range issues {
		msgs[i] = joinPath(policyPath, is.Path.String()) + ": " + is.Message
	}
	e := armErrorf(http.StatusBadRequest, "InvalidParameter", "%s", strings.Join(msgs, "; "))
	e.target = joinPath(policyPath, issues[0].Path.String())
	return e
}

func joinPath(base, rest string) string {
	switch {
	case rest == "":
		return base
	case strings.HasPrefix(rest, "["):
		return base + rest
	}
	return base + "." + rest
}

// patch is the stable PATCH: tags only (FleetManagedNamespacePatch); tags
// sent replace the resource's.
func (mn *managedNamespaces) patch(r *http.Request, current *record) (any, error) {
	var body fleetapi.FleetManagedNamespacePatch
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	v := namespaceOf(current)
	w := namespaceWrite{location: v.Location, tags: v.Tags, props: writableNamespace(v.Properties)}
	if body.Tags != nil {
		w.tags = body.Tags
	}
	return w, nil
}

func writableNamespace(p *fleetapi.FleetManagedNamespaceProperties) fleetapi.FleetManagedNamespaceProperties {
	if p == nil {
		return fleetapi.FleetManagedNamespaceProperties{}
	}
	return fleetapi.FleetManagedNamespaceProperties{
		ManagedNamespaceProperties: p.ManagedNamespaceProperties,
		AdoptionPolicy:             p.AdoptionPolicy,
		DeletePolicy:               p.DeletePolicy,
		PropagationPolicy:          p.PropagationPolicy,
	}
}

// build makes the stored namespace. An update keeps the location and may
// not change what KubeFleet keeps immutable in the generated placement's
// policy. The caller holds w.mu.
func (mn *managedNamespaces) build(c childWrite) (any, bool, error) {
	w, ok := c.body.(namespaceWrite)
	if !ok {
		return nil, false, fmt.Errorf("managed namespace %s: unexpected body %T", c.name, c.body)
	}
	props := w.props
	crp, err := managednamespace.Placement(c.id, c.name, &props)
	if err != nil {
		return nil, false, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.%v", err)
	}
	if c.old != nil {
		prev := namespaceOf(c.old)
		if prev.Properties != nil && prev.Properties.ProvisioningState == "Deleting" {
			return nil, false, armErrorf(http.StatusConflict, "Conflict", "The managed namespace '%s' is being deleted.", c.name)
		}
		if normalizeLocation(prev.Location) != normalizeLocation(w.location) {
			// ARM keeps a tracked resource where it was created.
			return nil, false, armErrorf(http.StatusBadRequest, "InvalidResourceLocation",
				"The resource '%s' already exists in location '%s'; a resource with the same name cannot be created in location '%s'.", c.name, prev.Location, w.location)
		}
		was, err := managednamespace.Placement(c.id, c.name, writableNamespacePtr(prev.Properties))
		if err != nil {
			return nil, false, err
		}
		if err := policyError(scheduling.ImmutableChanges(was.Spec.Policy, crp.Spec.Policy)); err != nil {
			return nil, false, err
		}
	}
	props.ProvisioningState = "Succeeded"
	// fleets.json: "The Azure Portal FQDN of the Fleet hub".
	if hp := fleetView(c.fleet).Properties; hp != nil && hp.HubProfile != nil {
		props.PortalFqdn = hp.HubProfile.PortalFqdn
	}
	return fleetapi.FleetManagedNamespace{
		Resource:   fleetapi.Resource{ID: c.id, Name: c.name, Type: typeManagedNamespaces},
		Location:   normalizeLocation(w.location),
		Tags:       w.tags,
		Properties: &props,
	}, false, nil
}

func writableNamespacePtr(p *fleetapi.FleetManagedNamespaceProperties) *fleetapi.FleetManagedNamespaceProperties {
	w := writableNamespace(p)
	return &w
}

// operated notes a write's operation as the namespace's last one. The
// caller holds w.mu.
func (mn *managedNamespaces) operated(rec *record, op *operation) {
	v := namespaceOf(rec)
	if v.Properties == nil {
		return
	}
	props := *v.Properties
	props.Status = &fleetapi.OperationStatus{LastOperationID: op.ID}
	v.Properties = &props
	rec.Value = v
}

// commit makes the hub follow a PUT or PATCH (outside the world lock).
func (mn *managedNamespaces) commit(_, value any) error {
	hooks := mn.s.cfg.Namespaces
	if hooks == nil {
		return nil
	}
	v, ok := value.(fleetapi.FleetManagedNamespace)
	if !ok || v.Properties == nil {
		return fmt.Errorf("managed namespace: unexpected value %T", value)
	}
	// Kubernetes requests time out after a minute (DESIGN.md).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := hooks.PlaceNamespace(ctx, v.ID, v.Name, *v.Properties)
	switch {
	case errors.Is(err, ErrNamespaceConflict):
		return armErrorf(http.StatusConflict, "Conflict", "The managed namespace '%s' cannot be placed: %v", v.Name, err)
	case err != nil:
		return armErrorf(http.StatusInternalServerError, "ManagedNamespacePlacementFailed", "The fleet hub did not take managed namespace '%s': %v", v.Name, err)
	}
	return nil
}

// remove starts a deletion: the namespace shows Deleting until the hub has
// let it go (without hooks, at once). A DELETE while one runs answers the
// same operation. The caller holds w.mu.
func (mn *managedNamespaces) remove(rec *record, now time.Time) (*operation, error) {
	key := storeKey(rec.ID)
	if op := mn.removing[key]; op != nil {
		return op, nil
	}
	hooks := mn.s.cfg.Namespaces
	if hooks == nil {
		_, err := mn.s.world.store.delete(rec.ID, precondition{})
		return nil, err
	}
	v := namespaceOf(rec)
	if v.Properties == nil {
		return nil, fmt.Errorf("managed namespace %s has no properties", rec.ID)
	}
	op := mn.s.world.beginOperation(&operation{
		Subscription: mn.s.cfg.File.Fleet.SubscriptionID, Location: mn.s.cfg.File.Fleet.Location, ResourceID: rec.ID,
	}, now)
	mn.removing[key] = op
	props := *v.Properties
	props.ProvisioningState, props.Status = "Deleting", &fleetapi.OperationStatus{LastOperationID: op.ID}
	v.Properties = &props
	if _, _, err := mn.s.world.store.put(rec.ID, typeManagedNamespaces, v, precondition{}, now); err != nil {
		return nil, err
	}
	go mn.removeFromHub(hooks, rec.ID, v.Name, props.DeletePolicy, op)
	return op, nil
}

// removeFromHub asks the hooks until the hub has let the namespace go, then
// deletes the resource; errors are retried until removalTimeout (a
// restarting hub), after which the operation fails.
func (mn *managedNamespaces) removeFromHub(hooks NamespaceHooks, id, name, deletePolicy string, op *operation) {
	ctx, cancel := context.WithTimeout(context.Background(), removalTimeout)
	defer cancel()
	tick := time.NewTicker(removalPoll)
	defer tick.Stop()
	var last error
	for {
		done, err := hooks.RemoveNamespace(ctx, name, deletePolicy)
		if err == nil && done {
			mn.finishRemoval(id, op, nil)
			return
		}
		if err != nil {
			last = err
			if mn.s.cfg.Logf != nil {
				mn.s.cfg.Logf("managed namespace %s: removal from the hub: %v (retrying)", name, err)
			}
		}
		select {
		case <-ctx.Done():
			msg := fmt.Sprintf("The fleet hub did not let managed namespace '%s' go within %s", name, removalTimeout)
			if last != nil {
				msg += ": " + last.Error()
			}
			mn.finishRemoval(id, op, &fleetapi.ErrorDetail{Code: "ManagedNamespaceDeletionFailed", Message: msg})
			return
		case <-tick.C:
		}
	}
}

// finishRemoval ends a deletion: the resource is gone, or it shows Failed
// with the operation's error.
func (mn *managedNamespaces) finishRemoval(id string, op *operation, errd *fleetapi.ErrorDetail) {
	w := mn.s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.clock.Now()
	delete(mn.removing, storeKey(id))
	w.finishOperation(op, errd, now)
	if errd == nil {
		_, _ = w.store.delete(id, precondition{})
		delete(mn.placed, storeKey(id)) // a namespace created again under the name starts unseen
		return
	}
	rec, ok := w.store.get(id)
	if !ok {
		return
	}
	v := namespaceOf(rec)
	if v.Properties == nil {
		return
	}
	props := *v.Properties
	props.ProvisioningState = "Failed"
	props.Status = &fleetapi.OperationStatus{LastOperationID: op.ID, LastOperationError: errd}
	v.Properties = &props
	_, _, _ = w.store.put(id, typeManagedNamespaces, v, precondition{}, now)
}
