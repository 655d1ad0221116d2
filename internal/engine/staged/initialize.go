// Package staged reproduces how KubeFleet v0.18.9's staged update run controller initializes a
// ClusterStagedUpdateRun or a namespaced StagedUpdateRun: which of a placement's clusters each
// stage updates, in which order and batches (maxConcurrency), what it waits for before and after
// each stage, which clusters lose the placement's resources at the end, and why it refuses to
// start (go.goms.io/fleet pkg/controllers/updaterun/initialization.go). Pure functions of API
// objects. Both scopes share the API's shapes: a namespaced run, strategy, ResourcePlacement and
// their snapshots and bindings are carried in the cluster-scoped Go types with a namespace set.
package staged

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8stypes "k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// The controller's error prefixes (updaterun/controller.go errValidationFailed,
// utils/controller/controller.go ErrUserError and ErrUnexpectedBehavior).
const (
	initFailed = "cannot continue the updateRun: failed to validate the updateRun: "
	userError  = "failed to process the request due to a client error: "
	unexpected = "unexpected behavior which cannot be handled by the controller: "
)

// Inputs is what the controller reads when it initializes a run.
type Inputs struct {
	// RunName names the approval requests of Approval tasks.
	RunName string
	// Namespace is the run's namespace: "" for a ClusterStagedUpdateRun, else a StagedUpdateRun
	// whose placement and strategy are in that namespace.
	Namespace string
	// Placement is the run's ClusterResourcePlacement (or ResourcePlacement); nil when it does not exist.
	Placement *placementv1.ClusterResourcePlacement
	// PlacementName is spec.placementName.
	PlacementName string
	// LatestPolicySnapshots are the placement's policy snapshots labelled latest.
	LatestPolicySnapshots []placementv1.ClusterSchedulingPolicySnapshot
	// Bindings are the placement's ClusterResourceBindings.
	Bindings []placementv1.ClusterResourceBinding
	// StrategyName is spec.stagedRolloutStrategyName; Strategy is nil when it does not exist.
	StrategyName string
	Strategy     *placementv1.ClusterStagedUpdateStrategy
	// MemberClusters are all the hub's MemberClusters.
	MemberClusters []clusterv1.MemberCluster
	// ResourceSnapshotIndex is spec.resourceSnapshotIndex ("": the run snapshots the placement's
	// resources itself when it initializes); ResourceSnapshots are the placement's resource
	// snapshots (any index).
	ResourceSnapshotIndex string
	ResourceSnapshots     []placementv1.ClusterResourceSnapshot
}

// Stage is one update stage as the run's status.stagesStatus records it.
type Stage struct {
	Name string
	// Clusters in update order.
	Clusters []string
	// MaxConcurrency is how many of them are updated at once (updaterun/execution.go
	// calculateMaxConcurrencyValue); 0 when the stage has no clusters.
	MaxConcurrency int
	// BeforeTasks are the before-stage tasks (Approval only); Tasks the after-stage tasks.
	// ApprovalRequest names the request an Approval task waits for.
	BeforeTasks []Task
	Tasks       []Task
}

// Batches are the stage's clusters in the groups the controller starts them: the first
// MaxConcurrency clusters together, and each later cluster when one before it finishes
// (execution.go executeUpdatingStage walks the clusters in order and keeps at most
// maxConcurrency updating), so the groups are exact when a group's clusters finish together.
func (s Stage) Batches() [][]string {
	return Batches(s.Clusters, s.MaxConcurrency)
}

// Batches splits clusters into groups of n (n < 1 counts as 1).
func Batches(clusters []string, n int) [][]string {
	n = max(n, 1)
	var out [][]string
	for i := 0; i < len(clusters); i += n {
		out = append(out, clusters[i:min(i+n, len(clusters))])
	}
	return out
}

// MaxConcurrency is updaterun/execution.go calculateMaxConcurrencyValue: a count, or a
// percentage of the stage's clusters rounded down, at least 1 (absent: the CRD's default 1).
func MaxConcurrency(v *intstr.IntOrString, clusters int) (int, error) {
	if v == nil {
		return 1, nil
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, clusters, false)
	if err != nil {
		return 0, err
	}
	return max(n, 1), nil
}

