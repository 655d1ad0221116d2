package staged_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// Every constraint of KubeFleet v0.18.9's staged update strategy CRDs (apis/placement/v1/
// stageupdate_types.go markers) and of its controller's validateBeforeStageTask and
// validateAfterStageTask fails at validate or plan, at the path of the offending element.
func TestAccStagedUpdateStrategyInvalidInputs(t *testing.T) {
	stages := func(body string) string {
		return acctest.ProviderConfig + fmt.Sprintf(`
resource "fleet_staged_update_strategy" "bad" {
  name   = "bad"
  stages = %s
}
`, body)
	}
	many := "["
	for i := range 32 {
		many += fmt.Sprintf(`{ name = "s%d" },`, i)
	}
	many += "]"
	cases := []struct{ name, body, want string }{
		{"stage name pattern", `[{ name = "Canary_1" }]`, `stages\[0\]\.name .*lowercase letters and digits`},
		{"stage name length", fmt.Sprintf(`[{ name = "%s" }]`, longName(64)), `stages\[0\]\.name string length must be between 1 and 63`},
		{"more than 31 stages", many, `stages list must contain at least 1 elements and at most 31 elements`},
		{"duplicate stage", `[{ name = "a" }, { name = "a" }]`, `stages\[1\]\.name: stage "a" is already the name of stages\[0\]`},
		{"three tasks", `[{ name = "a", after_stage_tasks = [{ type = "Approval" }, { type = "TimedWait", wait_time = "1m" }, { type = "Approval" }] }]`,
			`stages\[0\]\.after_stage_tasks list must contain at least 1 elements and at most 2 elements`},
		{"two of a type", `[{ name = "a", after_stage_tasks = [{ type = "Approval" }, { type = "Approval" }] }]`,
			`stages\[0\]\.after_stage_tasks\[1\]\.type: stages\[0\] already has a Approval task`},
		{"unknown task type", `[{ name = "a", after_stage_tasks = [{ type = "Manual" }] }]`, `stages\[0\]\.after_stage_tasks\[0\]\.type value must be one of`},
		{"wait time pattern", `[{ name = "a", after_stage_tasks = [{ type = "TimedWait", wait_time = "1d" }] }]`,
			`stages\[0\]\.after_stage_tasks\[0\]\.wait_time: "1d" does not match KubeFleet's pattern`},
		{"zero wait", `[{ name = "a", after_stage_tasks = [{ type = "TimedWait", wait_time = "0s" }] }]`,
			`stages\[0\]\.after_stage_tasks\[0\]\.wait_time: "0s": a TimedWait must wait longer than zero`},
		{"wait without time", `[{ name = "a", after_stage_tasks = [{ type = "TimedWait" }] }]`, `stages\[0\]\.after_stage_tasks\[0\]\.wait_time is required for a TimedWait task`},
		{"wait time on approval", `[{ name = "a", after_stage_tasks = [{ type = "Approval", wait_time = "1m" }] }]`,
			`stages\[0\]\.after_stage_tasks\[0\]\.wait_time applies to TimedWait tasks only`},
		{"bad selector", `[{ name = "a", label_selector = { match_expressions = [{ key = "env", operator = "In" }] } }]`,
			`stages\[0\]\.label_selector: values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty`},
		{"bad sorting key", `[{ name = "a", sorting_label_key = "not a key" }]`, `stages\[0\]\.sorting_label_key: "not a key" is not a label key`},
		{"max_concurrency 0", `[{ name = "a", max_concurrency = "0" }]`, `stages\[0\]\.max_concurrency must be a count of at least 1`},
		{"max_concurrency 0%", `[{ name = "a", max_concurrency = "0%" }]`, `stages\[0\]\.max_concurrency must be a count of at least 1`},
		{"max_concurrency 101%", `[{ name = "a", max_concurrency = "101%" }]`, `stages\[0\]\.max_concurrency must be a count of at least 1`},
		{"max_concurrency not a number", `[{ name = "a", max_concurrency = "two" }]`, `stages\[0\]\.max_concurrency must be a count of at least 1`},
		{"before-stage wait", `[{ name = "a", before_stage_tasks = [{ type = "TimedWait" }] }]`, `stages\[0\]\.before_stage_tasks\[0\]\.type value must be one of`},
		{"two before-stage tasks", `[{ name = "a", before_stage_tasks = [{ type = "Approval" }, { type = "Approval" }] }]`,
			`stages\[0\]\.before_stage_tasks list must contain at least 1 elements and at most 1 elements`},
		{"namespace", `[{ name = "a" }]
  namespace = "Team_A"`, `namespace must be a namespace name`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: stages(tc.body), PlanOnly: true, ExpectError: acctest.WrappedRegexp(tc.want)}},
			})
		})
	}
	t.Run("run", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			Steps: []resource.TestStep{
				{Config: acctest.ProviderConfig + `
resource "fleet_staged_update_run" "bad" {
  name                        = "Bad"
  placement_name              = "p"
  staged_update_strategy_name = "s"
  resource_snapshot_index     = "-1"
  approvals                   = ["Prod", "during:prod"]
  state                       = "Pause"
}
`, PlanOnly: true, ExpectError: acctest.WrappedRegexp(`(?s)name.*must be a DNS subdomain.*resource_snapshot_index.*an integer >= 0.*"Prod" is not a stage name.*"during:prod" is not a stage name.*state value must be one of`)},
			},
		})
	})
}

func longName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}
