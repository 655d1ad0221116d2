package localfleet

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

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

	clusterv1beta1 "go.goms.io/fleet/apis/cluster/v1beta1"
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
	reasonHealthy     = "InternalMemberClusterHealthy"
	reasonUnhealthy   = "InternalMemberClusterUnhealthy"
	// staleHeartbeat is how long ago an unhealthy member "last" heartbeat:
	// past the hub's 5-minute eligibility limit (clustereligibilitychecker).
	staleHeartbeat = 10 * time.Minute
)

// memberAgents simulate each member's KubeFleet member agent against the
// real hub: join, heartbeat, properties, resource usage, and Works applied.
type memberAgents struct {
	hub      client.Client
	file     *fleetfile.File
	interval time.Duration
	logf     func(string, ...any)

	mu      sync.Mutex
	members map[string]fleetfile.Member
	// reporting serialises reports, so a heartbeat round cannot report a
	// member as it was before an Update that ran meanwhile.
	reporting sync.Mutex
}

func newMemberAgents(hub client.Client, file *fleetfile.File, interval time.Duration, logf func(string, ...any)) *memberAgents {
	a := &memberAgents{hub: hub, file: file, interval: interval, logf: logf, members: map[string]fleetfile.Member{}}
	for _, m := range file.Members {
		a.members[m.Name] = m
	}
	return a
}

// hubLabels are the MemberCluster's labels: the file's plus Azure's own.
func (a *memberAgents) hubLabels(m fleetfile.Member) map[string]string {
	l := map[string]string{
		LabelLocation:       m.Location,
		LabelResourceGroup:  a.file.Fleet.ResourceGroup,
		LabelSubscriptionID: a.file.Fleet.SubscriptionID,
	}
	for k, v := range m.Labels {
		l[k] = v
	}
	return l
}

// join creates every MemberCluster, waits for the hub agent to create its
// InternalMemberCluster, and reports the first status.
func (a *memberAgents) join(ctx context.Context) error {
	for _, m := range a.snapshot() {
		if err := a.applyMemberCluster(ctx, m); err != nil {
			return err
		}
	}
	for _, m := range a.snapshot() {
		if err := a.waitAndReport(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (a *memberAgents) snapshot() []fleetfile.Member {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]fleetfile.Member, 0, len(a.members))
	for _, m := range a.file.Members { // file order, stable
		out = append(out, a.members[m.Name])
	}
	return out
}

func (a *memberAgents) applyMemberCluster(ctx context.Context, m fleetfile.Member) error {
	mc := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: m.Name}}
	taints := make([]clusterv1beta1.Taint, 0, len(m.Taints))
	for _, t := range m.Taints {
		taints = append(taints, clusterv1beta1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
	}
	op := func() error {
		err := a.hub.Get(ctx, client.ObjectKeyFromObject(mc), mc)
		if apierrors.IsNotFound(err) {
			mc.Labels = a.hubLabels(m)
			mc.Spec = clusterv1beta1.MemberClusterSpec{
				Identity:               rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "fleet-member-agent-" + m.Name, Namespace: "fleet-system"},
				HeartbeatPeriodSeconds: 60,
				Taints:                 taints,
			}
			return a.hub.Create(ctx, mc)
		}
		if err != nil {
			return err
		}
		mc.Labels = a.hubLabels(m)
		mc.Spec.Taints = taints
		return a.hub.Update(ctx, mc)
	}
	if err := retryConflicts(ctx, op); err != nil {
		return fmt.Errorf("member cluster %s: %w", m.Name, err)
	}
	return nil
}

func imcKey(name string) types.NamespacedName {
	return types.NamespacedName{Namespace: "fleet-member-" + name, Name: name}
}