// Task is an after-stage task.
type Task struct {
	Type            placementv1.StageTaskType
	WaitTime        metav1.Duration
	ApprovalRequest string
}

// TaskOf is a strategy's stage task as a plan shows it (no approval request name yet).
func TaskOf(t placementv1.StageTask) Task {
	task := Task{Type: t.Type}
	if t.WaitTime != nil {
		task.WaitTime = *t.WaitTime
	}
	return task
}

// Plan is the controller's initialization of a run.
type Plan struct {
	Stages []Stage
	// Deletion lists, by name, the clusters whose resources the deletion stage removes.
	Deletion []string
	// Failure is the controller's Initialized=False message; empty when it initializes.
	Failure string
	// Retry is why the controller would not initialize the run yet and retry (a binding in
	// transition); empty otherwise.
	Retry string
	// NewSnapshot is set when the run names no resource snapshot index: the controller then
	// snapshots the placement's resources when it initializes the run.
	NewSnapshot bool
	// OtherFailures are messages the controller may give instead of Failure: it lists member
	// clusters from its informer cache, in no fixed order, so which duplicate or badly labelled
	// cluster it names first can vary.
	OtherFailures []string
	// Unstaged are the scheduled clusters no stage holds (the controller logs them; its message
	// does not name them).
	Unstaged []string
	// Duplicated are the clusters more than one stage holds, by name.
	Duplicated []string
}

