// Package staged reproduces how KubeFleet v0.14.0's staged update run controller initializes a
// ClusterStagedUpdateRun: which of a placement's clusters each stage updates, in which order, which
// clusters lose the placement's resources at the end, and why it refuses to start
// (go.goms.io/fleet pkg/controllers/updaterun/initialization.go). Pure functions of API objects.
package staged

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1 "go.goms.io/fleet/apis/cluster/v1"
	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"
)

// The controller's error prefixes (updaterun/controller.go errInitializedFailed,
// utils/controller/controller.go ErrUserError and ErrUnexpectedBehavior).
const (
	initFailed = "cannot continue the ClusterStagedUpdateRun: failed to initialize the clusterStagedUpdateRun: "
	userError  = "failed to process the request due to a client error: "
	unexpected = "unexpected behavior which cannot be handled by the controller: "
)

// Inputs is what the controller reads when it initializes a run.
type Inputs struct {
	// RunName names the approval requests of Approval tasks.
	RunName string
	// Placement is the run's ClusterResourcePlacement; nil when it does not exist.
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
	// ResourceSnapshotIndex is spec.resourceSnapshotIndex; ResourceSnapshots are the placement's
	// resource snapshots (any index).
	ResourceSnapshotIndex string
	ResourceSnapshots     []placementv1.ClusterResourceSnapshot
}

