package localfleet

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// Labels the Azure Fleet hub puts on every MemberCluster (Fleet docs,
// "property-based scheduling": fleet.azure.com/location, resource-group,
// subscription-id).
const (
	LabelLocation       = "fleet.azure.com/location"
	LabelResourceGroup  = "fleet.azure.com/resource-group"
	LabelSubscriptionID = "fleet.azure.com/subscription-id"
)

// Names from the real member agent (go.goms.io/fleet v0.14.0
// pkg/controllers/internalmembercluster/v1beta1/member_controller.go and
// pkg/propertyprovider/commons.go).
const (
	nodeCountProperty = "kubernetes-fleet.io/node-count"
	reasonJoined      = "InternalMemberClusterJoined"
	reasonLeft        = "InternalMemberClusterLeft"
	reasonHealthy     = "InternalMemberClusterHealthy"
	reasonUnhealthy   = "InternalMemberClusterUnhealthy"
	// The hub agent's MemberCluster reasons
	// (pkg/controllers/membercluster/v1beta1/membercluster_controller.go).
	reasonMCReadyToJoin = "MemberClusterReadyToJoin"
	reasonMCJoined      = "MemberClusterJoined"
	// staleHeartbeat is how long ago an unhealthy member "last" heartbeat:
	// past the hub's 5-minute eligibility limit (clustereligibilitychecker).
	staleHeartbeat = 10 * time.Minute
)

// memberAgents simulate each member's KubeFleet member agent against the
// real hub: join, heartbeat, properties, resource usage, and Works applied.
//
// They are cheap enough for fleets of thousands: one scheduler goroutine
// spreads the heartbeats over the interval, a bounded pool writes them, and
// each heartbeat is one JSON patch of the status subresource without a read
// first (the agents are its only writer, so nothing can conflict).
//
// Without the hub agent (direct), they also do what its membercluster
// controller does with what they report and write the MemberCluster's
// status themselves.
type memberAgents struct {
	hub      client.Client
	file     *fleetfile.File
	interval time.Duration
	direct   bool
	logf     func(string, ...any)

	mu      sync.Mutex
	members map[string]fleetfile.Member
	// order is the members' names: the fleet file's joined members in file
	// order, then those that joined through the Fleet API.
	order []string
	// state is per member (a member that leaves and joins again keeps its
	// own); look it up with stateOf.
	state map[string]*agentState
	// real are the members whose Works KubeFleet's real member agent applies
	// and reports: the simulated agent never writes their Works' status.
	real map[string]bool
}

// agentState is what a member agent remembers between reports. Its mutex
// serialises the member's reports, so a heartbeat cannot report a member as
// it was before an Update that ran meanwhile.
type agentState struct {
	mu sync.Mutex
	// generation of the object whose status is written (the IMC, or the
	// MemberCluster when direct), for the conditions' observedGeneration.
	generation int64
	agent      []metav1.Condition // the member agent's conditions last written
	cluster    []metav1.Condition // the MemberCluster's, when direct
}

// workers bounds the agents' parallel writes: enough to keep a loopback API
// server busy, few enough not to starve it on two cores.
const workers = 16

func newMemberAgents(hub client.Client, file *fleetfile.File, interval time.Duration, direct bool, logf func(string, ...any)) *memberAgents {
	a := &memberAgents{hub: hub, file: file, interval: interval, direct: direct, logf: logf,
		members: map[string]fleetfile.Member{}, state: map[string]*agentState{}, real: map[string]bool{}}
	for _, m := range file.Members {
		if !m.IsJoined() {
			continue // a cluster a PUT of fleets/members may join later (JoinMember)
		}
		a.members[m.Name] = m
		a.order = append(a.order, m.Name)
		a.state[m.Name] = &agentState{}
	}
	return a
}