// Initialize computes the controller's initialization of a run, checking in the controller's
// order: placement, policy snapshot, bindings, strategy and stages, resource snapshot.
func Initialize(in Inputs) Plan {
	var p Plan
	fail := func(msg string) Plan { p.Failure = initFailed + msg; return p }
	placementKey := k8stypes.NamespacedName{Namespace: in.Namespace, Name: in.PlacementName}.String()
	strategyKey := k8stypes.NamespacedName{Namespace: in.Namespace, Name: in.StrategyName}.String()

	// validatePlacement (the strategy type is defaulted first: defaulter.SetPlacementDefaults)
	if in.Placement == nil {
		return fail(userError + "parent placement not found")
	}
	if t := in.Placement.Spec.Strategy.Type; t != placementv1.ExternalRolloutStrategyType {
		if t == "" {
			t = placementv1.RollingUpdateRolloutStrategyType
		}
		return fail(userError + "parent placement does not have an external rollout strategy, current strategy: " + string(t))
	}
	// determinePolicySnapshot (utils/controller/policy_snapshot_resolver.go LookupLatestPolicySnapshot)
	switch n := len(in.LatestPolicySnapshots); {
	case n > 1:
		return fail(unexpected + fmt.Sprintf("multiple active policy snapshots found for placement %s: got %d, want 1", placementKey, n))
	case n == 0:
		return fail("no latest policy snapshot found for placement " + placementKey)
	}
	snap := &in.LatestPolicySnapshots[0]
	if _, ok := snap.Labels[placementv1beta1.PolicyIndexLabel]; !ok {
		return fail(unexpected + fmt.Sprintf("policy snapshot `%s/%s` does not have a policy index label", snap.Namespace, snap.Name))
	}
	count := -1
	if pol := snap.Spec.Policy; pol != nil {
		switch pol.PlacementType {
		case placementv1.PickNPlacementType:
			n, why := clusterCount(snap)
			if why != "" {
				// determinePolicySnapshot joins this one with a comma, not a colon.
				p.Failure = strings.TrimSuffix(initFailed, ": ") + ", " + unexpected +
					fmt.Sprintf("%s: the policy snapshot `%s/%s` doesn't have valid cluster count annotation", why, snap.Namespace, snap.Name)
				return p
			}
			count = n
		case placementv1.PickFixedPlacementType:
			count = len(pol.ClusterNames)
		}
	}
	if !scheduled(snap) {
		return fail(fmt.Sprintf("policy snapshot `%s` not fully scheduled yet", snap.Name))
	}
	// collectScheduledClusters
	var selected, deleted []string
	for _, b := range in.Bindings {
		if b.Spec.SchedulingPolicySnapshotName == snap.Name {
			if b.Spec.State == placementv1.BindingStateUnscheduled {
				deleted = append(deleted, b.Spec.TargetCluster)
			} else {
				selected = append(selected, b.Spec.TargetCluster)
			}
			continue
		}
		if b.Spec.State != placementv1.BindingStateUnscheduled {
			p.Retry = fmt.Sprintf("binding `%s/%s` with old policy snapshot `%s/%s` has state %s, we might observe a transient state, need retry",
				b.Namespace, b.Name, b.Namespace, b.Spec.SchedulingPolicySnapshotName, b.Spec.State)
			return p
		}
		deleted = append(deleted, b.Spec.TargetCluster)
	}
	if len(selected) == 0 && len(deleted) == 0 {
		return fail(fmt.Sprintf("no scheduled or to-be-deleted bindings found for the latest policy snapshot %s/%s", snap.Namespace, snap.Name))
	}
	if count != -1 && count != len(selected) {
		return fail(unexpected + fmt.Sprintf("the number of selected bindings %d is not equal to the observed cluster count %d", len(selected), count))
	}
	// generateStagesByStrategy
	if in.Strategy == nil {
		return fail(userError + fmt.Sprintf("referenced updateStrategy not found: `%s`", strategyKey))
	}
	stages, err := StageClusters(strategyKey, in.Strategy.Spec, in.MemberClusters, selected)
	p.Unstaged, p.Duplicated = err.Unstaged, err.Duplicated
	if err.Message != "" && !err.AfterStages {
		p.OtherFailures = prefixed(initFailed, err.Others)
		return fail(err.Message)
	}
	p.Stages = make([]Stage, len(stages))
	for i, s := range stages {
		cfg := in.Strategy.Spec.Stages[i]
		p.Stages[i] = Stage{Name: s.Name, Clusters: s.Clusters}
		if len(s.Clusters) > 0 {
			// an error here fails the run when the stage starts (execution.go); the CRD's pattern keeps it out
			p.Stages[i].MaxConcurrency, _ = MaxConcurrency(cfg.MaxConcurrency, len(s.Clusters))
		}
		for _, t := range cfg.BeforeStageTasks {
			task := TaskOf(t)
			if t.Type == placementv1.StageTaskTypeApproval {
				task.ApprovalRequest = BeforeApprovalRequestName(in.RunName, s.Name)
			}
			p.Stages[i].BeforeTasks = append(p.Stages[i].BeforeTasks, task)
		}
		for _, t := range cfg.AfterStageTasks {
			task := TaskOf(t)
			if t.Type == placementv1.StageTaskTypeApproval {
				task.ApprovalRequest = ApprovalRequestName(in.RunName, s.Name)
			}
			p.Stages[i].Tasks = append(p.Stages[i].Tasks, task)
		}
	}
	if err.Message != "" {
		// the stages are recorded, the deletion stage is not
		return fail(err.Message)
	}
	sort.Strings(deleted)
	p.Deletion = deleted
	// recordOverrideSnapshots, getResourceSnapshotObjs (overrides themselves are not predicted: the
	// provider manages none). Without an index the controller snapshots the placement's resources
	// (GetOrCreateResourceSnapshot) and uses that snapshot's master.
	if in.ResourceSnapshotIndex == "" {
		p.NewSnapshot = true
		return p
	}
	idx, perr := strconv.Atoi(in.ResourceSnapshotIndex)
	if perr != nil || idx < 0 {
		return failAll(p, userError+fmt.Sprintf("invalid resource snapshot index `%s` provided, expected an integer >= 0", in.ResourceSnapshotIndex))
	}
	var found, master bool
	for i := range in.ResourceSnapshots {
		s := &in.ResourceSnapshots[i]
		if s.Labels[placementv1beta1.ResourceIndexLabel] != in.ResourceSnapshotIndex {
			continue
		}
		found = true
		master = master || s.Annotations[placementv1beta1.ResourceGroupHashAnnotation] != ""
	}
	if !found {
		return failAll(p, userError+fmt.Sprintf("no resourceSnapshots with index `%d` found for placement `%s`", idx, placementKey))
	}
	if !master {
		return failAll(p, unexpected+"no master resourceSnapshot found for placement "+placementKey)
	}
	return p
}

