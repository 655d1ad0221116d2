// Package scenarios holds more acceptance tests of fleet_update_run against a
// local fleet of its own (testdata/fleet.yaml, 10 simulated hours per real
// second), each test on update groups of its own: skip, stop and start,
// approval gates, destroy while running, request count while waiting, a
// cancelled apply, transient Fleet API faults, maintenance-window order and
// Pending, Consistent node images.
package scenarios

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

func TestMain(m *testing.M) {
	acctest.MainPollingFast(m, "internal/provider/rolloutacc/scenarios/testdata/fleet.yaml")
}

const pollInterval = time.Second

// The fleet of testdata/fleet.yaml.
var fleet = fleetapi.FleetID{SubscriptionID: "00000000-0000-0000-0000-000000000004", ResourceGroupName: "rg-scenarios", Name: "scenarios"}

// runGone is a CheckDestroy: the run is not in the fleet any more.
func runGone(t *testing.T, name string) func(*terraform.State) error {
	return func(*terraform.State) error {
		_, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, name)
		if !fleetapi.IsNotFound(err) {
			return fmt.Errorf("update run %s still exists after destroy (err %v)", name, err)
		}
		return nil
	}
}

// runsNamed counts the fleet's update runs with that name prefix.
func runsNamed(t *testing.T, prefix string) ([]string, error) {
	runs, err := acctest.FleetAPI(t).ListUpdateRuns(context.Background(), fleet)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range runs {
		if strings.HasPrefix(r.Name, prefix) {
			out = append(out, r.Name)
		}
	}
	return out, nil
}

// oneRunNamed says, unless the fleet has exactly one update run named prefix…, what it has.
func oneRunNamed(t *testing.T, prefix string) error {
	names, err := runsNamed(t, prefix)
	if err != nil {
		return err
	}
	if len(names) != 1 {
		return fmt.Errorf("want exactly one run %s, got %v", prefix, names)
	}
	return nil
}

func runStateOf(t *testing.T, name string) string {
	r, err := acctest.FleetAPI(t).GetUpdateRun(context.Background(), fleet, name)
	if err != nil || r.Properties == nil || r.Properties.Status == nil || r.Properties.Status.Status == nil {
		return fmt.Sprint(err)
	}
	return string(r.Properties.Status.Status.State)
}

// memberStatusIs is a state check of a member's status attribute found by the
// member's name in status.stages[stage].groups[group].members: the Fleet API
// documents no order of a group's member statuses, so tests do not rely on one.
//
//nolint:unparam // stage is part of the path; the scenarios so far look at the first.
func memberStatusIs(stage, group int, member, attr string, want *regexp.Regexp) statecheck.StateCheck {
	return memberStatusCheck{res: runAddress, stage: stage, group: group, member: member, attr: attr, want: want}
}

type memberStatusCheck struct {
	res, member, attr string
	stage, group      int
	want              *regexp.Regexp
}

func (c memberStatusCheck) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("no state")
		return
	}
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address != c.res {
			continue
		}
		members := acctest.Dig(r.AttributeValues["status"], "stages", c.stage, "groups", c.group, "members")
		list, _ := members.([]any)
		for _, m := range list {
			mm, _ := m.(map[string]any)
			if mm["name"] != c.member {
				continue
			}
			got, _ := mm[c.attr].(string)
			if !c.want.MatchString(got) {
				resp.Error = fmt.Errorf("%s: member %s %s = %q, want match %s", c.res, c.member, c.attr, got, c.want)
			}
			return
		}
		resp.Error = fmt.Errorf("%s: no member %s in status stage %d group %d (%v)", c.res, c.member, c.stage, c.group, members)
		return
	}
	resp.Error = fmt.Errorf("no resource %s in state", c.res)
}

func exactly(s string) *regexp.Regexp { return regexp.MustCompile("^" + regexp.QuoteMeta(s) + "$") }
