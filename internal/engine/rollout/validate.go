package rollout

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// namePattern is the pattern of UpdateStage.name and UpdateGroup.name in fleets.json (1–50 characters).
var namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// concurrencyPattern is UpdateStage.maxConcurrency / UpdateGroup.maxConcurrency in fleets.json.
var concurrencyPattern = regexp.MustCompile(`^(?:([1-9]\d*)|([1-9]\d?|100)%)$`)

// failuresPattern is UpdateStage.maxAllowedFailures / UpdateGroup.maxAllowedFailures in the
// 2026-11-01-preview fleets.json: a count n >= 0 or a percentage from 0% to 100%.
var failuresPattern = regexp.MustCompile(`^(?:0|[1-9]\d*|(?:0|[1-9]\d?|100)%)$`)

// maxSelectorLength is MemberSelector.byLabel's maxLength in the 2026-11-01-preview fleets.json.
const maxSelectorLength = 512

// maxGroupsPerStage: concepts-update-orchestration.md "The maximum number of Update Groups in each Update Stage is 50.".
const maxGroupsPerStage = 50

// ValidateUpdate reports the first rule of ManagedClusterUpdate that u breaks, with the
// spec's field path in the message.
func ValidateUpdate(u Update) error {
	switch u.Upgrade {
	case Full, ControlPlaneOnly:
		// ManagedClusterUpgradeType Full / ControlPlaneOnly: "Requires the ManagedClusterUpgradeSpec.KubernetesVersion property to be set."
		if u.KubernetesVersion == "" {
			return fmt.Errorf("managedClusterUpdate.upgrade.kubernetesVersion: required when type is %s", u.Upgrade)
		}
		if _, err := parseKubeVersion(u.KubernetesVersion); err != nil {
			return fmt.Errorf("managedClusterUpdate.upgrade.kubernetesVersion: %w", err)
		}
	case NodeImageOnly:
		// NodeImageOnly: "Requires the ManagedClusterUpgradeSpec.KubernetesVersion property to NOT be set."
		if u.KubernetesVersion != "" {
			return fmt.Errorf("managedClusterUpdate.upgrade.kubernetesVersion: must not be set when type is NodeImageOnly")
		}
	default:
		return fmt.Errorf("managedClusterUpdate.upgrade.type: %q is not Full, ControlPlaneOnly or NodeImageOnly", u.Upgrade)
	}
	switch u.NodeImageSelection {
	case "", Latest, Consistent:
		// customNodeImageVersions: "This field is required if node image selection type is Custom. Otherwise, it must be empty."
		if len(u.CustomNodeImageVersions) > 0 {
			return fmt.Errorf("managedClusterUpdate.nodeImageSelection.customNodeImageVersions: must be empty unless type is Custom")
		}
	case Custom:
		if len(u.CustomNodeImageVersions) == 0 {
			return fmt.Errorf("managedClusterUpdate.nodeImageSelection.customNodeImageVersions: required when type is Custom")
		}
		// "For each node image family ..., this field can contain at most one version."
		seen := map[string]string{}
		for i, v := range u.CustomNodeImageVersions {
			family, version := SplitNodeImage(v)
			if family == "" || version == "" {
				return fmt.Errorf("managedClusterUpdate.nodeImageSelection.customNodeImageVersions[%d]: %q is not <image type>-<version>", i, v)
			}
			if prev, dup := seen[family]; dup {
				return fmt.Errorf("managedClusterUpdate.nodeImageSelection.customNodeImageVersions[%d]: %q and %q are both of image type %s; at most one version per type", i, prev, v, family)
			}
			seen[family] = v
		}
	default:
		return fmt.Errorf("managedClusterUpdate.nodeImageSelection.type: %q is not Latest, Consistent or Custom", u.NodeImageSelection)
	}
	return nil
}