// stateOf is a member's agent state, made on first use.
func (a *memberAgents) stateOf(name string) *agentState {
	a.mu.Lock()
	defer a.mu.Unlock()
	st, ok := a.state[name]
	if !ok {
		st = &agentState{}
		a.state[name] = st
	}
	return st
}

// hubLabels are the MemberCluster's labels: the file's plus Azure's own.
func (a *memberAgents) hubLabels(m fleetfile.Member) map[string]string {
	l := map[string]string{
		LabelLocation:       m.Location,
		LabelResourceGroup:  a.file.Fleet.ResourceGroup,
		LabelSubscriptionID: a.file.Fleet.SubscriptionID,
		// KubeFleet v0.18.9's hub agent labels every MemberCluster with its name
		// (pkg/controllers/membercluster/v1beta1/membercluster_controller.go).
		placementv1beta1.MemberNameLabel: m.Name,
	}
	for k, v := range m.Labels {
		l[k] = v
	}
	return l
}

// parallel runs fn for every member with at most workers at once and
// returns the first error.
func parallel(ctx context.Context, members []fleetfile.Member, fn func(context.Context, fleetfile.Member) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, m := range members {
		g.Go(func() error { return fn(ctx, m) })
	}
	return g.Wait()
}

// join creates every MemberCluster, waits for the hub agent to create their
// InternalMemberClusters (unless direct), and reports the first status.
func (a *memberAgents) join(ctx context.Context) error {
	members := a.snapshot()
	if err := parallel(ctx, members, a.createMemberCluster); err != nil {
		return err
	}
	if a.direct {
		return parallel(ctx, members, func(ctx context.Context, m fleetfile.Member) error { return a.report(ctx, m.Name, false) })
	}
	if err := a.reportAsJoined(ctx, members); err != nil {
		return err
	}
	return a.awaitCopied(ctx, len(members))
}

// awaitCopied waits until the hub agent has copied every member's first
// report into its MemberCluster (membercluster_controller.go
// syncInternalMemberClusterStatus), so a fleet that is up is also eligible.
func (a *memberAgents) awaitCopied(ctx context.Context, n int) error {
	bound := time.Minute + time.Duration(n)*50*time.Millisecond
	missing := 0
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, bound, true, func(ctx context.Context) (bool, error) {
		var list clusterv1.MemberClusterList
		if err := a.hub.List(ctx, &list); err != nil {
			return false, err
		}
		missing = n
		for i := range list.Items {
			if _, ok := a.Member(list.Items[i].Name); ok && list.Items[i].GetAgentStatus(clusterv1.MemberAgent) != nil {
				missing--
			}
		}
		return missing == 0, nil
	})
	if err != nil {
		return fmt.Errorf("the hub agent did not copy the status of %d members into their MemberClusters: %w", missing, err)
	}
	return nil
}

// reportAsJoined reports each member as soon as the hub agent has created
// its InternalMemberCluster, found with one metadata-only list per poll
// rather than a GET per member.
func (a *memberAgents) reportAsJoined(ctx context.Context, members []fleetfile.Member) error {
	// The hub agent joins about a hundred members a second on two cores.
	bound := 2*time.Minute + time.Duration(len(members))*100*time.Millisecond
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	pending := map[string]fleetfile.Member{}
	for _, m := range members {
		pending[m.Name] = m
	}
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, bound, true, func(ctx context.Context) (bool, error) {
		if gctx.Err() != nil {
			return false, gctx.Err() // a report failed; g.Wait says which
		}
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(clusterv1.GroupVersion.WithKind("InternalMemberClusterList"))
		if err := a.hub.List(ctx, list); err != nil {
			return false, err
		}
		for _, imc := range list.Items {
			m, ok := pending[imc.Name]
			if !ok || imc.Namespace != imcKey(m.Name).Namespace {
				continue
			}
			delete(pending, m.Name)
			st := a.stateOf(m.Name)
			st.mu.Lock()
			st.generation = imc.Generation
			st.mu.Unlock()
			g.Go(func() error { return a.report(gctx, m.Name, false) })
		}
		return len(pending) == 0, nil
	})
	if werr := g.Wait(); werr != nil {
		return werr
	}
	if err != nil {
		names := make([]string, 0, len(pending))
		for n := range pending {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) > 5 {
			names = append(names[:5], fmt.Sprintf("and %d more", len(names)-5))
		}
		return fmt.Errorf("the hub agent did not create the InternalMemberClusters of %s: %w", strings.Join(names, ", "), err)
	}
	return nil
}