// failAll is a failure after the stages were computed (recordOverrideSnapshots): the controller
// records the stages and the deletion stage with it, as the plan keeps them.
func failAll(p Plan, msg string) Plan {
	p.Failure = initFailed + msg
	return p
}

// ApprovalRequestName is the approval request an after-stage Approval task waits for
// (apis/placement/v1beta1/commons.go AfterStageApprovalTaskNameFmt).
func ApprovalRequestName(run, stage string) string {
	return fmt.Sprintf(placementv1beta1.AfterStageApprovalTaskNameFmt, run, stage)
}

// BeforeApprovalRequestName is the approval request a before-stage Approval task waits for
// (apis/placement/v1beta1/commons.go BeforeStageApprovalTaskNameFmt).
func BeforeApprovalRequestName(run, stage string) string {
	return fmt.Sprintf(placementv1beta1.BeforeStageApprovalTaskNameFmt, run, stage)
}

// scheduled is condition.IsConditionStatusTrue(Scheduled, generation) of the policy snapshot.
func scheduled(s *placementv1.ClusterSchedulingPolicySnapshot) bool {
	for _, c := range s.Status.Conditions {
		if c.Type == string(placementv1.PolicySnapshotScheduled) {
			return c.Status == metav1.ConditionTrue && c.ObservedGeneration == s.Generation
		}
	}
	return false
}

func prefixed(prefix string, msgs []string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = prefix + m
	}
	return out
}

// StageResult is one stage's clusters in update order.
type StageResult struct {
	Name     string
	Clusters []string
}

// StageError says why stages cannot be formed.
type StageError struct {
	// Message is the controller's message for the first offending cluster by name.
	Message string
	// Others are the messages it may give instead (see Plan.OtherFailures).
	Others []string
	// AfterStages is set when every stage was formed but some selected cluster is in none: the
	// controller then records the stages with its failure.
	AfterStages bool
	// Unstaged and Duplicated list the clusters in no stage and in several, by name.
	Unstaged, Duplicated []string
}

// StageClusters assigns the selected clusters to the strategy's stages as computeRunStageStatus
// does: stage by stage, its before- and after-stage tasks are validated, then its label selector
// over all MemberClusters (absent selector: none, as metav1.LabelSelectorAsSelector(nil) gives
// labels.Nothing) is intersected with the selected clusters; the first invalid task list or
// selector, cluster in two stages or sorting label that is not an integer fails the run, and so
// does a selected cluster in no stage. Clusters are ordered by the integer value of the sorting
// label, then by name. strategy is the strategy's key as the controller prints it
// (types.NamespacedName: "/name" for a cluster-scoped one).
func StageClusters(strategy string, spec placementv1.UpdateStrategySpec, members []clusterv1.MemberCluster, selected []string) ([]StageResult, StageError) {
	var serr StageError
	isSelected := make(map[string]bool, len(selected))
	for _, c := range selected {
		isSelected[c] = true
	}
	sorted := slices.Clone(members)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	placed := map[string]string{}
	out := make([]StageResult, 0, len(spec.Stages))
	for _, stage := range spec.Stages {
		if err := validateBeforeStageTasks(stage.BeforeStageTasks); err != nil && serr.Message == "" {
			serr.Message = userError + fmt.Sprintf("the before stage tasks are invalid, updateStrategy: `%s`, stage: %s, err: %s", strategy, stage.Name, err)
		}
		if err := validateAfterStageTasks(stage.AfterStageTasks); err != nil && serr.Message == "" {
			serr.Message = userError + fmt.Sprintf("the after stage tasks are invalid, updateStrategy: `%s`, stage: %s, err: %s", strategy, stage.Name, err)
		}
		sel, err := metav1.LabelSelectorAsSelector(stage.LabelSelector)
		if err != nil {
			if serr.Message == "" {
				serr.Message = userError + fmt.Sprintf("the stage label selector is invalid, updateStrategy: `%s`, stage: %s, err: %s", strategy, stage.Name, selectorError(err))
			}
			out = append(out, StageResult{Name: stage.Name})
			continue
		}
		var in []clusterv1.MemberCluster
		var msgs []string
		for _, m := range sorted {
			if !isSelected[m.Name] || !sel.Matches(labels.Set(m.Labels)) {
				continue
			}
			if _, dup := placed[m.Name]; dup {
				serr.Duplicated = append(serr.Duplicated, m.Name)
				msgs = append(msgs, userError+fmt.Sprintf("cluster `%s` appears in more than one stages", m.Name))
				continue
			}
			if stage.SortingLabelKey != nil {
				v := m.Labels[*stage.SortingLabelKey]
				if _, err := strconv.Atoi(v); err != nil {
					msgs = append(msgs, userError+fmt.Sprintf("the sorting label `%s:%s` on cluster `%s` is not valid: %s", *stage.SortingLabelKey, v, m.Name, err))
				}
			}
			in = append(in, m)
			placed[m.Name] = stage.Name
		}
		if len(msgs) > 0 && serr.Message == "" {
			serr.Message, serr.Others = msgs[0], msgs[1:]
		}
		sortStage(in, stage.SortingLabelKey)
		r := StageResult{Name: stage.Name}
		for _, m := range in {
			r.Clusters = append(r.Clusters, m.Name)
		}
		out = append(out, r)
	}
	for _, c := range selected {
		if _, ok := placed[c]; !ok {
			serr.Unstaged = append(serr.Unstaged, c)
		}
	}
	sort.Strings(serr.Unstaged)
	serr.Duplicated = slices.Compact(sortedCopy(serr.Duplicated))
	if serr.Message == "" && len(serr.Unstaged) > 0 {
		serr.Message = userError + fmt.Sprintf("some clusters are not placed in any stage, total %d, showing up to 10: %s",
			len(serr.Unstaged), strings.Join(serr.Unstaged[:min(10, len(serr.Unstaged))], ", "))
		serr.AfterStages = true
	}
	return out, serr
}

