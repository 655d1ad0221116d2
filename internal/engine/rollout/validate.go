package rollout

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// namePattern is the pattern of UpdateStage.name and UpdateGroup.name in fleets.json (1–50 characters).
var namePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// concurrencyPattern is UpdateStage.maxConcurrency / UpdateGroup.maxConcurrency in fleets.json.
var concurrencyPattern = regexp.MustCompile(`^(?:([1-9]\d*)|([1-9]\d?|100)%)$`)

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
		// UpdateStage.groups: "Duplicate groups are not allowed. Min size: 1."
		if len(st.Groups) == 0 {
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
		if err := validGates(st.BeforeGates, p+".beforeGates"); err != nil {
			return err
		}
		if err := validGates(st.AfterGates, p+".afterGates"); err != nil {
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
			if err := validGates(g.BeforeGates, gp+".beforeGates"); err != nil {
				return err
			}
			if err := validGates(g.AfterGates, gp+".afterGates"); err != nil {
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

func validGates(gs []Gate, p string) error {
	for i, g := range gs {
		if g.Type != Approval {
			return fmt.Errorf("%s[%d].type: %q is not Approval", p, i, g.Type)
		}
		// GateConfiguration.displayName: minLength 1, maxLength 100.
		if len(g.DisplayName) > 100 {
			return fmt.Errorf("%s[%d].displayName: longer than 100 characters", p, i)
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
