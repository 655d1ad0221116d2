package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// StrategyFacts is one of a fleet's update strategies cut to its stages: what an update run's and
// an auto-upgrade profile's previews read of the strategy their update_strategy_id names. The data
// source cannot know at plan which strategies the configuration references (an ID may come from
// another workspace), so it lists them all with the fleet: one request, a few hundred bytes each.
type StrategyFacts struct {
	Name     string                     `json:"name"`
	Strategy fleetapi.UpdateRunStrategy `json:"strategy"`
}

// readStrategyFacts lists the fleet's update strategies into ff. A failed list fails only the
// previews that need a strategy (StrategiesErr), not the data source.
func (c *Clients) readStrategyFacts(ctx context.Context, fleet fleetapi.FleetID, ff *FleetFacts) {
	fc, err := c.Fleet()
	var list []fleetapi.FleetUpdateStrategy
	if err == nil {
		list, err = fc.ListUpdateStrategies(ctx, fleet)
	}
	if err != nil {
		ff.StrategiesErr = err.Error()
		return
	}
	ff.StrategiesRead = true
	for _, s := range list {
		if s.Properties == nil {
			continue
		}
		ff.Strategies = append(ff.Strategies, StrategyFacts{Name: s.Name, Strategy: s.Properties.Strategy})
	}
	sort.Slice(ff.Strategies, func(i, j int) bool { return ff.Strategies[i].Name < ff.Strategies[j].Name })
}

// UpdateStrategy is the stages of the fleet's update strategy name: in a pinned view those the facts
// hold (the strategy as the plan read it), else read now; nil when it has no properties. A strategy
// the facts' fleet lacks did not exist at plan, so no planned preview rests on it (its ID was
// unknown, e.g. a strategy created in the same apply, or the plan failed): it is read now.
func (c *Clients) UpdateStrategy(ctx context.Context, fleet fleetapi.FleetID, name string) (*fleetapi.UpdateRunStrategy, error) {
	if c.pinned != nil {
		s, err := c.pinned.strategy(fleet, name)
		if !errors.Is(err, errStrategyAbsent) {
			return s, err
		}
		c = c.Live()
	}
	fc, err := c.Fleet()
	if err != nil {
		return nil, err
	}
	s, err := fc.GetUpdateStrategy(ctx, fleet, name)
	if err != nil || s.Properties == nil {
		return nil, err
	}
	return &s.Properties.Strategy, nil
}

var errStrategyAbsent = errors.New("update strategy absent from the facts")

func (f *Facts) strategy(fleet fleetapi.FleetID, name string) (*fleetapi.UpdateRunStrategy, error) {
	for _, ff := range f.Fleets {
		if !strings.EqualFold(ff.ID, fleet.String()) {
			continue
		}
		if !ff.StrategiesRead {
			return nil, &FactsNotReadError{What: "the update strategies of fleet " + ff.ID + ": " + ff.StrategiesErr}
		}
		for _, s := range ff.Strategies {
			if strings.EqualFold(s.Name, name) {
				out := s.Strategy
				return &out, nil
			}
		}
		return nil, errStrategyAbsent
	}
	return nil, &FactsNotReadError{What: "fleet " + fleet.String() + " (add it to fleet_ids)"}
}

// OnlyStrategy keeps, of the fleets' strategies in f, the one a preview read (name; none when ""),
// so that what moved names no strategy the preview did not read (an update strategy's own write
// among them).
func (f *Facts) OnlyStrategy(name string) {
	for i := range f.Fleets {
		ff := &f.Fleets[i]
		var kept []StrategyFacts
		for _, s := range ff.Strategies {
			if name != "" && strings.EqualFold(s.Name, name) {
				kept = append(kept, s)
			}
		}
		ff.Strategies = kept
		ff.StrategiesRead = ff.StrategiesRead && len(kept) > 0
	}
}

// movedStrategies names each strategy of planned whose stages changed or that is gone now.
func movedStrategies(planned, now FleetFacts) []string {
	if !planned.StrategiesRead || !now.StrategiesRead {
		return nil
	}
	var out []string
	for _, b := range planned.Strategies {
		found := false
		for _, a := range now.Strategies {
			if !strings.EqualFold(a.Name, b.Name) {
				continue
			}
			found = true
			if bt, at := stagesText(b.Strategy), stagesText(a.Strategy); bt != at {
				out = append(out, fmt.Sprintf("update strategy %s: stages %s → %s", b.Name, bt, at))
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("update strategy %s: deleted", b.Name))
		}
	}
	return out
}

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