// sortStage orders a stage's clusters: the sorting label's integer value, then the name.
func sortStage(in []clusterv1.MemberCluster, key *string) {
	sort.SliceStable(in, func(i, j int) bool {
		if key == nil {
			return in[i].Name < in[j].Name
		}
		a, _ := strconv.Atoi(in[i].Labels[*key])
		b, _ := strconv.Atoi(in[j].Labels[*key])
		if a != b {
			return a < b
		}
		return in[i].Name < in[j].Name
	})
}

// clusterCount is annotations.ExtractNumOfClustersFromPolicySnapshot: the PickN snapshot's cluster
// count, or why it has none, in its words.
func clusterCount(snap *placementv1.ClusterSchedulingPolicySnapshot) (int, string) {
	raw, ok := snap.Annotations[placementv1beta1.NumberOfClustersAnnotation]
	if !ok {
		return 0, "cannot find annotation " + placementv1beta1.NumberOfClustersAnnotation
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		// %w of a nil error, as upstream prints it for a negative count
		return 0, fmt.Errorf("invalid annotation %s: %s is not a valid count: %w", placementv1beta1.NumberOfClustersAnnotation, raw, err).Error()
	}
	return n, ""
}

// selectorError is metav1.LabelSelectorAsSelector's error as the hub agent words it: v0.18.9 is
// built with k8s.io/apimachinery v0.34, whose field errors print as this module's v0.35 does, but
// which calls an invalid label key "a qualified name" where v0.35 says "a valid label key"
// (pkg/labels/selector.go validateLabelKey: IsQualifiedName, later content.IsLabelKey).
func selectorError(err error) string {
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) {
		return err.Error()
	}
	var msgs []string
	seen := map[string]bool{}
	for _, e := range utilerrors.Flatten(agg).Errors() {
		msg := e.Error()
		var fe *field.Error
		if errors.As(e, &fe) {
			body := fe.ErrorBody()
			if strings.HasSuffix(fe.Field, "key") {
				body = strings.Replace(body, "a valid label key ", "a qualified name ", 1)
			}
			msg = fe.Field + ": " + body
		}
		if !seen[msg] {
			seen[msg] = true
			msgs = append(msgs, msg)
		}
	}
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// validateBeforeStageTasks is updaterun/initialization.go validateBeforeStageTask.
func validateBeforeStageTasks(tasks []placementv1.StageTask) error {
	if len(tasks) > 1 {
		return errors.New("beforeStageTasks can have at most one task")
	}
	for i, t := range tasks {
		if t.Type != placementv1.StageTaskTypeApproval {
			return fmt.Errorf("task %d of type %s is not allowed in beforeStageTasks, allowed type: Approval", i, t.Type)
		}
		if t.WaitTime != nil {
			return fmt.Errorf("task %d of type Approval cannot have wait duration set", i)
		}
	}
	return nil
}

