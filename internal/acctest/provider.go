package acctest

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// ProviderConfig is a provider block that configures nothing: the local fleet's environment does.
const ProviderConfig = "provider \"fleet\" {}\n"

// MembersConfig reads every member of the fleet (data.fleet_members.all) and configures nothing.
const MembersConfig = ProviderConfig + "data \"fleet_members\" \"all\" {}\n"

// FactsRolloutConfig is what the saved-plan tests plan with the fleet's facts read at plan
// (data.fleet_facts.at_plan): an update strategy <prefix>-rings (stage blocks canary and prod), a
// NotStarted update run <prefix>-run of its stages to Kubernetes 1.33.1, and an auto-upgrade profile on
// channel (<prefix>-<channel in lower case>, so addressed too), each with the attribute line facts.
func FactsRolloutConfig(prefix, channel, facts string) string {
	profile := strings.ToLower(channel)
	return fmt.Sprintf(`
data "fleet_facts" "at_plan" {}

resource "fleet_update_strategy" "rings" {
  name = "%[1]s-rings"
  stage {
    name = "canary"
    group { name = "canary" }
  }
  stage {
    name = "prod"
    group { name = "prod" }
  }
  %[4]s
}

resource "fleet_update_run" "to_1_33" {
  name = "%[1]s-run"
`+StagesOf("fleet_update_strategy.rings")+`
  managed_cluster_update {
    upgrade {
      type               = "Full"
      kubernetes_version = "1.33.1"
    }
  }
  state = "NotStarted"
  %[4]s
}

resource "fleet_auto_upgrade_profile" %[3]q {
  name               = "%[1]s-%[3]s"
  channel            = %[2]q
  update_strategy_id = fleet_update_strategy.rings.id
  %[4]s
}
`, prefix, channel, profile, facts)
}

// WrappedRegexp matches a pattern in Terraform's diagnostics, which wrap long lines: every space in
// the pattern matches any run of white space.
func WrappedRegexp(pattern string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(strings.ReplaceAll(pattern, `\s+`, " "), " ", `\s+`))
}

// MemberAt is the path of the i-th member of a fleet_members data source.
func MemberAt(i int) tfjsonpath.Path { return tfjsonpath.New("members").AtSliceIndex(i) }

// ProtoV6ProviderFactories serve the provider in-process, configured like a
// user's: only the environment the local fleet exported.
var ProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"fleet": provider.NewServer("test"),
}

// ExampleFleetID is a fleet's ARM ID for tests that reach no fleet.
const ExampleFleetID = "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg-fleet/providers/Microsoft.ContainerService/fleets/demo"

// MoveState drives the provider server's MoveResourceState RPC as Terraform
// does for a `moved` block from sourceType (azurerm) to targetType, with the
// source state as azurerm's typed SDK writes it, and decodes the result into
// model.
func MoveState(t *testing.T, address, sourceType, targetType string, r fwresource.Resource, sourceJSON string, model any) []*tfprotov6.Diagnostic {
	t.Helper()
	ctx := context.Background()
	srv, err := provider.NewServer("test")()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.MoveResourceState(ctx, &tfprotov6.MoveResourceStateRequest{
		SourceProviderAddress: address, SourceTypeName: sourceType, SourceSchemaVersion: 0,
		SourceState: &tfprotov6.RawState{JSON: []byte(sourceJSON)}, TargetTypeName: targetType,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return resp.Diagnostics
		}
	}
	var sresp fwresource.SchemaResponse
	r.Schema(ctx, fwresource.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx)
	raw, err := resp.TargetState.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if d := (tfsdk.State{Schema: sresp.Schema, Raw: raw}).Get(ctx, model); d.HasError() {
		t.Fatal(d)
	}
	return resp.Diagnostics
}

// Path is a path into a resource's attributes: root, then a map key for each
// string and a list index for each int (`Path("preview", "members", 0)`).
func Path(root string, steps ...any) tfjsonpath.Path {
	p := tfjsonpath.New(root)
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			p = p.AtMapKey(s)
		case int:
			p = p.AtSliceIndex(s)
		}
	}
	return p
}

// StagesOf is the stage blocks of an update run that copy those of the update strategy at address
// strategy, gates and concurrency included: a run's stages written from a strategy created in the
// same configuration, so that the run's preview is known at plan (with update_strategy_id it is not
// until the strategy exists).
func StagesOf(strategy string) string {
	return `
  dynamic "stage" {
    for_each = ` + strategy + `.stage
    content {
      name                        = stage.value.name
      max_concurrency             = stage.value.max_concurrency
      after_stage_wait_in_seconds = stage.value.after_stage_wait_in_seconds
      dynamic "before_gate" {
        for_each = stage.value.before_gate == null ? [] : stage.value.before_gate
        content {
          type         = before_gate.value.type
          display_name = before_gate.value.display_name
        }
      }
      dynamic "after_gate" {
        for_each = stage.value.after_gate == null ? [] : stage.value.after_gate
        content {
          type         = after_gate.value.type
          display_name = after_gate.value.display_name
        }
      }
      dynamic "group" {
        for_each = stage.value.group
        content {
          name            = group.value.name
          max_concurrency = group.value.max_concurrency
          dynamic "before_gate" {
            for_each = group.value.before_gate == null ? [] : group.value.before_gate
            content {
              type         = before_gate.value.type
              display_name = before_gate.value.display_name
            }
          }
          dynamic "after_gate" {
            for_each = group.value.after_gate == null ? [] : group.value.after_gate
            content {
              type         = after_gate.value.type
              display_name = after_gate.value.display_name
            }
          }
        }
      }
    }
  }
`
}
