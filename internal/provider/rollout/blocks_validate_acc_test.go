package rollout_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
)

// The nested configuration is blocks (issue 35): Terraform refuses what a block does not have, by
// name, where a nested attribute's object silently dropped it; the stages' rules report at the
// blocks' paths; and optional blocks may be left out.
func TestAccRolloutBlocksValidate(t *testing.T) {
	run := func(body string) string {
		return acctest.ProviderConfig + `
resource "fleet_update_run" "r" {
  name = "blocks"
` + body + `
}
`
	}
	const mcu = `
  managed_cluster_update {
    upgrade {
      type = "NodeImageOnly"
    }
  }`
	cases := []struct{ name, config, want string }{
		{"unknown argument in a stage", run(mcu + `
  stage {
    name   = "a"
    groups = [{ name = "g" }]
    group {
      name = "g"
    }
  }`), `(?s)Unsupported argument.*An argument named "groups" is not expected here`},
		{"unknown block in a group", run(mcu + `
  stage {
    name = "a"
    group {
      name = "g"
      rolling_update {
        max_surge = 1
      }
    }
  }`), `(?s)Unsupported block type.*Blocks of type "rolling_update" are not expected here`},
		{"stage without group", run(mcu + `
  stage {
    name = "a"
  }`), `(?s)Missing group.*At stage\[0\]\.group: A stage needs at least one group block, or a\s+member_selector`},
		{"group in two stages", run(mcu + `
  stage {
    name = "a"
    group {
      name = "g1"
    }
  }
  stage {
    name = "b"
    group {
      name = "g2"
    }
    group {
      name = "g1"
    }
  }`), `(?s)stage\[1\]\.group\[1\]\.name.*Group "g1" is already in stage "a"`},
		{"stages and a strategy", run(mcu + `
  update_strategy_id = "` + acctest.ExampleFleetID + `/updateStrategies/rings"
  stage {
    name = "a"
    group {
      name = "g"
    }
  }`), `Set update_strategy_id or stage blocks, not both`},
		{"no managed_cluster_update", run(``), `Block managed_cluster_update must have a configuration value`},
		{"upgrade without type", run(`
  managed_cluster_update {
    upgrade {
      kubernetes_version = "1.33.1"
    }
  }`), `(?s)managed_cluster_update\.upgrade\.type.*must be specified`},
		{"node image selection without type", run(`
  managed_cluster_update {
    upgrade {
      type = "NodeImageOnly"
    }
    node_image_selection {
      custom_versions = ["AKSUbuntu-2204gen2containerd-202511.04.0"]
    }
  }`), `(?s)managed_cluster_update\.node_image_selection\.type.*must be specified`},
		{"strategy without stage", acctest.ProviderConfig + `
resource "fleet_update_strategy" "s" {
  name = "s"
}
`, `Block stage must have a configuration value`},
		{"skip action without target", acctest.ProviderConfig + `
action "fleet_update_run_skip" "s" {
  config {
    update_run = "r"
  }
}
`, `Block target must have a configuration value`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: tc.config, PlanOnly: true, ExpectError: acctest.WrappedRegexp(tc.want)}},
			})
		})
	}
	// The optional blocks (node_image_selection, stage, skip, approval) left out: the plan is fine.
	t.Run("optional blocks left out", func(t *testing.T) {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
			Steps:                    []resource.TestStep{{Config: run(mcu + "\n  state = \"NotStarted\""), PlanOnly: true, ExpectNonEmptyPlan: true}},
		})
	})
}