func (a *memberAgents) snapshot() []fleetfile.Member {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]fleetfile.Member, 0, len(a.order))
	for _, name := range a.order { // file order, then join order: stable
		out = append(out, a.members[name])
	}
	return out
}

func (a *memberAgents) memberCluster(m fleetfile.Member) *clusterv1.MemberCluster {
	taints := make([]clusterv1.Taint, 0, len(m.Taints))
	for _, t := range m.Taints {
		taints = append(taints, clusterv1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	return &clusterv1.MemberCluster{
		ObjectMeta: metav1.ObjectMeta{Name: m.Name, Labels: a.hubLabels(m)},
		Spec: clusterv1.MemberClusterSpec{
			Identity:               rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "fleet-member-agent-" + m.Name, Namespace: "fleet-system"},
			HeartbeatPeriodSeconds: 60,
			Taints:                 taints,
		},
	}
}

// createMemberCluster creates the member's MemberCluster, or brings an
// existing one up to date.
func (a *memberAgents) createMemberCluster(ctx context.Context, m fleetfile.Member) error {
	mc := a.memberCluster(m)
	err := a.hub.Create(ctx, mc)
	if apierrors.IsAlreadyExists(err) {
		return a.applyMemberCluster(ctx, m)
	}
	if err != nil {
		return fmt.Errorf("member cluster %s: %w", m.Name, err)
	}
	a.setClusterGeneration(m.Name, mc.Generation)
	return nil
}

func (a *memberAgents) applyMemberCluster(ctx context.Context, m fleetfile.Member) error {
	want := a.memberCluster(m)
	mc := &clusterv1.MemberCluster{}
	op := func() error {
		err := a.hub.Get(ctx, client.ObjectKeyFromObject(want), mc)
		if apierrors.IsNotFound(err) {
			mc = want.DeepCopy()
			return a.hub.Create(ctx, mc)
		}
		if err != nil {
			return err
		}
		mc.Labels = want.Labels
		mc.Spec.Taints = want.Spec.Taints
		return a.hub.Update(ctx, mc)
	}
	if err := retryConflicts(ctx, op); err != nil {
		return fmt.Errorf("member cluster %s: %w", m.Name, err)
	}
	a.setClusterGeneration(m.Name, mc.Generation)
	return nil
}

// setClusterGeneration keeps the MemberCluster's generation when its status
// is written directly; the IMC's generation does not follow it.
func (a *memberAgents) setClusterGeneration(name string, gen int64) {
	if !a.direct {
		return
	}
	st := a.stateOf(name)
	st.mu.Lock()
	st.generation = gen
	st.mu.Unlock()
}

func imcKey(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "fleet-member-" + name, Name: name}
}

// report writes what the real member agent writes on each heartbeat
// (member_controller.go updateHealth/updateResourceStats/updateMemberAgentHeartBeat),
// as one patch replacing the status.
//
// It reads the member's description under the member's lock, so a report
// never writes a description older than one an Update already reported. A
// heartbeat (heartbeat true) of an unhealthy member writes nothing, so the
// hub keeps its stale heartbeat.
func (a *memberAgents) report(ctx context.Context, name string, heartbeat bool) error {
	st := a.stateOf(name)
	st.mu.Lock()
	defer st.mu.Unlock()
	m, ok := a.Member(name)
	if !ok || (heartbeat && !m.IsHealthy()) {
		return nil
	}
	return a.write(ctx, st, m)
}