// Stage is one update stage as the run's status.stagesStatus records it.
type Stage struct {
	Name string
	// Clusters in update order (one at a time, updaterun/execution.go executeUpdatingStage).
	Clusters []string
	// Tasks are the after-stage tasks; ApprovalRequest names the request an Approval task waits for.
	Tasks []Task
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

	// validateCRP
	if in.Placement == nil {
		return fail(userError + "parent clusterResourcePlacement not found")
	}
	if in.Placement.Spec.Strategy.Type != placementv1.ExternalRolloutStrategyType {
		return fail(userError + "parent clusterResourcePlacement does not have an external rollout strategy, current strategy: " + string(in.Placement.Spec.Strategy.Type))
	}
	// determinePolicySnapshot
	switch n := len(in.LatestPolicySnapshots); {
	case n > 1:
		return fail(unexpected + fmt.Sprintf("more than one (%d in actual) latest policy snapshots associated with the clusterResourcePlacement: %s", n, in.PlacementName))
	case n == 0:
		return fail(fmt.Sprintf("no latest policy snapshot associated with the clusterResourcePlacement: %s", in.PlacementName))
	}
	snap := &in.LatestPolicySnapshots[0]
	if snap.Labels[placementv1beta1.PolicyIndexLabel] == "" {
		return fail(unexpected + fmt.Sprintf("policy snapshot `%s` does not have a policy index label", snap.Name))
	}
	count := -1
	if pol := snap.Spec.Policy; pol != nil {
		switch pol.PlacementType {
		case placementv1.PickNPlacementType:
			n, why := clusterCount(snap)
			if why != "" {
				// determinePolicySnapshot joins this one with a comma, not a colon.
				p.Failure = strings.TrimSuffix(initFailed, ": ") + ", " + unexpected +
					fmt.Sprintf("%s: the policy snapshot `%s` doesn't have valid cluster count annotation", why, snap.Name)
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
			if b.Spec.State != placementv1.BindingStateScheduled && b.Spec.State != placementv1.BindingStateBound {
				return fail(unexpected + fmt.Sprintf("binding `%s`'s state %s is not scheduled or bound", b.Name, b.Spec.State))
			}
			selected = append(selected, b.Spec.TargetCluster)
			continue
		}
		if b.Spec.State != placementv1.BindingStateUnscheduled {
			return fail(unexpected + fmt.Sprintf("binding `%s` with old policy snapshot %s has state %s, not unscheduled", b.Name, b.Spec.SchedulingPolicySnapshotName, b.Spec.State))
		}
		deleted = append(deleted, b.Spec.TargetCluster)
	}
	if len(selected) == 0 && len(deleted) == 0 {
		return fail(fmt.Sprintf("no scheduled or to-be-deleted clusterResourceBindings found for the latest policy snapshot %s", snap.Name))
	}
	if count != -1 && count != len(selected) {
		return fail(unexpected + fmt.Sprintf("the number of selected bindings %d is not equal to the observed cluster count %d", len(selected), count))
	}
	// generateStagesByStrategy
	if in.Strategy == nil {
		return fail(userError + "referenced clusterStagedUpdateStrategy not found: " + in.StrategyName)
	}
	stages, err := StageClusters(in.StrategyName, in.Strategy.Spec, in.MemberClusters, selected)
	p.Unstaged, p.Duplicated = err.Unstaged, err.Duplicated
	if err.Message != "" && !err.AfterStages {
		p.OtherFailures = prefixed(initFailed, err.Others)
		return fail(err.Message)
	}
	p.Stages = make([]Stage, len(stages))
	for i, s := range stages {
		p.Stages[i] = Stage{Name: s.Name, Clusters: s.Clusters}
		for _, t := range in.Strategy.Spec.Stages[i].AfterStageTasks {
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
	// recordOverrideSnapshots (overrides themselves are not predicted: the provider manages none)
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
		return failAll(p, userError+fmt.Sprintf("no clusterResourceSnapshots with index `%d` found for clusterResourcePlacement `%s`", idx, in.PlacementName))
	}
	if !master {
		return failAll(p, unexpected+fmt.Sprintf("no master clusterResourceSnapshot found for clusterResourcePlacement `%s` with index `%d`", in.PlacementName, idx))
	}
	return p
}

// failAll is a failure after the stages were computed (recordOverrideSnapshots): the controller
// records the stages and the deletion stage with it, as the plan keeps them.
func failAll(p Plan, msg string) Plan {
	p.Failure = initFailed + msg
	return p
}

// ApprovalRequestName is the ClusterApprovalRequest an Approval task waits for
// (placementv1beta1.AfterStageApprovalTaskNameFmt).
func ApprovalRequestName(run, stage string) string {
	return fmt.Sprintf(placementv1beta1.AfterStageApprovalTaskNameFmt, run, stage)
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
// does: each stage's label selector over all MemberClusters (absent selector: none, as
// metav1.LabelSelectorAsSelector(nil) gives labels.Nothing), intersected with the selected
// clusters; a cluster in two stages, a sorting label that is not an integer, or a selected cluster
// in no stage fails the run. Clusters are ordered by the integer value of the sorting label, then
// by name.
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
		if err := validateAfterStageTasks(stage.AfterStageTasks); err != nil && serr.Message == "" {
			serr.Message = userError + fmt.Sprintf("the after stage tasks are invalid, clusterStagedUpdateStrategy: %s, stage: %s, err: %s", strategy, stage.Name, err)
		}
		sel, err := metav1.LabelSelectorAsSelector(stage.LabelSelector)
		if err != nil {
			if serr.Message == "" {
				serr.Message = userError + fmt.Sprintf("the stage label selector is invalid, clusterStagedUpdateStrategy: %s, stage: %s, err: %s", strategy, stage.Name, selectorError(err))
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
		serr.Message, serr.AfterStages = userError+"some clusters are not placed in any stage", true
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

// selectorError is metav1.LabelSelectorAsSelector's error as the hub agent words it: v0.14.0 is
// built with k8s.io/apimachinery v0.30, whose field errors print a list value in Go syntax
// (`Invalid value: []string(nil)`, where later versions print JSON `null`) and call a label key
// with two slashes "a qualified name" (pkg/util/validation/field/errors.go ErrorBody,
// pkg/util/validation/validation.go IsQualifiedName, pkg/util/errors/errors.go aggregate.Error).
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
			msg = fe.Field + ": " + fieldErrorBody(fe)
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

// fieldErrorBody is apimachinery v0.30's field.Error.ErrorBody.
func fieldErrorBody(e *field.Error) string {
	var s string
	_, omit := e.BadValue.(field.OmitValueType)
	switch {
	case e.Type == field.ErrorTypeRequired, e.Type == field.ErrorTypeForbidden, e.Type == field.ErrorTypeTooLong, e.Type == field.ErrorTypeInternal, omit:
		s = e.Type.String()
	default:
		value := e.BadValue
		if rt := reflect.TypeOf(value); value == nil || rt == nil {
			value = "null"
		} else if rt.Kind() == reflect.Pointer {
			if rv := reflect.ValueOf(value); rv.IsNil() {
				value = "null"
			} else {
				value = rv.Elem().Interface()
			}
		}
		switch t := value.(type) {
		case int64, int32, float64, float32, bool:
			s = fmt.Sprintf("%s: %v", e.Type, value)
		case string:
			s = fmt.Sprintf("%s: %q", e.Type, t)
		case fmt.Stringer:
			s = fmt.Sprintf("%s: %s", e.Type, t.String())
		default:
			s = fmt.Sprintf("%s: %#v", e.Type, value)
		}
	}
	detail := e.Detail
	if strings.HasSuffix(e.Field, "key") {
		detail = strings.Replace(detail, "a valid label key ", "a qualified name ", 1)
	}
	if detail != "" {
		s += ": " + detail
	}
	return s
}

// validateAfterStageTasks is updaterun/initialization.go validateAfterStageTask.
func validateAfterStageTasks(tasks []placementv1.StageTask) error {
	if len(tasks) == 2 && tasks[0].Type == tasks[1].Type {
		return fmt.Errorf("afterStageTasks cannot have two tasks of the same type: %s", tasks[0].Type)
	}
	for i, t := range tasks {
		if t.Type == placementv1.StageTaskTypeTimedWait && (t.WaitTime == nil || t.WaitTime.Duration <= 0) {
			return fmt.Errorf("task %d has wait duration <= 0", i)
		}
	}
	return nil
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}
