package staged_test

import (
	"fmt"
	"strings"
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
  name = "bad"
  %s
}
`, body)
	}
	// stage is a stage block named name with the further lines.
	stage := func(name string, lines ...string) string {
		return fmt.Sprintf("stage {\n    name = %q\n    %s\n  }\n  ", name, strings.Join(lines, "\n    "))
	}
	task := func(kind, typ string, waitTime ...string) string {
		b := fmt.Sprintf("%s {\n      type = %q\n", kind, typ)
		for _, w := range waitTime {
			b += fmt.Sprintf("      wait_time = %q\n", w)
		}
		return b + "    }"
	}
	after := func(typ string, waitTime ...string) string { return task("after_stage_task", typ, waitTime...) }
	before := func(typ string) string { return task("before_stage_task", typ) }
	many := ""
	for i := range 32 {
		many += stage(fmt.Sprintf("s%d", i))
	}
	cases := []struct{ name, body, want string }{
		{"stage name pattern", stage("Canary_1"), `stage\[0\]\.name .*lowercase letters and digits`},
		{"stage name length", stage(longName(64)), `stage\[0\]\.name string length must be between 1 and 63`},
		{"no stage", "", `(?s)stage.*must have a configuration value`},
		{"more than 31 stages", many, `stage list must contain at least 1 elements and at most 31 elements`},
		{"duplicate stage", stage("a") + stage("a"), `stage\[1\]\.name: stage "a" is already the name of stage\[0\]`},
		{"three tasks", stage("a", after("Approval"), after("TimedWait", "1m"), after("Approval")),
			`stage\[0\]\.after_stage_task list must contain at least 1 elements and at most 2 elements`},
		{"two of a type", stage("a", after("Approval"), after("Approval")),
			`stage\[0\]\.after_stage_task\[1\]\.type: stage\[0\] already has a Approval task`},
		{"unknown task type", stage("a", after("Manual")), `stage\[0\]\.after_stage_task\[0\]\.type value must be one of`},
		{"wait time pattern", stage("a", after("TimedWait", "1d")),
			`stage\[0\]\.after_stage_task\[0\]\.wait_time: "1d" does not match KubeFleet's pattern`},
		{"zero wait", stage("a", after("TimedWait", "0s")),
			`stage\[0\]\.after_stage_task\[0\]\.wait_time: "0s": a TimedWait must wait longer than zero`},
		{"wait without time", stage("a", after("TimedWait")), `stage\[0\]\.after_stage_task\[0\]\.wait_time is required for a TimedWait task`},
		{"wait time on approval", stage("a", after("Approval", "1m")),
			`stage\[0\]\.after_stage_task\[0\]\.wait_time applies to TimedWait tasks only`},
		{"bad selector", stage("a", "label_selector {\n      match_expression {\n        key      = \"env\"\n        operator = \"In\"\n      }\n    }"),
			`stage\[0\]\.label_selector: values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty`},
		{"unknown selector argument", stage("a", "label_selector {\n      match_expressions = []\n    }"),
			`(?s)Unsupported argument.*"match_expressions" is not expected here`},
		{"bad sorting key", stage("a", `sorting_label_key = "not a key"`), `stage\[0\]\.sorting_label_key: "not a key" is not a label key`},
		{"max_concurrency 0", stage("a", `max_concurrency = "0"`), `stage\[0\]\.max_concurrency must be a count of at least 1`},
		{"max_concurrency 0%", stage("a", `max_concurrency = "0%"`), `stage\[0\]\.max_concurrency must be a count of at least 1`},
		{"max_concurrency 101%", stage("a", `max_concurrency = "101%"`), `stage\[0\]\.max_concurrency must be a count of at least 1`},
		{"max_concurrency not a number", stage("a", `max_concurrency = "two"`), `stage\[0\]\.max_concurrency must be a count of at least 1`},
		{"before-stage wait", stage("a", before("TimedWait")), `stage\[0\]\.before_stage_task\[0\]\.type value must be one of`},
		{"two before-stage tasks", stage("a", before("Approval"), before("Approval")),
			`stage\[0\]\.before_stage_task list must contain at least 1 elements and at most 1 elements`},
		{"namespace", stage("a") + `namespace = "Team_A"`, `namespace must be a namespace name`},
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