func (a *memberAgents) write(ctx context.Context, st *agentState, m fleetfile.Member) error {
	now := time.Now()
	beat, healthy, reason := now, metav1.ConditionTrue, reasonHealthy
	if !m.IsHealthy() {
		beat, healthy, reason = now.Add(-staleHeartbeat), metav1.ConditionFalse, reasonUnhealthy
	}
	setCondition(&st.agent, metav1.Condition{Type: string(clusterv1.AgentJoined), Status: metav1.ConditionTrue, Reason: reasonJoined, ObservedGeneration: st.generation}, now)
	setCondition(&st.agent, metav1.Condition{Type: string(clusterv1.AgentHealthy), Status: healthy, Reason: reason, ObservedGeneration: st.generation}, beat)
	agent := []clusterv1.AgentStatus{{
		Type:                  clusterv1.MemberAgent,
		Conditions:            st.agent,
		LastReceivedHeartbeat: metav1.NewTime(beat),
	}}
	var obj client.Object
	var status any
	if a.direct {
		// What the hub agent's membercluster controller copies from the IMC
		// (pkg/controllers/membercluster/v1beta1/membercluster_controller.go:
		// syncInternalMemberClusterStatus, aggregateJoinedCondition,
		// markMemberClusterReadyToJoin, markMemberClusterJoined).
		setCondition(&st.cluster, metav1.Condition{Type: string(clusterv1.ConditionTypeMemberClusterReadyToJoin), Status: metav1.ConditionTrue, Reason: reasonMCReadyToJoin, ObservedGeneration: st.generation}, now)
		setCondition(&st.cluster, metav1.Condition{Type: string(clusterv1.ConditionTypeMemberClusterJoined), Status: metav1.ConditionTrue, Reason: reasonMCJoined, ObservedGeneration: st.generation}, now)
		obj = &clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: m.Name}}
		status = clusterv1.MemberClusterStatus{
			Conditions: st.cluster, AgentStatus: agent,
			Properties: properties(m, now), ResourceUsage: resourceUsage(m, now),
		}
	} else {
		key := imcKey(m.Name)
		obj = &clusterv1.InternalMemberCluster{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
		status = clusterv1.InternalMemberClusterStatus{
			AgentStatus: agent, Properties: properties(m, now), ResourceUsage: resourceUsage(m, now),
		}
	}
	patch, err := json.Marshal([]map[string]any{{"op": "add", "path": "/status", "value": status}})
	if err != nil {
		return err
	}
	if err := a.hub.Status().Patch(ctx, obj, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return fmt.Errorf("member agent %s: report: %w", m.Name, err)
	}
	return nil
}

// setCondition is meta.SetStatusCondition with an explicit transition time,
// so an unhealthy member looks unhealthy for long enough to be ineligible.
func setCondition(conds *[]metav1.Condition, c metav1.Condition, transition time.Time) {
	if old := meta.FindStatusCondition(*conds, c.Type); old == nil || old.Status != c.Status {
		c.LastTransitionTime = metav1.NewTime(transition)
	}
	meta.SetStatusCondition(conds, c)
}

// properties: the node count from the member's node pools, plus any extra
// properties the fleet file gives (as Azure's property provider reports
// e.g. kubernetes.azure.com/per-cpu-core-cost).
func properties(m fleetfile.Member, now time.Time) map[clusterv1.PropertyName]clusterv1.PropertyValue {
	nodes := 0
	for _, p := range m.NodePools {
		nodes += p.Count
	}
	props := map[clusterv1.PropertyName]clusterv1.PropertyValue{
		nodeCountProperty: {Value: fmt.Sprint(nodes), ObservationTime: metav1.NewTime(now)},
	}
	for k, v := range m.Properties {
		props[clusterv1.PropertyName(k)] = clusterv1.PropertyValue{Value: v, ObservationTime: metav1.NewTime(now)}
	}
	return props
}