func (a *memberAgents) waitAndReport(ctx context.Context, m fleetfile.Member) error {
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		err := a.hub.Get(ctx, imcKey(m.Name), &clusterv1beta1.InternalMemberCluster{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return fmt.Errorf("the hub agent did not create the InternalMemberCluster of %s: %w", m.Name, err)
	}
	return a.report(ctx, m)
}

// report writes what the real member agent writes on each heartbeat
// (member_controller.go updateHealth/updateResourceStats/updateMemberAgentHeartBeat).
func (a *memberAgents) report(ctx context.Context, m fleetfile.Member) error {
	return retryConflicts(ctx, func() error {
		imc := &clusterv1beta1.InternalMemberCluster{}
		if err := a.hub.Get(ctx, imcKey(m.Name), imc); err != nil {
			return err
		}
		now := time.Now()
		heartbeat, healthy, reason := now, metav1.ConditionTrue, reasonHealthy
		if !m.IsHealthy() {
			heartbeat, healthy, reason = now.Add(-staleHeartbeat), metav1.ConditionFalse, reasonUnhealthy
		}
		st := imc.GetAgentStatus(clusterv1beta1.MemberAgent)
		st.LastReceivedHeartbeat = metav1.NewTime(heartbeat)
		setCondition(&st.Conditions, metav1.Condition{Type: string(clusterv1beta1.AgentJoined), Status: metav1.ConditionTrue, Reason: reasonJoined, ObservedGeneration: imc.Generation}, now)
		setCondition(&st.Conditions, metav1.Condition{Type: string(clusterv1beta1.AgentHealthy), Status: healthy, Reason: reason, ObservedGeneration: imc.Generation}, heartbeat)
		imc.Status.Properties = properties(m, now)
		imc.Status.ResourceUsage = resourceUsage(m, now)
		return a.hub.Status().Update(ctx, imc)
	})
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
func properties(m fleetfile.Member, now time.Time) map[clusterv1beta1.PropertyName]clusterv1beta1.PropertyValue {
	nodes := 0
	for _, p := range m.NodePools {
		nodes += p.Count
	}
	props := map[clusterv1beta1.PropertyName]clusterv1beta1.PropertyValue{
		nodeCountProperty: {Value: fmt.Sprint(nodes), ObservationTime: metav1.NewTime(now)},
	}
	for k, v := range m.Properties {
		props[clusterv1beta1.PropertyName(k)] = clusterv1beta1.PropertyValue{Value: v, ObservationTime: metav1.NewTime(now)}
	}
	return props
}

func resourceUsage(m fleetfile.Member, now time.Time) clusterv1beta1.ResourceUsage {
	u := clusterv1beta1.ResourceUsage{ObservationTime: metav1.NewTime(now)}
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

// run heartbeats every interval and reports Works applied every second,
// until ctx ends.
func (a *memberAgents) run(ctx context.Context) {
	heartbeat := time.NewTicker(a.interval)
	works := time.NewTicker(time.Second)
	defer heartbeat.Stop()
	defer works.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-heartbeat.C:
			for _, m := range a.snapshot() {
				if err := a.heartbeat(ctx, m.Name); err != nil && ctx.Err() == nil {
					a.logf("member agent %s: heartbeat: %v", m.Name, err)
				}
			}
		case <-works.C:
			if err := a.applyWorks(ctx); err != nil && ctx.Err() == nil {
				a.logf("member agents: works: %v", err)
			}
		}
	}
}

// heartbeat reports a member as it is now; an unhealthy member sends none,
// so the hub keeps its stale heartbeat.
func (a *memberAgents) heartbeat(ctx context.Context, name string) error {
	a.reporting.Lock()
	defer a.reporting.Unlock()
	m, ok := a.Member(name)
	if !ok || !m.IsHealthy() {
		return nil
	}
	return a.report(ctx, m)
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
	a.reporting.Lock()
	defer a.reporting.Unlock()
	if err := a.applyMemberCluster(ctx, m); err != nil {
		return err
	}
	return a.report(ctx, m)
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
	var list placementv1beta1.WorkList
	if err := a.hub.List(ctx, &list); err != nil {
		return err
	}
	for i := range list.Items {
		w := &list.Items[i]
		member := strings.TrimPrefix(w.Namespace, "fleet-member-")
		if m, ok := a.Member(member); !ok || !m.IsHealthy() {
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

func manifestConditions(w *placementv1beta1.Work) []placementv1beta1.ManifestCondition {
	out := make([]placementv1beta1.ManifestCondition, 0, len(w.Spec.Workload.Manifests))
	for i, mf := range w.Spec.Workload.Manifests {
		var u unstructured.Unstructured
		if err := json.Unmarshal(mf.Raw, &u.Object); err != nil {
			continue
		}
		gvk := u.GroupVersionKind()
		out = append(out, placementv1beta1.ManifestCondition{
			Identifier: placementv1beta1.WorkResourceIdentifier{
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