// ValidateStrategy reports the first rule of UpdateRunStrategy that s breaks. A nil
// strategy is valid (members one by one).
func ValidateStrategy(s *Strategy) error {
	if s == nil {
		return nil
	}
	switch s.API {
	case "", StableAPI, PreviewAPI:
	default:
		return fmt.Errorf("strategy: api-version %q is not %s or %s", s.API, StableAPI, PreviewAPI)
	}
	// UpdateRunStrategy.stages: "The list of stages that compose this update run. Min size: 1."
	if len(s.Stages) == 0 {
		return fmt.Errorf("strategy.stages: at least one stage is required")
	}
	stages := map[string]bool{}
	groups := map[string]string{}
	for i, st := range s.Stages {
		p := fmt.Sprintf("strategy.stages[%d]", i)
		if err := validName(st.Name); err != nil {
			return fmt.Errorf("%s.name: %w", p, err)
		}
		// UpdateStage.name: "Must be unique within the UpdateRun."
		if stages[st.Name] {
			return fmt.Errorf("%s.name: stage %q is defined twice", p, st.Name)
		}
		stages[st.Name] = true
		if err := validPreviewFields(s, st.MaxAllowedFailures, st.MemberSelector, p); err != nil {
			return err
		}
		// UpdateStage.groups: "Duplicate groups are not allowed. Min size: 1." The preview's
		// UpdateStage.memberSelector: "If specified without UpdateGroup, one implicit group containing
		// the selected members will be created."
		if len(st.Groups) == 0 && st.MemberSelector == nil {
			return fmt.Errorf("%s.groups: at least one group is required", p)
		}
		if len(st.Groups) > maxGroupsPerStage {
			return fmt.Errorf("%s.groups: %d groups; a stage holds at most %d", p, len(st.Groups), maxGroupsPerStage)
		}
		if st.AfterStageWaitInSeconds < 0 {
			return fmt.Errorf("%s.afterStageWaitInSeconds: must not be negative", p)
		}
		if err := validConcurrency(st.MaxConcurrency); err != nil {
			return fmt.Errorf("%s.maxConcurrency: %w", p, err)
		}
		if err := validGates(s, st.BeforeGates, Before, p+".beforeGates"); err != nil {
			return err
		}
		if err := validGates(s, st.AfterGates, After, p+".afterGates"); err != nil {
			return err
		}
		for j, g := range st.Groups {
			gp := fmt.Sprintf("%s.groups[%d]", p, j)
			if err := validName(g.Name); err != nil {
				return fmt.Errorf("%s.name: %w", gp, err)
			}
			// UpdateRunStrategy: "A valid strategy contains no duplicate groups within or across stages."
			if prev, dup := groups[g.Name]; dup {
				return fmt.Errorf("%s.name: group %q is already in stage %q", gp, g.Name, prev)
			}
			groups[g.Name] = st.Name
			if err := validConcurrency(g.MaxConcurrency); err != nil {
				return fmt.Errorf("%s.maxConcurrency: %w", gp, err)
			}
			if err := validPreviewFields(s, g.MaxAllowedFailures, g.MemberSelector, gp); err != nil {
				return err
			}
			if err := validGates(s, g.BeforeGates, Before, gp+".beforeGates"); err != nil {
				return err
			}
			if err := validGates(s, g.AfterGates, After, gp+".afterGates"); err != nil {
				return err
			}
		}
	}
	return nil
}

func validName(n string) error {
	if len(n) < 1 || len(n) > 50 || !namePattern.MatchString(n) {
		return fmt.Errorf("%q must be 1-50 lowercase letters, digits and '-', starting and ending with a letter or digit", n)
	}
	return nil
}

func validConcurrency(v string) error {
	if v == "" || concurrencyPattern.MatchString(v) {
		return nil
	}
	return fmt.Errorf("%q is not a count (\"3\") or a percentage from 1%% to 100%% (\"25%%\")", v)
}