func resourceUsage(m fleetfile.Member, now time.Time) clusterv1.ResourceUsage {
	u := clusterv1.ResourceUsage{ObservationTime: metav1.NewTime(now)}
	if m.Resources == nil {
		return u
	}
	u.Capacity = resourceList(m.Resources.Capacity)
	u.Allocatable = resourceList(m.Resources.Allocatable)
	u.Available = resourceList(m.Resources.Available)
	return u
}

func resourceList(in map[string]string) corev1.ResourceList {
	if len(in) == 0 {
		return nil
	}
	out := corev1.ResourceList{}
	for k, v := range in {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			continue // validated when the fleet file was loaded
		}
		out[corev1.ResourceName(k)] = q
	}
	return out
}

// run heartbeats and, with a hub agent, reports Works applied every second,
// until ctx ends.
func (a *memberAgents) run(ctx context.Context) {
	var wg sync.WaitGroup
	if !a.direct { // without the hub agent nothing creates Works
		wg.Add(1)
		go func() {
			defer wg.Done()
			works := time.NewTicker(time.Second)
			defer works.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-works.C:
					if err := a.applyWorks(ctx); err != nil && ctx.Err() == nil {
						a.logf("member agents: works: %v", err)
					}
				}
			}
		}()
	}
	a.heartbeats(ctx)
	wg.Wait()
}

// heartbeatSlot is how often a slice of the members heartbeats: the
// interval is cut into slots and member i heartbeats in slot i mod slots,
// so the hub sees a steady trickle instead of a burst every interval.
const heartbeatSlot = 500 * time.Millisecond

func (a *memberAgents) heartbeats(ctx context.Context) {
	slots := max(1, min(len(a.file.Members), int(a.interval/heartbeatSlot)))
	tick := time.NewTicker(a.interval / time.Duration(slots))
	defer tick.Stop()
	round := time.Now()
	for slot := 0; ; slot = (slot + 1) % slots {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if slot == 0 {
			if took := time.Since(round); took > a.interval*3/2 {
				a.logf("member agents: a heartbeat round took %s, longer than the %s interval: the hub is overloaded", took.Round(time.Second), a.interval)
			}
			round = time.Now()
		}
		names := a.names() // members join and leave through the Fleet API
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(workers)
		for i := slot; i < len(names); i += slots {
			g.Go(func() error {
				if err := a.report(gctx, names[i], true); err != nil && gctx.Err() == nil {
					a.logf("member agent %s: heartbeat: %v", names[i], err)
				}
				return nil
			})
		}
		// Reports of one slot finish before the next starts: a hub that
		// cannot keep up slows the heartbeats down rather than piling them up.
		_ = g.Wait()
	}
}

// Update changes a member (labels, taints, health, properties) and reports
// it to the hub at once, as a member agent would on its next heartbeat.
func (a *memberAgents) Update(ctx context.Context, m fleetfile.Member) error {
	a.mu.Lock()
	if _, ok := a.members[m.Name]; !ok {
		a.mu.Unlock()
		return fmt.Errorf("no member %q", m.Name)
	}
	a.members[m.Name] = m
	a.mu.Unlock()
	if err := a.applyMemberCluster(ctx, m); err != nil {
		return err
	}
	return a.report(ctx, m.Name, false)
}

// names are the members' names in order.
func (a *memberAgents) names() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.order...)
}

