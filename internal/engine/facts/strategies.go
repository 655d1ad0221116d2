package facts

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// Strategy is one of a fleet's update strategies cut to its stages: what an update run's and
// an auto-upgrade profile's previews read of the strategy their update_strategy_id names. The data
// source cannot know at plan which strategies the configuration references (an ID may come from
// another workspace), so it lists them all with the fleet: one request, a few hundred bytes each.
type Strategy struct {
	Name     string                     `json:"name"`
	Strategy fleetapi.UpdateRunStrategy `json:"strategy"`
}

// ErrStrategyAbsent says the fleet had no update strategy of that name when the snapshot was taken.
var ErrStrategyAbsent = errors.New("update strategy absent from the facts")

// stagesText is a strategy's stages in a line, in order: "canary[canary], prod[prod-east, prod-west; wait 3600s]".
func stagesText(s fleetapi.UpdateRunStrategy) string {
	stages := make([]string, len(s.Stages))
	for i, st := range s.Stages {
		var parts []string
		groups := make([]string, len(st.Groups))
		gates := len(st.BeforeGates) + len(st.AfterGates)
		for j, g := range st.Groups {
			groups[j] = g.Name
			if g.MaxConcurrency != "" {
				groups[j] += " max " + g.MaxConcurrency
			}
			gates += len(g.BeforeGates) + len(g.AfterGates)
		}
		parts = append(parts, strings.Join(groups, ", "))
		if st.AfterStageWaitInSeconds > 0 {
			parts = append(parts, fmt.Sprintf("wait %ds", st.AfterStageWaitInSeconds))
		}
		if st.MaxConcurrency != "" {
			parts = append(parts, "max "+st.MaxConcurrency)
		}
		if gates > 0 {
			parts = append(parts, fmt.Sprintf("%d gate(s)", gates))
		}
		stages[i] = st.Name + "[" + strings.Join(parts, "; ") + "]"
	}
	return strings.Join(stages, ", ")
}