func validGates(s *Strategy, gs []Gate, timing Timing, p string) error {
	for i, g := range gs {
		gp := fmt.Sprintf("%s[%d]", p, i)
		switch {
		case g.Type == Approval:
			// GateConfiguration.scheduledStartConfiguration: "Scheduled start configuration for gates of
			// type ScheduledStart."
			if g.ScheduledStart != nil {
				return fmt.Errorf("%s.scheduledStartConfiguration: only for gates of type ScheduledStart", gp)
			}
		case g.Type == ScheduledStart && s.preview():
			// Project notes on the preview API: "ScheduledStart works only as a before-gate."
			if timing != Before {
				return fmt.Errorf("%s.type: ScheduledStart works only as a before-gate", gp)
			}
			if g.ScheduledStart == nil {
				return fmt.Errorf("%s.scheduledStartConfiguration: required for a ScheduledStart gate", gp)
			}
			if err := validScheduledStart(*g.ScheduledStart, gp+".scheduledStartConfiguration"); err != nil {
				return err
			}
		case s.preview():
			return fmt.Errorf("%s.type: %q is not Approval or ScheduledStart", gp, g.Type)
		default:
			// 2026-06-01 GateType: Approval only.
			return fmt.Errorf("%s.type: %q is not Approval", gp, g.Type)
		}
		// GateConfiguration.displayName: minLength 1, maxLength 100.
		if len(g.DisplayName) > 100 {
			return fmt.Errorf("%s.displayName: longer than 100 characters", gp)
		}
	}
	return nil
}

// validPreviewFields checks a stage's or group's maxAllowedFailures and memberSelector, which only
// the preview API has; p is the stage's or group's path.
func validPreviewFields(s *Strategy, failures string, sel *MemberSelector, p string) error {
	if !s.preview() {
		// 2026-06-01 has neither field: a value would be lost, so it is refused.
		if failures != "" {
			return fmt.Errorf("%s.maxAllowedFailures: requires api-version %s", p, PreviewAPI)
		}
		if sel != nil {
			return fmt.Errorf("%s.memberSelector: requires api-version %s", p, PreviewAPI)
		}
		return nil
	}
	if failures != "" {
		if !failuresPattern.MatchString(failures) {
			return fmt.Errorf("%s.maxAllowedFailures: %q is not a count (\"3\", 0 or more) or a percentage from 0%% to 100%% (\"25%%\")", p, failures)
		}
		// UpdateStageStatus/UpdateGroupStatus.maxAllowedFailures is an int32.
		if n, err := strconv.ParseInt(strings.TrimSuffix(failures, "%"), 10, 32); err != nil || n < 0 {
			return fmt.Errorf("%s.maxAllowedFailures: %q is larger than %d", p, failures, math.MaxInt32)
		}
	}
	if sel != nil {
		if len(sel.ByLabel) > maxSelectorLength {
			return fmt.Errorf("%s.memberSelector.byLabel: %d characters; at most %d", p, len(sel.ByLabel), maxSelectorLength)
		}
		if _, err := parseSelector(sel); err != nil {
			return fmt.Errorf("%s.memberSelector.byLabel: %q is not a label selector: %w", p, sel.ByLabel, err)
		}
	}
	return nil
}

// resolveConcurrency turns "N" or "N%" into a count.
// fleets.json UpdateStage/UpdateGroup.maxConcurrency: "Percentage is of the total number of clusters ...
// Fractional results are rounded down. A minimum of 1 upgrade is enforced."
// concepts-update-orchestration.md: "When no Maximum Concurrency is specified, the defaults are
// stage.maxConcurrency = 50 and group.maxConcurrency = 1.".
func resolveConcurrency(v string, of, def int) int {
	if v == "" {
		return def
	}
	if strings.HasSuffix(v, "%") {
		p, _ := strconv.Atoi(strings.TrimSuffix(v, "%"))
		n := of * p / 100
		if n < 1 {
			n = 1
		}
		return n
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return def
	}
	return n
}