// JoinMember makes the hub follow a Fleet API member that joined or
// changed (emulator.MemberHooks): a new member gets its MemberCluster, named
// after the member, with the managed cluster's facts from the fleet file and
// the member's labels (as Fleet Manager propagates them), and its simulated
// member agent reports it joined; a known member's labels are updated.
func (a *memberAgents) JoinMember(ctx context.Context, member, cluster string, labels map[string]string) error {
	base, ok := a.file.Member(cluster)
	if !ok {
		return fmt.Errorf("no managed cluster %q in the fleet file", cluster)
	}
	m := *base
	m.Name, m.Labels, m.Joined = member, labels, nil
	a.mu.Lock()
	old, known := a.members[member]
	if known {
		// A member's cluster does not change; what the admin API changed stays.
		old.Labels = labels
		m = old
	} else {
		a.order = append(a.order, member)
	}
	a.members[member] = m
	a.mu.Unlock()
	if known {
		if err := a.applyMemberCluster(ctx, m); err != nil {
			return err
		}
		return a.report(ctx, member, false)
	}
	if err := a.createMemberCluster(ctx, m); err != nil {
		return err
	}
	if a.direct {
		return a.report(ctx, member, false)
	}
	if err := a.reportAsJoined(ctx, []fleetfile.Member{m}); err != nil {
		return err
	}
	return a.awaitCopiedOne(ctx, member)
}

// awaitCopiedOne waits until the hub agent has copied a member's report into its MemberCluster.
func (a *memberAgents) awaitCopiedOne(ctx context.Context, name string) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var mc clusterv1.MemberCluster
		if err := a.hub.Get(ctx, client.ObjectKey{Name: name}, &mc); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return mc.GetAgentStatus(clusterv1.MemberAgent) != nil, nil
	})
}

// LeaveMember makes the hub follow a member that left the fleet: its agent
// stops, its MemberCluster is deleted and, with the hub agent, the agent
// reports that it left when the hub agent asks it to (the IMC's spec.state
// Leave; member_controller.go markInternalMemberClusterLeft), so the hub agent
// garbage-collects the member's namespace (finalized here, as the hub has no
// namespace controller) and lets the MemberCluster go.
func (a *memberAgents) LeaveMember(ctx context.Context, member string) error {
	a.mu.Lock()
	if _, ok := a.members[member]; !ok {
		a.mu.Unlock()
		return nil
	}
	delete(a.members, member)
	for i, n := range a.order {
		if n == member {
			a.order = append(a.order[:i:i], a.order[i+1:]...)
			break
		}
	}
	a.mu.Unlock()
	mc := &clusterv1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: member}}
	if err := a.hub.Delete(ctx, mc); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("member cluster %s: %w", member, err)
	}
	st := a.stateOf(member)
	return wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		err := a.hub.Get(ctx, client.ObjectKey{Name: member}, mc)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil || a.direct {
			return false, err
		}
		// The hub has no namespace controller: once the hub agent deletes the
		// member's namespace, finalize it as that controller would.
		var ns corev1.Namespace
		if err := a.hub.Get(ctx, client.ObjectKey{Name: imcKey(member).Namespace}, &ns); err == nil && ns.DeletionTimestamp != nil && len(ns.Spec.Finalizers) > 0 {
			ns.Spec.Finalizers = nil
			if err := a.hub.SubResource("finalize").Update(ctx, &ns); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return false, err
			}
			return false, nil
		}
		var imc clusterv1.InternalMemberCluster
		if err := a.hub.Get(ctx, imcKey(member), &imc); err != nil || imc.Spec.State != clusterv1.ClusterStateLeave {
			return false, client.IgnoreNotFound(err)
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		now := time.Now()
		setCondition(&st.agent, metav1.Condition{Type: string(clusterv1.AgentJoined), Status: metav1.ConditionFalse, Reason: reasonLeft, ObservedGeneration: imc.Generation}, now)
		status := clusterv1.InternalMemberClusterStatus{AgentStatus: []clusterv1.AgentStatus{{
			Type: clusterv1.MemberAgent, Conditions: st.agent, LastReceivedHeartbeat: metav1.NewTime(now),
		}}}
		patch, err := json.Marshal([]map[string]any{{"op": "add", "path": "/status", "value": status}})
		if err != nil {
			return false, err
		}
		return false, client.IgnoreNotFound(a.hub.Status().Patch(ctx, &imc, client.RawPatch(types.JSONPatchType, patch)))
	})
}