// validateAfterStageTasks is updaterun/initialization.go validateAfterStageTask.
func validateAfterStageTasks(tasks []placementv1.StageTask) error {
	if len(tasks) == 2 && tasks[0].Type == tasks[1].Type {
		return fmt.Errorf("afterStageTasks cannot have two tasks of the same type: %s", tasks[0].Type)
	}
	for i, t := range tasks {
		if t.Type != placementv1.StageTaskTypeTimedWait {
			continue
		}
		if t.WaitTime == nil {
			return fmt.Errorf("task %d of type TimedWait has wait duration set to nil", i)
		}
		if t.WaitTime.Duration <= 0 {
			return fmt.Errorf("task %d of type TimedWait has wait duration <= 0", i)
		}
	}
	return nil
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

// Scheduling reports whether the run's placement is one the hub agent has not finished scheduling:
// no latest policy snapshot yet, or one not yet scheduled. A run created then fails for good
// (v0.18.9 pkg/controllers/updaterun/initialization.go, determinePolicySnapshot: "not fully
// scheduled yet" is a validation failure), so a run created in the same apply as its placement
// waits until this is false.
func Scheduling(in Inputs) bool {
	if in.Placement == nil {
		return false
	}
	snaps := in.LatestPolicySnapshots
	return len(snaps) == 0 || (len(snaps) == 1 && !scheduled(&snaps[0]))
}

// MissingSnapshotForGood is KubeFleet's refusal of a run that names a resource snapshot index its
// External placement has no snapshot of, or "" when the index exists, the run names none, or the
// placement is absent or not External (then another check decides). Such a run fails for good:
// v0.18.9's placement controller takes no resource snapshot of an External placement
// (pkg/controllers/placement/controller.go handleResourceSnapshotByStrategy), only a run naming no
// index does (pkg/controllers/updaterun/initialization.go getResourceSnapshotObjs, which refuses a
// missing index with errValidationFailed: "no more retries").
func MissingSnapshotForGood(in Inputs) string {
	if in.ResourceSnapshotIndex == "" || in.Placement == nil || in.Placement.Spec.Strategy.Type != placementv1.ExternalRolloutStrategyType {
		return ""
	}
	idx, err := strconv.Atoi(in.ResourceSnapshotIndex)
	if err != nil || idx < 0 {
		return ""
	}
	for i := range in.ResourceSnapshots {
		if in.ResourceSnapshots[i].Labels[placementv1beta1.ResourceIndexLabel] == in.ResourceSnapshotIndex {
			return ""
		}
	}
	placementKey := k8stypes.NamespacedName{Namespace: in.Namespace, Name: in.PlacementName}.String()
	return initFailed + userError + fmt.Sprintf("no resourceSnapshots with index `%d` found for placement `%s`", idx, placementKey)
}

// SnapshotIndexes are the indexes of the placement's resource snapshots, ascending, each once (the
// kubernetes-fleet.io/resource-index label: apis/placement/v1beta1/resourcesnapshot_types.go).
func SnapshotIndexes(in Inputs) []string {
	var idx []int
	for i := range in.ResourceSnapshots {
		if n, err := strconv.Atoi(in.ResourceSnapshots[i].Labels[placementv1beta1.ResourceIndexLabel]); err == nil && !slices.Contains(idx, n) {
			idx = append(idx, n)
		}
	}
	slices.Sort(idx)
	out := make([]string, len(idx))
	for i, n := range idx {
		out[i] = strconv.Itoa(n)
	}
	return out
}