// serveWorksReally hands a member's Works to KubeFleet's real member agent.
func (a *memberAgents) serveWorksReally(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.real[name] = true
}

func (a *memberAgents) servedReally(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.real[name]
}

// Member returns a member's current description.
func (a *memberAgents) Member(name string) (fleetfile.Member, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m, ok := a.members[name]
	return m, ok
}

// applyWorks marks every Work on a healthy member Applied and Available, as
// the member agent's work applier does once the manifests are in the member
// (workapplier/status.go setWorkAppliedCondition, setWorkAvailableCondition).
func (a *memberAgents) applyWorks(ctx context.Context) error {
	var list placementv1.WorkList
	if err := a.hub.List(ctx, &list); err != nil {
		return err
	}
	for i := range list.Items {
		w := &list.Items[i]
		member := strings.TrimPrefix(w.Namespace, "fleet-member-")
		if m, ok := a.Member(member); !ok || !m.IsHealthy() || a.servedReally(member) {
			continue
		}
		if cond := meta.FindStatusCondition(w.Status.Conditions, placementv1beta1.WorkConditionTypeAvailable); cond != nil &&
			cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == w.Generation {
			continue
		}
		w.Status.Conditions = nil
		meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: placementv1beta1.WorkConditionTypeApplied, Status: metav1.ConditionTrue, Reason: "AllManifestsApplied", Message: "All manifests have been applied", ObservedGeneration: w.Generation})
		meta.SetStatusCondition(&w.Status.Conditions, metav1.Condition{Type: placementv1beta1.WorkConditionTypeAvailable, Status: metav1.ConditionTrue, Reason: "AllManifestsAvailable", Message: "All applied manifests are available", ObservedGeneration: w.Generation})
		w.Status.ManifestConditions = manifestConditions(w)
		if err := a.hub.Status().Update(ctx, w); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			return fmt.Errorf("work %s/%s: %w", w.Namespace, w.Name, err)
		}
	}
	return nil
}

func manifestConditions(w *placementv1.Work) []placementv1.ManifestCondition {
	out := make([]placementv1.ManifestCondition, 0, len(w.Spec.Workload.Manifests))
	for i, mf := range w.Spec.Workload.Manifests {
		var u unstructured.Unstructured
		if err := json.Unmarshal(mf.Raw, &u.Object); err != nil {
			continue
		}
		gvk := u.GroupVersionKind()
		out = append(out, placementv1.ManifestCondition{
			Identifier: placementv1.WorkResourceIdentifier{
				Ordinal: i, Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind,
				Resource:  plural(gvk),
				Namespace: u.GetNamespace(), Name: u.GetName(),
			},
			Conditions: []metav1.Condition{
				{Type: placementv1beta1.WorkConditionTypeApplied, Status: metav1.ConditionTrue, Reason: "Applied", Message: "Manifest has been applied successfully", ObservedGeneration: w.Generation, LastTransitionTime: metav1.Now()},
				{Type: placementv1beta1.WorkConditionTypeAvailable, Status: metav1.ConditionTrue, Reason: "Available", Message: "Manifest is available", ObservedGeneration: w.Generation, LastTransitionTime: metav1.Now()},
			},
		})
	}
	return out
}

// retryConflicts retries op on optimistic-concurrency conflicts, which the
// hub agent's own writes to the same objects cause.
func retryConflicts(ctx context.Context, op func() error) error {
	var err error
	for i := 0; i < 20; i++ {
		if err = op(); err == nil || !apierrors.IsConflict(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(50*(i+1)) * time.Millisecond):
		}
	}
	return err
}

func plural(gvk schema.GroupVersionKind) string {
	p, _ := meta.UnsafeGuessKindToResource(gvk)
	return p.Resource
}
